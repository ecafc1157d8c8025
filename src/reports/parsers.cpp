// Test-report parsers. Real parsers for the structured formats (pugixml for XML, simdjson for
// JSON); a line-oriented state machine for TAP and plain-text runner output.
#include <pugixml.hpp>
#include <simdjson.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
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

constexpr std::size_t kMaxTests = 200'000;

void add_test(Report& r, TestCase t) {
  if (r.tests.size() >= kMaxTests) {
    if (r.warnings.empty() || r.warnings.back().find("too many tests") == std::string::npos)
      r.warnings.push_back("too many tests; only the first " + std::to_string(kMaxTests) + " are kept");
    return;
  }
  if (t.outcome == Outcome::failed || t.outcome == Outcome::error) {
    if (t.excerpt.empty()) t.excerpt = failure_excerpt(t.message);
    if (t.expected.empty() && t.actual.empty()) extract_expected_actual(t);
    // "file:line" at the start of a gtest message
    if (t.line == 0) {
      auto first = std::string_view(t.message).substr(0, t.message.find('\n'));
      auto colon = first.rfind(':');
      if (colon != std::string_view::npos && colon + 1 < first.size()) {
        int line = to_int(first.substr(colon + 1));
        if (line > 0 && first.substr(0, colon).find(' ') == std::string_view::npos) {
          if (t.file.empty()) t.file = std::string(first.substr(0, colon));
          t.line = line;
        }
      }
    }
  }
  r.tests.push_back(std::move(t));
}

// ---- JUnit XML --------------------------------------------------------------------------------

void junit_cases(const pugi::xml_node& node, Report& r) {
  for (auto child : node.children()) {
    std::string_view n = child.name();
    if (n == "testsuite" || n == "testsuites") {
      junit_cases(child, r);
      continue;
    }
    if (n != "testcase") continue;
    TestCase t;
    t.name = child.attribute("name").as_string();
    t.suite = child.attribute("classname").as_string();
    if (t.suite.empty()) t.suite = node.attribute("name").as_string();
    t.id = (t.suite.empty() || t.suite == t.name) ? t.name : t.suite + "." + t.name;
    t.file = child.attribute("file").as_string();
    t.line = child.attribute("line").as_int();
    t.seconds = child.attribute("time").as_double();
    std::string_view status = child.attribute("status").as_string();
    std::string_view result = child.attribute("result").as_string();
    if (status == "notrun" || status == "disabled" || result == "skipped" || result == "suppressed")
      t.outcome = Outcome::skipped;
    std::string messages;
    for (auto f : child.children()) {
      std::string_view fn = f.name();
      if (fn == "failure" || fn == "error") {
        if (t.outcome != Outcome::failed) t.outcome = fn == "failure" ? Outcome::failed : Outcome::error;
        std::string msg = f.attribute("message").as_string();
        std::string body = f.text().as_string();
        if (!messages.empty()) messages += "\n";
        messages += !body.empty() && body.find(msg) != std::string::npos ? body : (msg + (body.empty() ? "" : "\n" + body));
      } else if (fn == "skipped" && t.outcome == Outcome::passed) {
        t.outcome = Outcome::skipped;
        t.message = f.attribute("message").as_string();
      } else if ((fn == "system-out" || fn == "system-err") && !messages.empty()) {
        // CTest puts the test's own output here; keep a failure-focused excerpt of it.
        t.excerpt += failure_excerpt(strip_ansi(f.text().as_string()));
      } else if (fn == "system-out" && status == "fail") {
        t.excerpt += failure_excerpt(strip_ansi(f.text().as_string()));
      }
    }
    if (status == "fail" && t.outcome == Outcome::passed) t.outcome = Outcome::failed;
    if (!messages.empty()) t.message = strip_ansi(messages);
    add_test(r, std::move(t));
  }
}

Report parse_junit(std::string_view data) {
  Report r;
  r.format = "junit";
  pugi::xml_document doc;
  auto res = doc.load_buffer(data.data(), data.size(), pugi::parse_default | pugi::parse_ws_pcdata_single);
  if (!res) r.warnings.push_back(std::string("XML error at offset ") + std::to_string(res.offset) + ": " +
                                 res.description() + " (partial results kept)");
  junit_cases(doc, r);
  return r;
}

// ---- GoogleTest JSON --------------------------------------------------------------------------

std::string sv(simdjson::dom::element e, const char* key) {
  std::string_view v;
  if (e[key].get_string().get(v) == simdjson::SUCCESS) return std::string(v);
  return {};
}

