// flowagentd's own overhead (docs/BENCHMARKS.md, "Service"): jobs submitted over real loopback
// HTTP to an in-process Service, run by a runner that does no repair work.
//   BM_ServiceJobStart/<queue>/<workers>   enqueue-to-start latency: POST sent -> the runner starts
//                                          (p50_ms, p99_ms counters), one job at a time
//   BM_ServiceThroughput/<queue>/<workers> 100 jobs of 5 ms each (a runner that sleeps: the work a
//                                          worker waits on), submitted at once: jobs/s
//   BM_ServiceQueuedJobMemory              RSS per queued job (2,000 jobs behind one blocked worker)
//   BM_ServiceSseFanout                    100 clients on one job's event stream; 100 events: the time
//                                          until every client has every frame
// <queue>: 0 embedded, 1 Redis Streams (a redis-server the benchmark starts on a loopback port; the
// Redis variants are registered only when redis-server is installed). Workers for Redis are
// threads of this process, each with its own connection, as `flowagentd worker --workers N` runs them.
#include <benchmark/benchmark.h>

#include <boost/asio.hpp>

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "service/redis_queue.hpp"
#include "service/service.hpp"
#include "support/http_client.hpp"

using namespace flowagent;
using namespace flowagent::service;
using namespace flowagent::testkit;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kToken = "bench-token-0123456789abcdef";

struct Env {
  fs::path dir;
  Env() {
    char tmpl[] = "/tmp/flowagent-svcbench-XXXXXX";
    dir = mkdtemp(tmpl);
    fs::create_directories(dir / "repos" / "repo");
  }
  ~Env() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};
Env& env() {
  static Env e;
  return e;
}

