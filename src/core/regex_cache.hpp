// Internal: compiled regex objects (rx::regex, core/regex.hpp) for patterns built at run time (a
// name read from the code spliced into a pattern). The guard builds the same patterns over and over (the same local's
// name, line after line, check after check): compiling them was a third of its time.
#pragma once

#include <string>

#include "core/regex.hpp"

namespace flowagent::detail {

/// The regex for `pattern` (ECMAScript grammar unless `flags` says otherwise), compiled once per
/// pattern while it stays among the most recent ones. The copy shares the compiled
/// automaton (Boost's basic_regex holds it by shared pointer), so it stays valid after the
/// cache lets the pattern go. Throws rx::regex_error for a bad pattern, like rx::regex.
/// Thread-safe (one cache for the process, behind a mutex; a pattern compiles outside it).
rx::regex cached_regex(const std::string& pattern,
                       rx::regex_constants::syntax_option_type flags = rx::regex_constants::ECMAScript);

}  // namespace flowagent::detail
