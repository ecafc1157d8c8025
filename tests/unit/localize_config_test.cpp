// The retrieval's semantic tier switched on from outside the C++ API: the CLI's --embeddings-model
// and the agent config's "embeddings" (the C API's config_json), each against a real loopback
// embeddings server during a real repair, in the whole-index mode (--embeddings-candidates 0,
// "candidates": 0: every chunk is embedded, also one that no lexical search would find).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "flowagent/agent_config.hpp"
#include "flowagent/flowagent.h"
#include "flowagent/flowagent.hpp"
#include "support/http_server.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

// An OpenAI-compatible embeddings endpoint: a fixed-size vector per input text.
struct EmbeddingsServer {
  TestHttpServer server;
  EmbeddingsServer() {
    server.set_handler([](const Recorded& req) {
      auto doc = parse_json(req.body);
      Json::Array data;
      const Json* input = doc ? doc->find("input") : nullptr;
      if (!input || !input->is_array()) return Reply::json("{}", 400);
      for (std::size_t i = 0; i < input->as_array().size(); ++i) {
        const std::string& s = input->as_array()[i].as_string();
        Json::Array v{Json(s.find("add") != std::string::npos ? 1.0 : 0.0), Json(0.5), Json(static_cast<double>(s.size() % 7))};
        data.push_back(Json::obj({{"index", static_cast<std::int64_t>(i)}, {"embedding", Json(std::move(v))}}));
      }
      return Reply::json(dump_json_lossy(Json::obj({{"data", Json(std::move(data))}})));
    });
  }
  // The requests that reached /v1/embeddings.
  std::vector<Recorded> calls() const {
    std::vector<Recorded> out;
    for (auto& r : server.requests())
      if (r.target == "/v1/embeddings") out.push_back(r);
    return out;
  }
};

// A Python project whose failing test names the function to fix (the lexical hits the semantic
// tier re-ranks), and the change that broke it. The expectation is no literal, so the zero-token
// tier cannot "fix" it and the ReAct loop (which builds the context section) runs. lib/shout.js
// shares no word with the query (the change's description and the failing test's id): only the
// whole-index mode embeds it.
struct BrokenProject {
  TempDir tmp;
  fs::path repo = tmp.path() / "repo";
  std::string base, head;
  BrokenProject() {
    base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"},
                            {"lib/shout.js", "function shout(s) {\n  return s.toUpperCase();\n}\n"},
                            {"test_calc.py", "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == mul(2, 2)\n"}});
    head = commit_files(repo, {{"calc.py", "def add(a, b):\n    return a + b + 1\n\n\ndef mul(a, b):\n    return a * b\n"}},
                        "Tweak add");
  }
};

// The repair ended fixed and the embeddings endpoint saw the configured key and model, with code.
void expect_fixed_with_embeddings(const std::string& result, const EmbeddingsServer& emb, const std::string& key,
                                  const std::string& model) {
  auto doc = parse_json(result);
  ASSERT_TRUE(doc) << result;
  EXPECT_EQ(doc->get_string("status"), "fixed") << result;
  auto calls = emb.calls();
  ASSERT_FALSE(calls.empty()) << emb.server.requests().size() << " requests; " << result;
  EXPECT_EQ(calls[0].header("authorization"), "Bearer " + key);
  EXPECT_NE(calls[0].body.find("\"model\":\"" + model + "\""), std::string::npos) << calls[0].body;
  EXPECT_NE(calls[0].body.find("def add"), std::string::npos) << calls[0].body;  // a code chunk was embedded
}

// The whole-index mode was used: every chunk went to the endpoint, the one without a lexical hit
// too, and the result's trajectory says which mode the context section's retrieval ran in.
void expect_whole_index(const std::string& result, const EmbeddingsServer& emb) {
  bool unrelated = false;
  for (const auto& c : emb.calls()) unrelated = unrelated || c.body.find("function shout") != std::string::npos;
  EXPECT_TRUE(unrelated) << "the chunk without a lexical hit was not embedded";
  auto doc = parse_json(result);
  ASSERT_TRUE(doc) << result;
  std::string note;
  if (const Json* t = doc->find("trajectory"); t && t->is_array())
    for (const auto& s : t->as_array())
      if (s.get_string("name") == "localization") note = dump_json_lossy(s);
  EXPECT_NE(note.find("embeddings (openai, weight 0.6"), std::string::npos) << note;
  EXPECT_NE(note.find("over the whole index"), std::string::npos) << note;
  EXPECT_EQ(note.find("re-ranking"), std::string::npos) << note;
}

