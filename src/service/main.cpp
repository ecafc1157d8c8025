// flowagentd: repairs as a service (docs/SERVICE.md).
//   flowagentd --repos DIR --tokens FILE [options]     serve (embedded queue)
//   flowagentd hash-token < token                       print the line to put in the token file
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>

#include <atomic>
#include <thread>

#include "service/redis_queue.hpp"
#include "service/service.hpp"

using namespace flowagent;
using namespace flowagent::service;

namespace {

int usage() {
  std::cerr << "usage: flowagentd --repos DIR --tokens FILE [--listen ADDR] [--port N] [--workers N]\n"
               "                  [--http-threads N] [--tls-cert FILE --tls-key FILE] [--model SPEC]\n"
               "                  [--model-base-url URL] [--model-key-env VAR] [--runner pipeline|noop|sleep:MS|result:MS:FILE]\n"
               "                  [--max-body-bytes N] [--max-queued N] [--read-timeout-ms N] [--idle-timeout-ms N]\n"
               "                  [--drain-seconds N] [--trajectory-dir DIR] [--allow-unsandboxed] [--log-requests]\n"
               "       flowagentd worker --queue redis://HOST:PORT/DB [--workers N] [--runner pipeline|noop|sleep:MS|result:MS:FILE]\n"
               "                  [--visibility-ms N] [--max-attempts N] [--consumer NAME] [--model ...]\n"
               "       flowagentd hash-token   (reads a token on stdin, prints sha256:<hex>)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "hash-token") {
    std::string token;
    std::getline(std::cin, token);
    if (token.empty()) {
      std::cerr << "flowagentd: empty token\n";
      return 2;
    }
    std::cout << token_hash_line(token) << "\n";
    return 0;
  }
  bool worker = false;
  if (!args.empty() && args[0] == "serve") args.erase(args.begin());
  else if (!args.empty() && args[0] == "worker") {
    worker = true;
    args.erase(args.begin());
  }
  ServiceOptions o;
  std::string tokens_file, runner_name = "pipeline", queue_url, consumer;
  long visibility_ms = 30'000, max_attempts = 3;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) {
        std::cerr << "flowagentd: " << a << " needs a value\n";
        std::exit(2);
      }
      return args[++i];
    };
    auto number = [&]() -> long {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (!end || *end || n < 0) {
        std::cerr << "flowagentd: " << a << " expects a number\n";
        std::exit(2);
      }
      return n;
    };
    if (a == "--repos") o.repos_root = value();
    else if (a == "--tokens") tokens_file = value();
    else if (a == "--listen") o.listen_address = value();
    else if (a == "--port") o.port = static_cast<unsigned short>(number());
    else if (a == "--workers") o.workers = static_cast<int>(number());
    else if (a == "--http-threads") o.http_threads = static_cast<int>(number());
    else if (a == "--tls-cert") o.tls_cert = value();
    else if (a == "--tls-key") o.tls_key = value();
    else if (a == "--model") o.model.spec = value();
    else if (a == "--model-base-url") o.model.base_url = value();
    else if (a == "--model-key-env") o.model.api_key_env = value();
    else if (a == "--runner") runner_name = value();
    else if (a == "--queue") queue_url = value();
    else if (a == "--consumer") consumer = value();
    else if (a == "--visibility-ms") visibility_ms = number();
    else if (a == "--max-attempts") max_attempts = number();
    else if (a == "--max-body-bytes") o.max_body_bytes = static_cast<std::size_t>(number());
    else if (a == "--max-queued") o.max_queued = static_cast<std::size_t>(number());
    else if (a == "--read-timeout-ms") o.read_timeout = std::chrono::milliseconds(number());
    else if (a == "--idle-timeout-ms") o.idle_timeout = std::chrono::milliseconds(number());
    else if (a == "--drain-seconds") o.drain_timeout = std::chrono::seconds(number());
    else if (a == "--trajectory-dir") o.agent.trajectory_dir = value();
    else if (a == "--allow-unsandboxed") o.agent.sandbox.allow_unsandboxed_commands = true;
    else if (a == "--log-requests") o.log_requests = true;
    else return usage();
  }
  // The model endpoint is the operator's (requests may not change it): trust it for the key.
  if (!o.model.base_url.empty()) o.agent.trusted_model_origins.push_back(o.model.base_url);
  if (o.model.spec.rfind("replay:", 0) == 0) o.agent.allow_replay_models = true;
  if (runner_name != "pipeline") {
    auto r = test_runner(runner_name);
    if (!r) {
      std::cerr << "flowagentd: unknown runner (or unreadable recorded result) " << runner_name << "\n";
      return usage();
    }
    o.runner = std::move(*r);
  }
  // SIGINT/SIGTERM are taken by sigwait below: block them before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  if (worker) {
    auto ro = parse_redis_url(queue_url);
    if (!ro) {
      std::cerr << "flowagentd: " << ro.error().message << "\n";
      return 2;
    }
    ro->visibility = std::chrono::milliseconds(visibility_ms);
    ro->max_attempts = static_cast<int>(max_attempts);
    if (consumer.empty()) {
      char host[256] = {};
      gethostname(host, sizeof host - 1);
      consumer = std::string(host) + "-" + std::to_string(getpid());
    }
    std::atomic<bool> stopping{false};
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (int i = 0; i < o.workers; ++i)
      threads.emplace_back([&, i] {
        auto q = RedisQueue::connect(*ro);
        if (!q) {
          std::cerr << "flowagentd: " << q.error().message << "\n";
          failures++;
          return;
        }
        Runner runner = o.runner;
        if (!runner) {
          auto r = pipeline_runner(o.agent, [qp = q->get()](const Event& e) { qp->publish_event(job_id(e.change_id, e.revision), e); });
          if (!r) {
            std::cerr << "flowagentd: " << r.error().message << "\n";
            failures++;
            return;
          }
          runner = std::move(*r);
        }
        const std::string name = consumer + "-" + std::to_string(i);
        while (!stopping) {
          auto done = (*q)->work_once(name, runner, std::chrono::milliseconds(200));
          if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(200));  // redis away: retry
        }
      });
    std::cout << "flowagentd: worker " << consumer << " consuming " << queue_url << std::endl;
    int sig = 0;
    sigwait(&set, &sig);
    std::cerr << "flowagentd: signal " << sig << ", finishing running jobs\n";
    stopping = true;
    for (auto& t : threads) t.join();
    std::cerr << "flowagentd: stopped\n";
    return failures ? 1 : 0;
  }
  if (o.repos_root.empty() || tokens_file.empty()) return usage();
  auto tokens = TokenStore::load(tokens_file);
  if (!tokens) {
    std::cerr << "flowagentd: " << tokens.error().message << "\n";
    return 2;
  }
  o.tokens = std::move(*tokens);
  o.queue_url = queue_url;
  auto svc = Service::start(std::move(o));
  if (!svc) {
    std::cerr << "flowagentd: " << svc.error().message << "\n";
    return 1;
  }
  std::cout << "flowagentd: listening on port " << (*svc)->port() << std::endl;
  int sig = 0;
  sigwait(&set, &sig);
  std::cerr << "flowagentd: signal " << sig << ", draining\n";
  (*svc)->stop();
  std::cerr << "flowagentd: stopped\n";
  return 0;
}
