#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {
class EchoTool final : public Tool {
 public:
  std::string_view name() const override { return "echo"; }
  std::string_view description() const override { return "Echoes text."; }
  const Json& parameters() const override { return schema_; }
  Expected<ToolOutput> invoke(const Json& args, ToolContext&) override {
    return ToolOutput{true, args.find("text")->as_string()};
  }

 private:
  Json schema_ = *parse_json(R"({"type":"object","properties":{"text":{"type":"string"},
      "n":{"type":"integer","minimum":1,"maximum":5},"mode":{"enum":["a","b"]}},
      "required":["text"],"additionalProperties":false})");
};

class DummyWs final : public Workspace {
 public:
  const std::filesystem::path& root() const override { return p_; }
  const std::string& head_commit() const override { return h_; }
  Expected<std::string> diff() override { return std::string(); }
  Expected<void> reset() override { return {}; }
  std::filesystem::path p_ = "/tmp";
  std::string h_;
};
}  // namespace

TEST(ToolRegistry, ValidatesArgumentsAgainstTheSchema) {
  ToolRegistry reg;
  ASSERT_TRUE(reg.add(std::make_shared<EchoTool>()));
  EXPECT_EQ(reg.add(std::make_shared<EchoTool>()).error().code, Errc::invalid_argument);
  DummyWs ws;
  auto req = testkit::sample_request();
  ToolState st;
  CancelToken c;
  ToolContext ctx{ws, req, st, c};
  auto ok = reg.invoke("echo", *parse_json(R"({"text":"hi","n":2})"), ctx);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->content, "hi");
  auto e = reg.invoke("echo", *parse_json(R"({"n":2})"), ctx);
  EXPECT_EQ(e.error().message, "text: required argument is missing");
  e = reg.invoke("echo", *parse_json(R"({"text":1})"), ctx);
  EXPECT_EQ(e.error().message, "text: expected string");
  e = reg.invoke("echo", *parse_json(R"({"text":"x","n":9})"), ctx);
  EXPECT_EQ(e.error().message, "n: must be <= 5");
  e = reg.invoke("echo", *parse_json(R"({"text":"x","mode":"c"})"), ctx);
  EXPECT_EQ(e.error().message, "mode: must be one of \"a\", \"b\"");
  e = reg.invoke("echo", *parse_json(R"({"text":"x","path":"/etc"})"), ctx);
  EXPECT_EQ(e.error().message, "path: unknown argument");
  e = reg.invoke("echo", *parse_json(R"([1])"), ctx);
  EXPECT_EQ(e.error().message, "arguments: expected object");
  e = reg.invoke("rm_rf", Json::object(), ctx);
  EXPECT_EQ(e.error().code, Errc::not_found);
  EXPECT_NE(e.error().message.find("available: echo"), std::string::npos);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
