// Plain-text runner output (GoogleTest, pytest, Maven Surefire / JUnit, cargo test), line by line
// with bounded buffers, so a huge log is parsed in flat memory.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <map>

#include "flowagent/reports.hpp"
#include "reports/strings.hpp"
#include "reports/text_parser.hpp"

namespace flowagent::reports {

using detail::starts_with;
using detail::to_int;
using detail::trim;

namespace {

constexpr std::size_t kMaxBufferBytes = 16 * 1024;

}  // namespace

void TextParser::append(std::string& buf, std::string_view line) {
  if (buf.size() + line.size() + 1 > kMaxBufferBytes) return;
  buf.append(line);
  buf += '\n';
}

void TextParser::record(TestCase t) {
  // Passing tests beyond a cap are only counted: a huge log then costs flat memory, while every
  // failure (up to kMaxFailures) is still kept.
  if (t.outcome == Outcome::passed && passed_kept_ >= kMaxPassedKept && !index_.count(t.id)) {
    ++passed_dropped_;
    return;
  }
  auto it = index_.find(t.id);
  if (it != index_.end()) {
    auto& old = report_.tests[it->second];
    // A later, more specific verdict wins (e.g. a failure after a "PASSED" summary is impossible,
    // but the gtest summary repeats FAILED lines without output: keep the richer message).
    if (t.outcome != Outcome::passed) old.outcome = t.outcome;
    if (old.message.empty()) old.message = t.message;
    if (old.excerpt.empty()) old.excerpt = t.excerpt;
    if (old.expected.empty() && old.actual.empty()) {
      old.expected = t.expected;
      old.actual = t.actual;
    }
    if (old.file.empty()) {
      old.file = t.file;
      old.line = t.line;
    }
    return;
  }
  if (report_.tests.size() >= kMaxFailures) {
    ++failures_dropped_;
    return;
  }
  if (t.outcome == Outcome::passed) ++passed_kept_;
  index_.emplace(t.id, report_.tests.size());
  report_.tests.push_back(std::move(t));
}

void TextParser::flush_section() {
  if (section_kind_ == Section::none) return;
  TestCase t;
  t.outcome = Outcome::failed;
  t.message = section_buf_;
  if (section_kind_ == Section::pytest) {
    t.name = section_name_;
    t.id = section_name_;
    // "tests/test_x.py:12: AssertionError"
    std::string_view buf = section_buf_;
    std::size_t pos = 0;
    while (pos < buf.size()) {
      auto e = buf.find('\n', pos);
      auto l = trim(buf.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos));
      auto py = l.find(".py:");
      if (py != std::string_view::npos && l.find(' ') > py) {
        t.file = std::string(l.substr(0, py + 3));
        t.line = to_int(l.substr(py + 4));
      }
      if (e == std::string_view::npos) break;
      pos = e + 1;
    }
    // Message: the E lines.
    std::string msg;
    pos = 0;
    while (pos < buf.size()) {
      auto e = buf.find('\n', pos);
      auto l = buf.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos);
      if (starts_with(l, "E ")) msg += std::string(trim(l.substr(1))) + "\n";
      if (e == std::string_view::npos) break;
      pos = e + 1;
    }
    if (!msg.empty()) {
      msg.pop_back();
      t.excerpt = failure_excerpt(section_buf_);
      t.message = msg;
    }
  } else if (section_kind_ == Section::cargo) {
    t.id = t.name = section_name_;
    // "thread 'm::t' panicked at src/lib.rs:10:5:"
    auto p = section_buf_.find("panicked at ");
    if (p != std::string::npos) {
      auto s = p + 12;
      auto e = section_buf_.find_first_of(":\n", s);
      if (e != std::string::npos && section_buf_[e] == ':') {
        t.file = section_buf_.substr(s, e - s);
        t.line = to_int(std::string_view(section_buf_).substr(e + 1));
      }
    }
  } else if (section_kind_ == Section::surefire) {
    t.id = section_name_;
    t.name = section_name_;
    t.outcome = section_error_ ? Outcome::error : Outcome::failed;
    // "at com.x.FooTest.testFoo(FooTest.java:12)": the frame of the test method itself.
    auto p = section_buf_.find("at " + section_name_ + "(");
    p = p == std::string::npos ? section_buf_.find(".java:") : section_buf_.find(".java:", p);
    if (p != std::string::npos) {
      auto open = section_buf_.rfind('(', p);
      if (open != std::string::npos) {
        t.file = section_buf_.substr(open + 1, p + 5 - open - 1);
        t.line = to_int(std::string_view(section_buf_).substr(p + 6));
      }
    }
  }
  if (t.excerpt.empty()) t.excerpt = failure_excerpt(t.message);
  extract_expected_actual(t);
  if (section_kind_ == Section::pytest) {
    pytest_sections_.push_back(std::move(t));  // merged with the short summary in finish()
  } else {
    record(std::move(t));
  }
  section_kind_ = Section::none;
  section_buf_.clear();
  section_name_.clear();
}

