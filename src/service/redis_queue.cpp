#include "service/redis_queue.hpp"

#include <hiredis/hiredis.h>

#include <atomic>
#include <thread>

#include "agent/pipeline.hpp"
#include "service/store.hpp"

namespace flowagent::service {

struct RedisQueue::Reply {
  redisReply* r = nullptr;
  ~Reply() {
    if (r) freeReplyObject(r);
  }
};

namespace {

// KEYS: job, newest:<change>, live:<change>, jobs stream, recent list, metrics hash, active:<owner>.
// Returns 0 (the same change revision exists: idempotent), 1 (queued), 2 (older than a revision
// already seen: the caller ends it as superseded), 3 (the owner has its limit of active jobs).
constexpr const char* kSubmit = R"LUA(
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(redis.call('GET', KEYS[7]) or '0') >= tonumber(ARGV[8]) then return 3 end
local rev = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'state', 'queued', 'request', ARGV[3], 'owner', ARGV[4], 'submitted', ARGV[5], 'attempts', 0)
redis.call('HINCRBY', KEYS[6], 'received', 1)
redis.call('LPUSH', KEYS[5], ARGV[1])
redis.call('LTRIM', KEYS[5], 0, 999)
local newest = redis.call('GET', KEYS[2])
if newest and tonumber(newest) > rev then return 2 end
redis.call('SET', KEYS[2], ARGV[2])
local live = redis.call('HGETALL', KEYS[3])
for i = 1, #live, 2 do
  if tonumber(live[i + 1]) < rev then
    redis.call('HSET', ARGV[6] .. 'job:' .. live[i], 'cancel', 'superseded')
    redis.call('HDEL', KEYS[3], live[i])
  end
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[7])
redis.call('HSET', KEYS[1], 'counted', 1)
redis.call('XADD', ARGV[6] .. 'events:' .. ARGV[1], 'MAXLEN', '~', ARGV[7], '*', 'kind', 'state', 'data', '{"state":"queued"}')
redis.call('XADD', KEYS[4], '*', 'id', ARGV[1])
return 1
)LUA";

// The one place a result is written: a retry of a finished job changes nothing, so the job's
// counters (ARGV[7..]: field, increment pairs) reach the metrics hash exactly once and its owner's
// active count drops once.
constexpr const char* kFinish = R"LUA(
if redis.call('HGET', KEYS[1], 'state') == 'done' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'result', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', 'kind', 'done', 'data', ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[5])
redis.call('INCR', KEYS[4])
if redis.call('HGET', KEYS[1], 'counted') == '1' then
  redis.call('DECR', ARGV[6] .. 'active:' .. (redis.call('HGET', KEYS[1], 'owner') or ''))
  redis.call('HSET', KEYS[1], 'counted', 0)
end
for i = 7, #ARGV, 2 do redis.call('HINCRBY', KEYS[5], ARGV[i], ARGV[i + 1]) end
return 1
)LUA";

constexpr const char* kCancel = R"LUA(
local s = redis.call('HGET', KEYS[1], 'state')
if not s or s == 'done' then return 0 end
redis.call('HSET', KEYS[1], 'cancel', 'cancelled')
return 1
)LUA";

std::string str(const redisReply* r) {
  if (!r || (r->type != REDIS_REPLY_STRING && r->type != REDIS_REPLY_STATUS)) return "";
  return std::string(r->str, r->len);
}

/// Field/value pairs of a flat array reply.
std::map<std::string, std::string> pairs(const redisReply* r) {
  std::map<std::string, std::string> m;
  if (!r || r->type != REDIS_REPLY_ARRAY) return m;
  for (std::size_t i = 0; i + 1 < r->elements; i += 2) m[str(r->element[i])] = str(r->element[i + 1]);
  return m;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Expected<RedisOptions> parse_redis_url(std::string_view url) {
  RedisOptions o;
  if (!url.starts_with("redis://")) return fail(Errc::invalid_argument, "queue URL must be redis://HOST:PORT/DB");
  std::string rest(url.substr(8));
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    o.db = std::atoi(rest.c_str() + slash + 1);
    rest.erase(slash);
  }
  if (auto colon = rest.rfind(':'); colon != std::string::npos) {
    o.port = std::atoi(rest.c_str() + colon + 1);
    rest.erase(colon);
  }
  if (!rest.empty()) o.host = rest;
  if (o.port <= 0 || o.port > 65535 || o.db < 0) return fail(Errc::invalid_argument, "bad redis URL " + std::string(url));
  return o;
}

