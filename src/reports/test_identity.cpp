#include "reports/test_identity.hpp"

#include <algorithm>
#include <cctype>

#include "reports/strings.hpp"

namespace flowagent::reports {

using detail::trim;

namespace {

constexpr std::string_view kRunnerNames[] = {"unknown", "pytest", "jest", "vitest", "go", "ctest",
                                             "gtest", "node_test", "tape", "maven", "gradle", "cargo"};

/// Source-file extensions dropped from file segments ("test_x.py" and "test_x" name one module).
bool source_extension(std::string_view e) {
  static constexpr std::string_view kExt[] = {"py", "js", "mjs", "cjs", "ts", "tsx", "jsx", "mts", "cts", "go",
                                              "java", "kt", "rs", "cc", "cpp", "cxx", "c", "rb", "cs", "scala"};
  return std::find(std::begin(kExt), std::end(kExt), e) != std::end(kExt);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::string_view> split(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  std::size_t from = 0;
  for (;;) {
    auto p = s.find(sep, from);
    out.push_back(s.substr(from, p == std::string_view::npos ? std::string_view::npos : p - from));
    if (p == std::string_view::npos) return out;
    from = p + sep.size();
  }
}

void push_segment(std::vector<std::string>& out, std::string_view seg) {
  seg = trim(seg);
  if (!seg.empty()) out.emplace_back(seg);
}

/// Splits at every separator a runner uses between scopes: " › ", " > ", "::", "#", "$", "/", "\\",
/// ".". A source extension after a '.' ("sum.test.js") is dropped.
void split_segments(std::string_view s, std::vector<std::string>& out) {
  std::size_t start = 0;
  auto emit = [&](std::size_t end) { push_segment(out, s.substr(start, end - start)); };
  for (std::size_t i = 0; i < s.size();) {
    std::size_t skip = 0;
    if (s.compare(i, 5, " \xE2\x80\xBA ") == 0) skip = 5;        // " › "
    else if (s.compare(i, 3, " > ") == 0) skip = 3;
    else if (s.compare(i, 2, "::") == 0) skip = 2;
    else if (s[i] == '#' || s[i] == '$' || s[i] == '/' || s[i] == '\\' || s[i] == '.') skip = 1;
    if (!skip) {
      ++i;
      continue;
    }
    emit(i);
    if (s[i] == '.') {
      std::size_t e = i + 1;
      while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) != 0)) ++e;
      const bool at_boundary = e == s.size() || s[e] == ':' || s[e] == '/' || s[e] == '.' || s[e] == ' ' || s[e] == '#';
      if (at_boundary && source_extension(s.substr(i + 1, e - i - 1))) {
        i = e;
        start = e;
        continue;
      }
    }
    i += skip;
    start = i;
  }
  emit(s.size());
}

/// Removes a trailing "[...]" (balanced) and returns its content.
bool strip_brackets(std::string_view& s, std::string& params) {
  if (s.empty() || s.back() != ']') return false;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ']') ++depth;
    else if (s[i] == '[' && --depth == 0) {
      if (i == 0) return false;  // "[1] display name" style: not a parameter suffix
      params = std::string(s.substr(i + 1, s.size() - i - 2));
      s = s.substr(0, i);
      return true;
    }
  }
  return false;
}

std::string join(const std::vector<std::string>& v, std::size_t from) {
  std::string out;
  for (std::size_t i = from; i < v.size(); ++i) {
    if (i > from) out += ' ';
    out += v[i];
  }
  return out;
}

bool names_match(const TestName& a, const TestName& b) {
  if (a.segments.empty() || b.segments.empty()) return false;
  const auto& longer = a.segments.size() >= b.segments.size() ? a.segments : b.segments;
  const auto& shorter = a.segments.size() >= b.segments.size() ? b.segments : a.segments;
  const std::string want = join(shorter, 0);
  // Compare the shorter name with each suffix of the longer one, segments joined by one space.
  for (std::size_t k = longer.size(); k-- > 0;) {
    std::string suffix = join(longer, k);
    if (suffix == want) return true;
    if (suffix.size() > want.size()) return false;
  }
  return false;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string_view to_string(Runner runner) noexcept { return kRunnerNames[static_cast<int>(runner)]; }

TestName parse_test_name(std::string_view id) {
  TestName n;
  std::string_view s = trim(id);
  if (s.empty()) return n;
  // pytest / vitest parameters: test_a[p-1]
  n.has_params = strip_brackets(s, n.params);
  // JUnit 4 text: "method(pkg.Class)"; JUnit 5: "method()" or "method(int, String)".
  if (!n.has_params && s.size() > 2 && s.back() == ')') {
    auto open = s.find('(');
    if (open != std::string_view::npos && open > 0) {
      std::string_view inner = s.substr(open + 1, s.size() - open - 2);
      std::string_view method = s.substr(0, open);
      if (!inner.empty() && inner.find('.') != std::string_view::npos && inner.find(' ') == std::string_view::npos &&
          inner.find(',') == std::string_view::npos && method.find('.') == std::string_view::npos) {
        split_segments(inner, n.segments);
        push_segment(n.segments, method);
        return n;
      }
      if (inner.empty()) s = method;
      else if (method.find(' ') == std::string_view::npos) {
        n.has_params = true;
        n.params = std::string(inner);
        s = method;
      }
    }
  }
  // GoogleTest: "Inst/Suite.Test/0" (value-parametrized) and "Suite/0.Test" (typed).
  if (!n.has_params && s.find(' ') == std::string_view::npos) {
    auto parts = split(s, "/");
    if (parts.size() == 3 && parts[0].find('.') == std::string_view::npos && all_digits(parts[2]) &&
        std::count(parts[1].begin(), parts[1].end(), '.') == 1) {
      n.has_params = true;
      n.params = std::string(parts[0]) + "/" + std::string(parts[2]);
      s = parts[1];
    } else if (parts.size() == 2 && parts[0].find('.') == std::string_view::npos) {
      auto dot = parts[1].find('.');
      if (dot != std::string_view::npos && all_digits(parts[1].substr(0, dot)) &&
          parts[1].find('.', dot + 1) == std::string_view::npos) {
        n.has_params = true;
        n.params = std::string(parts[1].substr(0, dot));
        n.segments.emplace_back(parts[0]);
        push_segment(n.segments, parts[1].substr(dot + 1));
        return n;
      }
    }
  }
  split_segments(s, n.segments);
  return n;
}

bool denotes(std::string_view requested, std::string_view reported) {
  if (requested == reported) return !trim(requested).empty();
  const TestName want = parse_test_name(requested), got = parse_test_name(reported);
  if (!names_match(want, got)) return false;
  return !want.has_params || (got.has_params && want.params == got.params);
}

bool same_test(std::string_view a, std::string_view b) { return denotes(a, b) || denotes(b, a); }

bool contains_test(const std::vector<std::string>& names, std::string_view test) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return same_test(n, test); });
}

