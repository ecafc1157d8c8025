// flowagentd's HTTP front end: Boost.Beast over Asio, one coroutine per connection on its own
// strand, optional TLS; the routes of docs/SERVICE.md.
#include <boost/asio.hpp>
#include <boost/asio/experimental/as_tuple.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <atomic>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "agent/pipeline.hpp"
#include "flowagent/delivery.hpp"
#include "service/page.hpp"
#include "service/redis_queue.hpp"
#include "service/store.hpp"

namespace flowagent::service {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
namespace fs = std::filesystem;
using tcp = net::ip::tcp;
constexpr auto as_tuple_awaitable = net::experimental::as_tuple(net::use_awaitable);

RepairResult noop_result(const RepairRequest& request) {
  RepairResult r = detail::superseded_result(request, "");
  r.status = Status::no_fix;
  r.reason = "noop";
  r.message = "the no-op runner does not repair";
  return r;
}

namespace {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

Reply json_reply(int status, const Json& body) {
  Reply r;
  r.status = status;
  r.body = dump_json_lossy(body) + "\n";
  return r;
}

Reply error_reply(int status, std::string_view code, std::string_view message, std::string_view field = {}) {
  Json e = Json::obj({{"code", code}, {"message", message}});
  if (!field.empty()) e["field"] = field;
  return json_reply(status, Json::obj({{"error", e}}));
}

/// "change.revision: expected an integer" -> "change.revision".
std::string field_of(const std::string& message) {
  auto colon = message.find(": ");
  if (colon == std::string::npos) return "";
  std::string f = message.substr(0, colon);
  if (f.find(' ') != std::string::npos) return "";
  return f;
}

bool under(const fs::path& p, const fs::path& root) {
  auto rel = p.lexically_relative(root);
  return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
}

std::string query_param(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    auto amp = query.find('&');
    auto part = query.substr(0, amp);
    auto eq = part.find('=');
    if (part.substr(0, eq) == key) return eq == std::string_view::npos ? "" : std::string(part.substr(eq + 1));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return "";
}

class Router : public EventSink {
 public:
  explicit Router(std::function<void(const Event&)> sink) : sink_(std::move(sink)) {}
  std::string_view name() const override { return "flowagentd"; }
  void on_event(const Event& e) override { sink_(e); }
  void on_result(const RepairResult&) override {}

 private:
  std::function<void(const Event&)> sink_;
};

}  // namespace

Expected<Runner> pipeline_runner(AgentOptions a, std::function<void(const Event&)> sink) {
  a.event_sink = std::make_shared<Router>(std::move(sink));
  a.worker_threads = 1;
  auto agent = Agent::create(std::move(a));
  if (!agent) return fail(agent.error().code, agent.error().message);
  std::shared_ptr<Agent> owner = std::move(*agent);
  auto pipeline = std::make_shared<detail::Pipeline>(owner->options());
  return Runner([owner, pipeline](const RepairRequest& r, const CancelToken& c, const std::function<bool()>& sup,
                                  const std::function<void(const Event&)>&) { return pipeline->run(r, c, sup); });
}

namespace {

/// `result:MS:FILE`: tool_call progress events over MS milliseconds, then the recorded result.
std::optional<Runner> recorded_result_runner(std::string_view spec) {
  auto colon = spec.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const long ms = std::atol(std::string(spec.substr(0, colon)).c_str());
  std::ifstream in{std::string(spec.substr(colon + 1)), std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  auto recorded = parse_repair_result(text.str());
  if (!in || ms < 0 || !recorded) return std::nullopt;
  return Runner([ms, recorded = *recorded](const RepairRequest& r, const CancelToken& cancel, const std::function<bool()>&,
                                           const std::function<void(const Event&)>& emit) {
    constexpr int kSteps = 10;
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i <= kSteps; ++i) {
      Event e;
      e.kind = i == 0 ? EventKind::phase : EventKind::tool_call;
      e.change_id = r.change.id;
      e.revision = r.change.revision;
      e.phase = "agent";
      e.index = i;
      e.max = kSteps;
      e.tokens = 1000L * i;
      e.elapsed_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - begin).count();
      e.eta_ms = std::max<long>(0, ms - e.elapsed_ms);
      emit(e);
      if (i < kSteps && cancel.wait_for(std::chrono::milliseconds(ms / kSteps))) {
        RepairResult c = noop_result(r);
        c.status = Status::error;
        c.reason = "cancelled";
        c.message = "cancelled";
        return c;
      }
    }
    RepairResult out = recorded;
    out.change_id = r.change.id;
    out.revision = r.change.revision;
    return out;
  });
}

}  // namespace

