// Internal: the regular-expression engine of the library, Boost.Regex behind std::regex's names.
//
// Why not std::regex: libstdc++'s engine is a backtracking matcher that recurses once per
// character a `.*` takes (a long line overflowed the stack) and was 71% of the guard's time
// (docs/BENCHMARKS.md, "The library's patterns on Boost.Regex"). Boost.Regex (header-only in
// Boost 1.81, already a dependency) runs the same patterns with a non-recursive matcher, several
// times faster.
//
// The ways Perl syntax differs from ECMAScript are closed here, so a pattern means what it meant
// under std::regex (tests/unit/regex_test.cpp compares them):
//   - `^` and `$` match only at the start and end of the text, not at embedded newlines
//     (no_mod_m; ECMAScript has no multiline mode here);
//   - `.` outside a class is spelled `[^\n\r]`, ECMAScript's dot (Boost's also refuses `\f`);
//   - a replacement's backslashes are literal, as in ECMAScript (`$&`, `$1`, `$$` keep their
//     meaning): regex_replace escapes them for Boost's Perl format.
// Escapes Perl gives a meaning ECMAScript does not (`\'`, `\<`, `\A`, `\z`, `\h`, `\v`, ...) are
// not used by the library's own patterns; code that compiles a pattern taken from the files it
// reads translates it first or asks std::regex/RE2 (integrity/syntax.cpp).
//
// Boost ends a match that visits more states than its budget (about max(N^2, N*S^2) for N
// characters and S states) with error_complexity, where std::regex went on. regex_search and
// regex_match then answer with std::regex on the same pattern for texts up to kFallbackChars;
// longer texts, iterators and regex_replace keep the error (the guard then fails closed).
// Errors: rx::regex_error (a std::runtime_error) for a bad pattern and for a runaway match as
// above. Thread-safety: as std::regex (a compiled regex is read-only when matched; the
// fallback's cache is locked).
#pragma once

#include <boost/regex.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <string>

