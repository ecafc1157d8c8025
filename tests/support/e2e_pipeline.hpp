// Shared by the end-to-end tests on real runners: the pinned JavaScript runners (third_party/,
// installed by scripts/install-deps.sh) and a pipeline whose validation runs once per candidate.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "flowagent/agent.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/repair.hpp"

namespace flowagent::testkit {

struct JsRunner {
  std::string name;               ///< "jest" / "vitest"
  std::string command;            ///< the test command template: tests selected by -t (the ids joined by "|")
  std::filesystem::path dir;      ///< third_party/<name>: visible read-only in the sandbox
};

/// The pinned runner, or nullopt when scripts/install-deps.sh has not installed it.
inline std::optional<JsRunner> js_runner(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(FLOWAGENT_SOURCE_DIR) / "third_party" / name;
  const std::filesystem::path bin = dir / "node_modules/.bin" / name;
  if (!std::filesystem::exists(bin)) return std::nullopt;
  if (name == "jest") return JsRunner{name, bin.string() + " --ci -t {tests||}", dir};
  return JsRunner{name, bin.string() + " run -t {tests||}", dir};
}

/// A pool of fresh checkouts under `tmp`, the ReAct loop without its own check before stopping
/// (the pipeline's validation decides: one run per candidate), `v` as the validator; without
/// `guard`, no post-filter but the empty-patch one (the validator alone decides).
inline AgentOptions e2e_pipeline(const std::filesystem::path& tmp, bool guard, ValidatorOptions v = {}) {
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = tmp / "pool";
  o.workspaces = make_git_workspace_provider(w);
  ReactOptions loop;
  loop.validate_before_stopping = false;
  o.strategies = {make_react_strategy(loop)};
  o.validator = make_command_validator(v);
  if (!guard) {
    o.use_default_post_filters = false;
    o.post_filters = {make_empty_patch_filter()};
  }
  return o;
}

}  // namespace flowagent::testkit
