// flowagent.agent_config/v1 (flowagent/agent_config.hpp): strict parsing and what it sets.
#include <gtest/gtest.h>

#include "flowagent/agent_config.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

TEST(AgentConfig, TrustedOriginsReplayAndRubricReview) {
  auto c = parse_agent_config(R"({"schema":"flowagent.agent_config/v1","trusted_model_origins":["https://llm.example.com:8443/v1"],)"
                              R"("allow_replay_models":true,"rubric_review":true})");
  ASSERT_TRUE(c) << c.error().message;
  AgentOptions o;
  ASSERT_TRUE(apply_agent_config(o, *c));
  EXPECT_EQ(o.trusted_model_origins, std::vector<std::string>{"https://llm.example.com:8443/v1"});
  EXPECT_TRUE(o.allow_replay_models);
  ASSERT_EQ(o.strategies.size(), 2u);  // the zero-token tier, then the loop with the review on
  // Absent members leave the defaults alone.
  c = parse_agent_config(R"({"schema":"flowagent.agent_config/v1"})");
  ASSERT_TRUE(c);
  AgentOptions d;
  ASSERT_TRUE(apply_agent_config(d, *c));
  EXPECT_TRUE(d.trusted_model_origins.empty());
  EXPECT_FALSE(d.allow_replay_models);
  EXPECT_TRUE(d.strategies.empty());
  // Wrong types and values are errors naming the field.
  for (const char* bad : {R"({"schema":"flowagent.agent_config/v1","trusted_model_origins":["not a url"]})",
                          R"({"schema":"flowagent.agent_config/v1","rubric_review":"yes"})",
                          R"({"schema":"flowagent.agent_config/v1","allow_replay_models":1})"}) {
    auto e = parse_agent_config(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().code, Errc::schema) << bad;
  }
  EXPECT_NE(parse_agent_config(R"({"schema":"flowagent.agent_config/v1","trusted_model_origins":["x"]})")
                .error()
                .message.find("trusted_model_origins[0]"),
            std::string::npos);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
