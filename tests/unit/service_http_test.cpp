// flowagentd over real loopback HTTP: authentication, strict parsing with field paths, limits and
// slow clients, idempotency, supersede, cancel, Server-Sent Events with resume, delivery of fixed
// results only, metrics and graceful shutdown. The queue tests plug a gated runner into the
// service's runner slot; the end-to-end test runs the library's pipeline on a real repository.
#include <gtest/gtest.h>

#include <condition_variable>
#include <csignal>
#include <thread>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "service/service.hpp"
#include "support/http_client.hpp"
#include "support/http_server.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::service;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

const std::string kAdmin = "tok-admin-0123456789", kCi = "tok-ci-0123456789", kRead = "tok-read-0123456789";

TokenStore test_tokens(const std::string& ci_extra = "max_jobs=50") {
  auto t = TokenStore::parse(token_hash_line(kAdmin) + " ops admin\n" + token_hash_line(kCi) + " ci submit,read " +
                             ci_extra + "\n# comment\n" + token_hash_line(kRead) + " dashboard read\n");
  EXPECT_TRUE(t) << t.error().message;
  return *t;
}

/// A runner that reports one tool call and waits until released or cancelled.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  std::atomic<int> started{0};
  std::vector<std::string> ran;
  Runner runner() {
    return [this](const RepairRequest& r, const CancelToken& c, const std::function<bool()>&,
                  const std::function<void(const Event&)>& emit) {
      {
        std::lock_guard l(mu);
        ran.push_back(r.change.id + "@" + std::to_string(r.change.revision));
      }
      started++;
      Event e;
      e.kind = EventKind::tool_call;
      e.change_id = r.change.id;
      e.revision = r.change.revision;
      e.phase = "repair";
      e.index = 1;
      e.max = 10;
      e.eta_ms = 500;
      emit(e);
      std::unique_lock l(mu);
      while (!open && !c.cancelled()) cv.wait_for(l, 5ms);
      RepairResult res = noop_result(r);
      if (c.cancelled()) {
        res.status = Status::error;
        res.reason = "cancelled";
      }
      return res;
    };
  }
  void release() {
    {
      std::lock_guard l(mu);
      open = true;
    }
    cv.notify_all();
  }
};

struct Fixture {
  TempDir tmp;
  fs::path repos = tmp.path() / "repos";
  Gate gate;
  std::unique_ptr<Service> svc;
  explicit Fixture(const std::function<void(ServiceOptions&)>& tweak = {}) {
    fs::create_directories(repos / "repo");
    ServiceOptions o;
    o.port = 0;
    o.repos_root = repos;
    o.tokens = test_tokens();
    o.workers = 1;
    o.runner = gate.runner();
    o.read_timeout = 2s;
    o.drain_timeout = 5s;
    if (tweak) tweak(o);
    auto s = Service::start(std::move(o));
    EXPECT_TRUE(s) << s.error().message;
    svc = std::move(*s);
  }
  unsigned short port() const { return svc->port(); }
  HttpReply post(const std::string& body, const std::string& token = kCi) {
    return http_call(port(), "POST", "/v1/repairs", token, body);
  }
  HttpReply get(const std::string& target, const std::string& token = kRead) { return http_call(port(), "GET", target, token); }
  Json job(const std::string& id) {
    auto r = get("/v1/repairs/" + id);
    auto j = parse_json(r.body);
    return j ? *j : Json();
  }
  /// Polls until the job is done; returns its document.
  Json wait_done(const std::string& id, std::chrono::milliseconds timeout = 10s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    Json j;
    while (std::chrono::steady_clock::now() < until) {
      j = job(id);
      if (j.get_string("state") == "done") return j;
      std::this_thread::sleep_for(5ms);
    }
    return j;
  }
};

std::string request_body(const std::string& change = "c1", std::int64_t rev = 1, const std::string& repo = "repo") {
  auto r = sample_request(repo, change, rev);
  return dump_json_lossy(to_json(r));
}

std::string submit_id(const HttpReply& r) {
  auto j = parse_json(r.body);
  return j ? j->get_string("id") : "";
}

std::string error_field(const HttpReply& r) {
  auto j = parse_json(r.body);
  if (!j || !j->find("error")) return "<no error>";
  return j->find("error")->get_string("field");
}

