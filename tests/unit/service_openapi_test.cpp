// docs/openapi.yaml against the running server: every documented operation exists, answers with
// a documented status code, and needs a token exactly when the document says so.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
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

struct Operation {
  std::string path, method;
  std::set<int> codes;
  bool open = false;  // security: []
};

/// The operations under `paths:` (two-space path keys, four-space methods, eight-space codes).
std::vector<Operation> read_operations(const std::string& yaml) {
  std::vector<Operation> ops;
  std::istringstream in(yaml);
  std::string line, path;
  bool in_paths = false;
  while (std::getline(in, line)) {
    if (line == "paths:") {
      in_paths = true;
      continue;
    }
    if (!in_paths) continue;
    if (!line.empty() && line[0] != ' ') break;
    auto indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    std::string text = line.substr(indent);
    if (indent == 2 && text.back() == ':') path = text.substr(0, text.size() - 1);
    else if (indent == 4 && (text == "get:" || text == "post:")) ops.push_back({path, text.substr(0, text.size() - 1), {}, false});
    else if (indent == 6 && text == "security: []" && !ops.empty()) ops.back().open = true;
    else if (indent == 8 && text.size() >= 5 && text[0] == '\'' && !ops.empty()) ops.back().codes.insert(std::stoi(text.substr(1, 3)));
  }
  return ops;
}

}  // namespace

TEST(ServiceOpenApi, DocumentMatchesTheServer) {
  std::ifstream f(std::string(FLOWAGENT_SOURCE_DIR) + "/docs/openapi.yaml");
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string yaml = ss.str();
  ASSERT_EQ(yaml.rfind("openapi: 3.1.0\n", 0), 0u);
  auto ops = read_operations(yaml);
  ASSERT_GE(ops.size(), 10u);

  TempDir tmp;
  fs::create_directories(tmp.path() / "repos" / "repo");
  const std::string token = "openapi-token-0123456789";
  ServiceOptions o;
  o.port = 0;
  o.repos_root = tmp.path() / "repos";
  o.tokens = *TokenStore::parse(token_hash_line(token) + " ops admin\n");
  o.runner = [](const RepairRequest& r, const CancelToken&, const std::function<bool()>&, const std::function<void(const Event&)>&) {
    return noop_result(r);
  };
  auto svc = Service::start(std::move(o));
  ASSERT_TRUE(svc);
  const auto port = (*svc)->port();
  const std::string body = dump_json_lossy(to_json(sample_request("repo", "api", 1)));
  const std::string id = job_id("api", 1);
  std::set<std::string> seen;
  for (const auto& op : ops) {
    std::string target = op.path;
    if (auto p = target.find("{id}"); p != std::string::npos) target.replace(p, 4, id);
    if (op.path.ends_with("/publish")) target += "?format=diff";
    const std::string send = op.method == "post" && op.path == "/v1/repairs" ? body : "";
    if (op.path == "/v1/repairs/{id}:cancel") {  // a fresh job to cancel
      http_call(port, "POST", "/v1/repairs", token, dump_json_lossy(to_json(sample_request("repo", "api", 2))));
      target = "/v1/repairs/" + job_id("api", 2) + ":cancel";
    }
    auto with = http_call(port, op.method == "get" ? "GET" : "POST", target, token, send);
    EXPECT_TRUE(op.codes.count(with.status)) << op.method << " " << op.path << " answered " << with.status << " " << with.body;
    auto without = http_call(port, op.method == "get" ? "GET" : "POST", target, "", send);
    if (op.open) {
      EXPECT_EQ(without.status, 200) << op.path;
    } else {
      EXPECT_EQ(without.status, 401) << op.path;
      EXPECT_TRUE(op.codes.count(401)) << op.path << " does not document 401";
    }
    seen.insert(op.method + " " + op.path);
    if (op.path == "/v1/repairs" && op.method == "post")  // later operations read this job once it is done
      for (int i = 0; i < 200 && parse_json(http_call(port, "GET", "/v1/repairs/" + id, token).body)->get_string("state") != "done"; ++i)
        std::this_thread::sleep_for(5ms);
  }
  // Every route the server has is documented.
  for (const char* route : {"post /v1/repairs", "get /v1/repairs", "get /v1/repairs/{id}", "post /v1/repairs/{id}:cancel",
                            "get /v1/repairs/{id}/events", "get /v1/repairs/{id}/patch", "get /v1/repairs/{id}/publish",
                            "get /v1/repairs/{id}/result", "get /healthz", "get /readyz", "get /metrics", "get /",
                            "get /assets/app.js", "get /assets/app.css"})
    EXPECT_TRUE(seen.count(route)) << route << " is not in docs/openapi.yaml";
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
