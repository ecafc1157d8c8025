// JavaScript / TypeScript: Jest, Vitest, Mocha, Jasmine, node:test and tape tests, and their
// runner surface (configuration, setup files, reporters, environments, assertion-library patches).
#include <set>

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

UnitInfo js_unit(const Syntax& s, TSNode n, const std::string& scope) {
  UnitInfo u;
  if (Syntax::type(n) != "call_expression") return u;
  TSNode fn = Syntax::field(n, "function");
  if (ts_node_is_null(fn)) return u;
  std::string f = s.text(fn);
  std::string base = f.substr(0, f.find_first_of(".(")), prop = f.find('.') == std::string::npos ? "" : f.substr(f.find('.') + 1);
  static const std::set<std::string> kTest = {"it", "test", "xit", "xtest", "fit", "specify", "tape"};
  if (!kTest.count(base)) return u;
  TSNode args = Syntax::field(n, "arguments");
  if (ts_node_is_null(args) || ts_node_named_child_count(args) == 0) return u;
  TSNode first = tsnav::named_child(args, 0);
  if (Syntax::type(first) != "string" && Syntax::type(first) != "template_string") return u;
  std::string title = s.text(first);
  if (title.size() >= 2) title = title.substr(1, title.size() - 2);
  if (base[0] == 'x' || starts_with(prop, "skip") || starts_with(prop, "todo")) u.decorators.push_back(f);
  if (base == "fit" || starts_with(prop, "only")) u.focus = true;
  // test.failing / it.failing (jest, vitest): passes when the body fails.
  for (std::string_view part = prop; !part.empty();) {
    const auto dot = part.find('.');
    const std::string_view word = part.substr(0, std::min(dot, part.find('(')));
    if (word == "failing") u.expects_failure = true;
    if (dot == std::string_view::npos) break;
    part.remove_prefix(dot + 1);
  }
  // vitest `test.runIf(cond)('name', fn)`: registered to run only when cond holds.
  if (starts_with(prop, "runIf(")) u.decorators.push_back(std::string(kDefinedOnlyIf) + strip_spaces(prop.substr(6, prop.rfind(')') - 6)));
  // test.each([...])('name', fn): one case per row.
  if (starts_with(prop, "each(")) u.cases = std::max(1, count_elements(prop.substr(5, prop.rfind(')') - 5)));
  // test.each`a | b | want ${1} | ${2} | ${3} ...`('name', fn): a header row of names, then one case
  // per row of values.
  if (starts_with(prop, "each`")) {
    const auto close = prop.rfind('`');
    if (close > 4) {
      int rows = 0;
      bool header = true;
      for (const auto& row : split_top(std::string_view(prop).substr(5, close - 5), {"\n"})) {
        if (trim(row).empty()) continue;
        if (header) {
          header = false;
          continue;
        }
        if (contains(row, "${")) ++rows;
      }
      u.cases = std::max(1, rows);
    }
  }
  // node:test / tape options object: test('x', { skip: true }, fn)
  if (ts_node_named_child_count(args) >= 2) {
    TSNode opt_node = tsnav::named_child(args, 1);
    std::string opt = s.text(opt_node);
    if (Syntax::type(opt_node) == "object" && (contains(opt, "skip") || contains(opt, "todo"))) u.decorators.push_back(opt);
    if (Syntax::type(opt_node) == "object" && contains(opt, "only")) u.focus = true;
  }
  // Registered under an `if`: the runner sees the test only when the condition holds.
  if (auto cond = definition_condition(s, n, Lang::javascript); !cond.empty()) u.decorators.push_back(std::string(kDefinedOnlyIf) + cond);
  u.name = scope.empty() ? title : scope + " " + title;
  return u;
}

namespace {

/// `"jest": "^29.7.0"`: a dependency version, not the runner's configuration.
bool dependency_line(std::string_view line) {
  auto colon = line.find("\":");
  if (colon == std::string_view::npos) return false;
  auto v = line.find_first_not_of(" \t", colon + 2);
  if (v == std::string_view::npos || line[v] != '"' || v + 1 >= line.size()) return false;
  const char c = line[v + 1];
  return c == '^' || c == '~' || c == '*' || c == '>' || c == '<' || c == '=' || (c >= '0' && c <= '9') ||
         starts_with(line.substr(v + 1), "workspace:") || starts_with(line.substr(v + 1), "npm:") ||
         starts_with(line.substr(v + 1), "latest");
}

}  // namespace

