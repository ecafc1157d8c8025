// Internal: small string helpers shared by the report parsers.
#pragma once

#include <cctype>
#include <charconv>
#include <string_view>

namespace flowagent::reports::detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

/// The leading decimal integer of `s`, or 0.
inline int to_int(std::string_view s) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() ? v : 0;
}

}  // namespace flowagent::reports::detail
