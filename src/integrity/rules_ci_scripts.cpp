// CI workflows, Makefiles, pre-commit configurations and test scripts: a line the patch adds that
// selects or excuses tests (`-k "not ..."`, `--deselect`, `--exclude`, `|| true`,
// `continue-on-error`), and a test invocation the patch removes. The same options given to a
// linter, formatter or type checker decide nothing about tests and are honest; any command the
// guard does not know stays suspect (fail closed).
#include <algorithm>
#include "core/regex.hpp"

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

constexpr std::string_view kSelectors[] = {
    "--deselect", "-k \"not", "-k 'not", "-k not", "--ignore", "--gtest_filter", "GTEST_FILTER", "ctest -E",
    "--exclude-regex", " -LE ", "--testNamePattern", "--testPathIgnorePatterns", "--grep", "--invert", " -run ",
    " -run=", " -skip ", " -skip=", "--skip", "--exclude", "-Dtest=", "-DskipTests", "-Dmaven.test.skip",
    "--passWithNoTests", "set +e"};
/// Forms that make a failing command count as passed; the command is the one before them.
constexpr std::string_view kExcusers[] = {"|| true", "|| exit 0", "||true", "|| :", "; true"};

/// Linters, formatters, type checkers and installers: they run no tests, so their own options
/// (`ruff check . --exclude build/`, `pip install --ignore-installed`) select none.
bool non_test_tool(std::string_view tool) {
  static const std::set<std::string, std::less<>> kTools = {
      "ruff", "flake8", "pylint", "black", "isort", "mypy", "pyright", "pyflakes", "pycodestyle", "pydocstyle",
      "bandit", "autopep8", "yapf", "eslint", "prettier", "tsc", "stylelint", "biome", "golangci-lint", "gofmt",
      "goimports", "staticcheck", "go vet", "go fmt", "revive", "clang-format", "clang-tidy", "cppcheck", "cpplint",
      "shellcheck", "shfmt", "rubocop", "markdownlint", "markdownlint-cli2", "yamllint", "codespell", "typos",
      "actionlint", "hadolint", "cargo fmt", "cargo clippy", "rustfmt", "ktlint", "detekt", "checkstyle", "vale",
      "pip", "pip3", "npm ci", "npm install", "yarn install", "pnpm install", "apt-get", "brew", "sphinx-build",
      "mkdocs", "licensecheck", "reuse", "lychee"};
  return kTools.count(tool) > 0;
}

/// A package script or make target named for linting or formatting (`npm run lint`, `make fmt`).
bool lint_script(std::string_view name) {
  static const rx::regex re(R"(^(lint|fmt|format|prettier|eslint|typecheck|type-check|types|style|spell|check-format|format-check|lint:[\w:-]+|fmt-check|vet)$)");
  return rx::regex_match(std::string(name), re);
}

std::vector<std::string> words_of(std::string_view segment) {
  std::vector<std::string> words;
  for (std::size_t p = 0; p < segment.size();) {
    const auto b = segment.find_first_not_of(" \t", p);
    if (b == std::string_view::npos) break;
    const auto e = std::min(segment.find_first_of(" \t", b), segment.size());
    words.emplace_back(segment.substr(b, e - b));
    p = e;
  }
  return words;
}

/// The tool a shell command runs, past wrappers (`sudo`, `env X=1`, `python -m`, `npx`, `uv run`,
/// a `- run:` YAML key, a `$ ` prompt): `- run: python -m ruff check .` -> `ruff`; a package
/// script or make target as `npm run lint` -> `lint-script`.
std::string command_tool(std::string_view segment) {
  const auto words = words_of(segment);
  static const std::set<std::string, std::less<>> kWrappers = {"-",   "run:", "$",    "sudo",    "env",    "npx",
                                                               "pnpx", "bunx", "exec", "time",    "nice",   "command",
                                                               "script:", "entry:", "then", "do", "-run:"};
  std::size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (kWrappers.count(w) || (w.find('=') != std::string::npos && w.front() != '-')) {
      ++i;
      continue;
    }
    if ((w == "python" || w == "python3" || starts_with(w, "python3.")) && i + 2 < words.size() && words[i + 1] == "-m") {
      i += 2;
      continue;
    }
    if ((w == "uv" || w == "poetry" || w == "pipenv" || w == "pdm" || w == "hatch" || w == "rye") && i + 1 < words.size() &&
        words[i + 1] == "run") {
      i += 2;
      continue;
    }
    break;
  }
  if (i >= words.size()) return {};
  std::string tool = words[i];
  if (auto slash = tool.rfind('/'); slash != std::string::npos) tool = tool.substr(slash + 1);
  auto next = [&](std::size_t k) { return i + k < words.size() ? words[i + k] : std::string(); };
  if ((tool == "npm" || tool == "pnpm" || tool == "yarn" || tool == "bun") && next(1) == "run")
    return lint_script(next(2)) ? "lint-script" : tool + " run " + next(2);
  if (tool == "yarn" && lint_script(next(1))) return "lint-script";
  if (tool == "make" && lint_script(next(1))) return "lint-script";
  if (tool == "go" || tool == "cargo" || tool == "npm" || tool == "yarn" || tool == "pnpm") tool += " " + next(1);
  return tool;
}