Expected<std::unique_ptr<RedisQueue>> RedisQueue::connect(const RedisOptions& options) {
  std::unique_ptr<RedisQueue> q(new RedisQueue(options));
  auto ping = q->command({"PING"});
  if (!ping) return fail(ping.error().code, ping.error().message);
  auto group = q->command({"XGROUP", "CREATE", q->opt_.prefix + "jobs", "workers", "0", "MKSTREAM"});
  if (!group && group.error().message.find("BUSYGROUP") == std::string::npos) return fail(group.error().code, group.error().message);
  return q;
}

RedisQueue::~RedisQueue() {
  if (ctx_) redisFree(ctx_);
}

Expected<std::shared_ptr<RedisQueue::Reply>> RedisQueue::command(const std::vector<std::string>& args) {
  std::lock_guard lock(mu_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!ctx_ || ctx_->err) {  // (re)connect: a restarted server is picked up again
      if (ctx_) redisFree(ctx_);
      timeval tv{2, 0};
      ctx_ = redisConnectWithTimeout(opt_.host.c_str(), opt_.port, tv);
      if (!ctx_ || ctx_->err) {
        std::string why = ctx_ ? ctx_->errstr : "out of memory";
        if (ctx_) redisFree(ctx_);
        ctx_ = nullptr;
        return fail(Errc::io, "redis " + opt_.host + ":" + std::to_string(opt_.port) + ": " + why);
      }
      if (opt_.db != 0) {
        auto* r = static_cast<redisReply*>(redisCommand(ctx_, "SELECT %d", opt_.db));
        if (r) freeReplyObject(r);
      }
    }
    std::vector<const char*> argv;
    std::vector<std::size_t> lens;
    for (const auto& a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    auto* r = static_cast<redisReply*>(redisCommandArgv(ctx_, static_cast<int>(argv.size()), argv.data(), lens.data()));
    if (!r) continue;  // connection lost: reconnect once
    auto reply = std::make_shared<Reply>();
    reply->r = r;
    if (r->type == REDIS_REPLY_ERROR) return fail(Errc::io, "redis: " + std::string(r->str, r->len));
    return reply;
  }
  return fail(Errc::io, "redis: " + std::string(ctx_ && ctx_->err ? ctx_->errstr : "connection lost"));
}

Expected<RedisQueue::Submitted> RedisQueue::submit(const RepairRequest& request, const std::string& owner, int owner_limit) {
  const std::string id = job_id(request.change.id, request.change.revision);
  const std::string& p = opt_.prefix;
  auto r = command({"EVAL", kSubmit, "7", p + "job:" + id, p + "newest:" + request.change.id, p + "live:" + request.change.id,
                    p + "jobs", p + "recent", p + "metrics", p + "active:" + owner, id, std::to_string(request.change.revision),
                    dump_json_lossy(to_json(request)), owner, std::to_string(now_ms()), p, std::to_string(opt_.events_cap),
                    std::to_string(owner_limit)});
  if (!r) return fail(r.error().code, r.error().message);
  const long long outcome = (*r)->r->integer;
  if (outcome == 2) {  // older than a revision already seen
    if (auto f = finish(id, detail::superseded_result(request, "a newer revision was already submitted"), 0, -1); !f)
      return fail(f.error().code, f.error().message);
  }
  return Submitted{id, outcome == 0, outcome == 3};
}

Expected<std::map<std::string, std::string>> RedisQueue::counters() {
  auto r = command({"HGETALL", opt_.prefix + "metrics"});
  if (!r) return fail(r.error().code, r.error().message);
  return pairs((*r)->r);
}