double metric(const std::string& text, const std::string& series) {
  auto pos = text.find("\n" + series + " ");
  if (pos == std::string::npos) return -1;
  return std::strtod(text.c_str() + pos + series.size() + 2, nullptr);
}

}  // namespace

TEST(ServiceAuth, TokensScopesAndHashes) {
  Fixture f;
  auto none = f.post(request_body(), "");
  EXPECT_EQ(none.status, 401);
  EXPECT_NE(none.header("www-authenticate").find("Bearer"), std::string::npos);
  EXPECT_EQ(f.post(request_body(), "wrong-token").status, 401);
  EXPECT_EQ(f.post(request_body(), kCi.substr(0, kCi.size() - 1)).status, 401);  // a prefix is not the token
  EXPECT_EQ(f.post(request_body(), kRead).status, 403);                          // read cannot submit
  EXPECT_EQ(f.get("/v1/repairs", "").status, 401);
  EXPECT_EQ(f.get("/v1/repairs", kRead).status, 200);
  EXPECT_EQ(f.get("/metrics", "").status, 401);
  EXPECT_EQ(f.get("/metrics", kRead).status, 200);
  EXPECT_EQ(f.get("/healthz", "").status, 200);
  EXPECT_EQ(f.get("/readyz", "").status, 200);
  // Only hashes: the file format refuses anything else, and the token text is never stored.
  EXPECT_FALSE(TokenStore::parse(kAdmin + " ops admin\n"));
  EXPECT_FALSE(TokenStore::parse(token_hash_line(kAdmin) + " ops root\n"));
  auto t = test_tokens();
  ASSERT_NE(t.verify(kAdmin), nullptr);
  EXPECT_EQ(t.verify(kAdmin)->name, "ops");
  EXPECT_EQ(t.verify(""), nullptr);
  // Cancel: only the submitting token or an admin.
  auto sub = f.post(request_body("own", 1));
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = submit_id(sub);
  EXPECT_EQ(http_call(f.port(), "POST", "/v1/repairs/" + id + ":cancel", kRead).status, 403);
  EXPECT_EQ(http_call(f.port(), "POST", "/v1/repairs/" + id + ":cancel", kAdmin).status, 202);
  EXPECT_EQ(f.wait_done(id).find("result")->get_string("reason"), "cancelled");
}

TEST(ServiceRequests, StrictParsingNamesTheField) {
  Fixture f;
  auto bad_json = f.post("{\"schema\": ");
  EXPECT_EQ(bad_json.status, 400);
  EXPECT_EQ(error_field(bad_json), "$");
  auto doc = to_json(sample_request("repo"));
  doc["change"]["revision"] = "two";
  auto r = f.post(dump_json_lossy(doc));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_field(r), "change.revision") << r.body;
  doc = to_json(sample_request("repo"));
  doc["limits"]["surprise"] = 1;
  r = f.post(dump_json_lossy(doc));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(error_field(r), "limits.surprise") << r.body;
  doc = to_json(sample_request("repo"));
  doc["schema"] = "flowagent.repair_request/v9";
  EXPECT_EQ(error_field(f.post(dump_json_lossy(doc))), "schema");
  // Paths: only under the repository root, symbolic links resolved.
  EXPECT_EQ(error_field(f.post(request_body("c", 1, "/etc"))), "repository");
  EXPECT_EQ(error_field(f.post(request_body("c", 1, "../../"))), "repository");
  fs::create_directory_symlink("/usr", f.repos / "escape");
  EXPECT_EQ(error_field(f.post(request_body("c", 1, "escape"))), "repository");
  auto req = sample_request("repo");
  req.failure.logs = {"ci.log", "/etc/passwd"};
  EXPECT_EQ(error_field(f.post(dump_json_lossy(to_json(req)))), "failure.logs[1]");
  req = sample_request("repo");
  req.failure.reports = {"../../../etc/shadow"};
  EXPECT_EQ(error_field(f.post(dump_json_lossy(to_json(req)))), "failure.reports[0]");
  // A request may not send the service's key to another host.
  req = sample_request("repo");
  req.model.base_url = "http://attacker.example/v1";
  EXPECT_EQ(error_field(f.post(dump_json_lossy(to_json(req)))), "model.base_url");
  req = sample_request("repo");
  req.model.api_key_env = "AWS_SECRET_ACCESS_KEY";
  EXPECT_EQ(error_field(f.post(dump_json_lossy(to_json(req)))), "model.api_key_env");
  // Test ids are data.
  req = sample_request("repo");
  req.failure.failing_tests = {"--collect-only"};
  auto opt = f.post(dump_json_lossy(to_json(req)));
  EXPECT_EQ(opt.status, 400);
  EXPECT_NE(error_field(opt).find("failure.failing_tests"), std::string::npos) << opt.body;
  EXPECT_EQ(f.gate.started.load(), 0);  // nothing was queued
}

