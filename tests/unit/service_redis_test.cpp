// The Redis Streams queue against a real redis-server per test (loopback port, temp dir, AOF on):
// a worker killed with SIGKILL mid-job leaves its entry pending and another worker completes the
// job exactly once; a restarted server loses no queued job; 1,000 no-op jobs drained by 3 workers
// each finish once; the dead-letter path; supersede and cancel reach the running worker.
#include <gtest/gtest.h>

#include <boost/asio.hpp>

#include <csignal>
#include <set>
#include <thread>

#include "service/redis_queue.hpp"
#include "support/http_client.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::service;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

unsigned short free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

/// Starts a background process; returns its pid.
int spawn(const std::string& cmd) {
  std::string out;
  if (sh(cmd + " & echo $!", &out) != 0) return -1;
  return std::stoi(out);
}

void kill_wait(int pid, int sig) {
  kill(pid, sig);
  for (int i = 0; i < 500 && sh("kill -0 " + std::to_string(pid) + " 2>/dev/null") == 0; ++i) std::this_thread::sleep_for(10ms);
}

struct Redis {
  TempDir tmp;
  unsigned short port = free_port();
  int pid = -1;
  Redis() { start(); }
  ~Redis() {
    if (pid > 0) kill_wait(pid, SIGKILL);
  }
  void start() {
    pid = spawn("exec redis-server --port " + std::to_string(port) + " --bind 127.0.0.1 --dir '" + tmp.path().string() +
                "' --appendonly yes --appendfsync always --save '' --protected-mode yes > '" + (tmp.path() / "log").string() + "' 2>&1");
    for (int i = 0; i < 300; ++i) {
      if (sh("redis-cli -p " + std::to_string(port) + " ping 2>/dev/null | grep -q PONG") == 0) return;
      std::this_thread::sleep_for(10ms);
    }
    ADD_FAILURE() << "redis-server did not start";
  }
  RedisOptions options() const {
    RedisOptions o;
    o.port = port;
    o.visibility = 400ms;
    return o;
  }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port) + "/0"; }
};

std::unique_ptr<RedisQueue> queue(const RedisOptions& o) {
  auto q = RedisQueue::connect(o);
  EXPECT_TRUE(q) << q.error().message;
  return std::move(*q);
}

Json wait_done(RedisQueue& q, const std::string& id, std::chrono::milliseconds timeout = 10s) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  Json j;
  while (std::chrono::steady_clock::now() < until) {
    if (auto d = q.job(id); d && *d) {
      j = **d;
      if (j.get_string("state") == "done") break;
    }
    std::this_thread::sleep_for(10ms);
  }
  return j;
}

int start_worker(const Redis& r, const std::string& name, const std::string& runner, int max_attempts = 3) {
  return spawn(std::string("exec ") + FLOWAGENTD + " worker --queue " + r.url() + " --runner " + runner +
               " --workers 1 --visibility-ms 400 --max-attempts " + std::to_string(max_attempts) + " --consumer " + name +
               " > /dev/null 2>&1");
}

/// A front end (HTTP) on a free port over the shared queue; `token_line` is "<hash> <name> <scopes> ...".
std::unique_ptr<Service> redis_front_end(const Redis& redis, const fs::path& repos, const std::string& token_line) {
  ServiceOptions o;
  o.port = 0;
  o.repos_root = repos;
  o.tokens = *TokenStore::parse(token_line + "\n");
  o.queue_url = redis.url();
  auto svc = Service::start(std::move(o));
  EXPECT_TRUE(svc) << svc.error().message;
  return svc ? std::move(*svc) : nullptr;
}

std::string status_of(const Json& doc) {
  const Json* res = doc.find("result");
  return res && res->is_object() ? res->get_string("status") + "/" + res->get_string("reason") : "<none>";
}

}  // namespace

