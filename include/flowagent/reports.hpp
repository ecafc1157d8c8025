// flowagent/reports.hpp: test reports and logs to structured failures.
//
// Formats: JUnit XML (CTest --output-junit, pytest --junitxml xunit1/xunit2, GoogleTest XML,
// Surefire), GoogleTest JSON, `go test -json`, Jest --json, TAP 13/14, and plain-text output of
// GoogleTest, pytest, JUnit/Surefire and cargo test. Detection is by content.
// Never throws on bad input and never crashes: a truncated or malformed report yields what could be
// read plus a warning. ANSI colour codes are stripped. Parsing is bounded in memory: text logs are
// processed line by line with a bounded excerpt per failure.
//
// This header deliberately does not depend on Expected, so the parsers also build in C++20 (the
// fuzz targets use clang).
// [Threading] all functions are reentrant.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace flowagent::reports {

enum class Outcome { passed, failed, error, skipped };

struct TestCase {
  std::string id;     ///< as a runner would name it: "Suite.Name", "tests/test_x.py::test_y", "pkg/TestX"
  std::string suite;
  std::string name;
  std::string file;   ///< where known
  int line = 0;       ///< where known; 0 otherwise
  Outcome outcome = Outcome::passed;
  std::string message;   ///< first line(s) of the failure
  std::string expected;  ///< expected value where the output shows one
  std::string actual;    ///< actual value where the output shows one
  std::string excerpt;   ///< short failure-focused text (bounded)
  double seconds = 0;
};

struct Report {
  std::string format;  ///< "junit", "gtest-json", "go-json", "jest-json", "tap", "gtest-text", ...
  std::vector<TestCase> tests;
  std::vector<std::string> warnings;

  std::vector<const TestCase*> failures() const;
};

/// Detects the format from the content and parses it.
Report parse_report(std::string_view data);
/// Parses one specific format ("junit", "gtest-json", "go-json", "jest-json", "tap", "text").
Report parse_report_as(std::string_view format, std::string_view data);
/// Reads a file and parses it. Files over 64 MiB that are not XML/JSON are streamed as text.
Report parse_report_file(const std::filesystem::path& path);

/// Removes ANSI escape sequences (CSI and OSC).
std::string strip_ansi(std::string_view text);

/// Pulls expected/actual out of a failure message where the runner's format shows them.
void extract_expected_actual(TestCase& test);

/// Keeps at most `max_lines` lines around the first line that looks like a failure.
std::string failure_excerpt(std::string_view text, std::size_t max_lines = 30, std::size_t max_bytes = 4000);

}  // namespace flowagent::reports
