// Shared set-ups of the flowagentd tests: a service running the library's pipeline against a
// scripted model, a small Python repository with a failing change, and waiting for a job.
#pragma once

#include <filesystem>
#include <string>
#include <thread>

#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"
#include "service/service.hpp"
#include "support/http_client.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace flowagent::testkit {

/// Polls GET /v1/repairs/{id} every 10 ms until the job is done (or `tries` polls); the last document.
inline Json wait_job_done(unsigned short port, const std::string& id, const std::string& token, int tries = 3000) {
  Json j;
  for (int i = 0; i < tries; ++i) {
    if (auto p = parse_json(http_call(port, "GET", "/v1/repairs/" + id, token).body)) j = *p;
    if (j.get_string("state") == "done") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return j;
}

/// Options of a service on a free loopback port that runs the library's pipeline (ReAct, git
/// workspaces under `pool`) with `model`; `token_line` is "<token> <name> <scopes>".
inline service::ServiceOptions pipeline_service_options(const std::filesystem::path& repos, const std::filesystem::path& pool,
                                                        const std::string& token, const std::string& name_and_scopes,
                                                        const ScriptedModel& model, int workers) {
  service::ServiceOptions o;
  o.port = 0;
  o.repos_root = repos;
  o.tokens = *service::TokenStore::parse(service::token_hash_line(token) + " " + name_and_scopes + "\n");
  o.workers = workers;
  o.model.spec = "openai-compatible:scripted";
  o.model.base_url = model.base_url();
  GitWorkspaceOptions w;
  w.root = pool;
  o.agent.workspaces = make_git_workspace_provider(w);
  o.agent.strategies = {make_react_strategy()};
  return o;
}

/// `repo`: calc.py / test_calc.py at base, then a head commit whose calc.py is `head_calc`.
/// Returns {base, head}.
inline std::pair<std::string, std::string> make_calc_repo(const std::filesystem::path& repo, const std::string& head_calc) {
  const auto base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                     {"test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"},
                                     {".gitignore", "__pycache__/\n"}});
  return {base, commit_files(repo, {{"calc.py", head_calc}}, "Refactor add")};
}

}  // namespace flowagent::testkit