Expected<RedisQueue::Backlog> RedisQueue::backlog() {
  auto r = command({"XINFO", "GROUPS", opt_.prefix + "jobs"});
  if (!r) return fail(r.error().code, r.error().message);
  Backlog b;
  const redisReply* a = (*r)->r;
  for (std::size_t i = 0; a->type == REDIS_REPLY_ARRAY && i < a->elements; ++i) {
    const redisReply* g = a->element[i];
    for (std::size_t k = 0; g->type == REDIS_REPLY_ARRAY && k + 1 < g->elements; k += 2) {
      const std::string key = str(g->element[k]);
      const redisReply* v = g->element[k + 1];
      if (v->type != REDIS_REPLY_INTEGER) continue;
      if (key == "pending") b.running += v->integer;
      else if (key == "lag") b.queued += v->integer;
    }
  }
  return b;
}

Expected<long long> RedisQueue::active_jobs(const std::string& owner) {
  auto r = command({"GET", opt_.prefix + "active:" + owner});
  if (!r) return fail(r.error().code, r.error().message);
  return std::atoll(str((*r)->r).c_str());
}

Expected<std::optional<Json>> RedisQueue::job(const std::string& id) {
  auto r = command({"HGETALL", opt_.prefix + "job:" + id});
  if (!r) return fail(r.error().code, r.error().message);
  auto m = pairs((*r)->r);
  if (m.empty()) return std::optional<Json>();
  auto req = parse_json(m["request"]);
  const Json* change = req ? req->find("change") : nullptr;  // a damaged request has none
  Json d = Json::obj({{"id", id},
                      {"state", m["state"]},
                      {"change_id", change ? change->get_string("id") : ""},
                      {"revision", change ? change->get_int("revision") : 0},
                      {"submitted_unix_ms", std::atoll(m["submitted"].c_str())},
                      {"location", "/v1/repairs/" + id},
                      {"events", "/v1/repairs/" + id + "/events"},
                      {"attempts", std::atoll(m["attempts"].c_str())},
                      {"owner", m["owner"]}});
  d["progress"] = nullptr;
  if (auto res = parse_json(m["result"]); res && !m["result"].empty()) d["result"] = *res;
  else d["result"] = nullptr;
  return std::optional<Json>(std::move(d));
}

Expected<std::optional<RepairResult>> RedisQueue::result(const std::string& id) {
  auto r = command({"HGET", opt_.prefix + "job:" + id, "result"});
  if (!r) return fail(r.error().code, r.error().message);
  const std::string text = str((*r)->r);
  if (text.empty()) return std::optional<RepairResult>();
  auto res = parse_repair_result(text);
  if (!res) return fail(res.error().code, res.error().message);
  return std::optional<RepairResult>(std::move(*res));
}

Expected<bool> RedisQueue::cancel(const std::string& id) {
  auto r = command({"EVAL", kCancel, "1", opt_.prefix + "job:" + id});
  if (!r) return fail(r.error().code, r.error().message);
  return (*r)->r->integer == 1;
}

Expected<std::vector<RedisQueue::Frame>> RedisQueue::events_after(const std::string& id, const std::string& after) {
  auto r = command({"XRANGE", opt_.prefix + "events:" + id, after == "0" ? "-" : "(" + after, "+"});
  if (!r) return fail(r.error().code, r.error().message);
  std::vector<Frame> out;
  const redisReply* a = (*r)->r;
  for (std::size_t i = 0; a->type == REDIS_REPLY_ARRAY && i < a->elements; ++i) {
    const redisReply* e = a->element[i];
    auto f = pairs(e->element[1]);
    out.push_back({str(e->element[0]), f["kind"], f["data"]});
  }
  return out;
}

Expected<std::vector<std::string>> RedisQueue::recent(std::size_t limit) {
  auto r = command({"LRANGE", opt_.prefix + "recent", "0", std::to_string(limit - 1)});
  if (!r) return fail(r.error().code, r.error().message);
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < (*r)->r->elements; ++i) ids.push_back(str((*r)->r->element[i]));
  return ids;
}

void RedisQueue::publish_event(const std::string& id, const Event& e) {
  emit(id, to_string(e.kind), dump_json_lossy(to_json(e)));
}

