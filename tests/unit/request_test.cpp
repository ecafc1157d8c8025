#include <gtest/gtest.h>

#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

std::string valid_doc() {
  return R"({
    "schema": "flowagent.repair_request/v1",
    "repository": "/src/repo",
    "change": {"id": "I123", "revision": 3, "base_commit": "aaa", "head_commit": "bbb",
               "description": "Make parse strict", "author": {"name": "Dev", "email": "d@x", "kind": "person"},
               "files": [{"path": "a.cc", "added": 4, "removed": 1}, {"path": "b.png", "binary": true}]},
    "failure": {"kind": "test", "failing_tests": ["A.B"], "reports": ["out/junit.xml"], "logs": []},
    "commands": {"build": "make", "test": "ctest -R {tests|\\|}", "wider_test": "ctest", "timeout_seconds": 120},
    "limits": {"max_tool_calls": 50, "max_cost_usd": 1.5},
    "model": {"spec": "openai:gpt-4.1", "temperature": 0.2}
  })";
}

Error parse_error(const std::string& doc) {
  auto r = parse_repair_request(doc);
  EXPECT_FALSE(r) << doc;
  return r ? Error{} : r.error();
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  s.replace(pos, from.size(), to);
  return s;
}

}  // namespace

TEST(Request, ParsesAValidDocument) {
  auto r = parse_repair_request(valid_doc());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->change.id, "I123");
  EXPECT_EQ(r->change.revision, 3);
  ASSERT_EQ(r->change.files.size(), 2u);
  EXPECT_TRUE(r->change.files[1].binary);
  EXPECT_EQ(r->commands.test, "ctest -R {tests|\\|}");
  EXPECT_EQ(r->limits.max_tool_calls, 50);
  EXPECT_EQ(r->limits.max_wall_seconds, 1800);  // default kept
  EXPECT_DOUBLE_EQ(r->model.temperature, 0.2);
  EXPECT_DOUBLE_EQ(r->model.top_p, 0.95);
}

TEST(Request, DefaultsFollowThePaper) {
  RepairRequest r;
  EXPECT_EQ(r.limits.max_tool_calls, 100);
  EXPECT_EQ(r.limits.max_wall_seconds, 30 * 60);
  EXPECT_EQ(r.limits.max_files, 100);
  EXPECT_EQ(r.limits.max_changed_lines, 1000);
  EXPECT_DOUBLE_EQ(r.model.temperature, 0.1);
  EXPECT_DOUBLE_EQ(r.model.top_p, 0.95);
}

TEST(Request, RoundTrips) {
  auto r = parse_repair_request(valid_doc());
  ASSERT_TRUE(r);
  auto text = dump_json(to_json(*r));
  ASSERT_TRUE(text);
  auto again = parse_repair_request(*text);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(to_json(*again), to_json(*r));
}

TEST(Request, InvalidJsonIsNamed) {
  auto e = parse_error("{\"schema\": ");
  EXPECT_EQ(e.code, Errc::invalid_json);
}

TEST(Request, InvalidUtf8IsRejected) {
  auto e = parse_error(replace(valid_doc(), "Make parse strict", "Make \xFF strict"));
  EXPECT_EQ(e.code, Errc::invalid_json);
  EXPECT_NE(e.message.find("UTF-8"), std::string::npos);
}

TEST(Request, WrongTypesNameTheField) {
  auto e = parse_error(replace(valid_doc(), "\"added\": 4", "\"added\": \"4\""));
  EXPECT_EQ(e.code, Errc::schema);
  EXPECT_EQ(e.message, "change.files[0].added: expected an integer");
  e = parse_error(replace(valid_doc(), "\"revision\": 3", "\"revision\": 3.5"));
  EXPECT_EQ(e.message, "change.revision: expected an integer");
  e = parse_error(replace(valid_doc(), "\"failing_tests\": [\"A.B\"]", "\"failing_tests\": [\"A.B\", 7]"));
  EXPECT_EQ(e.message, "failure.failing_tests[1]: expected a string");
  e = parse_error(replace(valid_doc(), "\"kind\": \"test\"", "\"kind\": \"lint\""));
  EXPECT_NE(e.message.find("failure.kind: unknown value \"lint\""), std::string::npos);
  e = parse_error(replace(valid_doc(), "\"temperature\": 0.2", "\"temperature\": 7"));
  EXPECT_EQ(e.message, "model.temperature: out of range");
  e = parse_error(replace(valid_doc(), "\"max_tool_calls\": 50", "\"max_tool_calls\": -1"));
  EXPECT_NE(e.message.find("limits.max_tool_calls: must be between"), std::string::npos);
}

TEST(Request, UnknownFieldsAreRejected) {
  auto e = parse_error(replace(valid_doc(), "\"revision\": 3", "\"revison\": 3"));
  EXPECT_EQ(e.code, Errc::schema);
  EXPECT_EQ(e.message, "change.revison: unknown field");
  e = parse_error(replace(valid_doc(), "\"repository\"", "\"extra\": 1, \"repository\""));
  EXPECT_EQ(e.message, "extra: unknown field");
}