void script_fix(ScriptedModel& model) {
  model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "b + a"}})}}));
  model.push(final_reply("add returned one too many."));  // (not a line-for-line revert of the change)
}

}  // namespace

TEST(EmbeddingsConfig, CliFlagReachesTheLoopbackServer) {
  BrokenProject p;
  ScriptedModel model;
  script_fix(model);
  EmbeddingsServer emb;
  const std::string common = std::string(FLOWAGENT_CLI) + " repair --repo '" + p.repo.string() + "' --base " + p.base +
                             " --head " + p.head + " --test '/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}'" +
                             " --failing test_calc.py::test_add --model openai-compatible:m --base-url " +
                             model.base_url() + " --json --quiet";
  std::string out;
  int rc = sh("FA_TEST_EMBED_KEY=sk-embed " + common + " --embeddings-model openai-compatible:embed-test" +
                  " --embeddings-base-url " + emb.server.url() + "/v1 --embeddings-api-key-env FA_TEST_EMBED_KEY" +
                  " --embeddings-candidates 0 --embeddings-weight 0.6 2>/dev/null",
              &out);
  EXPECT_EQ(rc, 0) << out;
  expect_fixed_with_embeddings(out, emb, "sk-embed", "embed-test");
  expect_whole_index(out, emb);
  // Bad uses are usage errors, and nothing runs.
  const std::size_t before = emb.calls().size();
  EXPECT_EQ(sh(common + " --embeddings-model anthropic:claude 2>&1", &out), 3) << out;
  EXPECT_NE(out.find("embeddings"), std::string::npos) << out;
  EXPECT_EQ(sh(common + " --embeddings-model nosuch:m 2>&1", &out), 3) << out;
  EXPECT_EQ(sh(common + " --embeddings-base-url " + emb.server.url() + " 2>&1", &out), 3) << out;
  EXPECT_EQ(sh(common + " --embeddings-candidates 0 2>&1", &out), 3) << out;  // without --embeddings-model
  EXPECT_NE(out.find("need --embeddings-model"), std::string::npos) << out;
  for (const char* bad : {" --embeddings-candidates -1", " --embeddings-candidates 100001", " --embeddings-candidates x",
                          " --embeddings-weight 1.5", " --embeddings-weight nan", " --embeddings-weight 0.5x"}) {
    EXPECT_EQ(sh(common + " --embeddings-model openai-compatible:e --embeddings-base-url " + emb.server.url() + "/v1" + bad +
                     " 2>&1",
                 &out),
              3)
        << bad << ": " << out;
    EXPECT_NE(out.find("--embeddings-"), std::string::npos) << bad << ": " << out;
  }
  EXPECT_EQ(emb.calls().size(), before);
}

