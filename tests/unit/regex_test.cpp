// core/regex.hpp: the library's patterns run on Boost.Regex and mean what they meant under
// std::regex's ECMAScript grammar. Each case is checked against std::regex itself, so a Boost
// default that differs (multi-line anchors, a dot that takes line breaks, Perl's replacement
// escapes) fails here, not in a guard rule.
#include "core/regex.hpp"

#include "core/regex_cache.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

struct Case {
  const char* pattern;
  std::string text;
};

// What std::regex finds (whether, and the whole match), for comparison.
std::string std_search(const Case& c, std::regex::flag_type flags = std::regex::ECMAScript) {
  std::smatch m;
  return std::regex_search(c.text, m, std::regex(c.pattern, flags)) ? "match:" + m[0].str() : "none";
}
std::string rx_search(const Case& c, rx::regex::flag_type flags = rx::regex::ECMAScript) {
  rx::smatch m;
  return rx::regex_search(c.text, m, rx::regex(c.pattern, flags)) ? "match:" + m[0].str() : "none";
}

TEST(Regex, SearchesMeanWhatTheyMeantUnderStdRegex) {
  const std::vector<Case> cases = {
      // Anchors: the text's start and end only, never an embedded line's (Perl's default is multi-line).
      {"^b", "a\nb"},
      {"a$", "a\nb"},
      {"a$", "xa\n"},
      {"(^|\\n)def f", "x = 1\ndef f():"},
      {"^\\s*import os$", "import os"},
      // A dot takes no line break.
      {"a.b", "a\nb"},
      {"a.b", "a\rb"},
      {"a.*z", "a bc\nz"},
      {"a.b", "a\fb"},  // (Boost's own dot refuses a form feed)
      {"#.*$", "flag = False  #\fkeep"},
      {"[[:alpha:].]+", "ab.c"},
      {"a[^x]b", "a\nb"},  // (a negated class does)
      // Word boundaries, classes, lazy and greedy repetition, alternation order, look-ahead, back-references.
      {"\\bassert\\b", "self.assertEqual(x)"},
      {"\\bassert\\b", "assert x == 1"},
      {"\\d+\\.\\d*", "v 12.5x"},
      {"\\w+\\s+as\\s+(\\w+)", "import numpy as np"},
      {"\\(.*?\\)", "f(a)(b)"},
      {"\\(.*\\)", "f(a)(b)"},
      {"(a|ab)(c|bcd)", "abcd"},
      {"foo(?!bar)\\w+", "foobar foobaz"},
      {"(['\"])x\\1", "'x\" \"x\""},
      {"[[:alpha:]]+", "12ab3"},
      {"[\\w.-]+@", "a.b-c@d"},
      {"\\$\\{[^}]*\\}", "a ${b} c"},
      {"==\\s*3\\b", "assert n == 3"},
  };
  for (const auto& c : cases) EXPECT_EQ(rx_search(c), std_search(c)) << c.pattern << " over " << c.text;
  const Case icase{"assertequal", "self.assertEqual(a, b)"};
  EXPECT_EQ(rx_search(icase, rx::regex::icase), std_search(icase, std::regex::icase));
  EXPECT_EQ(rx_search(icase, rx::regex::icase), "match:assertEqual");
}

TEST(Regex, ReplacementsReadTheirFormatAsECMAScriptDoes) {
  struct R {
    const char* pattern;
    std::string text;
    std::string format;
  };
  // (Perl's format would read `\$` as `$` and `\n` as a newline: ECMAScript keeps the backslash.)
  const std::vector<R> cases = {
      {R"(\$)", "a$b", R"(\$)"},
      {R"([.^$|()\[\]{}*+?\\])", "a.b(c)", "\\$&"},
      {R"(getattr\((\w+), '(\w+)'\))", "getattr(x, 'y') + 1", "$1.$2"},
      {"b", "abc", "$$ $x $"},
      {"b", "abc", "[$&\\n$1]"},
      {"(\\w+)=(\\w+)", "a=b c=d", "$2=$1"},
  };
  for (const auto& c : cases)
    EXPECT_EQ(rx::regex_replace(c.text, rx::regex(c.pattern), c.format),
              std::regex_replace(c.text, std::regex(c.pattern), c.format))
        << c.pattern << " -> " << c.format;
}