Report parse_gtest_json(simdjson::dom::element root) {
  Report r;
  r.format = "gtest-json";
  simdjson::dom::array suites;
  if (root["testsuites"].get_array().get(suites) != simdjson::SUCCESS) {
    r.warnings.push_back("gtest JSON without testsuites");
    return r;
  }
  for (auto suite : suites) {
    simdjson::dom::array cases;
    if (suite["testsuite"].get_array().get(cases) != simdjson::SUCCESS) continue;
    for (auto c : cases) {
      TestCase t;
      t.suite = sv(c, "classname");
      if (t.suite.empty()) t.suite = sv(suite, "name");
      t.name = sv(c, "name");
      t.id = t.suite + "." + t.name;
      t.file = sv(c, "file");
      int64_t line = 0;
      if (c["line"].get_int64().get(line) == simdjson::SUCCESS) t.line = static_cast<int>(line);
      std::string status = sv(c, "status"), result = sv(c, "result");
      if (status == "NOTRUN" || result == "SKIPPED" || result == "SUPPRESSED") t.outcome = Outcome::skipped;
      simdjson::dom::array failures;
      if (c["failures"].get_array().get(failures) == simdjson::SUCCESS) {
        for (auto f : failures) {
          std::string msg = sv(f, "failure");
          if (msg.empty()) msg = sv(f, "message");
          t.message += (t.message.empty() ? "" : "\n") + msg;
          t.outcome = Outcome::failed;
        }
      }
      t.line = 0;  // the failure location (from the message) is more useful than the test's
      add_test(r, std::move(t));
    }
  }
  return r;
}

// ---- Jest JSON --------------------------------------------------------------------------------

Report parse_jest_json(simdjson::dom::element root) {
  Report r;
  r.format = "jest-json";
  simdjson::dom::array files;
  if (root["testResults"].get_array().get(files) != simdjson::SUCCESS) return r;
  for (auto file : files) {
    std::string path = sv(file, "name");
    simdjson::dom::array asserts;
    bool any = false;
    if (file["assertionResults"].get_array().get(asserts) == simdjson::SUCCESS) {
      for (auto a : asserts) {
        any = true;
        TestCase t;
        t.file = path;
        t.suite = path;
        t.name = sv(a, "fullName");
        if (t.name.empty()) t.name = sv(a, "title");
        t.id = t.name;
        std::string status = sv(a, "status");
        t.outcome = status == "passed" ? Outcome::passed : status == "failed" ? Outcome::failed : Outcome::skipped;
        simdjson::dom::array msgs;
        if (a["failureMessages"].get_array().get(msgs) == simdjson::SUCCESS)
          for (auto m : msgs) {
            std::string_view mv;
            if (m.get_string().get(mv) == simdjson::SUCCESS) t.message += (t.message.empty() ? "" : "\n") + strip_ansi(mv);
          }
        int64_t line = 0;
        if (a["location"]["line"].get_int64().get(line) == simdjson::SUCCESS) t.line = static_cast<int>(line);
        if (t.outcome == Outcome::failed) {
          // The failing expect() is in the stack: "at Object.toBe (/abs/path/sum.test.js:4:23)".
          auto p = t.message.find(path + ":");
          if (p != std::string::npos) t.line = to_int(std::string_view(t.message).substr(p + path.size() + 1));
          // Jest >= 28 also gives the matcher's values as JSON.
          simdjson::dom::array details;
          if (a["failureDetails"].get_array().get(details) == simdjson::SUCCESS) {
            for (auto d : details) {
              simdjson::dom::element mr;
              if (d["matcherResult"].get(mr) != simdjson::SUCCESS) continue;
              simdjson::dom::element ex, ac;
              if (mr["expected"].get(ex) == simdjson::SUCCESS && mr["actual"].get(ac) == simdjson::SUCCESS) {
                t.expected = simdjson::minify(ex);
                t.actual = simdjson::minify(ac);
              }
              break;
            }
          }
        }
        add_test(r, std::move(t));
      }
    }
    std::string status = sv(file, "status"), msg = sv(file, "message");
    if (!any && status == "failed") {  // suite-level crash
      TestCase t;
      t.file = path;
      t.id = t.name = path;
      t.outcome = Outcome::error;
      t.message = strip_ansi(msg);
      add_test(r, std::move(t));
    }
  }
  return r;
}

// ---- go test -json ----------------------------------------------------------------------------