TEST(Request, MissingRequiredFields) {
  auto e = parse_error(replace(valid_doc(), "\"base_commit\": \"aaa\",", ""));
  EXPECT_EQ(e.message, "change.base_commit: required field is missing");
  e = parse_error(replace(valid_doc(), "\"id\": \"I123\"", "\"id\": \"\""));
  EXPECT_EQ(e.message, "change.id: must not be empty");
}

TEST(Request, SchemaVersions) {
  auto e = parse_error(replace(valid_doc(), "repair_request/v1", "repair_request/v2"));
  EXPECT_EQ(e.code, Errc::unsupported);
  EXPECT_NE(e.message.find("unsupported version"), std::string::npos);
  e = parse_error(replace(valid_doc(), "flowagent.repair_request/v1", "something.else/v1"));
  EXPECT_EQ(e.code, Errc::schema);
  e = parse_error(replace(valid_doc(), "\"schema\": \"flowagent.repair_request/v1\",", ""));
  EXPECT_NE(e.message.find("schema: required field is missing"), std::string::npos);
  e = parse_error("[1,2]");
  EXPECT_EQ(e.code, Errc::schema);
  e = parse_error("\"just a string\"");
  EXPECT_EQ(e.code, Errc::schema);
}

TEST(Request, WrongContainerTypes) {
  auto e = parse_error(replace(valid_doc(), "\"files\": [", "\"files\": 7, \"files_was\": ["));
  EXPECT_EQ(e.message, "change.files: expected an array of objects");
  e = parse_error(replace(valid_doc(), "\"files\": [{\"path\": \"a.cc\"", "\"files\": [\"a.cc\", {\"path\": \"a.cc\""));
  EXPECT_EQ(e.message, "change.files[0]: expected an object");
  e = parse_error(replace(valid_doc(), "\"commands\": {", "\"commands\": 5, \"x\": {"));
  EXPECT_EQ(e.message, "commands: expected an object");
}

TEST(Result, RoundTripsAndRejectsBadInput) {
  RepairResult r;
  r.status = Status::fixed;
  r.reason = "validated";
  r.patch = "diff --git a/x b/x\n";
  r.summary = "<b>Root cause:</b> x.";
  r.metrics.phase_ms["validate"] = 12;
  r.evidence.runs.push_back(TestRun{"ctest", 0, false, 5, {"A.B"}, {}, "failing", "report:junit", "the run added more than 5 entries (max_workspace_inodes)"});
  r.trajectory.push_back(TrajectoryStep{"tool", "read_file", "{}", "ok", true, 1});
  auto text = dump_json(to_json(r));
  ASSERT_TRUE(text);
  auto back = parse_repair_result(*text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(to_json(*back), to_json(r));

  auto bad = parse_repair_result(R"({"schema":"flowagent.repair_result/v1","status":"great"})");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("status: unknown value"), std::string::npos);
  bad = parse_repair_result(R"({"schema":"flowagent.repair_result/v1","status":"fixed","metrics":{"phase_ms":{"a":"x"}}})");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "metrics.phase_ms.a: expected an integer");
}

TEST(TestIds, AreDataNeverOptions) {
  EXPECT_TRUE(check_test_id("tests/test_x.py::test_a[1-2]", "src"));
  EXPECT_TRUE(check_test_id("Suite.Test/0", "src"));
  EXPECT_TRUE(check_test_id("a -b", "src"));  // one shell-quoted word; not an option
  EXPECT_TRUE(check_test_id("tests/test_x.py::test_a[x=1]", "src"));  // parameters may hold '='
  EXPECT_TRUE(check_test_id("TestParse/key=value", "src"));
  EXPECT_TRUE(check_test_id("1=1", "src"));
  for (std::string bad : {std::string("-x"), std::string("--junitxml=/x"), std::string(""), std::string("a\nb"),
                          std::string("CFLAGS=-fplugin=/x.so"), std::string("org.gradle.jvmargs=-x"),
                          std::string("a\x1b[2Jb"), std::string("a\0b", 3), std::string(5000, 'a')}) {
    auto r = check_test_id(bad, "failure.failing_tests[3]");
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Errc::schema);
    EXPECT_EQ(r.error().message.rfind("failure.failing_tests[3]: test id \"", 0), 0u) << r.error().message;
  }
  // Control characters are shown escaped, never raw.
  auto r = check_test_id("a\nb", "s");
  EXPECT_NE(r.error().message.find("a\\x0ab"), std::string::npos) << r.error().message;
}

TEST(TestIds, PlaceholderMustNotSitInsideQuotes) {
  for (std::string ok : {"pytest {tests}", "ctest -R {tests|\\|}", "echo \"a\" {tests} 'b'", "echo \\\"{tests}",
                         "t --gtest_filter={tests|:}", "echo '{testsuite}' {tests}", "make check"})
    EXPECT_TRUE(check_test_template(ok, "commands.test")) << ok;
  for (std::string bad : {"pytest \"{tests}\"", "ctest -R '{tests|\\|}'", "echo $'{tests}'", "sh -c \"pytest {tests}\"",
                          "echo \"it's {tests}\""}) {
    auto r = check_test_template(bad, "commands.test");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().message.find("commands.test: the {tests} placeholder sits inside"), std::string::npos)
        << r.error().message;
  }
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
