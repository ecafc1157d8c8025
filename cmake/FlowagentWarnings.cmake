# flowagent_warnings: an interface target with the project's warning set (errors with FLOWAGENT_WERROR).
add_library(flowagent_warnings INTERFACE)
target_compile_options(flowagent_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
  -Wimplicit-fallthrough -Wformat=2 -Wnull-dereference -Wdouble-promotion
  $<$<BOOL:${FLOWAGENT_WERROR}>:-Werror>)
install(TARGETS flowagent_warnings EXPORT flowagentTargets)