void js_rules(const RuleContext& c, Findings& out) {
  const std::string& path = c.file.path;
  const std::string_view base = basename(path);
  const bool config = starts_with(base, "jest.config") || starts_with(base, "vitest.config") ||
                      starts_with(base, "vite.config") || starts_with(base, ".mocharc") || starts_with(base, "karma.conf") ||
                      starts_with(base, "ava.config") || starts_with(base, "playwright.config") || base == ".taprc" ||
                      base == "jasmine.json" || starts_with(base, "jest.setup") || starts_with(base, "vitest.setup") ||
                      starts_with(base, "vitest.workspace");
  if (base == "package.json") {
    if (flag_changed_keys(c, out, "runner_hook", "the test runner's setup, reporters or environment changed",
                          {"setupFiles", "setupFilesAfterEnv", "setupFilesAfterEach", "globalSetup", "globalTeardown",
                           "reporters", "testEnvironment", "testRunner", "testResultsProcessor", "testSequencer",
                           "snapshotResolver", "moduleNameMapper", "mocha", "ava", "tap", "c8"},
                          dependency_line))
      return;
    flag_changed_keys(c, out, "runner_config_exclusion", "which tests run changed",
                      {"test", "pretest", "posttest", "jest", "vitest", "testMatch", "testRegex", "testPathIgnorePatterns",
                       "modulePathIgnorePatterns", "roots", "testNamePattern", "testPathPattern", "passWithNoTests"},
                      dependency_line);
    return;
  }
  if (config) {
    if (flag_changed_keys(c, out, "runner_hook", "the test runner's setup, reporters or environment changed",
                          {"setupFiles", "setupFilesAfterEnv", "setupFilesAfterEach", "globalSetup", "globalTeardown",
                           "reporters", "reporter", "testEnvironment", "environment", "testRunner", "runner",
                           "testResultsProcessor", "testSequencer", "transform", "snapshotResolver", "moduleNameMapper",
                           "require", "import", "file", "rootHooks", "mochaHooks", "node-option", "loader", "alias",
                           "plugins", "helpers", "onConsoleLog", "onTestFailed"}))
      return;
    if (flag_changed_keys(c, out, "runner_config_exclusion", "which tests run changed",
                          {"testMatch", "testRegex", "testPathIgnorePatterns", "modulePathIgnorePatterns", "roots",
                           "testNamePattern", "testPathPattern", "include", "exclude", "ignore", "spec", "files", "grep",
                           "fgrep", "invert", "passWithNoTests", "testIgnore", "testDir", "allowOnly", "test"}))
      return;
    // New setup files (jest.setup.js) run before every test.
    if (!c.file.before && starts_with(base, "jest.setup")) out.push_back({"runner_hook", path, 0, "a new setup file runs before every test"});
    return;
  }
  if (!is_js(c.lang)) return;
  if (flag_added(c, out, "runner_hook", "code that patches the test runner or its assertions",
                 {"currentTest.state", ".state = 'passed'", ".state = \"passed\"", "test.onFailure", ".onFinish(",
                  "createHarness", "expect.extend", "global.expect", "globalThis.expect", "global.it ", "global.it=",
                  "globalThis.it", "global.test", "globalThis.test", "global.describe", "jasmine.getEnv", "mochaHooks",
                  "Assertion.prototype", "jest.mock('assert", "jest.mock(\"assert", "vi.mock('assert", "vi.mock(\"assert",
                  "jest.mock('node:assert", "assert.strictEqual =", "assert.equal =", "assert.deepStrictEqual =",
                  "assert.ok =", "assert.deepEqual =", "Module._load", "Module.prototype.require"}))
    return;
  if (c.test_file)
    flag_added(c, out, "runner_hook", "test code that hides failures from the runner",
               {"process.on('uncaughtException'",
                "process.on(\"uncaughtException\"", "process.on('unhandledRejection'", "process.on(\"unhandledRejection\"",
                "process.on('exit'", "process.on(\"exit\"", "process.removeAllListeners"});
}

}  // namespace flowagent::integrity
