// Internal: the built-in policies one by one, so that Agent::create builds only the ones the host
// left empty (a default git workspace provider prunes stale worktrees when it starts; it must not
// exist when the host brought its own provider).
#pragma once

#include <memory>
#include <vector>

#include "flowagent/agent.hpp"
#include "flowagent/repair.hpp"

namespace flowagent::detail {

std::vector<std::shared_ptr<PreFilter>> default_pre_filters();
std::vector<std::shared_ptr<PostFilter>> default_post_filters();
std::shared_ptr<Summarizer> default_summarizer();
/// The default ReAct loop's options: coverage localizer and `retriever` (null: the shared lexical one).
ReactOptions default_react_options(std::shared_ptr<CodeRetriever> retriever = nullptr);
std::vector<std::shared_ptr<RepairStrategy>> default_strategies();
std::shared_ptr<Validator> default_validator();
LlmFactory default_llm_factory();
/// The built-in tools and search_relevant_code over `retriever` (null: the shared lexical one).
std::shared_ptr<ToolRegistry> default_tools(std::shared_ptr<CodeRetriever> retriever = nullptr);
/// The default strategies whose ReAct loop uses `retriever` for its context section, with the
/// rubric review when `rubric_review`; search_relevant_code in `options.tools` (null: the default
/// tools) is rebound to `retriever`, the host's other tools kept. `retriever` null: the shared one.
void use_default_strategies(AgentOptions& options, std::shared_ptr<CodeRetriever> retriever, bool rubric_review);
std::shared_ptr<WorkspaceProvider> default_workspaces();

}  // namespace flowagent::detail