TEST(ServiceLimits, OversizedAndSlowRequests) {
  Fixture f([](ServiceOptions& o) {
    o.max_body_bytes = 4096;
    o.max_header_bytes = 2048;
    o.read_timeout = 300ms;
  });
  std::string big(8192, ' ');
  auto r = f.post(big);
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(error_field(r), "$");
  // Chunked without a length: the limit holds while reading.
  std::string chunked = "POST /v1/repairs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kCi +
                        "\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 5; ++i) chunked += "400\r\n" + std::string(1024, ' ') + "\r\n";
  chunked += "0\r\n\r\n";
  EXPECT_NE(raw_exchange(f.port(), chunked, 3s).find("413"), std::string::npos);
  auto huge_header = http_call(f.port(), "GET", "/healthz", "", "", {{"X-Filler", std::string(4000, 'a')}});
  EXPECT_EQ(huge_header.status, 431);
  // A client that trickles its header is cut off after the read timeout.
  bool closed = false;
  const auto t0 = std::chrono::steady_clock::now();
  auto out = raw_exchange(f.port(), "GET /healthz HTTP/1.1\r\nHost: x\r\n", 5s, &closed);
  const auto waited = std::chrono::steady_clock::now() - t0;
  EXPECT_TRUE(closed);
  EXPECT_EQ(out.find("200"), std::string::npos);
  EXPECT_LT(waited, 2s);
  EXPECT_GE(waited, 250ms);
  // Unauthenticated bodies are never read.
  std::string unauth = "POST /v1/repairs HTTP/1.1\r\nHost: x\r\nContent-Length: 3000\r\n\r\n";  // body never sent
  EXPECT_NE(raw_exchange(f.port(), unauth, 3s).find("401"), std::string::npos);
  EXPECT_EQ(f.get("/healthz").status, 200);  // still serving
}

TEST(ServiceLimits, PerTokenJobAndRequestLimits) {
  Fixture f([](ServiceOptions& o) { o.tokens = test_tokens("max_jobs=2 max_inflight=1"); });
  EXPECT_EQ(f.post(request_body("a", 1)).status, 202);
  EXPECT_EQ(f.post(request_body("b", 1)).status, 202);
  auto third = f.post(request_body("c", 1));
  EXPECT_EQ(third.status, 429);
  EXPECT_FALSE(third.header("retry-after").empty());
  EXPECT_EQ(f.post(request_body("c", 1), kAdmin).status, 202);  // other tokens are not affected
  // One event stream in flight uses the ci token's only slot.
  std::thread stream([&] {
    raw_exchange(f.port(), "GET /v1/repairs/" + job_id("a", 1) + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kCi + "\r\n\r\n",
                 800ms);
  });
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(f.get("/v1/repairs", kCi).status, 429);
  stream.join();
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(f.get("/v1/repairs", kCi).status, 200);
  f.gate.release();
}

