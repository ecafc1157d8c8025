# flowagent_warnings: an interface target with the project's warning set (errors with FLOWAGENT_WERROR).
add_library(flowagent_warnings INTERFACE)
target_compile_options(flowagent_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
  -Wimplicit-fallthrough -Wformat=2 -Wdouble-promotion
  $<$<BOOL:${FLOWAGENT_WERROR}>:-Werror>)
install(TARGETS flowagent_warnings EXPORT flowagentTargets)
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string
# at -O2/-O3 (https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105329); it stays on for clang
# and for GCC 13+.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(flowagent_warnings INTERFACE -Wno-restrict)
endif()
