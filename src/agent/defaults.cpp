#include "flowagent/agent.hpp"
#include "flowagent/builtin_tools.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/overfit.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/summary.hpp"

namespace flowagent {

AgentOptions default_agent_options() {
  AgentOptions o;
  o.pre_filters = {make_build_failure_filter(), make_automated_author_filter(), make_binary_files_filter(),
                   make_change_size_filter()};
  o.post_filters = {make_empty_patch_filter(), make_change_moved_filter(), make_integrity_filter(),
                    make_overfit_filter(), make_revert_filter()};
  o.summarizer = make_model_summarizer();
  auto retriever = std::make_shared<CodeRetriever>();
  ReactOptions react;
  react.localizer = make_coverage_localizer();
  react.retriever = retriever;
  o.strategies = {make_expectation_update_strategy(), make_react_strategy(std::move(react))};
  o.validator = make_command_validator();
  o.llm_factory = [](const ModelConfig& m) -> Expected<std::shared_ptr<LlmClient>> {
    if (m.spec.empty() || m.spec == "builtin" || m.spec == "none") return std::shared_ptr<LlmClient>();
    ModelClientOptions mo;
    mo.model = m;
    return make_llm_client(std::move(mo));
  };
  o.tools = std::make_shared<ToolRegistry>();
  (void)register_builtin_tools(*o.tools);  // cannot fail on an empty registry
  (void)register_retrieval_tool(*o.tools, retriever);  // nor on a new name
  o.workspaces = make_git_workspace_provider();
  return o;
}

}  // namespace flowagent