TEST(ServiceJobs, IdempotentSupersedeAndCancel) {
  Fixture f;
  auto a = f.post(request_body("chg", 1));
  ASSERT_EQ(a.status, 202) << a.body;
  const std::string id1 = submit_id(a);
  EXPECT_EQ(a.header("location"), "/v1/repairs/" + id1);
  EXPECT_EQ(id1, job_id("chg", 1));
  auto again = f.post(request_body("chg", 1));
  EXPECT_EQ(again.status, 202);
  EXPECT_EQ(submit_id(again), id1);
  EXPECT_TRUE(parse_json(again.body)->get_bool("existing"));
  // Wait until revision 1 runs, then revision 2 supersedes it wherever it is.
  for (int i = 0; i < 400 && f.gate.started.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(f.gate.started.load(), 1);
  auto b = f.post(request_body("chg", 2));
  const std::string id2 = submit_id(b);
  auto r1 = f.wait_done(id1);
  EXPECT_EQ(r1.find("result")->get_string("status"), "superseded") << dump_json_lossy(r1);
  // Revision 3 supersedes 2 while 2 still waits in the queue; an older revision ends at once.
  for (int i = 0; i < 400 && f.gate.started.load() < 2; ++i) std::this_thread::sleep_for(5ms);
  auto other = f.post(request_body("other", 1));  // queued behind chg@2
  auto c = f.post(request_body("chg", 3));
  auto r2 = f.wait_done(id2);
  EXPECT_EQ(r2.find("result")->get_string("status"), "superseded");
  auto stale = f.post(request_body("chg", 2));
  EXPECT_EQ(submit_id(stale), id2);  // the same revision is still the same job
  auto older = f.post(request_body("chg", 0));
  EXPECT_EQ(f.wait_done(submit_id(older)).find("result")->get_string("status"), "superseded");
  // Cancel a queued job and a running one.
  auto cq = http_call(f.port(), "POST", "/v1/repairs/" + submit_id(other) + ":cancel", kCi);
  EXPECT_EQ(cq.status, 202) << cq.body;
  EXPECT_EQ(f.wait_done(submit_id(other)).find("result")->get_string("reason"), "cancelled");
  const std::string id3 = submit_id(c);
  for (int i = 0; i < 400 && f.job(id3).get_string("state") != "running"; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(http_call(f.port(), "POST", "/v1/repairs/" + id3 + ":cancel", kCi).status, 202);
  EXPECT_EQ(f.wait_done(id3).find("result")->get_string("reason"), "cancelled");
  EXPECT_EQ(http_call(f.port(), "POST", "/v1/repairs/" + id3 + ":cancel", kCi).status, 409);  // already done
  EXPECT_EQ(http_call(f.port(), "POST", "/v1/repairs/nope:cancel", kCi).status, 404);
  // The queue never ran a superseded or cancelled job after the fact.
  std::lock_guard l(f.gate.mu);
  auto ran = f.gate.ran;  // "other" may have started before its cancel arrived; chg@0 never runs
  std::erase(ran, "other@1");
  EXPECT_EQ(ran, (std::vector<std::string>{"chg@1", "chg@2", "chg@3"}));
  auto m = f.svc->metrics_text();
  EXPECT_EQ(metric(m, "flowagent_notifications_total"), 5);  // chg@1,2,3, other, chg@0; resubmissions excluded
  EXPECT_EQ(metric(m, "flowagent_superseded_total"), 3);
  EXPECT_EQ(metric(m, "flowagent_errors_total{reason=\"cancelled\"}"), 2);
}

TEST(ServiceEvents, StreamAndResumeWithLastEventId) {
  Fixture f;
  const std::string id = submit_id(f.post(request_body("ev", 1)));
  const std::string head = "GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kRead + "\r\n";
  // Live: the stream shows the queued and running states and the tool call before the job ends.
  std::string live;
  std::thread reader([&] { live = raw_exchange(f.port(), head + "\r\n", 5s, nullptr, 0, "event: done"); });
  for (int i = 0; i < 400 && f.gate.started.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(100ms);
  f.gate.release();
  reader.join();
  EXPECT_NE(live.find("Content-Type: text/event-stream"), std::string::npos) << live;
  const auto q = live.find("id: 1\nevent: state\ndata: {\"state\":\"queued\"}");
  const auto run = live.find("id: 2\nevent: state\ndata: {\"state\":\"running\"}");
  const auto tool = live.find("id: 3\nevent: tool_call\n");
  const auto done = live.find("id: 4\nevent: done\n");
  EXPECT_NE(q, std::string::npos) << live;
  EXPECT_LT(q, run);
  EXPECT_LT(run, tool);
  EXPECT_LT(tool, done);
  EXPECT_NE(done, std::string::npos);
  EXPECT_NE(live.find("\"max\":10"), std::string::npos);
  EXPECT_NE(live.find("\"eta_ms\":500"), std::string::npos);
  // Resume after event 2: the stream starts at 3 and ends when the job is done.
  bool closed = false;
  auto resumed = raw_exchange(f.port(), head + "Last-Event-ID: 2\r\n\r\n", 5s, &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(resumed.find("id: 2\n"), std::string::npos) << resumed;
  EXPECT_NE(resumed.find("id: 3\nevent: tool_call"), std::string::npos) << resumed;
  EXPECT_NE(resumed.find("id: 4\nevent: done"), std::string::npos);
  EXPECT_NE(raw_exchange(f.port(), "GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\n\r\n", 2s).find("401"),
            std::string::npos);
}

TEST(ServiceShutdown, RunningJobsFinishQueuedOnesAreHandedBack) {
  auto f = std::make_unique<Fixture>();
  const std::string running = submit_id(f->post(request_body("s1", 1)));
  const std::string queued = submit_id(f->post(request_body("s2", 1)));
  for (int i = 0; i < 400 && f->gate.started.load() == 0; ++i) std::this_thread::sleep_for(5ms);
  std::string stream;
  std::thread reader([&] {
    stream = raw_exchange(f->port(), "GET /v1/repairs/" + running + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                                         kRead + "\r\n\r\n", 5s);
  });
  std::this_thread::sleep_for(100ms);
  std::thread stopper([&] { f->svc->stop(); });
  std::this_thread::sleep_for(100ms);
  // Draining: not ready, no new jobs; the running job is still allowed to finish.
  EXPECT_EQ(f->get("/readyz", "").status, 0);  // the listener is closed
  f->gate.release();
  stopper.join();
  reader.join();
  EXPECT_NE(stream.find("\"status\":\"no_fix\""), std::string::npos) << stream;  // finished, not cancelled
  auto m = f->svc->metrics_text();
  EXPECT_EQ(metric(m, "flowagent_no_fix_total"), 1);
  EXPECT_EQ(metric(m, "flowagent_errors_total{reason=\"service_shutdown\"}"), 1);
  (void)queued;
}

TEST(ServiceBinary, FlowagentdServesAndStopsOnSigterm) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "repos" / "repo");
  write_file(tmp.path() / "tokens", token_hash_line(kCi) + " ci submit,read\n");
  std::string out;
  ASSERT_EQ(sh("printf '%s\\n' '" + kCi + "' | " FLOWAGENTD " hash-token", &out), 0);
  EXPECT_EQ(out, token_hash_line(kCi) + "\n");
  const auto log = tmp.path() / "log";
  const std::string cmd = std::string(FLOWAGENTD) + " --repos '" + (tmp.path() / "repos").string() + "' --tokens '" +
                          (tmp.path() / "tokens").string() + "' --port 0 --runner noop > '" + log.string() + "' 2>&1 & echo $!";
  ASSERT_EQ(sh(cmd, &out), 0);
  const int pid = std::stoi(out);
  unsigned short port = 0;
  for (int i = 0; i < 500 && !port; ++i) {
    std::this_thread::sleep_for(10ms);
    auto text = read_file(log);
    if (auto p = text.find("listening on port "); p != std::string::npos) port = static_cast<unsigned short>(std::stoi(text.substr(p + 18)));
  }
  ASSERT_NE(port, 0);
  auto r = http_call(port, "POST", "/v1/repairs", kCi, request_body("bin", 1));
  ASSERT_EQ(r.status, 202) << r.body;
  const std::string id = submit_id(r);
  Json j;
  for (int i = 0; i < 500; ++i) {
    j = *parse_json(http_call(port, "GET", "/v1/repairs/" + id, kCi).body);
    if (j.get_string("state") == "done") break;
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_EQ(j.find("result")->get_string("reason"), "noop");
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  int status = 0;
  for (int i = 0; i < 500; ++i) {
    if (sh("kill -0 " + std::to_string(pid) + " 2>/dev/null") != 0) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_NE(sh("kill -0 " + std::to_string(pid) + " 2>/dev/null"), 0);
  EXPECT_NE(read_file(log).find("stopped"), std::string::npos) << read_file(log);
  (void)status;
}

TEST(ServiceTls, HttpsWithTheConfiguredCertificate) {
  TempDir pki;
  make_test_pki(pki.path().string());
  Fixture f([&](ServiceOptions& o) {
    o.tls_cert = pki.path() / "good.pem";
    o.tls_key = pki.path() / "good.key";
  });
  std::string out;
  const std::string port = std::to_string(f.port());
  EXPECT_EQ(sh("curl -sS --max-time 5 --cacert '" + (pki.path() / "ca.pem").string() + "' https://127.0.0.1:" + port + "/healthz", &out), 0) << out;
  EXPECT_EQ(out, "ok\n");
  EXPECT_NE(sh("curl -sS --max-time 5 http://127.0.0.1:" + port + "/healthz", &out), 0);  // no plain HTTP
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
