// Java / Kotlin: JUnit 4/5 and TestNG tests, and their runner surface (Maven Surefire, Gradle,
// junit-platform.properties, extensions and listeners, shadowed test libraries).
#include <algorithm>

#include <set>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

/// Cases of @ValueSource(ints = {1, 2}) / @CsvSource({"a, 1", "b, 2"}) / @MethodSource (unknown: 0).
int parameter_cases(std::string_view mods) {
  for (std::string_view source : {"@ValueSource(", "@CsvSource("}) {
    auto p = mods.find(source);
    if (p == std::string_view::npos) continue;
    auto open = mods.find('{', p);
    if (open == std::string_view::npos) continue;
    int depth = 0;
    for (auto i = open; i < mods.size(); ++i) {
      if (mods[i] == '{') ++depth;
      else if (mods[i] == '}' && --depth == 0) return count_elements(mods.substr(open, i - open + 1));
    }
  }
  return 0;
}

}  // namespace

UnitInfo jvm_unit(const Syntax& s, TSNode n, const std::string& scope) {
  UnitInfo u;
  std::string_view t = Syntax::type(n);
  if (t != "method_declaration" && t != "function_declaration") return u;
  std::string mods;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
    if (Syntax::type(tsnav::named_child(n, i)) == "modifiers") mods = s.text(tsnav::named_child(n, i));
  // (Also written qualified: `@org.junit.Test`, `@org.junit.jupiter.api.Test`.)
  static const rx::regex kTestAnnotation(R"(@\s*(?:[\w]+\s*\.\s*)*(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b)");
  if (!rx::regex_search(mods.substr(0, kRegexLineChars), kTestAnnotation)) return u;
  if (int k = parameter_cases(mods); k > 0) u.cases = k;
  u.decorators.push_back(mods);
  // JUnit 4 `@Test(expected = AssertionError.class)`: a failing assertion makes the test pass.
  static const rx::regex kExpected(R"(@(?:[\w]+\.)*Test\s*\([^)]*\bexpected\s*=\s*([\w.]+)\s*(?:\.|::)\s*class)");
  rx::smatch m;
  const std::string head = mods.substr(0, kRegexLineChars);
  if (rx::regex_search(head, m, kExpected)) {
    std::string type = m[1].str();
    type = type.substr(type.rfind('.') == std::string::npos ? 0 : type.rfind('.') + 1);
    static const std::set<std::string, std::less<>> kCatchesFailure = {"AssertionError", "AssertionFailedError", "ComparisonFailure",
                                                                       "Throwable", "Error", "AssertionFailure"};
    if (kCatchesFailure.count(type)) u.expects_failure = true;
  }
  TSNode name = Syntax::field(n, "name");
  std::string fn;
  if (!ts_node_is_null(name)) fn = s.text(name);
  else
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
      if (Syntax::type(tsnav::named_child(n, i)) == "simple_identifier") {
        fn = s.text(tsnav::named_child(n, i));
        break;
      }
  u.name = scope.empty() ? fn : scope + "." + fn;
  // JUnit Jupiter (and JUnit 4, which fails the class instead) runs only non-private, non-static
  // test methods that return void (Java) or Unit (Kotlin).
  // (@TestFactory returns its dynamic tests, @TestTemplate may return: only @Test and its
  // parametrized/repeated forms must be void.)
  TSNode ret = Syntax::field(n, "type");
  const bool must_be_void = !contains(mods, "@TestFactory") && !contains(mods, "@TestTemplate");
  const bool non_void = t == "method_declaration" && must_be_void && !ts_node_is_null(ret) && s.text(ret) != "void";
  static const rx::regex kHidden(R"((^|\s)(private|static)(\s|$))");
  if (rx::regex_search(mods.substr(0, kRegexLineChars), kHidden) || non_void) {
    u.collectable = false;
    u.hidden_by = "JUnit runs only non-private, non-static test methods that return void";
  }
  return u;
}