TEST(ServiceRedis, KilledWorkerJobCompletesOnceElsewhere) {
  Redis redis;
  auto q = queue(redis.options());
  const int a = start_worker(redis, "a", "sleep:1500");
  auto sub = q->submit(sample_request("/r", "k1", 1), "ci");
  ASSERT_TRUE(sub);
  for (int i = 0; i < 300 && q->job(sub->id).value()->get_string("state") != "running"; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(q->job(sub->id).value()->get_string("state"), "running");
  kill_wait(a, SIGKILL);  // mid-job: the entry stays pending with consumer a
  const int b = start_worker(redis, "b", "sleep:300");
  auto doc = wait_done(*q, sub->id);
  EXPECT_EQ(status_of(doc), "no_fix/noop");
  EXPECT_EQ(doc.get_int("attempts"), 2);
  kill_wait(b, SIGTERM);
  EXPECT_EQ(q->counter("finished").value(), 1);  // delivered once
  auto frames = q->events_after(sub->id, "0").value();
  EXPECT_EQ(std::count_if(frames.begin(), frames.end(), [](const auto& f) { return f.kind == "done"; }), 1);
  // A late duplicate of the entry (another claim) changes nothing.
  EXPECT_EQ(q->submit(sample_request("/r", "k1", 1), "ci")->existing, true);
  // The job ran twice but its counters reached the shared metrics once, with its result.
  auto counters = q->counters().value();
  EXPECT_EQ(counters["received"], "1");
  EXPECT_EQ(counters["no_fix"], "1");
  EXPECT_EQ(counters["h:total:n"], "1");
  EXPECT_EQ(q->active_jobs("ci").value(), 0);
}

TEST(ServiceRedis, RestartWithAofLosesNoQueuedJob) {
  Redis redis;
  std::vector<std::string> ids;
  {
    auto q = queue(redis.options());
    for (int i = 0; i < 20; ++i) ids.push_back(q->submit(sample_request("/r", "aof" + std::to_string(i), 1), "ci")->id);
  }
  kill_wait(redis.pid, SIGKILL);  // no clean shutdown: only the append-only file remains
  redis.start();
  auto q = queue(redis.options());
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};
  for (int w = 0; w < 2; ++w)
    workers.emplace_back([&, w] {
      auto mine = queue(redis.options());
      auto runner = *test_runner("noop");
      while (!stop) (void)mine->work_once("w" + std::to_string(w), runner, 50ms);
    });
  for (const auto& id : ids) EXPECT_EQ(status_of(wait_done(*q, id)), "no_fix/noop") << id;
  stop = true;
  for (auto& t : workers) t.join();
  EXPECT_EQ(q->counter("finished").value(), 20);
}

TEST(ServiceRedis, ThousandJobsThreeWorkersEachOnce) {
  Redis redis;
  auto q = queue(redis.options());
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(q->submit(sample_request("/r", "n" + std::to_string(i), 1), "ci")->id);
  std::atomic<int> runs{0};
  std::mutex mu;
  std::multiset<std::string> ran;
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};
  for (int w = 0; w < 3; ++w)
    workers.emplace_back([&, w] {
      auto mine = queue(redis.options());
      Runner runner = [&](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
        runs++;
        std::lock_guard l(mu);
        ran.insert(r.change.id);
        return noop_result(r);
      };
      while (!stop) (void)mine->work_once("w" + std::to_string(w), runner, 50ms);
    });
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (q->counter("finished").value() < 1000 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(20ms);
  stop = true;
  for (auto& t : workers) t.join();
  EXPECT_EQ(q->counter("finished").value(), 1000);
  EXPECT_EQ(runs.load(), 1000);
  std::set<std::string> distinct(ran.begin(), ran.end());
  EXPECT_EQ(distinct.size(), 1000u);
  for (int i = 0; i < 1000; i += 97) EXPECT_EQ(status_of(**q->job(ids[i])), "no_fix/noop");
}

TEST(ServiceRedis, DeadLetterAfterMaxAttempts) {
  Redis redis;
  auto q = queue(redis.options());
  const int a = start_worker(redis, "a", "sleep:5000", 1);
  auto sub = q->submit(sample_request("/r", "dl", 1), "ci");
  for (int i = 0; i < 300 && q->job(sub->id).value()->get_string("state") != "running"; ++i) std::this_thread::sleep_for(10ms);
  kill_wait(a, SIGKILL);
  const int b = start_worker(redis, "b", "sleep:5000", 1);
  auto doc = wait_done(*q, sub->id);
  kill_wait(b, SIGTERM);
  EXPECT_EQ(status_of(doc), "error/dead_letter");
  EXPECT_EQ(q->stream_length("dead").value(), 1);
}