Report parse_go_json(std::string_view data) {
  Report r;
  r.format = "go-json";
  simdjson::dom::parser parser;
  std::map<std::string, TestCase> tests;  // key: pkg/Test
  std::vector<std::string> order;
  std::size_t bad = 0;
  std::size_t start = 0;
  while (start < data.size()) {
    auto end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    auto line = trim(data.substr(start, end - start));
    start = end + 1;
    if (line.empty()) continue;
    simdjson::dom::element ev;
    if (parser.parse(line.data(), line.size()).get(ev) != simdjson::SUCCESS) {
      ++bad;
      continue;
    }
    std::string action = sv(ev, "Action"), pkg = sv(ev, "Package"), test = sv(ev, "Test");
    if (pkg.empty()) pkg = sv(ev, "ImportPath");
    // Go >= 1.24 build events: one "[build]" entry per package.
    const bool build_fail = action == "build-fail" || (action == "fail" && test.empty() && !sv(ev, "FailedBuild").empty());
    if (build_fail || action == "build-output") {
      std::string key = pkg + "/[build]";
      if (!tests.count(key)) order.push_back(key);
      auto& t = tests[key];
      t.id = key;
      t.suite = pkg;
      t.name = "[build]";
      if (build_fail) t.outcome = Outcome::error;
      else if (t.message.size() < 8000) t.message += sv(ev, "Output");
      continue;
    }
    if (test.empty()) continue;
    std::string key = pkg + "/" + test;
    if (!tests.count(key)) {
      order.push_back(key);
      // The package is part of the test's identity: pkgA/TestParse and pkgB/TestParse are two tests.
      tests[key].id = pkg.empty() ? test : key;
      tests[key].suite = pkg;
      tests[key].name = test;
    }
    auto& t = tests[key];
    if (action == "output") {
      std::string out = sv(ev, "Output");
      if (starts_with(trim(out), "=== RUN") || starts_with(trim(out), "--- PASS") ||
          starts_with(trim(out), "=== PAUSE") || starts_with(trim(out), "=== CONT"))
        continue;
      if (t.message.size() < 8000) t.message += out;
      // "    x_test.go:12: got 1 want 2"
      if (t.line == 0) {
        auto s = trim(out);
        auto c1 = s.find(".go:");
        if (c1 != std::string_view::npos) {
          t.file = std::string(s.substr(0, c1 + 3));
          t.line = to_int(s.substr(c1 + 4));
        }
      }
    } else if (action == "pass") {
      t.outcome = Outcome::passed;
    } else if (action == "fail") {
      t.outcome = Outcome::failed;
    } else if (action == "skip") {
      t.outcome = Outcome::skipped;
    }
    double el = 0;
    if (ev["Elapsed"].get_double().get(el) == simdjson::SUCCESS) t.seconds = el;
  }
  if (bad) r.warnings.push_back(std::to_string(bad) + " line(s) of go test -json output were not JSON");
  for (auto& k : order) {
    auto& t = tests[k];
    if (t.outcome == Outcome::passed || t.outcome == Outcome::skipped) t.message.clear();
    while (!t.message.empty() && t.message.back() == '\n') t.message.pop_back();
    // Drop the trailing "--- FAIL: TestX (0.00s)" line from the message.
    auto p = t.message.find("--- FAIL:");
    if (p != std::string::npos) t.message.erase(p);
    while (!t.message.empty() && (t.message.back() == '\n' || t.message.back() == ' ')) t.message.pop_back();
    std::string msg;
    for (auto line_start = 0ul; line_start < t.message.size();) {
      auto e = t.message.find('\n', line_start);
      auto l = trim(std::string_view(t.message).substr(line_start, e == std::string::npos ? std::string::npos : e - line_start));
      msg += std::string(l) + "\n";
      if (e == std::string::npos) break;
      line_start = e + 1;
    }
    if (!msg.empty()) msg.pop_back();
    t.message = msg;
    add_test(r, std::move(t));
  }
  return r;
}

// ---- TAP --------------------------------------------------------------------------------------

/// tape (and tap-style harnesses like it) print each test's name as a top-level comment, then its
/// assertions as numbered test points: "# adds numbers" / "ok 1 should be equal". Trailer comments
/// ("# tests 3", "# pass 3", "# ok") are not names.
bool tape_section_name(std::string_view line, std::string& name) {
  if (!starts_with(line, "#")) return false;
  auto rest = trim(line.substr(1));
  if (rest.empty() || starts_with(rest, "Subtest:")) return false;
  static constexpr std::string_view kTrailer[] = {"tests", "pass", "fail", "skip", "todo", "cancelled", "suites",
                                                  "duration_ms", "ok", "not ok", "failed"};
  for (auto t : kTrailer) {
    if (rest == t) return false;
    if (starts_with(rest, t) && rest.size() > t.size() && rest[t.size()] == ' ') {
      auto value = trim(rest.substr(t.size()));
      if (!value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
          }))
        return false;
    }
  }
  name = std::string(rest);
  return true;
}

