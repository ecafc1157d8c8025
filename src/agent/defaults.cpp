#include "agent/defaults.hpp"

#include "flowagent/builtin_tools.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/overfit.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/review.hpp"
#include "flowagent/summary.hpp"

namespace flowagent {

namespace detail {

std::vector<std::shared_ptr<PreFilter>> default_pre_filters() {
  return {make_build_failure_filter(), make_automated_author_filter(), make_binary_files_filter(),
          make_change_size_filter()};
}

std::vector<std::shared_ptr<PostFilter>> default_post_filters() {
  return {make_empty_patch_filter(), make_change_moved_filter(), make_integrity_filter(), make_overfit_filter(),
          make_revert_filter()};
}

std::shared_ptr<Summarizer> default_summarizer() { return make_model_summarizer(); }

/// One retriever (lexical index per commit, cached) for the loop's context section and the
/// search_relevant_code tool, so the index is built once per commit whichever asks first.
std::shared_ptr<CodeRetriever> default_retriever() {
  static const auto retriever = std::make_shared<CodeRetriever>();
  return retriever;
}

ReactOptions default_react_options(std::shared_ptr<CodeRetriever> retriever) {
  ReactOptions react;
  react.localizer = make_coverage_localizer();
  react.retriever = retriever ? std::move(retriever) : default_retriever();
  return react;
}

std::vector<std::shared_ptr<RepairStrategy>> default_strategies() {
  return {make_expectation_update_strategy(), make_react_strategy(default_react_options())};
}

std::shared_ptr<Validator> default_validator() { return make_command_validator(); }

LlmFactory default_llm_factory() {
  return [](const ModelConfig& m) -> Expected<std::shared_ptr<LlmClient>> {
    if (m.spec.empty() || m.spec == "builtin" || m.spec == "none") return std::shared_ptr<LlmClient>();
    ModelClientOptions mo;
    mo.model = m;
    return make_llm_client(std::move(mo));
  };
}

std::shared_ptr<ToolRegistry> default_tools(std::shared_ptr<CodeRetriever> retriever) {
  auto tools = std::make_shared<ToolRegistry>();
  (void)register_builtin_tools(*tools);  // cannot fail on an empty registry
  (void)register_retrieval_tool(*tools, retriever ? std::move(retriever) : default_retriever());  // nor on a new name
  return tools;
}

void use_default_strategies(AgentOptions& options, std::shared_ptr<CodeRetriever> retriever, bool rubric_review) {
  if (!retriever) retriever = default_retriever();
  ReactOptions react = default_react_options(retriever);
  if (rubric_review) react.reviewer = make_rubric_reviewer();
  options.strategies = {make_expectation_update_strategy(), make_react_strategy(std::move(react))};
  if (!options.tools) {
    options.tools = default_tools(std::move(retriever));
    return;
  }
  // The host's registry: the same tools, search_relevant_code over this retriever.
  auto tools = std::make_shared<ToolRegistry>();
  auto fresh = std::make_shared<ToolRegistry>();
  (void)register_retrieval_tool(*fresh, retriever);
  for (const auto& t : options.tools->list())
    (void)tools->add(t->name() == "search_relevant_code" ? fresh->find("search_relevant_code") : t);
  options.tools = std::move(tools);
}

std::shared_ptr<WorkspaceProvider> default_workspaces() { return make_git_workspace_provider(); }

}  // namespace detail

AgentOptions default_agent_options() {
  AgentOptions o;
  o.pre_filters = detail::default_pre_filters();
  o.post_filters = detail::default_post_filters();
  o.summarizer = detail::default_summarizer();
  o.strategies = detail::default_strategies();
  o.validator = detail::default_validator();
  o.llm_factory = detail::default_llm_factory();
  o.tools = detail::default_tools();
  o.workspaces = detail::default_workspaces();
  return o;
}

}  // namespace flowagent