std::optional<Runner> test_runner(std::string_view name) {
  if (name.starts_with("result:")) return recorded_result_runner(name.substr(7));
  long sleep_ms = -1;
  if (name == "noop") sleep_ms = 0;
  else if (name.starts_with("sleep:")) sleep_ms = std::atol(std::string(name.substr(6)).c_str());
  if (sleep_ms < 0) return std::nullopt;
  return Runner([sleep_ms](const RepairRequest& r, const CancelToken& cancel, const std::function<bool()>&,
                           const std::function<void(const Event&)>& emit) {
    Event e;
    e.kind = EventKind::phase;
    e.change_id = r.change.id;
    e.revision = r.change.revision;
    e.phase = "noop";
    emit(e);
    RepairResult res = noop_result(r);
    if (sleep_ms > 0 && cancel.wait_for(std::chrono::milliseconds(sleep_ms))) {
      res.status = Status::error;
      res.reason = "cancelled";
      res.message = "cancelled";
    }
    return res;
  });
}

struct Service::Impl {
  ServiceOptions opt;
  fs::path root;
  Metrics metrics;
  JobStore store;
  Runner runner;
  std::unique_ptr<RedisQueue> rq;  ///< set with --queue: the shared queue instead of `store`
  // Declared before the io_context: sessions still suspended when it is destroyed end there, and
  // their guards give back what they hold.
  std::atomic<bool> draining{false};
  std::atomic<std::size_t> connections{0};
  std::mutex inflight_mu;
  std::map<std::string, int> inflight;
  net::io_context ioc;
  std::optional<ssl::context> tls;
  tcp::acceptor acceptor{ioc};
  /// The accept loop runs here and stop() closes the acceptor here: never both at once (the io
  /// threads are several; an acceptor is not safe to use from two of them).
  net::strand<net::io_context::executor_type> accept_strand{net::make_strand(ioc)};
  std::vector<std::thread> io_threads, workers;
  std::once_flag stop_once;
  unsigned short port = 0;

  explicit Impl(ServiceOptions o) : opt(std::move(o)), store(metrics, opt.retain_jobs) {}

  // ---- jobs ----
  void worker() {
    for (;;) {
      auto job = store.next();
      if (!job) return;
      RepairResult r;
      try {
        r = runner(job->request, job->cancel, [job] { return job->superseded.load(); },
                   [this, job](const Event& e) { store.append_event(job->id, e); });
      } catch (const std::exception& e) {
        r = noop_result(job->request);
        r.status = Status::error;
        r.reason = "internal";
        r.message = e.what();
      }
      store.finish(job, std::move(r));
    }
  }

  // ---- requests ----
  Expected<RepairRequest> checked_request(std::string_view body) {
    auto req = parse_repair_request(body);
    if (!req) return req;
    if (auto ok = check_request_commands(*req); !ok) return fail(ok.error().code, ok.error().message);
    auto& m = req->model;
    auto same = [](const std::string& got, const std::string& want) { return got.empty() || got == want; };
    if (!same(m.spec, opt.model.spec)) return fail(Errc::schema, "model.spec: set by the service (\"" + opt.model.spec + "\")");
    if (!same(m.base_url, opt.model.base_url)) return fail(Errc::schema, "model.base_url: set by the service");
    if (!same(m.api_key_env, opt.model.api_key_env)) return fail(Errc::schema, "model.api_key_env: set by the service");
    m.spec = opt.model.spec;
    m.base_url = opt.model.base_url;
    m.api_key_env = opt.model.api_key_env;
    // Every path the request names must resolve (symbolic links included) under the repository root.
    std::error_code ec;
    fs::path repo = fs::path(req->repository);
    if (repo.is_relative()) repo = root / repo;
    fs::path canon = fs::canonical(repo, ec);
    if (ec || !fs::is_directory(canon)) return fail(Errc::schema, "repository: not a directory under the repository root");
    if (!under(canon, root)) return fail(Errc::schema, "repository: outside the repository root");
    req->repository = canon.string();
    auto check_list = [&](std::vector<std::string>& list, const std::string& field) -> Expected<void> {
      for (std::size_t i = 0; i < list.size(); ++i) {
        fs::path p(list[i]);
        if (p.is_relative()) p = canon / p;
        fs::path c = fs::weakly_canonical(p, ec);
        if (ec || !under(c, root))
          return fail(Errc::schema, field + "[" + std::to_string(i) + "]: outside the repository root");
        list[i] = c.string();
      }
      return {};
    };
    if (auto ok = check_list(req->failure.reports, "failure.reports"); !ok) return fail(ok.error().code, ok.error().message);
    if (auto ok = check_list(req->failure.logs, "failure.logs"); !ok) return fail(ok.error().code, ok.error().message);
    return req;
  }

