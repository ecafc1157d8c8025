// C / C++: GoogleTest (and Catch2 / doctest registration), and the build's test registration
// (CMake/CTest, Meson, Bazel), custom test mains, redefined assertion macros.
#include <algorithm>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

UnitInfo cpp_unit(const Syntax& s, TSNode n) {
  UnitInfo u;
  if (Syntax::type(n) != "function_definition") return u;
  TSNode decl = Syntax::field(n, "declarator");
  if (ts_node_is_null(decl)) return u;
  std::string d = s.text(decl);
  if (!(starts_with(d, "TEST(") || starts_with(d, "TEST_F(") || starts_with(d, "TEST_P(") || starts_with(d, "TYPED_TEST(") ||
        starts_with(d, "TYPED_TEST_P(")))
    return u;
  auto open = d.find('('), close = d.rfind(')');
  std::string args = strip_spaces(d.substr(open + 1, close - open - 1));
  std::string suite = args.substr(0, args.find(',')), name = args.substr(args.find(',') + 1);
  for (auto* part : {&suite, &name})
    if (starts_with(*part, "DISABLED_")) {
      u.decorators.push_back("DISABLED_");
      part->erase(0, std::string_view("DISABLED_").size());
    }
  u.name = suite + "." + name;
  return u;
}

void cpp_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  const std::string_view base = basename(path);
  if (base == "CMakeLists.txt" || ends_with(base, ".cmake") || base == "meson.build" || base == "BUILD" ||
      base == "BUILD.bazel" || base == "Makefile.am") {
    if (flag_removed(c, out, "runner_config_exclusion", "a test registration was removed",
                   {"add_test(", "add_test (", "gtest_discover_tests(", "gtest_add_tests(", "catch_discover_tests(",
                    "doctest_discover_tests(", "test(", "cc_test(", "TESTS ="}))
      return;
    flag_added(c, out, "runner_config_exclusion", "CTest's selection or judgement of tests changed",
               {"WILL_FAIL", "DISABLED", "SKIP_RETURN_CODE", "SKIP_REGULAR_EXPRESSION", "PASS_REGULAR_EXPRESSION",
                "--gtest_filter", "TEST_FILTER", "CTEST_CUSTOM_TESTS_IGNORE", "LABELS", "-LE", "--exclude-regex",
                "EXCLUDE_FROM_ALL", "EXTRA_ARGS", "tags = [\"manual\"", "should_fail", "GTEST_FILTER"});
    return;
  }
  if (c.lang != Lang::cpp) return;
  if (flag_added(c, out, "shadow_module", "the test framework's macros are redefined",
                 {"#define EXPECT_", "#define ASSERT_", "#define TEST", "#undef EXPECT_", "#undef ASSERT_", "#undef TEST",
                  "#define REQUIRE", "#define CHECK", "#define GTEST_", "#undef GTEST_", "# define EXPECT_", "# define ASSERT_"}))
    return;
  if (!c.test_file) return;
  for (const auto& [name, text] : c.after.hooks) {
    const bool existed = std::any_of(c.before.hooks.begin(), c.before.hooks.end(), [&](const auto& h) { return h.second == text; });
    if (!existed && !contains(text, "RUN_ALL_TESTS") && !contains(text, "Catch::Session") && !contains(text, "doctest::Context")) {
      out.push_back({"runner_hook", path, 0, "a test main() that does not run the tests (no RUN_ALL_TESTS())"});
      return;
    }
    // A new main() must end the binary with what RUN_ALL_TESTS() returned: `return
    // RUN_ALL_TESTS();`, or the name holding it returned (or tested: `return failed ? 1 : 0;`)
    // and never assigned again (review 30: `const int outcome = RUN_ALL_TESTS(); ... return 0;`).
    if (!existed && contains(text, "RUN_ALL_TESTS")) {
      static const rx::regex held(R"(\b([A-Za-z_]\w*)\s*=\s*RUN_ALL_TESTS\s*\(\s*\))");
      static const rx::regex ends(R"(\b(?:return|(?:std\s*::\s*)?(?:exit|_Exit|quick_exit))\b\s*\(?([^;]*?)\)?\s*;)");
      const bool forged = run_status_replaced(text, held, ends, "RUN_ALL_TESTS");
      if (forged) {
        out.push_back({"runner_hook", path, 0, "a test main() that ends with a status other than the one RUN_ALL_TESTS() returned: the tests' result is replaced"});
        return;
      }
    }
  }
  if (flag_added(c, out, "runner_hook", "test code that changes the runner's flags or listeners",
                 {"GTEST_FLAG", "AddGlobalTestEnvironment", "listeners()", "TestEventListener", "FLAGS_gtest",
                  "set_terminate", "signal(SIGABRT", "ScopedFakeTestPartResultReporter", "TestPartResultReporterInterface",
                  "SetGlobalTestPartResultReporter", "SetTestPartResultReporterForCurrentThread"}))
    return;
}

}  // namespace flowagent::integrity
