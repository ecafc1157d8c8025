# The tree-sitter runtime (Debian libtree-sitter-dev 0.20, language ABI 13-14) and the grammars'
# generated C sources (npm, third_party/tree-sitter-grammars, installed by scripts/install-deps.sh).
find_package(PkgConfig REQUIRED)
pkg_check_modules(TREE_SITTER REQUIRED IMPORTED_TARGET tree-sitter)
set(FLOWAGENT_GRAMMARS_DIR ${PROJECT_SOURCE_DIR}/third_party/tree-sitter-grammars/node_modules)
if(NOT EXISTS ${FLOWAGENT_GRAMMARS_DIR}/tree-sitter-python/src/parser.c)
  message(FATAL_ERROR "tree-sitter grammars are missing: run scripts/install-deps.sh (npm ci in third_party/tree-sitter-grammars)")
endif()
set(_grammar_sources "")
foreach(dir tree-sitter-python/src tree-sitter-javascript/src tree-sitter-java/src tree-sitter-cpp/src
            tree-sitter-go/src tree-sitter-rust/src tree-sitter-kotlin/src
            tree-sitter-typescript/typescript/src tree-sitter-typescript/tsx/src)
  list(APPEND _grammar_sources ${FLOWAGENT_GRAMMARS_DIR}/${dir}/parser.c)
  if(EXISTS ${FLOWAGENT_GRAMMARS_DIR}/${dir}/scanner.c)
    list(APPEND _grammar_sources ${FLOWAGENT_GRAMMARS_DIR}/${dir}/scanner.c)
  endif()
endforeach()
# Each grammar is its own object library: the generated files define the same static helpers.
add_library(flowagent_grammars STATIC)
set(_i 0)
foreach(src IN LISTS _grammar_sources)
  math(EXPR _i "${_i}+1")
  get_filename_component(_d ${src} DIRECTORY)
  add_library(flowagent_grammar_${_i} OBJECT ${src})
  target_include_directories(flowagent_grammar_${_i} PRIVATE ${_d})
  # Upstream generated code: optimised, no sanitizers, no warnings of ours.
  target_compile_options(flowagent_grammar_${_i} PRIVATE -O1 -w -fno-sanitize=all)
  set_target_properties(flowagent_grammar_${_i} PROPERTIES C_STANDARD 99 POSITION_INDEPENDENT_CODE ON)
  target_sources(flowagent_grammars PRIVATE $<TARGET_OBJECTS:flowagent_grammar_${_i}>)
endforeach()
set_target_properties(flowagent_grammars PROPERTIES LINKER_LANGUAGE C POSITION_INDEPENDENT_CODE ON)
install(TARGETS flowagent_grammars EXPORT flowagentTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