  /// The job's document, read under the store's lock (a worker may be starting or finishing it).
  Json job_doc(const std::shared_ptr<JobRec>& job) {
    return store.read(job, [](const JobRec& j) {
      Json d = Json::obj({{"id", j.id},
                          {"state", to_string(j.state)},
                          {"change_id", j.request.change.id},
                          {"revision", j.request.change.revision},
                          {"submitted_unix_ms", j.submitted_unix_ms},
                          {"location", "/v1/repairs/" + j.id},
                          {"events", "/v1/repairs/" + j.id + "/events"}});
      d["progress"] = j.last_progress;
      if (j.result) d["result"] = to_json(*j.result);
      else d["result"] = nullptr;
      return d;
    });
  }

  static Reply too_many_jobs(const TokenEntry& tok) {
    Reply r = error_reply(429, "too_many_jobs", "this token has " + std::to_string(tok.max_active_jobs) + " active jobs");
    r.headers.emplace_back("Retry-After", "5");
    return r;
  }

  Reply submit(const std::string& body, const TokenEntry& tok) {
    auto req = checked_request(body);
    if (!req) {
      const auto& e = req.error();
      std::string field = field_of(e.message);
      if (field.empty() && e.code == Errc::invalid_json) field = "$";
      return error_reply(400, errc_name(e.code), e.message, field);
    }
    if (rq) {
      auto sub = rq->submit(*req, tok.name, tok.max_active_jobs);
      if (!sub) return error_reply(503, "queue_unavailable", sub.error().message);
      if (sub->refused) return too_many_jobs(tok);
      auto doc = rq->job(sub->id);
      if (!doc || !*doc) return error_reply(503, "queue_unavailable", "the job vanished from the queue");
      Json d = public_doc(**doc);
      d["existing"] = sub->existing;
      Reply r = json_reply(202, d);
      r.headers.emplace_back("Location", "/v1/repairs/" + sub->id);
      return r;
    }
    JobStore::Refusal why;
    auto s = store.submit(std::move(*req), tok.name, tok.max_active_jobs, opt.max_queued, why);
    if (why == JobStore::Refusal::draining) return error_reply(503, "draining", "the service is shutting down");
    if (why == JobStore::Refusal::queue_full) {
      Reply r = error_reply(503, "queue_full", "too many queued jobs; retry later");
      r.headers.emplace_back("Retry-After", "5");
      return r;
    }
    if (why == JobStore::Refusal::owner_limit) return too_many_jobs(tok);
    Json d = job_doc(s.job);
    d["existing"] = s.existing;
    Reply r = json_reply(202, d);
    r.headers.emplace_back("Location", "/v1/repairs/" + s.job->id);
    return r;
  }

  static Json public_doc(Json d) {  // the owner stays inside the service
    auto& o = d.as_object();
    std::erase_if(o, [](const Json::Member& m) { return m.first == "owner"; });
    return d;
  }

  /// The routes of one job when jobs live in Redis.
  Reply route_shared(http::verb method, const std::string& id, std::string_view action, bool cancel, std::string_view query,
                     const TokenEntry& tok) {
    auto doc = rq->job(id);
    if (!doc) return error_reply(503, "queue_unavailable", doc.error().message);
    if (!*doc) return error_reply(404, "not_found", "no such job");
    if (cancel) {
      if (method != http::verb::post) return error_reply(405, "method_not_allowed", "POST");
      if ((**doc).get_string("owner") != tok.name && !(tok.scopes & scope_admin))
        return error_reply(403, "forbidden", "only the submitting token or an admin may cancel");
      auto ok = rq->cancel(id);
      if (!ok) return error_reply(503, "queue_unavailable", ok.error().message);
      return json_reply(*ok ? 202 : 409, Json::obj({{"id", id}, {"cancelled", *ok}}));
    }
    if (action.empty()) return json_reply(200, public_doc(**doc));
    auto res = rq->result(id);
    if (!res) return error_reply(503, "queue_unavailable", res.error().message);
    if (action == "result") return result_reply(*res);
    std::string format = action == "patch" ? "diff" : query_param(query, "format");
    if (action != "patch" && action != "publish") return error_reply(404, "not_found", "no such route");
    if (format.empty()) return error_reply(400, "invalid_argument", "format is required", "format");
    return deliver_result(*res, id, format);
  }

