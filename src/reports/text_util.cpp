// Shared helpers of the report parsers: ANSI stripping, excerpts, expected/actual extraction.
#include <algorithm>
#include <cctype>

#include "flowagent/reports.hpp"
#include "reports/strings.hpp"

namespace flowagent::reports {

using detail::starts_with;
using detail::to_int;
using detail::trim;

std::vector<const TestCase*> Report::failures() const {
  std::vector<const TestCase*> out;
  for (const auto& t : tests)
    if (t.outcome == Outcome::failed || t.outcome == Outcome::error) out.push_back(&t);
  return out;
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\x1b') {
      out += s[i];
      continue;
    }
    if (i + 1 >= s.size()) break;
    char k = s[i + 1];
    if (k == '[') {  // CSI: parameters then a final byte 0x40-0x7E
      std::size_t j = i + 2;
      while (j < s.size() && !(s[j] >= 0x40 && s[j] <= 0x7E)) ++j;
      i = j;
    } else if (k == ']') {  // OSC: until BEL or ESC '\'
      std::size_t j = i + 2;
      while (j < s.size() && s[j] != '\x07' && !(s[j] == '\x1b' && j + 1 < s.size() && s[j + 1] == '\\')) ++j;
      i = (j < s.size() && s[j] == '\x1b') ? j + 1 : j;
    } else {
      i += 1;  // two-byte escape
    }
  }
  return out;
}

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < text.size()) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

bool looks_like_failure_line(std::string_view l) {
  static constexpr std::string_view keys[] = {"Failure",  "FAILED",   "Error",  "error:", "assert",   "Assert",
                                              "Expected", "expected", "panicked", "FAIL", "Traceback", "Exception"};
  for (auto k : keys)
    if (l.find(k) != std::string_view::npos) return true;
  return l.rfind("E ", 0) == 0;
}