void jvm_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  const std::string_view base = basename(path);
  if (base == "pom.xml") {
    if (flag_added(c, out, "runner_config_exclusion", "Maven's selection of tests changed",
                   {"<skipTests", "<maven.test.skip", "<testFailureIgnore", "<skip>", "<excludes", "<exclude>", "<includes",
                    "<include>", "<test>", "<groups", "<excludedGroups", "<testSourceDirectory", "<skipITs", "-Dtest=",
                    "<failIfNoTests", "<failIfNoSpecifiedTests", "<surefire.failIfNoSpecifiedTests"}))
      return;
    // Removed include patterns or test source folders also change what runs.
    flag_removed(c, out, "runner_config_exclusion", "Maven's selection of tests changed",
                 {"<include>", "<testSourceDirectory", "<groups", "<plugin>surefire", "maven-surefire-plugin"});
    return;
  }
  if (starts_with(base, "build.gradle") || base == "settings.gradle" || base == "settings.gradle.kts") {
    flag_added(c, out, "runner_config_exclusion", "Gradle's selection of tests changed",
               {"exclude", "excludeTestsMatching", "includeTestsMatching", "ignoreFailures", "enabled = false",
                "enabled=false", "isEnabled = false", "onlyIf", "excludeTags", "includeTags", "testClassesDirs",
                "failOnNoMatchingTests", "filter {", "setFailOnNoMatchingTests", "-x test", "skipTests"});
    return;
  }
  if (base == "junit-platform.properties" || base == "testng.xml" || contains(path, "META-INF/services/org.junit") ||
      contains(path, "META-INF/services/org.testng")) {
    out.push_back({contains(path, "META-INF") ? "runner_hook" : "runner_config_exclusion", path, 0,
                   "the JUnit/TestNG platform configuration or its registered extensions changed"});
    return;
  }
  if (c.lang != Lang::java && c.lang != Lang::kotlin) return;
  if (c.file.after) {
    // A class in the test library's own package shadows it on the class path.
    for (std::string_view pkg : {"package org.junit", "package org.testng", "package org.assertj", "package org.hamcrest",
                                 "package org.opentest4j", "package org.mockito", "package junit.", "package kotlin.test"})
      if (contains(*c.file.after, pkg) && !(c.file.before && contains(*c.file.before, pkg))) {
        out.push_back({"shadow_module", path, 0, "a class in the test library's package (" + std::string(pkg.substr(8)) +
                                                     ") shadows the real one"});
        return;
      }
  }
  if (flag_added(c, out, "runner_hook", "a JUnit/TestNG extension or listener that can change results",
                 {"TestExecutionExceptionHandler", "InvocationInterceptor", "implements TestRule", "extends TestWatcher",
                  "implements TestWatcher", "RunListener", "IInvokedMethodListener", "ITestListener", "IHookable",
                  "IRetryAnalyzer", "LauncherSessionListener",
                  "TestExecutionListener", "@Listeners("}))
    return;
  // Extensions and runners registered on a test: the well-known ones (Mockito, Spring, parameterized
  // runners) only supply objects; any other can intercept results.
  static constexpr std::string_view kKnown[] = {"MockitoExtension", "MockitoJUnitRunner", "SpringExtension",
                                                "SpringRunner", "SpringJUnit4ClassRunner", "Parameterized",
                                                "JUnitPlatform", "Enclosed", "Suite", "TempDir", "Theories"};
  for (const auto& [n, l] : added_lines(c.file.before, c.file.after)) {
    if (!contains(l, "@ExtendWith(") && !contains(l, "@RegisterExtension") && !contains(l, "@RunWith(")) continue;
    if (std::any_of(std::begin(kKnown), std::end(kKnown), [&](auto k) { return contains(l, k); })) continue;
    out.push_back({"runner_hook", path, n, "an extension or runner that can intercept test results: " + quote(l)});
    return;
  }
}

}  // namespace flowagent::integrity