TEST(Regex, IteratorsAndTheCacheAgreeWithStdRegex) {
  const std::string text = "def a():\n    pass\nasync def b(): ...\ndef  c(x):";
  const char* pattern = R"((?:^|\n)[ \t]*(?:async[ \t]+)?def[ \t]+(\w+))";
  std::vector<std::string> ours, theirs;
  const rx::regex cached = detail::cached_regex(pattern);
  for (rx::sregex_iterator it(text.begin(), text.end(), cached), e; it != e; ++it) ours.push_back((*it)[1].str());
  const std::regex re(pattern);
  for (std::sregex_iterator it(text.begin(), text.end(), re), e; it != e; ++it) theirs.push_back((*it)[1].str());
  EXPECT_EQ(ours, theirs);
  EXPECT_EQ(ours, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_THROW(detail::cached_regex("(unclosed"), rx::regex_error);
}

// The reason for the engine: a repetition over a long run of text does not recurse per character
// (std::regex needed a deep stack for this), on a host thread with a small stack too, and a
// pattern whose matching explodes ends in an error, not a hang or a crash.
TEST(Regex, LongTextNeedsNoDeepStackAndRunawayMatchesThrow) {
  const std::string text = std::string(300000, 'x') + " as y";
  bool matched = false;
  std::string alias;
  testkit::on_thread_with_stack(256 * 1024, [&] {
    rx::smatch m;
    matched = rx::regex_search(text, m, rx::regex(R"(\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)\b)"));
    if (matched) alias = m[2].str();
  });
  EXPECT_TRUE(matched);
  EXPECT_EQ(alias, "y");
  const std::string as(5000, 'a');
  EXPECT_THROW(rx::sregex_iterator(as.begin(), as.end(), rx::regex("(a*)*b")), rx::regex_error);
}

// An ambiguous pattern over a line Boost's budget does not cover (max(N^2, N*S^2) states) is
// answered as std::regex answers it: match, captures, positions.
TEST(Regex, PastBoostsBudgetSearchesAndMatchesAnswerAsStdRegex) {
  const char* pattern = R"(^\s*(?:var\s+([\w\s,]+?)\s*=|([\w\s,]+?)\s*:=))";
  for (const std::string& text : {std::string(420, ' ') + "x", std::string(420, ' ') + "a, b := f()", std::string(" a := 1")}) {
    if (text.back() == 'x') {  // (past the budget: Boost alone gives up on it)
      EXPECT_THROW(boost::regex_search(text, boost::regex(pattern, boost::regex::no_mod_m)), boost::regex_error);
    }
    rx::smatch ours;
    std::smatch theirs;
    const bool hit = std::regex_search(text, theirs, std::regex(pattern));
    ASSERT_NO_THROW(EXPECT_EQ(rx::regex_search(text, ours, rx::regex(pattern)), hit));
    if (!hit) continue;
    ASSERT_EQ(ours.size(), theirs.size());
    for (std::size_t k = 0; k < ours.size(); ++k) {
      EXPECT_EQ(ours[k].matched, theirs[k].matched) << k;
      EXPECT_EQ(ours[k].str(), theirs[k].str()) << k;
      if (ours[k].matched) {
        EXPECT_EQ(ours.position(k), theirs.position(k)) << k;
      }
    }
    EXPECT_EQ(rx::regex_match(text, rx::regex(std::string(pattern) + ".*")), std::regex_match(text, std::regex(std::string(pattern) + ".*")));
  }
}

// Past kFallbackChars, where std::regex's backtracking could hold a job for minutes, Boost's error
// stands: the caller fails closed (the guard: parse_error).
TEST(Regex, PastTheFallbacksLengthBoostsErrorStands) {
  const std::string text = std::string(2000, ' ') + "x";
  EXPECT_THROW(rx::regex_search(text, rx::regex(R"(^\s*(?:var\s+([\w\s,]+?)\s*=|([\w\s,]+?)\s*:=))")), rx::regex_error);
}

}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