bool honest_tool(const std::string& tool) { return tool == "lint-script" || non_test_tool(tool); }

/// GitHub actions that run no tests (their `with: args:` and `continue-on-error` decide nothing
/// about tests).
bool non_test_action(std::string_view uses) {
  static constexpr std::string_view kParts[] = {"lint", "codecov", "coverage", "upload-artifact", "download-artifact",
                                                "cache", "setup-", "checkout", "format", "deploy", "pages", "release",
                                                "docs", "ruff", "eslint", "prettier", "black", "mypy", "codeql",
                                                "labeler", "stale", "spell", "markdown", "hadolint", "shellcheck"};
  std::string u(uses);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (contains(u, "test") || contains(u, "pytest") || contains(u, "pre-commit")) return false;
  return std::any_of(std::begin(kParts), std::end(kParts), [&](std::string_view p) { return contains(u, p); });
}

/// The shell commands of a line, split at `&&`, `||`, `;` and `|` outside quotes.
std::vector<std::string> segments(std::string_view line) {
  return split_top(line, {"&&", "||", ";", "|"});
}

/// Is `segment` honest with `needle` in it: a known non-test tool, writing no file?
bool honest_segment(const std::string& segment) {
  if (segment.find('>') != std::string::npos || contains(segment, " tee ")) return false;  // writes a file
  return honest_tool(command_tool(segment));
}

struct Lines {
  std::vector<std::string_view> all;
  explicit Lines(const std::string& text) {
    for (std::size_t p = 0; p <= text.size();) {
      auto e = text.find('\n', p);
      if (e == std::string::npos) e = text.size();
      all.push_back(std::string_view(text).substr(p, e - p));
      p = e + 1;
    }
  }
  static std::size_t indent(std::string_view l) {
    const auto i = l.find_first_not_of(' ');
    return i == std::string_view::npos ? l.size() : i;
  }
  /// The logical line holding line index `i`: backslash continuations joined.
  std::string logical(std::size_t i) const {
    std::size_t b = i;
    while (b > 0 && ends_with(trim(all[b - 1]), "\\")) --b;
    std::string out;
    for (std::size_t k = b; k < all.size(); ++k) {
      std::string t = trim(all[k]);
      const bool more = ends_with(t, "\\");
      if (more) t.pop_back();
      out += t + " ";
      if (!more && k >= i) break;
    }
    return out;
  }
  /// The YAML list item (a workflow step, a pre-commit hook) line index `i` belongs to as a key:
  /// [start, end) or {npos, npos} when the line is not inside one (a job-level key).
  std::pair<std::size_t, std::size_t> item(std::size_t i) const {
    constexpr auto npos = std::string_view::npos;
    const std::size_t own = indent(all[i]);
    std::size_t b = npos;
    if (starts_with(trim(all[i]), "- ")) {
      b = i;
    } else {
      for (std::size_t k = i; k-- > 0;) {
        const std::string t = trim(all[k]);
        if (!t.empty() && starts_with(t, "- ") && indent(all[k]) + 2 <= own) {
          b = k;
          break;
        }
      }
      if (b == npos) return {npos, npos};
      for (std::size_t k = b + 1; k < i; ++k)  // still inside that item
        if (!trim(all[k]).empty() && indent(all[k]) <= indent(all[b])) return {npos, npos};
    }
    std::size_t e = b + 1;
    while (e < all.size() && (trim(all[e]).empty() || indent(all[e]) > indent(all[b]))) ++e;
    return {b, e};
  }
};