  Reply deliver(const std::shared_ptr<JobRec>& j, const std::string& format) {
    return deliver_result(store.finished_result(j->id), j->id, format);
  }

  /// The bare result document (what `flowagent apply --result -` reads), for any finished job.
  static Reply result_reply(const std::optional<RepairResult>& result) {
    if (!result) return error_reply(409, "not_done", "the job has not finished");
    return json_reply(200, to_json(*result));
  }

  Reply deliver_result(const std::optional<RepairResult>& result, const std::string& id, const std::string& format) {
    if (!result) return error_reply(409, "not_done", "the job has not finished");
    auto out = publish(*result, format);
    if (!out) {
      const int status = out.error().code == Errc::not_fixed ? 409 : out.error().code == Errc::invalid_argument ? 400 : 422;
      return error_reply(status, errc_name(out.error().code), out.error().message, status == 400 ? "format" : "");
    }
    Reply r;
    r.body = std::move(*out);
    r.content_type = format == "diff" ? "text/x-diff; charset=utf-8" : "application/json";
    if (format == "diff")
      r.headers.emplace_back("Content-Disposition", "attachment; filename=\"flowagent-" + id + ".diff\"");
    return r;
  }

  /// The routes without streaming. `tok` is null when no valid token was presented.
  Reply route(http::verb method, std::string_view path, std::string_view query, const std::string& body,
              const TokenEntry* tok, bool& auth_missing) {
    auto need = [&](unsigned scope) -> std::optional<Reply> {
      if (!tok) {
        auth_missing = true;
        Reply r = error_reply(401, "unauthorized", "a valid bearer token is required");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"flowagentd\"");
        return r;
      }
      if ((tok->scopes & scope) != scope) return error_reply(403, "forbidden", "the token lacks the scope this needs");
      return std::nullopt;
    };
    if (path == "/healthz") return Reply{200, "text/plain", "ok\n", {}};
    if (path == "/readyz")
      return draining ? Reply{503, "text/plain", "draining\n", {}} : Reply{200, "text/plain", "ready\n", {}};
    if (path == "/" || path.starts_with("/assets/")) {
      auto asset = page_asset(path);
      if (!asset) return error_reply(404, "not_found", "no such asset");
      Reply r{200, std::string(asset->content_type), std::string(asset->body), {}};
      r.headers.emplace_back("Cache-Control", "no-cache");
      return r;
    }
    if (path == "/metrics") {
      if (auto r = need(scope_read)) return *r;
      return Reply{200, "text/plain; version=0.0.4", render_metrics(), {}};
    }
    if (path == "/v1/repairs") {
      if (method == http::verb::post) {
        if (auto r = need(scope_submit)) return *r;
        if (draining) return error_reply(503, "draining", "the service is shutting down");
        return submit(body, *tok);
      }
      if (method != http::verb::get) return error_reply(405, "method_not_allowed", "GET or POST");
      if (auto r = need(scope_read)) return *r;
      std::size_t limit = 100;
      if (auto l = query_param(query, "limit"); !l.empty()) limit = std::clamp<std::size_t>(std::strtoul(l.c_str(), nullptr, 10), 1, 1000);
      Json arr = Json::array();
      if (rq) {
        auto ids = rq->recent(limit);
        if (!ids) return error_reply(503, "queue_unavailable", ids.error().message);
        for (const auto& id : *ids)
          if (auto d = rq->job(id); d && *d) {
            Json doc = public_doc(**d);
            if (auto* res = doc.find("result"); res && res->is_object())
              doc["result"] = Json::obj({{"status", res->get_string("status")}, {"reason", res->get_string("reason")}});
            arr.push_back(std::move(doc));
          }
        return json_reply(200, Json::obj({{"jobs", arr}}));
      }
      for (const auto& j : store.list(limit)) {
        Json d = job_doc(j);
        if (auto* res = d.find("result"); res && res->is_object()) {  // listings stay small
          Json brief = Json::obj({{"status", res->get_string("status")}, {"reason", res->get_string("reason")}});
          d["result"] = brief;
        }
        arr.push_back(std::move(d));
      }
      return json_reply(200, Json::obj({{"jobs", arr}}));
    }
    if (!path.starts_with("/v1/repairs/")) return error_reply(404, "not_found", "no such route");
    std::string_view rest = path.substr(12);
    std::string_view action;
    bool cancel = false;
    if (auto slash = rest.find('/'); slash != std::string_view::npos) {
      action = rest.substr(slash + 1);
      rest = rest.substr(0, slash);
    } else if (rest.ends_with(":cancel")) {
      cancel = true;
      rest.remove_suffix(7);
    }
    if (rq) {
      if (auto r = need(cancel ? scope_submit : scope_read)) return *r;
      if (!cancel && method != http::verb::get) return error_reply(405, "method_not_allowed", "GET");
      return route_shared(method, std::string(rest), action, cancel, query, *tok);
    }
    auto job = store.get(std::string(rest));
    if (cancel) {
      if (method != http::verb::post) return error_reply(405, "method_not_allowed", "POST");
      if (auto r = need(scope_submit)) return *r;
      if (!job) return error_reply(404, "not_found", "no such job");
      if (job->owner != tok->name && !(tok->scopes & scope_admin))
        return error_reply(403, "forbidden", "only the submitting token or an admin may cancel");
      const bool was_live = store.cancel(job->id);
      return json_reply(was_live ? 202 : 409, Json::obj({{"id", job->id}, {"cancelled", was_live}, {"state", store.read(job, [](const JobRec& j) { return std::string(to_string(j.state)); })}}));
    }
    if (method != http::verb::get) return error_reply(405, "method_not_allowed", "GET");
    if (auto r = need(scope_read)) return *r;
    if (!job) return error_reply(404, "not_found", "no such job");
    if (action.empty()) return json_reply(200, job_doc(job));
    if (action == "patch") return deliver(job, "diff");
    if (action == "result") return result_reply(store.finished_result(job->id));
    if (action == "publish") {
      auto format = query_param(query, "format");
      if (format.empty()) return error_reply(400, "invalid_argument", "format is required", "format");
      return deliver(job, format);
    }
    return error_reply(404, "not_found", "no such route");
  }

  /// Embedded: this process's counters. Redis mode: the counters every worker stored in Redis and
  /// the stream's backlog, plus `flowagent_queue_up` (0 when Redis cannot be read).
  std::string render_metrics() const {
    if (!rq) return metrics.render(store.queued(), store.running(), connections.load());
    JobCounters shared;
    auto fields = rq->counters();
    auto backlog = rq->backlog();
    if (fields) shared.add_fields(*fields);
    const bool up = fields && backlog;
    std::string o = metrics.render(backlog ? static_cast<std::size_t>(backlog->queued) : 0,
                                   backlog ? static_cast<std::size_t>(backlog->running) : 0, connections.load(), &shared, up);
    o += "# HELP flowagent_queue_up Whether the front end could read the Redis queue for this scrape.\n"
         "# TYPE flowagent_queue_up gauge\nflowagent_queue_up " + std::string(up ? "1" : "0") + "\n";
    return o;
  }

  // ---- connections ----
  template <class Stream>
  static beast::tcp_stream& lowest(Stream& s) {
    return beast::get_lowest_layer(s);
  }

  template <class Stream>
  net::awaitable<bool> write_reply(Stream& stream, const Reply& rep, unsigned version, bool keep_alive) {
    http::response<http::string_body> res{static_cast<http::status>(rep.status), version};
    res.set(http::field::server, "flowagentd");
    res.set(http::field::content_type, rep.content_type);
    res.set("X-Content-Type-Options", "nosniff");
    res.set(http::field::cache_control, "no-store");
    // Every response (the page, its script and style, the API): scripts and styles only from the
    // service's own files, no inline script, nothing framed, no referrer.
    res.set("Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
    res.set("Referrer-Policy", "no-referrer");
    for (const auto& [k, v] : rep.headers) res.set(k, v);
    res.body() = rep.body;
    res.keep_alive(keep_alive);
    res.prepare_payload();
    metrics.http(rep.status);
    if (opt.log_requests) std::cerr << "flowagentd: " << rep.status << "\n";
    lowest(stream).expires_after(opt.write_timeout);
    auto [ec, n] = co_await http::async_write(stream, res, as_tuple_awaitable);
    co_return !ec;
  }

  /// The response head of a Server-Sent Events stream (both queues' event endpoints).
  template <class Stream>
  net::awaitable<bool> begin_event_stream(Stream& stream) {
    metrics.http(200);
    static const std::string head =
        "HTTP/1.1 200 OK\r\nServer: flowagentd\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
        "X-Accel-Buffering: no\r\nConnection: close\r\n\r\nretry: 1000\n\n";
    lowest(stream).expires_after(opt.write_timeout);
    auto [ec, n] = co_await net::async_write(stream, net::buffer(head), as_tuple_awaitable);
    co_return !ec;
  }

  template <class Stream>
  net::awaitable<void> stream_events(Stream& stream, std::shared_ptr<JobRec> job, std::size_t after) {
    if (!co_await begin_event_stream(stream)) co_return;
    auto ex = co_await net::this_coro::executor;
    auto timer = std::make_shared<net::steady_timer>(ex);
    auto pending = std::make_shared<std::atomic<bool>>(false);
    auto watcher = std::make_shared<Watcher>();
    watcher->notify = [ex, weak = std::weak_ptr<net::steady_timer>(timer), pending] {
      pending->store(true);
      net::post(ex, [weak] {
        if (auto t = weak.lock()) t->cancel();
      });
    };
    store.watch(job, watcher);
    // A client that goes away (or sends anything) ends the stream at once, not at the next write.
    auto gone = std::make_shared<std::atomic<bool>>(false);
    lowest(stream).socket().async_wait(tcp::socket::wait_read, [gone, weak = std::weak_ptr<net::steady_timer>(timer)](beast::error_code) {
      gone->store(true);
      if (auto t = weak.lock()) t->cancel();
    });
    std::vector<std::string> frames;
    for (;;) {
      pending->store(false);
      frames.clear();
      const bool done = store.frames_since(job, after, frames);
      std::string out;
      for (auto& f : frames) out += f;
      after += frames.size();
      if (!out.empty()) {
        lowest(stream).expires_after(opt.write_timeout);
        if (auto [ec, n] = co_await net::async_write(stream, net::buffer(out), as_tuple_awaitable); ec) co_return;
      }
      if (done || gone->load()) co_return;
      if (pending->load()) continue;
      timer->expires_after(opt.heartbeat);
      auto [ec] = co_await timer->async_wait(as_tuple_awaitable);
      if (gone->load()) co_return;
      if (!ec) {  // idle: a comment keeps proxies from closing the stream
        static const std::string ping = ": ping\n\n";
        lowest(stream).expires_after(opt.write_timeout);
        if (auto [wec, n] = co_await net::async_write(stream, net::buffer(ping), as_tuple_awaitable); wec) co_return;
      }
    }
  }

  /// Event stream of a job in Redis: polled (frames carry the stream ids; Last-Event-ID resumes).
  template <class Stream>
  net::awaitable<void> stream_shared_events(Stream& stream, std::string id, std::string after) {
    if (!co_await begin_event_stream(stream)) co_return;
    net::steady_timer timer(co_await net::this_coro::executor);
    auto idle_since = Clock::now();
    for (;;) {
      auto frames = rq->events_after(id, after.empty() ? "0" : after);
      if (!frames) co_return;
      std::string out;
      bool done = false;
      for (const auto& f : *frames) {
        out += "id: " + f.id + "\nevent: " + f.kind + "\ndata: " + f.data + "\n\n";
        after = f.id;
        done = done || f.kind == "done";
      }
      if (out.empty() && Clock::now() - idle_since > opt.heartbeat) out = ": ping\n\n";
      if (!out.empty()) {
        idle_since = Clock::now();
        lowest(stream).expires_after(opt.write_timeout);
        if (auto [ec, n] = co_await net::async_write(stream, net::buffer(out), as_tuple_awaitable); ec) co_return;
      }
      if (done || draining) co_return;
      timer.expires_after(std::chrono::milliseconds(100));
      co_await timer.async_wait(as_tuple_awaitable);
    }
  }

  struct InflightGuard {
    Impl* impl = nullptr;
    std::string name;
    void release() {
      if (!impl) return;
      std::lock_guard lock(impl->inflight_mu);
      impl->inflight[name]--;
      impl = nullptr;
    }
    ~InflightGuard() { release(); }
  };

  template <class Stream>
  net::awaitable<void> serve(Stream& stream) {
    beast::flat_buffer buf;
    bool first = true;
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(opt.max_header_bytes));
      parser.body_limit(opt.max_body_bytes);
      lowest(stream).expires_after(first ? opt.read_timeout : opt.idle_timeout);
      first = false;
      auto [ec, n] = co_await http::async_read_header(stream, buf, parser, as_tuple_awaitable);
      if (ec == http::error::body_limit) {  // Content-Length above the limit: known from the header
        co_await write_reply(stream,
                             error_reply(413, "body_too_large", "the body exceeds " + std::to_string(opt.max_body_bytes) + " bytes", "$"),
                             11, false);
        co_return;
      }
      if (ec == http::error::header_limit) {
        co_await write_reply(stream, error_reply(431, "header_too_large", "request headers exceed the limit"), 11, false);
        co_return;
      }
      if (ec) {
        if (ec != http::error::end_of_stream && ec != net::error::eof && ec != beast::error::timeout &&
            ec != net::error::connection_reset)
          co_await write_reply(stream, error_reply(400, "bad_request", "malformed HTTP request"), 11, false);
        co_return;
      }
      auto& h = parser.get();
      const unsigned version = h.version();
      std::string_view target(h.target().data(), h.target().size());
      std::string_view path = target.substr(0, target.find('?'));
      std::string_view query = target.find('?') == std::string_view::npos ? "" : target.substr(target.find('?') + 1);
      const TokenEntry* tok = nullptr;
      if (auto it = h.find(http::field::authorization); it != h.end()) {
        std::string_view v(it->value().data(), it->value().size());
        if (v.size() > 7 && (v.substr(0, 7) == "Bearer " || v.substr(0, 7) == "bearer ")) tok = opt.tokens->verify(v.substr(7));
      }
      InflightGuard guard;
      if (tok) {
        std::lock_guard lock(inflight_mu);
        if (inflight[tok->name] >= tok->max_inflight) {
          Reply r = error_reply(429, "too_many_requests", "this token has too many requests in flight");
          r.headers.emplace_back("Retry-After", "1");
          co_await write_reply(stream, r, version, false);
          co_return;
        }
        inflight[tok->name]++;
        guard.impl = this;
        guard.name = tok->name;
      }
      const bool has_body = h.method() == http::verb::post || h.method() == http::verb::put;
      if (has_body && !tok && path.starts_with("/v1/")) {  // never read a body for someone unauthenticated
        Reply r = error_reply(401, "unauthorized", "a valid bearer token is required");
        r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"flowagentd\"");
        co_await write_reply(stream, r, version, false);
        co_return;
      }
      if (auto len = parser.content_length(); len && *len > opt.max_body_bytes) {
        co_await write_reply(stream,
                             error_reply(413, "body_too_large", "the body exceeds " + std::to_string(opt.max_body_bytes) + " bytes", "$"),
                             version, false);
        co_return;
      }
      if (!parser.is_done()) {
        lowest(stream).expires_after(opt.read_timeout);
        auto [bec, bn] = co_await http::async_read(stream, buf, parser, as_tuple_awaitable);
        if (bec == http::error::body_limit) {
          co_await write_reply(stream,
                               error_reply(413, "body_too_large", "the body exceeds " + std::to_string(opt.max_body_bytes) + " bytes", "$"),
                               version, false);
          co_return;
        }
        if (bec) co_return;
      }
      const bool keep_alive = parser.get().keep_alive() && !draining;
      // Server-Sent Events stream until the job is done.
      if (h.method() == http::verb::get && path.starts_with("/v1/repairs/") && path.ends_with("/events")) {
        std::string id(path.substr(12, path.size() - 12 - 7));
        if (rq && tok && (tok->scopes & scope_read)) {
          std::string after;
          if (auto it = h.find("Last-Event-ID"); it != h.end()) after = std::string(it->value());
          auto doc = rq->job(id);
          if (doc && *doc) {
            co_await stream_shared_events(stream, id, after);
            co_return;
          }
        }
        auto job = store.get(id);
        Reply refuse;
        if (!tok) {
          refuse = error_reply(401, "unauthorized", "a valid bearer token is required");
          refuse.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"flowagentd\"");
        } else if (!(tok->scopes & scope_read)) {
          refuse = error_reply(403, "forbidden", "the token lacks the scope this needs");
        } else if (!job) {
          refuse = error_reply(404, "not_found", "no such job");
        } else {
          std::size_t after = 0;
          if (auto it = h.find("Last-Event-ID"); it != h.end())
            after = std::strtoull(std::string(it->value()).c_str(), nullptr, 10);
          co_await stream_events(stream, job, after);
          co_return;
        }
        co_await write_reply(stream, refuse, version, false);
        co_return;
      }
      bool auth_missing = false;
      Reply rep = route(h.method(), path, query, parser.get().body(), tok, auth_missing);
      guard.release();  // the work is done; a client may send its next request as soon as it reads this
      if (!co_await write_reply(stream, rep, version, keep_alive) || !keep_alive) co_return;
    }
  }

  net::awaitable<void> plain_session(tcp::socket socket) {
    beast::tcp_stream stream(std::move(socket));
    co_await serve(stream);
    beast::error_code ec;
    stream.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  net::awaitable<void> tls_session(tcp::socket socket) {
    beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *tls);
    beast::get_lowest_layer(stream).expires_after(opt.read_timeout);
    auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, as_tuple_awaitable);
    if (ec) co_return;
    co_await serve(stream);
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(2));
    co_await stream.async_shutdown(as_tuple_awaitable);
  }

  net::awaitable<void> accept_loop() {
    for (;;) {
      auto [ec, socket] = co_await acceptor.async_accept(net::make_strand(ioc), as_tuple_awaitable);
      if (ec) {
        if (!acceptor.is_open()) co_return;
        continue;
      }
      if (connections.load() >= opt.max_connections) {
        beast::error_code ignore;
        socket.close(ignore);
        continue;
      }
      connections++;
      auto ex = socket.get_executor();
      auto done = [this](std::exception_ptr) { connections--; };
      if (tls) net::co_spawn(ex, tls_session(std::move(socket)), done);
      else net::co_spawn(ex, plain_session(std::move(socket)), done);
    }
  }

  void stop() {
    std::call_once(stop_once, [this] {
      draining = true;
      net::post(accept_strand, [this] {
        beast::error_code ec;
        acceptor.close(ec);
      });
      store.stop_queue();
      const auto deadline = Clock::now() + opt.drain_timeout;
      while (store.running() > 0 && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
      store.cancel_running();
      for (auto& t : workers) t.join();
      // Event streams end once their job is done; give them a moment to send the last frames.
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ioc.stop();
      for (auto& t : io_threads) t.join();
    });
  }
};