TEST(ServiceRedis, SupersedeAndCancelReachTheWorker) {
  Redis redis;
  auto q = queue(redis.options());
  const int w = start_worker(redis, "w", "sleep:10000");
  auto r1 = q->submit(sample_request("/r", "sup", 1), "ci");
  for (int i = 0; i < 300 && q->job(r1->id).value()->get_string("state") != "running"; ++i) std::this_thread::sleep_for(10ms);
  const auto t0 = std::chrono::steady_clock::now();
  auto r2 = q->submit(sample_request("/r", "sup", 2), "ci");
  EXPECT_EQ(status_of(wait_done(*q, r1->id)), "superseded/newer_revision");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 8s);  // the worker's job sleeps 10 s unless superseded
  for (int i = 0; i < 300 && q->job(r2->id).value()->get_string("state") != "running"; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(q->cancel(r2->id).value());
  EXPECT_EQ(status_of(wait_done(*q, r2->id)), "error/cancelled");
  EXPECT_FALSE(q->cancel(r2->id).value());
  auto stale = q->submit(sample_request("/r", "sup", 1), "ci");  // the same job: already done
  EXPECT_TRUE(stale->existing);
  auto older = q->submit(sample_request("/r", "sup", 0), "ci");
  EXPECT_EQ(status_of(wait_done(*q, older->id)), "superseded/newer_revision");
  kill_wait(w, SIGTERM);
}

TEST(ServiceRedis, HttpFrontEndOverTheSharedQueue) {
  Redis redis;
  TempDir tmp;
  fs::create_directories(tmp.path() / "repos" / "repo");
  const std::string token = "redis-front-0123456789";
  auto svc = redis_front_end(redis, tmp.path() / "repos", token_hash_line(token) + " ci submit,read");
  ASSERT_TRUE(svc);
  const auto port = svc->port();
  const std::string body = dump_json_lossy(to_json(sample_request("repo", "front", 1)));
  auto sub = http_call(port, "POST", "/v1/repairs", token, body);
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = parse_json(sub.body)->get_string("id");
  EXPECT_EQ(sub.header("location"), "/v1/repairs/" + id);
  EXPECT_EQ(sub.body.find("owner"), std::string::npos);
  EXPECT_TRUE(parse_json(http_call(port, "POST", "/v1/repairs", token, body).body)->get_bool("existing"));
  EXPECT_EQ(parse_json(http_call(port, "GET", "/v1/repairs/" + id, token).body)->get_string("state"), "queued");
  const int w = start_worker(redis, "w", "noop");
  std::string events = raw_exchange(port, "GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + token +
                                              "\r\n\r\n", 10s, nullptr, 0, "event: done");
  kill_wait(w, SIGTERM);
  EXPECT_NE(events.find("event: state\ndata: {\"state\":\"queued\"}"), std::string::npos) << events;
  EXPECT_NE(events.find("event: state\ndata: {\"state\":\"running\"}"), std::string::npos);
  EXPECT_NE(events.find("event: done\ndata: {\"state\":\"done\",\"status\":\"no_fix\""), std::string::npos);
  auto doc = parse_json(http_call(port, "GET", "/v1/repairs/" + id, token).body);
  EXPECT_EQ(doc->find("result")->get_string("reason"), "noop");
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/" + id + "/patch", token).status, 409);  // not fixed
  EXPECT_EQ(http_call(port, "POST", "/v1/repairs/" + id + ":cancel", token).status, 409);  // done
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/0000:cancel", token).status, 404);
  EXPECT_NE(http_call(port, "GET", "/v1/repairs", token).body.find(id), std::string::npos);
}