void TextParser::feed(std::string_view raw) {
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  std::string clean;
  if (raw.find('\x1b') != std::string_view::npos) {
    clean = strip_ansi(raw);
    raw = clean;
  }
  const std::string_view line = raw;
  const std::string_view t = trim(line);

  // ---- GoogleTest ----
  if (starts_with(line, "[ RUN      ] ")) {
    flush_section();
    gtest_current_ = std::string(trim(line.substr(13)));
    gtest_buf_.clear();
    saw_gtest_ = true;
    return;
  }
  if (starts_with(line, "[       OK ] ") || starts_with(line, "[  FAILED  ] ") || starts_with(line, "[  SKIPPED ] ")) {
    std::string rest(trim(line.substr(13)));
    auto paren = rest.find(" (");
    std::string id = rest.substr(0, paren);
    if (id.find(' ') != std::string::npos || id.find(',') != std::string::npos) return;  // summary lines
    TestCase tc;
    tc.id = id;
    auto dot = id.find('.');
    tc.suite = dot == std::string::npos ? "" : id.substr(0, dot);
    tc.name = dot == std::string::npos ? id : id.substr(dot + 1);
    tc.outcome = line[3] == 'F' ? Outcome::failed : line[3] == 'S' ? Outcome::skipped : Outcome::passed;
    if (id == gtest_current_ && tc.outcome == Outcome::failed) tc.message = gtest_buf_;
    if (tc.outcome == Outcome::failed) {
      tc.excerpt = failure_excerpt(tc.message);
      // "path/file.cc:12: Failure"
      auto f = tc.message.find(": Failure");
      if (f != std::string::npos) {
        auto ls = tc.message.rfind('\n', f);
        ls = ls == std::string::npos ? 0 : ls + 1;
        auto loc = std::string_view(tc.message).substr(ls, f - ls);
        auto c = loc.rfind(':');
        if (c != std::string_view::npos) {
          tc.file = std::string(loc.substr(0, c));
          tc.line = to_int(loc.substr(c + 1));
        }
      }
      extract_expected_actual(tc);
    }
    if (id == gtest_current_) gtest_current_.clear();
    record(std::move(tc));
    return;
  }
  if (!gtest_current_.empty()) {
    append(gtest_buf_, line);
    return;
  }

  // ---- cargo test ----
  if (starts_with(line, "test ") && (line.size() > 5)) {
    auto dots = line.find(" ... ");
    if (dots != std::string_view::npos) {
      std::string name(line.substr(5, dots - 5));
      auto verdict = trim(line.substr(dots + 5));
      TestCase tc;
      tc.id = tc.name = name;
      if (verdict == "ok") tc.outcome = Outcome::passed;
      else if (starts_with(verdict, "FAILED")) tc.outcome = Outcome::failed;
      else if (starts_with(verdict, "ignored")) tc.outcome = Outcome::skipped;
      else return;
      record(std::move(tc));
      return;
    }
  }
  if (starts_with(line, "---- ") && line.size() > 17 && line.substr(line.size() - 12) == " stdout ----") {
    flush_section();
    section_kind_ = Section::cargo;
    section_name_ = std::string(line.substr(5, line.size() - 17));
    return;
  }

  // ---- pytest ----
  if (starts_with(t, "=====") ) {
    flush_section();
    pytest_in_failures_ = t.find(" FAILURES ") != std::string_view::npos || t.find(" ERRORS ") != std::string_view::npos;
    return;
  }
  if (pytest_in_failures_ && starts_with(t, "___") && t.size() > 8 && t.back() == '_') {
    flush_section();
    auto name = trim(std::string_view(t).substr(t.find_first_not_of('_')));
    while (!name.empty() && name.back() == '_') name.remove_suffix(1);
    name = trim(name);
    if (starts_with(name, "ERROR at setup of ")) name.remove_prefix(18);
    section_kind_ = Section::pytest;
    section_name_ = std::string(name);
    return;
  }
  if (starts_with(t, "FAILED ") || starts_with(t, "ERROR ")) {
    auto rest = t.substr(t.find(' ') + 1);
    auto dash = rest.find(" - ");
    std::string id(trim(rest.substr(0, dash)));
    if (id.find("::") != std::string::npos || id.find(".py") != std::string::npos) {
      pytest_summary_.emplace_back(id, dash == std::string_view::npos ? "" : std::string(rest.substr(dash + 3)));
      TestCase tc;
      tc.id = id;
      tc.name = id.substr(id.rfind("::") == std::string::npos ? 0 : id.rfind("::") + 2);
      tc.outcome = starts_with(t, "ERROR") ? Outcome::error : Outcome::failed;
      tc.message = pytest_summary_.back().second;
      extract_expected_actual(tc);
      pending_pytest_.push_back(std::move(tc));
      return;
    }
  }
  {
    // "tests/test_x.py::test_y PASSED [ 50%]"
    auto sp = t.find(' ');
    if (sp != std::string_view::npos && t.substr(0, sp).find("::") != std::string_view::npos) {
      auto verdict = trim(t.substr(sp + 1));
      TestCase tc;
      tc.id = std::string(t.substr(0, sp));
      tc.name = tc.id.substr(tc.id.rfind("::") + 2);
      if (starts_with(verdict, "PASSED")) tc.outcome = Outcome::passed;
      else if (starts_with(verdict, "SKIPPED") || starts_with(verdict, "XFAIL")) tc.outcome = Outcome::skipped;
      else if (starts_with(verdict, "FAILED") || starts_with(verdict, "ERROR")) tc.outcome = Outcome::failed;
      else goto not_pytest_verbose;
      if (tc.outcome != Outcome::failed) record(std::move(tc));
      return;
    }
  }
not_pytest_verbose:

  // ---- Maven Surefire / JUnit ----
  if ((starts_with(t, "[ERROR] ") || starts_with(t, "[INFO] ") || starts_with(t, "[WARNING] ")) &&
      (t.find("<<< FAILURE!") != std::string_view::npos || t.find("<<< ERROR!") != std::string_view::npos)) {
    flush_section();
    auto body = trim(t.substr(t.find(']') + 1));
    std::string id;
    auto paren = body.find('(');
    auto dashdash = body.find(" -- ");
    auto te = body.find("  Time elapsed");
    if (dashdash != std::string_view::npos) {
      id = std::string(trim(body.substr(0, dashdash)));  // "com.x.FooTest.testFoo"
    } else if (paren != std::string_view::npos && paren < te) {
      auto close = body.find(')', paren);
      std::string method(body.substr(0, paren)), cls(body.substr(paren + 1, close - paren - 1));
      id = cls + "." + method;  // "testFoo(com.x.FooTest)"
    } else {
      id = std::string(trim(body.substr(0, te)));
    }
    if (id.rfind("Tests run:", 0) == 0) return;  // class-level summary line
    section_kind_ = Section::surefire;
    section_name_ = id;
    section_error_ = t.find("<<< ERROR!") != std::string_view::npos;
    return;
  }
  if (section_kind_ == Section::surefire && (t.empty() || starts_with(t, "[INFO]") || starts_with(t, "Results:"))) {
    flush_section();
    return;
  }
  if (section_kind_ == Section::cargo && (t == "failures:" || starts_with(t, "test result:"))) {
    flush_section();
    return;
  }
  if (section_kind_ != Section::none) append(section_buf_, line);
}