Report parse_tap(std::string_view data) {
  Report r;
  r.format = "tap";
  std::size_t start = 0;
  TestCase* last = nullptr;
  bool in_yaml = false;
  std::string yaml_indent;
  std::vector<std::string> subtest_stack;
  // tape-style sections: index of the section's test in r.tests and its assertion count.
  std::ptrdiff_t section = -1;
  std::map<std::size_t, int> section_asserts;
  while (start < data.size()) {
    auto end = data.find('\n', start);
    if (end == std::string_view::npos) end = data.size();
    std::string_view raw = data.substr(start, end - start);
    start = end + 1;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::size_t indent = 0;
    while (indent < raw.size() && raw[indent] == ' ') ++indent;
    std::string_view line = raw.substr(indent);
    if (in_yaml) {
      if (line == "...") {
        in_yaml = false;
        continue;
      }
      if (last) {
        auto colon = line.find(':');
        if (colon != std::string_view::npos) {
          auto key = trim(line.substr(0, colon));
          std::string val(trim(line.substr(colon + 1)));
          if (val.size() >= 2 && (val.front() == '\'' || val.front() == '"') && val.back() == val.front())
            val = val.substr(1, val.size() - 2);
          if (key == "message") last->message = val;
          else if (key == "expected") last->expected = val;
          else if (key == "actual" || key == "found") last->actual = val;
          else if (key == "at" || key == "location") {
            // node: location: '/abs/test/x.test.js:3:1' -> file and line
            std::string loc = val;
            auto c2 = loc.rfind(':');
            auto c1 = c2 == std::string::npos ? std::string::npos : loc.rfind(':', c2 - 1);
            if (c1 != std::string::npos && to_int(std::string_view(loc).substr(c1 + 1, c2 - c1 - 1)) > 0) {
              last->file = loc.substr(0, c1);
              last->line = to_int(std::string_view(loc).substr(c1 + 1, c2 - c1 - 1));
            } else {
              last->file = loc;
            }
          }
          else if (key == "line") last->line = to_int(val);
        }
        if (last->excerpt.size() < 4000) last->excerpt += std::string(line) + "\n";
      }
      continue;
    }
    if (line == "---") {
      in_yaml = true;
      continue;
    }
    if (indent == 0) {
      std::string name;
      if (tape_section_name(line, name)) {
        TestCase t;
        t.id = t.name = name;
        t.outcome = Outcome::passed;
        r.tests.push_back(std::move(t));
        section = static_cast<std::ptrdiff_t>(r.tests.size() - 1);
        section_asserts[static_cast<std::size_t>(section)] = 0;
        last = nullptr;
        continue;
      }
      if (starts_with(line, "#")) section = -1;  // the trailer ends the last section
    }
    if (starts_with(line, "# Subtest:")) {
      subtest_stack.resize(indent / 4);
      subtest_stack.emplace_back(trim(line.substr(10)));
      continue;
    }
    if (starts_with(line, "Bail out!")) {
      r.warnings.push_back("TAP: " + std::string(line));
      TestCase t;
      t.id = t.name = "Bail out";
      t.outcome = Outcome::error;
      t.message = std::string(line);
      add_test(r, std::move(t));
      last = nullptr;
      continue;
    }
    bool ok = starts_with(line, "ok");
    bool not_ok = starts_with(line, "not ok");
    if (!ok && !not_ok) continue;
    std::string_view rest = line.substr(not_ok ? 6 : 2);
    rest = trim(rest);
    while (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front()))) rest.remove_prefix(1);
    rest = trim(rest);
    if (starts_with(rest, "-")) rest = trim(rest.substr(1));
    std::string desc(rest), directive;
    // Directives: "# SKIP ..." / "# TODO ..." (unescaped '#')
    for (std::size_t i = 0; i < desc.size(); ++i) {
      if (desc[i] == '#' && (i == 0 || desc[i - 1] != '\\')) {
        directive = std::string(trim(std::string_view(desc).substr(i + 1)));
        desc = std::string(trim(std::string_view(desc).substr(0, i)));
        break;
      }
    }
    std::string upper = directive;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (section >= 0 && indent == 0) {  // an assertion of a tape-style test
      auto& sec = r.tests[static_cast<std::size_t>(section)];
      const bool skipped = starts_with(upper, "SKIP") || starts_with(upper, "TODO");
      if (!skipped) section_asserts[static_cast<std::size_t>(section)]++;
      if (not_ok && !skipped) {
        if (sec.outcome != Outcome::failed) sec.message = desc;
        sec.outcome = Outcome::failed;
      }
      last = not_ok && !skipped ? &sec : nullptr;
      continue;
    }
    TestCase t;
    std::string prefix;
    std::size_t depth = indent / 4;
    for (std::size_t i = 0; i < depth && i < subtest_stack.size(); ++i) prefix += subtest_stack[i] + " > ";
    t.name = desc;
    t.id = prefix + desc;
    if (starts_with(upper, "SKIP")) t.outcome = Outcome::skipped;
    else if (starts_with(upper, "TODO")) t.outcome = not_ok ? Outcome::skipped : Outcome::passed;
    else t.outcome = not_ok ? Outcome::failed : Outcome::passed;
    // A parent test point that closes a subtest: its children were already recorded.
    if (!subtest_stack.empty() && depth < subtest_stack.size() && subtest_stack[depth] == desc)
      subtest_stack.resize(depth);
    r.tests.push_back(std::move(t));
    last = &r.tests.back();
  }
  if (in_yaml) r.warnings.push_back("TAP: unterminated YAML block");
  // A section without a single assertion did not show that its test passes.
  for (const auto& [i, n] : section_asserts)
    if (n == 0 && r.tests[i].outcome == Outcome::passed) r.tests[i].outcome = Outcome::skipped;
  for (auto& t : r.tests)
    if (t.outcome == Outcome::failed) {
      if (t.excerpt.empty()) t.excerpt = t.message;
      if (t.expected.empty()) extract_expected_actual(t);
    }
  return r;
}

}  // namespace