std::string leaf_name(std::string_view id) {
  auto n = parse_test_name(id);
  return n.segments.empty() ? std::string() : n.segments.back();
}

std::vector<std::string> enclosing_scope(std::string_view id, Runner runner) {
  std::string_view s = trim(id);
  std::string params;
  strip_brackets(s, params);
  switch (runner) {
    case Runner::pytest:
    case Runner::unknown: {
      auto sep = s.find("::");
      if (sep != std::string_view::npos && sep > 0) return {std::string(s.substr(0, sep))};
      return {};
    }
    case Runner::gtest:
    case Runner::ctest: {
      auto n = parse_test_name(s);
      if (n.segments.size() < 2) return {};
      const std::string& suite = n.segments[n.segments.size() - 2];
      return {suite + ".*", "*/" + suite + ".*", suite + "/*"};
    }
    case Runner::maven:
    case Runner::gradle: {
      auto hash = s.find('#');
      if (hash != std::string_view::npos) return {std::string(s.substr(0, hash))};
      auto dot = s.rfind('.');
      if (dot != std::string_view::npos && dot > 0) return {std::string(s.substr(0, dot))};
      return {};
    }
    case Runner::go: {
      // A subtest's parent test: "TestX/sub" -> "TestX" (go's -run matches it and its subtests);
      // a package path in front is not part of what -run selects.
      const std::string sel = runner_selector(s, runner);
      s = sel;
      auto slash = s.find('/');
      if (slash != std::string_view::npos && slash > 0) return {std::string(s.substr(0, slash))};
      return {};
    }
    case Runner::jest:
    case Runner::vitest: {
      for (std::string_view sep : {std::string_view(" \xE2\x80\xBA "), std::string_view(" > ")}) {
        auto p = s.rfind(sep);
        if (p != std::string_view::npos && p > 0) return {std::string(s.substr(0, p))};
      }
      return {};
    }
    case Runner::cargo: {
      // "module::tests::adds" -> "module::tests::" (cargo's filter is a substring of the path).
      auto sep = s.rfind("::");
      if (sep != std::string_view::npos && sep > 0) return {std::string(s.substr(0, sep + 2))};
      return {};
    }
    case Runner::node_test:
    case Runner::tape:
      return {};
  }
  return {};
}

namespace {

/// A Go test function's name: Test, Benchmark, Example or Fuzz, then the end or a character that
/// is not a lower-case letter (go test's own rule).
bool go_test_function(std::string_view seg) {
  for (std::string_view p : {"Test", "Benchmark", "Example", "Fuzz"})
    if (seg.substr(0, p.size()) == p && (seg.size() == p.size() || !std::islower(static_cast<unsigned char>(seg[p.size()]))))
      return true;
  return false;
}

}  // namespace

std::string runner_selector(std::string_view id, Runner runner) {
  std::string_view s = trim(id);
  if (runner != Runner::go) return std::string(s);
  // "example.com/m/pkg/TestX/sub" -> "TestX/sub": from the first segment that names a test function.
  for (std::size_t from = 0;;) {
    const std::size_t end = s.find('/', from);
    if (go_test_function(s.substr(from, end == std::string_view::npos ? std::string_view::npos : end - from)))
      return std::string(s.substr(from));
    if (end == std::string_view::npos) return std::string(s);
    from = end + 1;
  }
}

std::string defined_name(std::string_view id, Runner runner) {
  std::string_view s = trim(id);
  switch (runner) {
    case Runner::tape:
    case Runner::node_test: {
      auto p = s.rfind(" > ");
      return std::string(p == std::string_view::npos ? s : s.substr(p + 3));
    }
    case Runner::cargo: {
      auto p = s.rfind("::");
      return std::string(p == std::string_view::npos ? s : s.substr(p + 2));
    }
    default: return leaf_name(s);
  }
}

bool similar_names(std::string_view old_id, std::string_view new_id) {
  const std::string a = leaf_name(old_id), b = leaf_name(new_id);
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  const auto& shorter = a.size() <= b.size() ? a : b;
  const auto& longer = a.size() <= b.size() ? b : a;
  if (shorter.size() >= 4 && longer.compare(0, shorter.size(), shorter) == 0) return true;
  return edit_distance(a, b) <= std::max<std::size_t>(2, longer.size() / 4);
}

}  // namespace flowagent::reports
