// flowagentd end to end: the library's pipeline on a real Python repository with a scripted model
// on loopback; the fixed result is delivered over HTTP (patch, publish formats), a job without a
// fix is not, and the funnel in /metrics counts what happened.
#include <gtest/gtest.h>

#include <thread>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "service/service.hpp"
#include "support/http_client.hpp"
#include "support/scripted_model.hpp"
#include "support/service_fixtures.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::service;
using namespace flowagent::testkit;
using namespace std::chrono_literals;

namespace {

const std::string kToken = "e2e-token-0123456789";

Json wait_done(unsigned short port, const std::string& id) { return wait_job_done(port, id, kToken); }

}  // namespace

TEST(ServiceE2E, FixedResultIsDeliveredOthersAreNot) {
  TempDir tmp;
  const fs::path repos = tmp.path() / "repos", repo = repos / "calc";
  const auto [base, head] = make_calc_repo(repo, "def add(a, b):\n    total = a + b + 1\n    return total\n");
  ScriptedModel model;
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "a + b"}})}}));
  model.push(final_reply("The refactor added 1; removed it."));
  ServiceOptions o = pipeline_service_options(repos, tmp.path() / "pool", kToken, "ci admin", model, 1);
  auto svc = Service::start(std::move(o));
  ASSERT_TRUE(svc) << svc.error().message;
  const auto port = (*svc)->port();

  RepairRequest r;
  r.repository = "calc";  // relative to the repository root
  r.change.id = "py-1";
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.change.description = "Refactor add";
  r.change.files = {{"calc.py", 2, 1, false}};
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.commands.timeout_seconds = 120;
  auto sub = http_call(port, "POST", "/v1/repairs", kToken, dump_json_lossy(to_json(r)));
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = parse_json(sub.body)->get_string("id");
  auto doc = wait_done(port, id);
  const Json* res = doc.find("result");
  ASSERT_TRUE(res && res->is_object()) << dump_json_lossy(doc);
  ASSERT_EQ(res->get_string("status"), "fixed") << dump_json_lossy(*res);

  auto patch = http_call(port, "GET", "/v1/repairs/" + id + "/patch", kToken);
  EXPECT_EQ(patch.status, 200);
  EXPECT_NE(patch.body.find("-    total = a + b + 1\n+    total = a + b\n"), std::string::npos) << patch.body;
  EXPECT_EQ(patch.body, res->get_string("patch"));
  EXPECT_NE(patch.header("content-disposition").find("attachment"), std::string::npos);
  auto sarif = http_call(port, "GET", "/v1/repairs/" + id + "/publish?format=sarif", kToken);
  EXPECT_EQ(sarif.status, 200);
  EXPECT_NE(sarif.body.find("\"2.1.0\""), std::string::npos);
  auto bogus = http_call(port, "GET", "/v1/repairs/" + id + "/publish?format=bogus", kToken);
  EXPECT_EQ(bogus.status, 400) << bogus.body;
  // The events streamed the pipeline's phases.
  auto events = raw_exchange(port, "GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kToken + "\r\n\r\n", 5s);
  EXPECT_NE(events.find("\"phase\":\"validate\""), std::string::npos) << events;
  EXPECT_NE(events.find("event: done\ndata: {\"state\":\"done\",\"status\":\"fixed\""), std::string::npos);

  // A second revision whose model gives up: no_fix, and nothing to deliver.
  r.change.revision = 2;
  auto sub2 = http_call(port, "POST", "/v1/repairs", kToken, dump_json_lossy(to_json(r)));
  const std::string id2 = parse_json(sub2.body)->get_string("id");
  EXPECT_EQ(wait_done(port, id2).find("result")->get_string("status"), "no_fix");
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/" + id2 + "/patch", kToken).status, 409);
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/" + id2 + "/publish?format=diff", kToken).status, 409);

  auto m = http_call(port, "GET", "/metrics", kToken).body;
  EXPECT_NE(m.find("\nflowagent_notifications_total 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("\nflowagent_attempted_total 2\n"), std::string::npos);
  EXPECT_NE(m.find("\nflowagent_validated_total 1\n"), std::string::npos);
  EXPECT_NE(m.find("\nflowagent_delivered_total 1\n"), std::string::npos);
  EXPECT_NE(m.find("\nflowagent_no_fix_total 1\n"), std::string::npos);
  EXPECT_NE(m.find("flowagent_tokens_total{kind=\"input\"} "), std::string::npos);
  EXPECT_EQ(m.find("flowagent_tokens_total{kind=\"input\"} 0\n"), std::string::npos);
  EXPECT_NE(m.find("flowagent_job_start_latency_seconds_count 2\n"), std::string::npos);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