Expected<void> RedisQueue::emit(const std::string& id, std::string_view kind, const std::string& data) {
  auto r = command({"XADD", opt_.prefix + "events:" + id, "MAXLEN", "~", std::to_string(opt_.events_cap), "*", "kind",
                    std::string(kind), "data", data});
  if (!r) return fail(r.error().code, r.error().message);
  return {};
}

Expected<void> RedisQueue::finish(const std::string& id, const RepairResult& res, double queue_s, double run_s) {
  const std::string& p = opt_.prefix;
  const std::string done = dump_json_lossy(Json::obj({{"state", "done"}, {"status", to_string(res.status)}, {"reason", res.reason}}));
  JobCounters delta;  // this job's share of the funnel, added by the script only if it stores the result
  if (run_s >= 0) delta.started(queue_s);
  delta.finished(res, queue_s, run_s);
  std::vector<std::string> args{"EVAL", kFinish, "5", p + "job:" + id, p + "events:" + id, p + "live:" + res.change_id, p + "finished",
                                p + "metrics", dump_json_lossy(to_json(res)), std::to_string(opt_.result_ttl.count()),
                                std::to_string(opt_.events_cap), done, id, p};
  for (auto& [field, n] : delta.fields()) {
    args.push_back(field);
    args.push_back(std::to_string(n));
  }
  auto r = command(args);
  if (!r) return fail(r.error().code, r.error().message);
  return {};
}

Expected<bool> RedisQueue::work_once(const std::string& consumer, const Runner& runner, std::chrono::milliseconds block) {
  const std::string stream = opt_.prefix + "jobs";
  // Entries another worker took but did not acknowledge within the visibility timeout (looked for
  // at most every half timeout: nothing can be claimable sooner).
  const auto now = std::chrono::steady_clock::now();
  if (now - last_claim_ >= opt_.visibility / 2) {
    last_claim_ = now;
    auto claimed = command({"XAUTOCLAIM", stream, "workers", consumer, std::to_string(opt_.visibility.count()), "0-0", "COUNT", "1"});
    if (!claimed) return fail(claimed.error().code, claimed.error().message);
    const redisReply* c = (*claimed)->r;
    if (c->type == REDIS_REPLY_ARRAY && c->elements >= 2 && c->element[1]->elements > 0) {
      const redisReply* e = c->element[1]->element[0];
      last_claim_ = {};  // there may be more
      return process(consumer, str(e->element[0]), pairs(e->element[1])["id"], runner);
    }
  }
  auto read = command({"XREADGROUP", "GROUP", "workers", consumer, "COUNT", "1", "BLOCK", std::to_string(block.count()), "STREAMS",
                       stream, ">"});
  if (!read) return fail(read.error().code, read.error().message);
  const redisReply* r = (*read)->r;
  if (r->type != REDIS_REPLY_ARRAY || r->elements == 0) return false;
  const redisReply* entries = r->element[0]->element[1];
  if (entries->elements == 0) return false;
  const redisReply* e = entries->element[0];
  return process(consumer, str(e->element[0]), pairs(e->element[1])["id"], runner);
}

