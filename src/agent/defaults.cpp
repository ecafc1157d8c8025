#include "flowagent/agent.hpp"
#include "flowagent/builtin_tools.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/summary.hpp"

namespace flowagent {

AgentOptions default_agent_options() {
  AgentOptions o;
  o.pre_filters = {make_build_failure_filter(), make_automated_author_filter(), make_binary_files_filter(),
                   make_change_size_filter()};
  o.post_filters = {make_empty_patch_filter(), make_change_moved_filter()};
  o.summarizer = make_template_summarizer();
  o.tools = std::make_shared<ToolRegistry>();
  (void)register_builtin_tools(*o.tools);  // cannot fail on an empty registry
  o.workspaces = make_git_workspace_provider();
  return o;
}

}  // namespace flowagent
