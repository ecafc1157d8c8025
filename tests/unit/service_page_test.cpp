// The review page as flowagentd serves it: the embedded assets are byte for byte the files in
// src/service/assets/ (the CMake embedding step is not stale), with their content types and the
// Content-Security-Policy; the page has no inline script; unknown asset paths are 404; the bare
// result route the page's apply command uses; the `result:MS:FILE` runner the browser test uses.
// The page's behaviour in a browser: tests/page/page_test.mjs (ctest service_page_chromium).
#include <gtest/gtest.h>

#include <regex>
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

const std::string kToken = "page-unit-token-0123456789";

std::unique_ptr<Service> start_service(const fs::path& root, Runner runner) {
  fs::create_directories(root / "repo");
  ServiceOptions o;
  o.port = 0;
  o.repos_root = root;
  o.tokens = *TokenStore::parse(token_hash_line(kToken) + " ops admin\n");
  o.workers = 1;
  o.runner = std::move(runner);
  auto svc = Service::start(std::move(o));
  EXPECT_TRUE(svc) << svc.error().message;
  return svc ? std::move(*svc) : nullptr;
}

}  // namespace

TEST(ServicePage, EmbeddedAssetsAreTheSourceFilesWithCsp) {
  TempDir tmp;
  auto svc = start_service(tmp.path() / "repos", *test_runner("noop"));
  ASSERT_TRUE(svc);
  const fs::path assets = fs::path(FLOWAGENT_SOURCE_DIR) / "src/service/assets";
  const std::vector<std::tuple<std::string, std::string, std::string>> files = {
      {"/", "index.html", "text/html"}, {"/assets/app.js", "app.js", "text/javascript"}, {"/assets/app.css", "app.css", "text/css"}};
  for (const auto& [route, file, type] : files) {
    auto r = http_call(svc->port(), "GET", route);
    EXPECT_EQ(r.status, 200) << route;
    EXPECT_EQ(r.body, read_file(assets / file)) << route << " is not the embedded " << file;
    EXPECT_EQ(r.header("content-type").rfind(type, 0), 0u) << route << " " << r.header("content-type");
    const std::string csp = r.header("content-security-policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << route;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << route;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << route;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << route;
    EXPECT_EQ(r.header("x-content-type-options"), "nosniff");
  }
  // The API's answers carry the policy too.
  EXPECT_NE(http_call(svc->port(), "GET", "/v1/repairs", kToken).header("content-security-policy").find("default-src 'none'"),
            std::string::npos);
  // No inline script or handler in the page; its only script and style are the service's own.
  const std::string html = read_file(assets / "index.html");
  EXPECT_FALSE(std::regex_search(html, std::regex("<script(?![^>]*\\bsrc=)[^>]*>", std::regex::icase | std::regex::ECMAScript)))
      << "inline script";
  EXPECT_FALSE(std::regex_search(html, std::regex("\\son[a-z]+\\s*=", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(html, std::regex("(src|href)=\"(https?:)?//", std::regex::icase))) << "nothing from elsewhere";
  // The script never hands API data to the HTML parser of the live document.
  const std::string js = read_file(assets / "app.js");
  for (const char* sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"})
    EXPECT_EQ(js.find(sink), std::string::npos) << sink;
  for (const char* path : {"/assets/", "/assets/app.js.map", "/assets/../service.cpp", "/assets/%2e%2e/x"})
    EXPECT_EQ(http_call(svc->port(), "GET", path).status, 404) << path;
}

TEST(ServicePage, RecordedResultRunnerAndResultRoute) {
  TempDir tmp;
  EXPECT_FALSE(test_runner("result:10:" + (tmp.path() / "missing.json").string()));
  write_file(tmp.path() / "bad.json", "{\"schema\": \"nope\"}");
  EXPECT_FALSE(test_runner("result:10:" + (tmp.path() / "bad.json").string()));
  RepairResult recorded;
  recorded.status = Status::no_fix;
  recorded.reason = "recorded";
  recorded.summary = "<p>what the model tried</p>";
  recorded.change_id = "other";
  write_file(tmp.path() / "r.json", dump_json_lossy(to_json(recorded)));
  auto runner = test_runner("result:200:" + (tmp.path() / "r.json").string());
  ASSERT_TRUE(runner);
  auto svc = start_service(tmp.path() / "repos", *runner);
  ASSERT_TRUE(svc);
  const auto port = svc->port();
  auto sub = http_call(port, "POST", "/v1/repairs", kToken, dump_json_lossy(to_json(sample_request("repo", "page-1", 3))));
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = parse_json(sub.body)->get_string("id");
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/" + id + "/result", kToken).status, 409);  // not finished yet
  auto events = raw_exchange(port, "GET /v1/repairs/" + id + "/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + kToken + "\r\n\r\n",
                             10s, nullptr, 0, "event: done");
  EXPECT_NE(events.find("\"index\":5,\"max\":10"), std::string::npos) << events;
  EXPECT_NE(events.find("\"eta_ms\":"), std::string::npos);
  wait_job_done(port, id, kToken, 1000);
  auto res = http_call(port, "GET", "/v1/repairs/" + id + "/result", kToken);
  ASSERT_EQ(res.status, 200) << res.body;
  auto doc = parse_json(res.body);
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->get_string("schema"), "flowagent.repair_result/v1");
  EXPECT_EQ(doc->get_string("reason"), "recorded");
  EXPECT_EQ(doc->get_string("change_id"), "page-1");  // the job's change, not the recording's
  EXPECT_EQ(doc->get_int("revision"), 3);
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/" + id + "/result").status, 401);
  EXPECT_EQ(http_call(port, "GET", "/v1/repairs/00000000000000000000/result", kToken).status, 404);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