Expected<bool> RedisQueue::process(const std::string& consumer, const std::string& entry, const std::string& id,
                                   const Runner& runner) {
  const std::string& p = opt_.prefix;
  const std::string key = p + "job:" + id;
  auto ack = [&]() -> Expected<bool> {
    auto a = command({"XACK", p + "jobs", "workers", entry});
    if (!a) return fail(a.error().code, a.error().message);
    return true;
  };
  auto h = command({"HGETALL", key});
  if (!h) return fail(h.error().code, h.error().message);
  auto m = pairs((*h)->r);
  if (m.empty() || m["state"] == "done") return ack();  // expired, or finished by an earlier attempt
  // Wall-clock times: the front end that enqueued the job may be another machine.
  const double queue_s = std::max<double>(0, static_cast<double>(now_ms() - std::atoll(m["submitted"].c_str())) / 1000.0);
  auto request = parse_repair_request(m["request"]);
  if (!request) {  // written by another version, or damaged: end it (its owner's slot and the funnel with it)
    RepairResult bad;
    bad.status = Status::error;
    bad.reason = "invalid_request";
    bad.message = "the queued request could not be read: " + request.error().message;
    if (auto f = finish(id, bad, queue_s, -1); !f) return fail(f.error().code, f.error().message);
    return ack();
  }
  auto attempts = command({"HINCRBY", key, "attempts", "1"});
  if (!attempts) return fail(attempts.error().code, attempts.error().message);
  auto ended = [&](Status status, std::string reason, std::string message) {
    RepairResult r = detail::superseded_result(*request, "");
    r.status = status;
    r.reason = std::move(reason);
    r.message = std::move(message);
    return r;
  };
  if ((*attempts)->r->integer > opt_.max_attempts) {
    const std::string why = "attempt " + std::to_string((*attempts)->r->integer) + " of at most " +
                            std::to_string(opt_.max_attempts) + " (workers died or timed out)";
    if (auto d = command({"XADD", p + "dead", "*", "id", id, "entry", entry, "reason", why}); !d)
      return fail(d.error().code, d.error().message);
    if (auto f = finish(id, ended(Status::error, "dead_letter", why), queue_s, -1); !f) return fail(f.error().code, f.error().message);
    return ack();
  }
  if (m["cancel"] == "superseded") {
    if (auto f = finish(id, detail::superseded_result(*request, "a newer revision was submitted"), queue_s, -1); !f)
      return fail(f.error().code, f.error().message);
    return ack();
  }
  if (m["cancel"] == "cancelled") {
    if (auto f = finish(id, ended(Status::error, "cancelled", "cancelled before it started"), queue_s, -1); !f)
      return fail(f.error().code, f.error().message);
    return ack();
  }
  command({"HSET", key, "state", "running", "worker", consumer});
  emit(id, "state", "{\"state\":\"running\"}");
  // A watcher with its own connection: cancel and supersede reach the job; the entry's idle time
  // is reset so no other worker claims a job that is still being worked on.
  CancelToken cancel, stop;
  std::atomic<bool> superseded{false};
  std::thread watcher([&] {
    std::unique_ptr<RedisQueue> w(new RedisQueue(opt_));  // its own connection, made on first use
    auto last_touch = std::chrono::steady_clock::now();
    while (!stop.cancelled()) {
      if (auto c = w->command({"HGET", key, "cancel"}); c) {
        const std::string flag = str((*c)->r);
        if (flag == "superseded") superseded = true;
        if (!flag.empty()) cancel.cancel();
      }
      if (std::chrono::steady_clock::now() - last_touch > opt_.visibility / 3) {
        w->command({"XCLAIM", p + "jobs", "workers", consumer, "0", entry, "JUSTID"});
        last_touch = std::chrono::steady_clock::now();
      }
      stop.wait_for(std::chrono::milliseconds(50));
    }
  });
  const auto run_start = std::chrono::steady_clock::now();
  RepairResult result;
  try {
    result = runner(*request, cancel, [&] { return superseded.load(); },
                    [&](const Event& e) { emit(id, to_string(e.kind), dump_json_lossy(to_json(e))); });
  } catch (const std::exception& e) {
    result = ended(Status::error, "internal", e.what());
  }
  stop.cancel();
  watcher.join();
  if (superseded && result.status == Status::error && result.reason == "cancelled") {
    RepairResult s = detail::superseded_result(*request, "a newer revision was submitted");
    s.metrics = result.metrics;
    result = std::move(s);
  }
  const double run_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
  if (auto f = finish(id, result, queue_s, run_s); !f) return fail(f.error().code, f.error().message);
  return ack();
}

Expected<long long> RedisQueue::counter(const std::string& name) {
  auto r = command({"GET", opt_.prefix + name});
  if (!r) return fail(r.error().code, r.error().message);
  return std::atoll(str((*r)->r).c_str());
}

Expected<long long> RedisQueue::stream_length(const std::string& name) {
  auto r = command({"XLEN", opt_.prefix + name});
  if (!r) return fail(r.error().code, r.error().message);
  return (*r)->r->integer;
}

}  // namespace flowagent::service
