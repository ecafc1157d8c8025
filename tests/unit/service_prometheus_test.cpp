// A real Prometheus (Debian's prometheus, started on a loopback port with a temporary config and
// storage directory, scrape interval 1 s, the bearer token from a credentials file) scrapes
// flowagentd's /metrics while jobs run through the library's pipeline: three that the pre-filters
// abstain from (two build failures, one bot author) and two attempted on a real Python repository
// with a scripted model that gives up. The funnel counters Prometheus stored, read back through its
// HTTP query API, match the jobs run.
#include <gtest/gtest.h>

#include <boost/asio.hpp>

#include <csignal>
#include <thread>

#include "support/service_fixtures.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::service;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "prometheus-scrape-token-0123456789";

unsigned short any_free_port() {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor a(ioc, {boost::asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

/// The value of an instant query with one series, or -1.
double query(unsigned short port, const std::string& promql_urlencoded) {
  auto reply = http_call(port, "GET", "/api/v1/query?query=" + promql_urlencoded);
  auto doc = parse_json(reply.body);
  if (reply.status != 200 || !doc) return -1;
  const Json* data = doc->find("data");
  const Json* result = data ? data->find("result") : nullptr;
  if (!result || !result->is_array() || result->as_array().size() != 1) return -1;
  const Json* value = result->as_array()[0].find("value");
  if (!value || !value->is_array() || value->as_array().size() != 2) return -1;
  return std::atof(value->as_array()[1].as_string().c_str());
}

}  // namespace

TEST(ServicePrometheus, ScrapedFunnelMatchesTheJobsRun) {
  if (sh("command -v prometheus > /dev/null") != 0) GTEST_SKIP() << "prometheus is not installed (scripts/install-deps.sh)";
  TempDir tmp;
  const fs::path repos = tmp.path() / "repos", repo = repos / "calc";
  const auto [base, head] = make_calc_repo(repo, "def add(a, b):\n    return a + b + 1\n");
  ScriptedModel model;  // an empty script: every model call answers "I am done." (no fix)
  ServiceOptions o = pipeline_service_options(repos, tmp.path() / "pool", kToken, "prometheus read,submit", model, 2);
  auto svc = Service::start(std::move(o));
  ASSERT_TRUE(svc) << svc.error().message;
  const auto port = (*svc)->port();

  // Prometheus: its own config and storage, scraping every second with the token from a file.
  const unsigned short prom_port = any_free_port();
  write_file(tmp.path() / "token", kToken);
  write_file(tmp.path() / "prometheus.yml",
             "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
             "scrape_configs:\n  - job_name: flowagentd\n    metrics_path: /metrics\n"
             "    authorization:\n      credentials_file: " + (tmp.path() / "token").string() + "\n"
             "    static_configs:\n      - targets: ['127.0.0.1:" + std::to_string(port) + "']\n");
  std::string pid_text;
  ASSERT_EQ(sh("exec prometheus --config.file='" + (tmp.path() / "prometheus.yml").string() + "' --storage.tsdb.path='" +
                   (tmp.path() / "tsdb").string() + "' --web.listen-address=127.0.0.1:" + std::to_string(prom_port) +
                   " --log.level=warn > '" + (tmp.path() / "prometheus.log").string() + "' 2>&1 & echo $!",
               &pid_text),
            0);
  const int prom = std::stoi(pid_text);
  struct Reap {
    int pid;
    ~Reap() {
      kill(pid, SIGKILL);
      for (int i = 0; i < 300 && sh("kill -0 " + std::to_string(pid) + " 2>/dev/null") == 0; ++i) std::this_thread::sleep_for(10ms);
    }
  } reap{prom};

  // The jobs: three filtered, two attempted.
  RepairRequest r;
  r.repository = "calc";
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.change.description = "Refactor add";
  r.change.files = {{"calc.py", 1, 1, false}};
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.commands.timeout_seconds = 60;
  r.limits.localization_budget = 0;
  std::vector<std::string> ids;
  auto submit = [&](RepairRequest req) {
    auto reply = http_call(port, "POST", "/v1/repairs", kToken, dump_json_lossy(to_json(req)));
    ASSERT_EQ(reply.status, 202) << reply.body;
    ids.push_back(parse_json(reply.body)->get_string("id"));
  };
  for (int i = 0; i < 2; ++i) {
    RepairRequest b = r;
    b.change.id = "build-" + std::to_string(i);
    b.failure.kind = FailureKind::build;
    submit(b);
  }
  RepairRequest bot = r;
  bot.change.id = "bot-1";
  bot.change.author = {"dependabot[bot]", "bot@example.com", AuthorKind::bot};
  submit(bot);
  for (int i = 0; i < 2; ++i) {
    RepairRequest a = r;
    a.change.id = "tried-" + std::to_string(i);
    submit(a);
  }
  ASSERT_EQ(ids.size(), 5u);
  for (const auto& id : ids) wait_job_done(port, id, kToken);

  // What Prometheus stored (it scrapes once a second: wait for the scrape after the last job).
  const std::vector<std::pair<std::string, double>> expected = {
      {"flowagent_notifications_total", 5},
      {"sum%28flowagent_filtered_total%29", 3},
      {"flowagent_filtered_total%7Breason%3D%22build_failure%22%7D", 2},
      {"flowagent_filtered_total%7Breason%3D%22automated_author%22%7D", 1},
      {"flowagent_attempted_total", 2},
      {"flowagent_no_fix_total", 2},
      {"flowagent_delivered_total", 0},
      {"flowagent_job_seconds_count", 5},
      {"up%7Bjob%3D%22flowagentd%22%7D", 1},
  };
  auto matches = [&] {
    for (const auto& [q, want] : expected)
      if (query(prom_port, q) != want) return false;
    return true;
  };
  const auto until = std::chrono::steady_clock::now() + 15s;
  while (!matches() && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(200ms);
  for (const auto& [q, want] : expected) EXPECT_EQ(query(prom_port, q), want) << q << "\n" << (*svc)->metrics_text();
  if (::testing::Test::HasFailure()) std::cerr << read_file(tmp.path() / "prometheus.log");
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