/// Value after `key` up to end of line (trimmed), searching from `from`.
bool value_after(std::string_view text, std::string_view key, std::string& out, std::size_t from = 0) {
  auto p = text.find(key, from);
  if (p == std::string_view::npos) return false;
  auto start = p + key.size();
  auto end = text.find('\n', start);
  out = std::string(trim(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
  return true;
}

}  // namespace

std::string failure_excerpt(std::string_view text, std::size_t max_lines, std::size_t max_bytes) {
  auto lines = lines_of(text);
  if (lines.empty()) return {};
  std::size_t first = 0;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (looks_like_failure_line(lines[i])) {
      first = i;
      break;
    }
  std::size_t begin = first > 3 ? first - 3 : 0;
  std::string out;
  for (std::size_t i = begin; i < lines.size() && i < begin + max_lines; ++i) {
    if (out.size() + lines[i].size() + 1 > max_bytes) {
      out += "[...]\n";
      break;
    }
    out.append(lines[i]);
    out += '\n';
  }
  if (begin + max_lines < lines.size()) out += "[... " + std::to_string(lines.size() - begin - max_lines) + " more lines]\n";
  return out;
}

void extract_expected_actual(TestCase& t) {
  const std::string text = t.message + "\n" + t.excerpt;
  std::string a, b;
  // GoogleTest: "Expected equality of these values:\n  lhs\n    Which is: X\n  rhs\n    Which is: Y"
  if (auto p = text.find("Expected equality of these values:"); p != std::string::npos) {
    auto ls = lines_of(std::string_view(text).substr(p));
    std::vector<std::pair<std::string, std::string>> sides;  // expr, value ("" if literal)
    for (std::size_t i = 1; i < ls.size(); ++i) {
      auto l = ls[i];
      if (l.rfind("    Which is: ", 0) == 0) {
        if (!sides.empty()) sides.back().second = std::string(l.substr(14));
      } else if (l.rfind("  ", 0) == 0 && l.rfind("    ", 0) != 0) {
        if (sides.size() == 2) break;
        sides.emplace_back(std::string(trim(l)), "");
      } else {
        break;
      }
    }
    if (sides.size() == 2) {
      const bool lhs_literal = sides[0].second.empty(), rhs_literal = sides[1].second.empty();
      auto val = [](const auto& s) { return s.second.empty() ? s.first : s.second; };
      if (lhs_literal && !rhs_literal) {
        t.expected = sides[0].first;
        t.actual = sides[1].second;
      } else {
        t.expected = val(sides[1]);
        t.actual = val(sides[0]);
      }
      return;
    }
  }
  // GoogleTest EXPECT_TRUE-style / older: "Value of: x\n  Actual: 4\nExpected: 5"
  if (text.find("Value of:") != std::string::npos && value_after(text, "  Actual: ", a) &&
      value_after(text, "Expected: ", b)) {
    t.actual = a;
    t.expected = b;
    return;
  }
  // JUnit 4 / 5: "expected:<5> but was:<4>", "expected: <5> but was: <4>"
  for (std::string_view open : {"expected:<", "expected: <"}) {
    auto p = text.find(open);
    if (p == std::string::npos) continue;
    auto s = p + open.size();
    auto close = text.find("> but was:", s);
    if (close == std::string::npos) continue;
    auto s2 = text.find('<', close + 10);
    if (s2 == std::string::npos) continue;
    auto e2 = text.rfind('>');
    if (e2 == std::string::npos || e2 <= s2) continue;
    auto eol = text.find('\n', s2);
    if (eol != std::string::npos && eol < e2) e2 = text.rfind('>', eol);
    t.expected = text.substr(s, close - s);
    t.actual = text.substr(s2 + 1, e2 - s2 - 1);
    return;
  }
  // Jest: "Expected: 5\nReceived: 4" (also "Expected value"/"Received value")
  if ((value_after(text, "Expected: ", b) || value_after(text, "Expected value: ", b)) &&
      (value_after(text, "Received: ", a) || value_after(text, "Received value: ", a))) {
    t.expected = b;
    t.actual = a;
    return;
  }
  // Rust >= 1.73: "  left: 4\n right: 5"; older: "left: `4`,\n right: `5`"
  if (text.find("assertion `left == right` failed") != std::string::npos ||
      text.find("assertion failed: `(left == right)`") != std::string::npos) {
    if (value_after(text, "left: ", a) && value_after(text, "right: ", b)) {
      auto unquote = [](std::string s) {
        if (!s.empty() && s.back() == ',') s.pop_back();
        if (s.size() >= 2 && s.front() == '`' && s.back() == '`') s = s.substr(1, s.size() - 2);
        return s;
      };
      t.actual = unquote(a);
      t.expected = unquote(b);
      return;
    }
  }
  // pytest: "assert 4 == 5" (left is what the code produced, right the expectation)
  for (std::string_view key : {"E       assert ", "AssertionError: assert ", "assert "}) {
    auto p = text.find(key);
    if (p == std::string::npos) continue;
    auto s = p + key.size();
    auto e = text.find('\n', s);
    std::string expr(trim(std::string_view(text).substr(s, e == std::string::npos ? std::string::npos : e - s)));
    auto eq = expr.find(" == ");
    if (eq == std::string::npos) continue;
    t.actual = expr.substr(0, eq);
    t.expected = expr.substr(eq + 4);
    return;
  }
  // Go: "got 4, want 5" / "got: 4, want: 5" / "got 4 want 5" / "got:\n...want:"
  {
    auto p = text.find("got");
    while (p != std::string::npos) {
      auto w = text.find("want", p);
      auto eol = text.find('\n', p);
      if (w != std::string::npos && (eol == std::string::npos || w < eol)) {
        std::string got = std::string(trim(std::string_view(text).substr(p + 3, w - p - 3)));
        if (!got.empty() && got.front() == ':') got = std::string(trim(std::string_view(got).substr(1)));
        if (!got.empty() && got.back() == ',') got.pop_back();
        if (!got.empty() && got.back() == ';') got.pop_back();
        auto vs = w + 4;
        auto ve = text.find('\n', vs);
        std::string want(trim(std::string_view(text).substr(vs, ve == std::string::npos ? std::string::npos : ve - vs)));
        if (!want.empty() && want.front() == ':') want = std::string(trim(std::string_view(want).substr(1)));
        if (!got.empty() && !want.empty()) {
          t.actual = std::string(trim(got));
          t.expected = want;
          return;
        }
      }
      p = text.find("got", p + 3);
    }
  }
}

}  // namespace flowagent::reports