// Redis mode exports the funnel the workers counted (front ends read the shared hash at scrape
// time) and holds a token to its active-job limit across front ends.
TEST(ServiceRedis, FunnelMetricsAndJobLimitsAcrossFrontEnds) {
  Redis redis;
  TempDir tmp;
  fs::create_directories(tmp.path() / "repos" / "repo");
  const std::string token = "redis-limits-0123456789";
  auto a = redis_front_end(redis, tmp.path() / "repos", token_hash_line(token) + " ci submit,read max_jobs=2");
  auto b = redis_front_end(redis, tmp.path() / "repos", token_hash_line(token) + " ci submit,read max_jobs=2");
  ASSERT_TRUE(a && b);
  auto post = [&](Service& s, const std::string& change, bool build_failure) {
    RepairRequest r = sample_request("repo", change, 1);
    if (build_failure) r.failure.kind = FailureKind::build;
    return http_call(s.port(), "POST", "/v1/repairs", token, dump_json_lossy(to_json(r)));
  };
  ASSERT_EQ(post(*a, "f1", true).status, 202);
  ASSERT_EQ(post(*b, "f2", true).status, 202);
  auto refused = post(*a, "n1", false);  // two active jobs, submitted through two front ends
  EXPECT_EQ(refused.status, 429) << refused.body;
  EXPECT_NE(refused.body.find("too_many_jobs"), std::string::npos);
  EXPECT_EQ(post(*b, "n1", false).status, 429);

  auto q = queue(redis.options());
  {  // a worker running the library's pipeline: both build failures are filtered
    std::atomic<bool> stop{false};
    std::thread worker([&] {
      auto mine = queue(redis.options());
      auto runner = pipeline_runner(AgentOptions{}, [&](const Event& e) { mine->publish_event(job_id(e.change_id, e.revision), e); });
      ASSERT_TRUE(runner) << runner.error().message;
      while (!stop) (void)mine->work_once("pipeline", *runner, 50ms);
    });
    EXPECT_EQ(status_of(wait_done(*q, job_id("f1", 1))), "abstained/build_failure");
    EXPECT_EQ(status_of(wait_done(*q, job_id("f2", 1))), "abstained/build_failure");
    stop = true;
    worker.join();
  }
  EXPECT_EQ(q->active_jobs("ci").value(), 0);
  ASSERT_EQ(post(*a, "n1", false).status, 202);  // the finished jobs freed the token's slots
  ASSERT_EQ(post(*b, "n2", false).status, 202);
  const int w = start_worker(redis, "w", "noop");
  EXPECT_EQ(status_of(wait_done(*q, job_id("n1", 1))), "no_fix/noop");
  EXPECT_EQ(status_of(wait_done(*q, job_id("n2", 1))), "no_fix/noop");
  kill_wait(w, SIGTERM);

  for (Service* s : {a.get(), b.get()}) {  // every front end reports every worker's jobs
    const std::string m = http_call(s->port(), "GET", "/metrics", token).body;
    EXPECT_NE(m.find("\nflowagent_notifications_total 4\n"), std::string::npos) << m;
    EXPECT_NE(m.find("\nflowagent_filtered_total{reason=\"build_failure\"} 2\n"), std::string::npos) << m;
    EXPECT_NE(m.find("\nflowagent_no_fix_total 2\n"), std::string::npos);
    EXPECT_NE(m.find("\nflowagent_attempted_total 0\n"), std::string::npos);
    EXPECT_NE(m.find("\nflowagent_job_start_latency_seconds_count 4\n"), std::string::npos);
    EXPECT_NE(m.find("\nflowagent_job_seconds_count 4\n"), std::string::npos);
    EXPECT_NE(m.find("\nflowagent_jobs{state=\"queued\"} 0\n"), std::string::npos);
    EXPECT_NE(m.find("\nflowagent_queue_up 1\n"), std::string::npos);
    EXPECT_NE(m.find("flowagent_http_responses_total{code=\"429\"}"), std::string::npos);
  }
  // A queued request no worker can read (damaged, or written by another version) ends as an error
  // and frees its owner's slot instead of holding it for ever.
  ASSERT_EQ(post(*a, "damaged", false).status, 202);
  ASSERT_EQ(sh("redis-cli -p " + std::to_string(redis.port) + " HSET fa:job:" + job_id("damaged", 1) + " request '{\"schema\":1}' > /dev/null"), 0);
  const int w2 = start_worker(redis, "w2", "noop");
  EXPECT_EQ(status_of(wait_done(*q, job_id("damaged", 1))), "error/invalid_request");
  kill_wait(w2, SIGTERM);
  EXPECT_EQ(q->active_jobs("ci").value(), 0);
  // Redis gone: the scrape still answers and says so.
  kill_wait(redis.pid, SIGKILL);
  redis.pid = -1;
  const std::string down = http_call(a->port(), "GET", "/metrics", token).body;
  EXPECT_NE(down.find("\nflowagent_queue_up 0\n"), std::string::npos) << down;
  EXPECT_EQ(down.find("flowagent_notifications_total"), std::string::npos);  // left out, not reset to 0
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