Report TextParser::finish() {
  flush_section();
  if (!gtest_current_.empty()) {
    TestCase tc;
    tc.id = gtest_current_;
    tc.outcome = Outcome::error;
    tc.message = gtest_buf_;
    tc.excerpt = failure_excerpt(gtest_buf_);
    record(std::move(tc));
    report_.warnings.push_back("log ends inside test " + gtest_current_ + " (crash or truncation)");
    gtest_current_.clear();
  }
  // pytest: a section is named "TestA.test_y[p]"; the summary has "path::TestA::test_y[p]".
  std::vector<bool> used(pytest_sections_.size(), false);
  for (auto& tc : pending_pytest_) {
    for (std::size_t i = 0; i < pytest_sections_.size(); ++i) {
      if (used[i]) continue;
      std::string tail = "::" + pytest_sections_[i].name;
      for (std::size_t p = 0; (p = tail.find('.', p)) != std::string::npos && p < tail.find('[');) tail.replace(p, 1, "::");
      if (tc.id.size() >= tail.size() && tc.id.compare(tc.id.size() - tail.size(), tail.size(), tail) == 0) {
        used[i] = true;
        auto& sec = pytest_sections_[i];
        tc.file = sec.file;
        tc.line = sec.line;
        if (!sec.message.empty()) tc.message = sec.message;
        tc.excerpt = sec.excerpt;
        if (!sec.expected.empty() || !sec.actual.empty()) {
          tc.expected = sec.expected;
          tc.actual = sec.actual;
        }
        break;
      }
    }
    record(std::move(tc));
  }
  for (std::size_t i = 0; i < pytest_sections_.size(); ++i)
    if (!used[i]) record(std::move(pytest_sections_[i]));
  pending_pytest_.clear();
  pytest_sections_.clear();
  if (passed_dropped_)
    report_.warnings.push_back(std::to_string(passed_dropped_) + " more passing tests were counted but not listed");
  if (failures_dropped_)
    report_.warnings.push_back(std::to_string(failures_dropped_) + " more failing tests were dropped (too many)");
  if (report_.format.empty()) {
    report_.format = saw_gtest_ ? "gtest-text" : "text";
  }
  for (auto& t : report_.tests)
    if ((t.outcome == Outcome::failed || t.outcome == Outcome::error) && t.excerpt.empty())
      t.excerpt = failure_excerpt(t.message);
  return std::move(report_);
}