Service::Service(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Service::~Service() {
  if (impl_) impl_->stop();
}
unsigned short Service::port() const { return impl_->port; }
void Service::stop() { impl_->stop(); }
std::string Service::metrics_text() const { return impl_->render_metrics(); }

Expected<std::unique_ptr<Service>> Service::start(ServiceOptions options) {
  if (!options.tokens) return fail(Errc::invalid_argument, "a token file is required (--tokens)");
  if ((options.workers < 1 && options.queue_url.empty()) || options.http_threads < 1) return fail(Errc::invalid_argument, "workers and http threads must be >= 1");
  std::error_code fec;
  auto root = fs::canonical(options.repos_root, fec);
  if (fec || !fs::is_directory(root)) return fail(Errc::invalid_argument, "the repository root does not exist: " + options.repos_root.string());
  auto impl = std::make_unique<Impl>(std::move(options));
  auto& s = *impl;
  s.root = root;
  if (s.opt.runner) {
    s.runner = s.opt.runner;
  } else {
    auto runner = pipeline_runner(s.opt.agent, [store = &s.store](const Event& e) {
      store->append_event(job_id(e.change_id, e.revision), e);
    });
    if (!runner) return fail(runner.error().code, runner.error().message);
    s.runner = std::move(*runner);
  }
  if (!s.opt.tls_cert.empty() || !s.opt.tls_key.empty()) {
    s.tls.emplace(ssl::context::tls_server);
    s.tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                       ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    beast::error_code ec;
    s.tls->use_certificate_chain_file(s.opt.tls_cert.string(), ec);
    if (!ec) s.tls->use_private_key_file(s.opt.tls_key.string(), ssl::context::pem, ec);
    if (ec) return fail(Errc::invalid_argument, "TLS certificate or key: " + ec.message());
  }
  if (!s.opt.queue_url.empty()) {
    auto ro = parse_redis_url(s.opt.queue_url);
    if (!ro) return fail(ro.error().code, ro.error().message);
    auto q = RedisQueue::connect(*ro);
    if (!q) return fail(q.error().code, q.error().message);
    s.rq = std::move(*q);
    s.opt.workers = 0;  // `flowagentd worker` processes run the jobs
  }
  beast::error_code ec;
  auto addr = net::ip::make_address(s.opt.listen_address, ec);
  if (ec) return fail(Errc::invalid_argument, "bad listen address " + s.opt.listen_address);
  tcp::endpoint ep(addr, s.opt.port);
  s.acceptor.open(ep.protocol(), ec);
  if (!ec) s.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(ep, ec);
  if (!ec) s.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) return fail(Errc::io, "cannot listen on " + s.opt.listen_address + ":" + std::to_string(s.opt.port) + ": " + ec.message());
  s.port = s.acceptor.local_endpoint().port();
  net::co_spawn(s.accept_strand, s.accept_loop(), net::detached);
  for (int i = 0; i < s.opt.workers; ++i) s.workers.emplace_back([&s] { s.worker(); });
  for (int i = 0; i < s.opt.http_threads; ++i) s.io_threads.emplace_back([&s] { s.ioc.run(); });
  return std::unique_ptr<Service>(new Service(std::move(impl)));
}

}  // namespace flowagent::service