TEST(EmbeddingsConfig, AgentConfigKeyIsStrict) {
  auto c = parse_agent_config(R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:nomic-embed-text"}})");
  ASSERT_TRUE(c) << c.error().message;
  ASSERT_TRUE(c->embeddings);
  EXPECT_EQ(c->embeddings->model.spec, "ollama:nomic-embed-text");
  EXPECT_EQ(c->embeddings->candidates, 50u);  // the defaults: re-rank the best 50 lexical hits
  EXPECT_EQ(c->embeddings->weight, 0.5);
  auto whole = parse_agent_config(
      R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","candidates":0,"weight":1}})");
  ASSERT_TRUE(whole) << whole.error().message;
  EXPECT_EQ(whole->embeddings->candidates, 0u);
  EXPECT_EQ(whole->embeddings->weight, 1.0);
  AgentOptions o;
  ASSERT_TRUE(apply_agent_config(o, *c));
  EXPECT_EQ(o.strategies.size(), 2u);
  ASSERT_TRUE(o.tools);
  EXPECT_TRUE(o.tools->find("search_relevant_code"));
  EXPECT_TRUE(o.tools->find("edit_file"));
  for (auto [bad, field] : {std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"openai:e","modle":"x"}})", "embeddings.modle"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"base_url":"http://x"}})", "embeddings.model"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"anthropic:c"}})", "embeddings.model"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"nosuch:c"}})", "embeddings.model"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":"openai:e"})", "embeddings"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","candidates":-1}})", "embeddings.candidates"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","candidates":100001}})", "embeddings.candidates"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","candidates":"all"}})", "embeddings.candidates"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","candidates":1.5}})", "embeddings.candidates"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","weight":1.01}})", "embeddings.weight"},
                            std::pair{R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","weight":"0.5"}})", "embeddings.weight"}}) {
    auto e = parse_agent_config(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_EQ(e.error().code, Errc::schema) << bad;
    EXPECT_NE(e.error().message.find(field), std::string::npos) << e.error().message;
  }
  // A hosted provider without its key cannot be applied (no silent lexical-only run).
  auto hosted = parse_agent_config(R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"openai:e","api_key_env":"FA_TEST_UNSET_KEY_VAR"}})");
  ASSERT_TRUE(hosted);
  ::unsetenv("FA_TEST_UNSET_KEY_VAR");
  AgentOptions h;
  auto applied = apply_agent_config(h, *hosted);
  ASSERT_FALSE(applied);
  EXPECT_NE(applied.error().message.find("FA_TEST_UNSET_KEY_VAR"), std::string::npos) << applied.error().message;
}

TEST(EmbeddingsConfig, CApiConfigJsonReachesTheLoopbackServer) {
  BrokenProject p;
  ScriptedModel model;
  script_fix(model);
  EmbeddingsServer emb;
  ::setenv("FA_TEST_CAPI_EMBED_KEY", "sk-capi", 1);
  const std::string config = dump_json_lossy(Json::obj(
      {{"schema", "flowagent.agent_config/v1"},
       {"worker_threads", 1},
       {"workspace", Json::obj({{"root", (p.tmp.path() / "pool").string()}})},
       {"embeddings", Json::obj({{"model", "openai-compatible:embed-capi"},
                                 {"base_url", emb.server.url() + "/v1"},
                                 {"api_key_env", "FA_TEST_CAPI_EMBED_KEY"},
                                 {"candidates", 0},
                                 {"weight", 0.6}})}}));
  fa_agent_options opts = FA_AGENT_OPTIONS_INIT;
  opts.config_json = config.c_str();
  opts.config_json_len = config.size();
  fa_agent* agent = nullptr;
  ASSERT_EQ(fa_agent_create(&agent, &opts), FA_OK) << fa_error_last();
  RepairRequest r = sample_request(p.repo.string());
  r.change.base_commit = p.base;
  r.change.head_commit = p.head;
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.model.spec = "openai-compatible:m";
  r.model.base_url = model.base_url();
  const std::string req = dump_json_lossy(to_json(r));
  fa_job* job = nullptr;
  ASSERT_EQ(fa_agent_submit(&job, agent, req.c_str(), req.size()), FA_OK) << fa_error_last();
  EXPECT_EQ(fa_job_wait(job, 240'000), FA_OK);
  char* result = nullptr;
  ASSERT_EQ(fa_job_result_json(&result, job), FA_OK);
  const std::string text = result ? result : "";
  fa_string_free(result);
  fa_job_free(job);
  fa_agent_free(agent);
  expect_fixed_with_embeddings(text, emb, "sk-capi", "embed-capi");
  expect_whole_index(text, emb);
  // Unknown keys inside "embeddings" are errors through the C API too.
  const char* bad = R"({"schema":"flowagent.agent_config/v1","embeddings":{"model":"ollama:e","dims":3}})";
  opts.config_json = bad;
  opts.config_json_len = std::strlen(bad);
  EXPECT_EQ(fa_agent_create(&agent, &opts), FA_ESCHEMA);
  EXPECT_NE(std::string(fa_error_last()).find("embeddings.dims"), std::string::npos) << fa_error_last();
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
