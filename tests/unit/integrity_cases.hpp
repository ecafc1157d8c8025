// Shared by the guard's case tests (integrity_cheats_test.cpp, integrity_gaps_test.cpp): a finding
// list as text, a code lookup, and a table of cases each expected to get a code or to be accepted.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "flowagent/integrity.hpp"

namespace flowagent::testkit {

inline std::string codes(const std::vector<IntegrityFinding>& f) {
  std::string s;
  for (const auto& x : f) s += x.rule + " (" + x.path + ":" + std::to_string(x.line) + " " + x.message + ")\n";
  return s;
}

inline bool has_code(const std::vector<IntegrityFinding>& f, const std::string& code) {
  return std::any_of(f.begin(), f.end(), [&](const IntegrityFinding& x) { return x.rule == code; });
}

struct GuardCase {
  const char* name;
  std::string after;
  const char* code;  ///< nullptr: honest
};

/// Each case's after version through `guard`: a cheat must get its code, an honest case no finding.
inline void expect_cases(const std::vector<GuardCase>& cases,
                         const std::function<std::vector<IntegrityFinding>(const std::string&)>& guard) {
  for (const auto& c : cases) {
    auto f = guard(c.after);
    if (c.code) EXPECT_TRUE(has_code(f, c.code)) << c.name << ": expected " << c.code << ", got:\n" << codes(f);
    else EXPECT_TRUE(f.empty()) << c.name << " is honest, got:\n" << codes(f);
  }
}

}  // namespace flowagent::testkit
