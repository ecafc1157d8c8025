// Internal: the streaming plain-text parser behind parse_report("text").
#pragma once

#include <istream>
#include <map>
#include <unordered_map>
#include <string>
#include <utility>
#include <vector>

#include "flowagent/reports.hpp"

namespace flowagent::reports {

class TextParser {
 public:
  void feed(std::string_view line);
  Report finish();

 private:
  enum class Section { none, pytest, cargo, surefire };
  static void append(std::string& buf, std::string_view line);
  void record(TestCase t);
  void flush_section();

  static constexpr std::size_t kMaxPassedKept = 20'000;
  static constexpr std::size_t kMaxFailures = 200'000;
  std::size_t passed_kept_ = 0, passed_dropped_ = 0, failures_dropped_ = 0;
  Report report_;
  std::unordered_map<std::string, std::size_t> index_;
  std::string gtest_current_, gtest_buf_;
  bool saw_gtest_ = false;
  bool pytest_in_failures_ = false;
  Section section_kind_ = Section::none;
  bool section_error_ = false;
  std::string section_name_, section_buf_;
  std::vector<std::pair<std::string, std::string>> pytest_summary_;
  std::vector<TestCase> pending_pytest_;
  std::vector<TestCase> pytest_sections_;
};

Report parse_text_log(std::string_view data);
Report parse_text_stream(std::istream& in);

}  // namespace flowagent::reports