namespace flowagent::rx {

namespace detail {

/// `pattern` with each `.` outside a character class spelled `[^\n\r]` (ECMAScript's dot).
inline std::string ecmascript_dots(const std::string& pattern) {
  std::string out;
  out.reserve(pattern.size() + 16);
  bool in_class = false;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\' && i + 1 < pattern.size()) {
      out += c;
      out += pattern[++i];
    } else if (in_class) {
      if (c == '[' && i + 1 < pattern.size() && pattern[i + 1] == ':') {  // ([:alpha:] inside a class)
        const auto close = pattern.find(":]", i + 2);
        const std::size_t stop = close == std::string::npos ? pattern.size() : close + 2;
        out.append(pattern, i, stop - i);
        i = stop - 1;
        continue;
      }
      if (c == ']') in_class = false;
      out += c;
    } else if (c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < pattern.size() && pattern[i + 1] == '^') out += pattern[++i];
    } else if (c == '.') {
      out += "[^\\n\\r]";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace detail

class regex : public boost::regex {
 public:
  using flag_type = boost::regex::flag_type;
  static constexpr flag_type ECMAScript = boost::regex::ECMAScript;

  regex() = default;
  explicit regex(const std::string& pattern, flag_type flags = ECMAScript)
      : boost::regex(detail::ecmascript_dots(pattern), with_defaults(flags)) {}
  explicit regex(const char* pattern, flag_type flags = ECMAScript) : regex(std::string(pattern), flags) {}

 private:
  static flag_type with_defaults(flag_type flags) { return flags | boost::regex::no_mod_m | boost::regex::no_mod_s; }
};

using boost::cmatch;
using boost::csub_match;
using boost::regex_error;
using boost::smatch;
using boost::sregex_iterator;
using boost::sregex_token_iterator;
using boost::ssub_match;
namespace regex_constants = boost::regex_constants;

namespace detail {

/// The longest text std::regex answers for when Boost gives up. Its backtracking grows with the
/// cube of the text for the library's ambiguous patterns (a 420-space line: ~2 s in a Debug build),
/// so past 1 KiB a hostile line could hold a job for minutes: the error stands there instead.
inline constexpr std::ptrdiff_t kFallbackChars = 1024;

inline bool past_budget(const regex_error& e) {
  return e.code() == regex_constants::error_complexity || e.code() == regex_constants::error_stack;
}

/// The std::regex of `re`'s pattern (already in ECMAScript spelling), compiled once per pattern
/// (the 256 most recent fallbacks kept).
inline std::shared_ptr<const std::regex> std_twin(const regex& re) {
  static std::mutex mu;
  static auto* cache = new std::map<std::string, std::shared_ptr<const std::regex>>;  // (never destroyed)
  const bool icase = (re.flags() & boost::regex::icase) != 0;
  const std::string key = (icase ? "i:" : "c:") + re.str();
  {
    std::lock_guard lock(mu);
    if (auto it = cache->find(key); it != cache->end()) return it->second;
  }
  auto compiled = std::make_shared<const std::regex>(re.str(), icase ? std::regex::ECMAScript | std::regex::icase : std::regex::ECMAScript);
  std::lock_guard lock(mu);
  if (cache->size() >= 256) cache->clear();
  cache->emplace(key, compiled);
  return compiled;
}

/// Boost's results for what std::regex found in [begin, end).
template <class It>
void assign(boost::match_results<It>& out, const std::match_results<It>& in, It begin, It end) {
  out.set_size(in.size(), begin, end);
  out.set_base(begin);
  out.set_first(in[0].first);
  out.set_second(in[0].second);
  for (std::size_t k = 1; k < in.size(); ++k)
    if (in[k].matched) {
      out.set_first(in[k].first, k);
      out.set_second(in[k].second, k, true);
    }
}

template <class It>
bool search_or_match(bool whole, It first, It last, boost::match_results<It>* m, const regex& re) {
  try {
    if (m) return whole ? boost::regex_match(first, last, *m, re) : boost::regex_search(first, last, *m, re);
    return whole ? boost::regex_match(first, last, re) : boost::regex_search(first, last, re);
  } catch (const regex_error& e) {
    // (Past kFallbackChars the error stands, and the caller fails closed.)
    if (!past_budget(e) || std::distance(first, last) > kFallbackChars) throw;
  }
  std::shared_ptr<const std::regex> twin;
  try {
    twin = std_twin(re);
  } catch (const std::regex_error&) {
    throw regex_error(regex_constants::error_complexity);  // (std::regex cannot compile it: Boost's error stands)
  }
  std::match_results<It> found;
  const bool hit = whole ? std::regex_match(first, last, found, *twin) : std::regex_search(first, last, found, *twin);
  if (m) {
    *m = boost::match_results<It>();
    if (hit) assign(*m, found, first, last);
  }
  return hit;
}

}  // namespace detail

// regex_search and regex_match: Boost's, with std::regex's answer past Boost's budget.
template <class It>
bool regex_search(It first, It last, boost::match_results<It>& m, const regex& re) {
  return detail::search_or_match(false, first, last, &m, re);
}
template <class It>
bool regex_search(It first, It last, const regex& re) {
  return detail::search_or_match<It>(false, first, last, nullptr, re);
}
inline bool regex_search(const std::string& text, smatch& m, const regex& re) { return regex_search(text.begin(), text.end(), m, re); }
inline bool regex_search(const std::string& text, const regex& re) { return regex_search(text.begin(), text.end(), re); }
bool regex_search(const std::string&& text, smatch& m, const regex& re) = delete;  // (results into a temporary)

template <class It>
bool regex_match(It first, It last, boost::match_results<It>& m, const regex& re) {
  return detail::search_or_match(true, first, last, &m, re);
}
template <class It>
bool regex_match(It first, It last, const regex& re) {
  return detail::search_or_match<It>(true, first, last, nullptr, re);
}
inline bool regex_match(const std::string& text, smatch& m, const regex& re) { return regex_match(text.begin(), text.end(), m, re); }
inline bool regex_match(const std::string& text, const regex& re) { return regex_match(text.begin(), text.end(), re); }
bool regex_match(const std::string&& text, smatch& m, const regex& re) = delete;

/// std::regex_replace's meaning: `$&`, `$1`, `$$` as in ECMAScript, a backslash literal.
inline std::string ecmascript_format(const std::string& format) {
  std::string out;
  out.reserve(format.size());
  for (char c : format) {
    if (c == '\\') out += '\\';
    out += c;
  }
  return out;
}

template <class Text>
std::string regex_replace(const Text& text, const regex& re, const std::string& format,
                          regex_constants::match_flag_type flags = regex_constants::match_default) {
  return boost::regex_replace(std::string(text), re, ecmascript_format(format), flags);
}

}  // namespace flowagent::rx
