// Internal: the regular-expression engine of the library, Boost.Regex behind std::regex's names.
//
// Why not std::regex: libstdc++'s engine is a backtracking matcher that recurses once per
// character a `.*` takes (a long line overflowed the stack) and was most of the guard's time
// (docs/BENCHMARKS.md, "The guard's regular expressions"). Boost.Regex (header-only in Boost
// 1.81, already a dependency) runs the same ECMAScript/Perl patterns with a non-recursive matcher
// that throws instead of overflowing, and several times faster.
//
// The few ways Perl syntax differs from ECMAScript are closed here, so a pattern means what it
// meant under std::regex:
//   - `^` and `$` match only at the start and end of the text, not at embedded newlines
//     (no_mod_m; ECMAScript has no multiline mode here);
//   - `.` matches no line break (no_mod_s);
//   - a replacement's backslashes are literal, as in ECMAScript (`$&`, `$1`, `$$` keep their
//     meaning): regex_replace escapes them for Boost's Perl format.
// Escapes Perl gives a meaning ECMAScript does not (`\'`, `\<`, `\A`, `\z`, `\h`, `\v`, ...) are
// not used by the library's patterns. Errors: std::regex_error (a std::runtime_error) for a bad
// pattern, and for a match past Boost's complexity bound (where std::regex would recurse until
// the stack ran out). Thread-safety: as std::regex (a compiled regex is read-only when matched).
#pragma once

#include <boost/regex.hpp>
#include <string>

namespace flowagent::rx {

class regex : public boost::regex {
 public:
  using flag_type = boost::regex::flag_type;
  static constexpr flag_type ECMAScript = boost::regex::ECMAScript;

  regex() = default;
  explicit regex(const std::string& pattern, flag_type flags = ECMAScript) : boost::regex(pattern, with_defaults(flags)) {}
  explicit regex(const char* pattern, flag_type flags = ECMAScript) : boost::regex(pattern, with_defaults(flags)) {}

 private:
  static flag_type with_defaults(flag_type flags) { return flags | boost::regex::no_mod_m | boost::regex::no_mod_s; }
};

using boost::cmatch;
using boost::csub_match;
using boost::regex_error;
using boost::regex_match;
using boost::regex_search;
using boost::smatch;
using boost::sregex_iterator;
using boost::sregex_token_iterator;
using boost::ssub_match;
namespace regex_constants = boost::regex_constants;

/// rx::regex_replace's meaning: `$&`, `$1`, `$$` as in ECMAScript, a backslash literal.
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
