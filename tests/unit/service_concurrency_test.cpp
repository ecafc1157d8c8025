// flowagentd under concurrent load: several workers finish jobs while several HTTP threads read
// the same jobs' documents, listings and results, and the service stops while clients still talk
// to it. Part of the ThreadSanitizer build (the tsan preset), where a job's state or result read
// outside the store's lock, or the acceptor closed on one io thread while another accepts, is a
// reported race; in the other builds it checks every document read is consistent.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "service/service.hpp"
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

const std::string kToken = "tok-load-0123456789abcdef";


TEST(ServiceConcurrency, DocumentsReadWhileWorkersFinishJobsAndStopUnderLoad) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "repos" / "repo");
  ServiceOptions o;
  o.port = 0;
  o.repos_root = tmp.path() / "repos";
  o.tokens = *TokenStore::parse(token_hash_line(kToken) + " load admin max_jobs=100000 max_inflight=100000\n");
  o.workers = 4;
  o.http_threads = 3;
  o.max_queued = 100'000;
  // A runner that finishes at once with a result big enough that copying it takes a while.
  o.runner = [](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
    RepairResult res = noop_result(r);
    res.message = std::string(2000, 'm') + r.change.id;
    return res;
  };
  auto svc = Service::start(std::move(o));
  ASSERT_TRUE(svc) << svc.error().message;
  const unsigned short port = (*svc)->port();

  constexpr int kJobs = 120;
  std::atomic<int> submitted{0}, bad{0}, reads{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r)
    readers.emplace_back([&, r] {
      while (!done) {
        const int n = submitted.load();
        if (n == 0) {
          std::this_thread::sleep_for(1ms);
          continue;
        }
        const std::string id = job_id("load-" + std::to_string((n * 7 + r) % n), 1);
        auto doc = http_call(port, "GET", r == 0 ? "/v1/repairs?limit=20" : "/v1/repairs/" + id, kToken);
        if (doc.status == 0) continue;  // the service is stopping
        reads++;
        if (doc.status != 200) {
          bad++;
          continue;
        }
        auto j = parse_json(doc.body);
        if (!j) {
          bad++;
          continue;
        }
        if (r != 0) {
          const std::string state = j->get_string("state");
          const Json* result = j->find("result");
          // A finished job has its result in the same document; an unfinished one has none.
          if ((state == "done") != (result && result->is_object())) bad++;
          if (state != "queued" && state != "running" && state != "done") bad++;
        }
      }
    });
  for (int i = 0; i < kJobs; ++i) {
    auto reply = http_call(port, "POST", "/v1/repairs", kToken, minimal_repair_body("load-" + std::to_string(i)));
    EXPECT_EQ(reply.status, 202) << reply.body;
    submitted++;
  }
  // Every job finishes; then the service stops while the readers still send requests.
  for (int i = 0; i < 500; ++i) {
    auto last = http_call(port, "GET", "/v1/repairs/" + job_id("load-" + std::to_string(kJobs - 1), 1), kToken);
    if (last.body.find("\"state\":\"done\"") != std::string::npos) break;
    std::this_thread::sleep_for(10ms);
  }
  (*svc)->stop();
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
}

}  // namespace
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