Report parse_report_as(std::string_view format, std::string_view data) {
  try {
    if (format == "junit") return parse_junit(data);
    if (format == "go-json") return parse_go_json(data);
    if (format == "tap") return parse_tap(data);
    if (format == "gtest-json" || format == "jest-json") {
      simdjson::dom::parser parser;
      simdjson::dom::element root;
      simdjson::padded_string padded(data);
      if (parser.parse(padded).get(root) != simdjson::SUCCESS) {
        Report r;
        r.format = std::string(format);
        r.warnings.push_back("invalid JSON; falling back to text");
        Report t = parse_text_log(data);
        t.warnings.insert(t.warnings.begin(), r.warnings.begin(), r.warnings.end());
        return t;
      }
      return format == "gtest-json" ? parse_gtest_json(root) : parse_jest_json(root);
    }
    return parse_text_log(data);
  } catch (const std::exception& e) {
    Report r;
    r.format = std::string(format);
    r.warnings.push_back(std::string("parser error: ") + e.what());
    return r;
  }
}

Report parse_report(std::string_view data) {
  std::string_view head = trim(data.substr(0, 4096));
  if (starts_with(head, "\xEF\xBB\xBF")) head.remove_prefix(3);
  if (starts_with(head, "<?xml") || starts_with(head, "<testsuite")) return parse_report_as("junit", data);
  if (starts_with(head, "{")) {
    if (head.find("\"Action\"") != std::string_view::npos && head.find('\n') != std::string_view::npos)
      return parse_report_as("go-json", data);
    if (head.find("\"Action\"") != std::string_view::npos) return parse_report_as("go-json", data);
    if (head.find("\"testResults\"") != std::string_view::npos || head.find("\"numFailedTests\"") != std::string_view::npos)
      return parse_report_as("jest-json", data);
    if (data.find("\"testResults\"") != std::string_view::npos) return parse_report_as("jest-json", data);
    return parse_report_as("gtest-json", data);
  }
  if (starts_with(head, "TAP version") || starts_with(head, "1..") ||
      ((starts_with(head, "ok ") || starts_with(head, "not ok ")) && head.find("[ RUN") == std::string_view::npos))
    return parse_report_as("tap", data);
  return parse_report_as("text", data);
}

Report parse_report_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Report r;
    r.warnings.push_back("cannot open " + path.string());
    return r;
  }
  char head[4096];
  in.read(head, sizeof head);
  std::string_view h(head, static_cast<std::size_t>(in.gcount()));
  auto ht = trim(h);
  const bool structured = starts_with(ht, "<") || starts_with(ht, "{") || starts_with(ht, "\xEF\xBB\xBF");
  const bool tap = starts_with(ht, "TAP version") || starts_with(ht, "1..");
  in.clear();
  in.seekg(0);
  if (!structured && !tap) return parse_text_stream(in);  // flat memory however large the log
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_report(data);
}

}  // namespace flowagent::reports