/// One redis-server for the process (loopback, no persistence), stopped at exit.
struct RedisServer {
  int pid = -1;
  unsigned short port = 0;
  bool start() {
    if (pid > 0) return true;
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
    port = a.local_endpoint().port();
    a.close();
    pid = fork();
    if (pid == 0) {
      const std::string p = std::to_string(port);
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the benchmark, even one that crashes
      if (!std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr)) _exit(127);
      execlp("redis-server", "redis-server", "--port", p.c_str(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      RedisOptions o;
      o.port = port;
      if (RedisQueue::connect(o)) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port) + "/0"; }
  ~RedisServer() {
    if (pid > 0) kill(pid, SIGKILL);
  }
};
RedisServer& redis() {
  static RedisServer r;
  return r;
}

std::atomic<long> g_change{0};


std::string next_change() { return "bench-" + std::to_string(getpid()) + "-" + std::to_string(g_change++); }

/// A service (embedded or a Redis front end + worker threads) with the given runner.
struct Rig {
  std::unique_ptr<Service> svc;
  std::vector<std::thread> workers;
  std::atomic<bool> stop{false};
  Rig(bool use_redis, int n_workers, Runner runner) {
    ServiceOptions o;
    o.port = 0;
    o.repos_root = env().dir / "repos";
    o.tokens = *TokenStore::parse(token_hash_line(kToken) + " bench admin max_jobs=100000 max_inflight=100000\n");
    o.workers = n_workers;
    o.runner = runner;
    o.max_queued = 100'000;
    o.heartbeat = 60s;
    if (use_redis) {
      o.queue_url = redis().url();
      RedisOptions ro = *parse_redis_url(o.queue_url);
      for (int i = 0; i < n_workers; ++i)
        workers.emplace_back([this, ro, runner, i] {
          auto q = RedisQueue::connect(ro);
          if (!q) return;
          while (!stop) (void)(*q)->work_once("bench-" + std::to_string(i), runner, 20ms);
        });
    }
    auto s = Service::start(std::move(o));
    if (s) svc = std::move(*s);
  }
  ~Rig() {
    stop = true;
    for (auto& t : workers) t.join();
    if (svc) svc->stop();
  }
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

void BM_ServiceJobStart(benchmark::State& state) {
  const bool use_redis = state.range(0) == 1;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, Clock::time_point> started;
  Runner runner = [&](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
    {
      std::lock_guard l(mu);
      started[r.change.id] = Clock::now();
    }
    cv.notify_all();
    return noop_result(r);
  };
  Rig rig(use_redis, static_cast<int>(state.range(1)), runner);
  if (!rig.svc) {
    state.SkipWithError("the service did not start");
    return;
  }
  std::vector<double> ms;
  for (auto _ : state) {
    const std::string change = next_change();
    const std::string body = minimal_repair_body(change);
    const auto sent = Clock::now();
    auto reply = http_call(rig.svc->port(), "POST", "/v1/repairs", kToken, body);
    if (reply.status != 202) {
      state.SkipWithError(("POST answered " + std::to_string(reply.status) + " " + reply.body).c_str());
      break;
    }
    std::unique_lock l(mu);
    if (!cv.wait_for(l, 10s, [&] { return started.count(change) > 0; })) {
      state.SkipWithError("a job did not start within 10 s");
      break;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(started[change] - sent).count());
  }
  state.counters["p50_ms"] = percentile(ms, 0.50);
  state.counters["p99_ms"] = percentile(ms, 0.99);
}

void BM_ServiceThroughput(benchmark::State& state) {
  const bool use_redis = state.range(0) == 1;
  constexpr int kJobs = 100;
  std::atomic<int> done{0};
  Runner runner = [&](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
    std::this_thread::sleep_for(5ms);  // the worker waits (a model call, a test run): no CPU
    done++;
    return noop_result(r);
  };
  Rig rig(use_redis, static_cast<int>(state.range(1)), runner);
  if (!rig.svc) {
    state.SkipWithError("the service did not start");
    return;
  }
  for (auto _ : state) {
    const int target = done.load() + kJobs;
    for (int i = 0; i < kJobs; ++i)
      if (http_call(rig.svc->port(), "POST", "/v1/repairs", kToken, minimal_repair_body(next_change())).status != 202) {
        state.SkipWithError("a POST was refused");
        return;
      }
    const auto until = Clock::now() + 60s;
    while (done.load() < target && Clock::now() < until) std::this_thread::sleep_for(200us);
    if (done.load() < target) {
      state.SkipWithError("jobs did not finish within 60 s");
      return;
    }
  }
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(state.iterations() * kJobs), benchmark::Counter::kIsRate);
}

long rss_bytes() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

void BM_ServiceQueuedJobMemory(benchmark::State& state) {
  constexpr int kJobs = 2000;
  for (auto _ : state) {
    CancelToken release;
    Runner runner = [&](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
      release.wait_for(60s);  // holds the only worker: everything else stays queued
      return noop_result(r);
    };
    Rig rig(false, 1, runner);
    if (!rig.svc) {
      state.SkipWithError("the service did not start");
      return;
    }
    std::vector<std::string> bodies;
    for (int i = 0; i < kJobs; ++i) bodies.push_back(minimal_repair_body(next_change()));
    http_call(rig.svc->port(), "POST", "/v1/repairs", kToken, minimal_repair_body(next_change()));  // the one that blocks
    const long before = rss_bytes();
    for (const auto& b : bodies) http_call(rig.svc->port(), "POST", "/v1/repairs", kToken, b);
    const long after = rss_bytes();
    state.counters["bytes_per_queued_job"] = static_cast<double>(after - before) / kJobs;
    release.cancel();
  }
}

/// Reads an event stream until `event: done`; returns false on error or timeout, with the reason in
/// `why`. As a browser's EventSource does, a client whose connection is refused or ends early tries
/// again (a few times; the stream replays from the start), so the number measures the fan-out, and a
/// stream that never completes is still an error.
bool read_stream(unsigned short port, const std::string& id, std::atomic<int>* sent = nullptr, std::string* why = nullptr) {
  namespace net = boost::asio;
  bool counted = false;
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
    net::io_context ioc;
    net::ip::tcp::socket s(ioc);
    boost::system::error_code ec;
    s.connect({net::ip::make_address("127.0.0.1"), port}, ec);
    if (ec) {
      last_error = "connect: " + ec.message();
      continue;
    }
    net::write(s, net::buffer("GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kToken + "\r\n\r\n"), ec);
    if (sent && !counted) {
      ++*sent;
      counted = true;
    }
    std::string got;
    char buf[8192];
    while (!ec) {
      const std::size_t n = s.read_some(net::buffer(buf), ec);
      got.append(buf, n);
      if (got.find("event: done") != std::string::npos) return true;
    }
    last_error = "the stream ended after " + std::to_string(got.size()) + " bytes: " + ec.message();
  }
  if (sent && !counted) ++*sent;
  if (why) *why = last_error;
  return false;
}

void BM_ServiceSseFanout(benchmark::State& state) {
  constexpr int kClients = 100, kEvents = 100;
  for (auto _ : state) {
    state.PauseTiming();
    CancelToken go;
    Runner runner = [&](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>& emit) {
      go.wait_for(30s);
      for (int i = 1; i <= kEvents; ++i) {
        Event e;
        e.kind = EventKind::tool_call;
        e.change_id = r.change.id;
        e.revision = r.change.revision;
        e.index = i;
        e.max = kEvents;
        emit(e);
      }
      return noop_result(r);
    };
    Rig rig(false, 1, runner);
    if (!rig.svc) {
      state.SkipWithError("the service did not start");
      return;
    }
    const std::string change = next_change();
    http_call(rig.svc->port(), "POST", "/v1/repairs", kToken, minimal_repair_body(change));
    const std::string id = job_id(change, 1);
    std::atomic<int> ok{0}, sent{0};
    std::mutex why_mu;
    std::string why;
    std::vector<std::thread> clients;
    for (int c = 0; c < kClients; ++c)
      clients.emplace_back([&] {
        std::string w;
        if (read_stream(rig.svc->port(), id, &sent, &w)) {
          ++ok;
        } else {
          std::lock_guard l(why_mu);
          if (why.empty()) why = w;
        }
      });
    // Every client connected and its request sent (a loaded machine takes longer than a fixed
    // sleep), then a moment for the service to read the requests.
    for (int waited = 0; sent.load() < kClients && waited < 1000; ++waited) std::this_thread::sleep_for(10ms);
    std::this_thread::sleep_for(100ms);
    state.ResumeTiming();
    go.cancel();
    for (auto& t : clients) t.join();
    state.PauseTiming();
    if (ok.load() != kClients) {
      // (Google Benchmark: after SkipWithError the loop ends; no timing call may follow.)
      state.SkipWithError(("only " + std::to_string(ok.load()) + " of " + std::to_string(kClients) +
                           " clients got the whole stream (" + why + ")").c_str());
      break;
    }
    state.ResumeTiming();
  }
  state.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()) * kClients * (kEvents + 3),
                                                      benchmark::Counter::kIsRate);
}

void worker_args(benchmark::internal::Benchmark* b, int queue) {
  for (int w : {1, 2, 4}) b->Args({queue, w});
  b->ArgNames({"redis", "workers"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);
  const bool have_redis = std::system("command -v redis-server > /dev/null 2>&1") == 0 && redis().start();
  for (int queue : {0, 1}) {
    if (queue == 1 && !have_redis) continue;
    worker_args(benchmark::RegisterBenchmark("BM_ServiceJobStart", BM_ServiceJobStart), queue);
    worker_args(benchmark::RegisterBenchmark("BM_ServiceThroughput", BM_ServiceThroughput), queue);
  }
  benchmark::RegisterBenchmark("BM_ServiceQueuedJobMemory", BM_ServiceQueuedJobMemory)->Iterations(1)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_ServiceSseFanout", BM_ServiceSseFanout)->Unit(benchmark::kMillisecond)->UseRealTime();
  if (!have_redis) std::fprintf(stderr, "service_bench: redis-server not found, Redis variants not run\n");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
