#include "flowagent/agent.hpp"
#include "flowagent/summary.hpp"

namespace flowagent {

AgentOptions default_agent_options() {
  AgentOptions o;
  o.pre_filters = {make_build_failure_filter(), make_automated_author_filter(), make_binary_files_filter(),
                   make_change_size_filter()};
  o.post_filters = {make_empty_patch_filter(), make_change_moved_filter()};
  o.summarizer = make_template_summarizer();
  o.tools = std::make_shared<ToolRegistry>();
  return o;
}

}  // namespace flowagent