/// The tools a YAML item runs: its `run:` commands (a block's lines too), `uses:` action, pre-commit
/// `entry:`/`id:`. Each as a verdict: honest or not.
bool item_honest(const Lines& L, std::pair<std::size_t, std::size_t> range) {
  bool any = false;
  for (std::size_t k = range.first; k < range.second; ++k) {
    std::string l = trim(L.all[k]);
    if (starts_with(l, "- ")) l = trim(std::string_view(l).substr(2));
    auto value = [&](std::string_view key) -> std::optional<std::string> {
      if (!starts_with(l, key)) return std::nullopt;
      return trim(std::string_view(l).substr(key.size()));
    };
    if (auto run = value("run:")) {
      std::vector<std::string> commands;
      if (*run == "|" || *run == ">" || run->empty() || *run == "|-" || *run == ">-")
        for (std::size_t b = k + 1; b < range.second && (Lines::indent(L.all[b]) > Lines::indent(L.all[k]) || trim(L.all[b]).empty()); ++b) {
          if (!trim(L.all[b]).empty()) commands.push_back(L.logical(b));
          while (b + 1 < range.second && ends_with(trim(L.all[b]), "\\")) ++b;
        }
      else
        commands.push_back(L.logical(k));
      for (const auto& cmd : commands)
        for (const auto& seg : segments(cmd)) {
          if (trim(seg).empty()) continue;
          if (!honest_segment(seg)) return false;
          any = true;
        }
    } else if (auto uses = value("uses:")) {
      if (!non_test_action(*uses)) return false;
      any = true;
    } else if (auto entry = value("entry:")) {
      if (!honest_segment(*entry)) return false;
      any = true;
    } else if (auto id = value("id:")) {
      if (!non_test_tool(*id) && !lint_script(*id)) return false;
      any = true;
    }
  }
  return any;
}

/// Test runners as a CI line names them.
const rx::regex& test_invocation() {
  static const rx::regex re(
      R"((^|[^\w.-])(pytest|py\.test|unittest|nosetests|tox|nox|jest|vitest|mocha|ava|ctest|go test|cargo test|cargo nextest|mvn|mvnw|gradle|gradlew|npm test|npm run test|yarn test|pnpm test|bun test|make test|make check|bazel test|phpunit|rspec|node --test)([^\w-]|$))");
  return re;
}

}  // namespace

void runner_script_rules(const RuleContext& c, Findings& out) {
  const std::string& after = *c.file.after;
  const Lines L(after);
  for (const auto& [n, raw] : added_lines(c.file.before, c.file.after)) {
    if (n < 1 || static_cast<std::size_t>(n) > L.all.size()) continue;
    const std::size_t i = static_cast<std::size_t>(n - 1);
    const std::string line = L.logical(i);
    auto flag = [&](std::string_view what) {
      out.push_back({"runner_config_exclusion", c.file.path, n, std::string(what) + ": " + quote(raw)});
    };
    // continue-on-error: honest only on a step that runs nothing but non-test tools.
    if (contains(line, "continue-on-error")) {
      const auto range = L.item(i);
      if (range.first == std::string_view::npos || !item_honest(L, range)) {
        flag("a runner invocation now excuses a failing step");
        return;
      }
      continue;
    }
    // `args:` of an action or hook: honest when the action or hook runs no tests.
    const std::string t = trim(L.all[i]);
    const bool args_key = starts_with(t, "args:") || starts_with(t, "- args:");
    bool honest_item = false;
    if (args_key) {
      const auto range = L.item(i);
      honest_item = range.first != std::string_view::npos && item_honest(L, range);
    }
    for (auto excuse : kExcusers)
      for (auto at = line.find(excuse); at != std::string::npos; at = line.find(excuse, at + 1)) {
        const auto segs = segments(line.substr(0, at));
        const std::string before = segs.empty() ? std::string() : segs.back();
        if (!honest_segment(before)) {
          flag("a runner invocation now excuses a failing command");
          return;
        }
      }
    for (const auto& seg : segments(line))
      for (auto needle : kSelectors)
        if (contains(seg, needle) && !honest_item && (needle == "set +e" || !honest_segment(seg))) {
          flag("a runner invocation now selects or excuses tests");
          return;
        }
  }
  // A test invocation the patch removes (a workflow's pytest step deleted) and does not add back.
  if (c.file.before) {
    auto count = [&](const std::string& text) {
      std::size_t k = 0;
      for_each_capped_line(text, [&](int, const std::string& l) {
        const std::string code = trim(l);
        if (!starts_with(code, "#") && rx::regex_search(l, test_invocation())) ++k;
      });
      return k;
    };
    if (count(after) < count(*c.file.before))
      out.push_back({"runner_config_exclusion", c.file.path, 0, "a test invocation was removed from the CI or test script"});
  }
}

}  // namespace flowagent::integrity