Report parse_text_log(std::string_view data) {
  TextParser p;
  std::size_t start = 0;
  while (start < data.size()) {
    auto end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    p.feed(data.substr(start, end - start));
    start = end + 1;
  }
  return p.finish();
}

Report parse_text_stream(std::istream& in) {
  // Reads 1 MiB blocks and splits them into lines; a line longer than the block is cut (its head
  // is parsed, the rest skipped), so memory stays bounded whatever the input.
  TextParser p;
  constexpr std::size_t kBlock = 1 << 20;
  std::string buf;
  buf.reserve(2 * kBlock);
  std::vector<char> chunk(kBlock);
  bool skipping = false;  // inside an over-long line
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    auto n = static_cast<std::size_t>(in.gcount());
    if (n == 0) break;
    buf.append(chunk.data(), n);
    std::size_t start = 0;
    for (;;) {
      auto nl = buf.find('\n', start);
      if (nl == std::string::npos) break;
      if (!skipping) p.feed(std::string_view(buf).substr(start, nl - start));
      skipping = false;
      start = nl + 1;
    }
    buf.erase(0, start);
    if (buf.size() > kBlock) {
      if (!skipping) p.feed(std::string_view(buf).substr(0, kBlock));
      skipping = true;
      buf.clear();
    }
  }
  if (!buf.empty() && !skipping) p.feed(buf);
  return p.finish();
}

}  // namespace flowagent::reports
