#include "flowagent/agent_config.hpp"

#include "core/json_reader.hpp"
#include "agent/defaults.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/localize.hpp"
#include "flowagent/review.hpp"
#include "flowagent/zero_token.hpp"

namespace flowagent {

Expected<AgentConfig> parse_agent_config(std::string_view json_text) {
  auto doc = parse_json(json_text);
  if (!doc) return unexpected(doc.error());
  if (!doc->is_object()) return fail(Errc::schema, "agent_config: expected an object");
  if (auto ok = detail::check_schema_name(*doc, "flowagent.agent_config/v1"); !ok) return unexpected(ok.error());
  AgentConfig c;
  detail::ObjectReader r(*doc, "");
  std::string schema, trajectory_dir, record;
  std::int64_t threads = 0;
  bool run_baseline = false;
  Json sandbox;
  r.string("schema", schema);
  if (doc->find("worker_threads")) {
    r.integer("worker_threads", threads, false, 1, 1024);
    c.worker_threads = static_cast<int>(threads);
  }
  r.object("workspace", [&](detail::ObjectReader& w) {
    GitWorkspaceOptions o;
    std::string root;
    std::int64_t pool = static_cast<std::int64_t>(o.pool_per_repo);
    w.string("root", root).string("keep_dir", o.keep_dir).integer("pool_per_repo", pool, false, 0, 1024)
        .boolean("init_submodules", o.init_submodules);
    if (!root.empty() && !std::filesystem::path(root).is_absolute()) w.set_error("root", "must be an absolute path");
    o.root = root;
    o.pool_per_repo = static_cast<std::size_t>(pool);
    c.workspace = o;
  });
  r.object("validator", [&](detail::ObjectReader& v) {
    ValidatorOptions o;
    std::int64_t reruns = o.flaky_reruns;
    v.integer("flaky_reruns", reruns, false, 0, 100)
        .boolean("accept_exit_code_evidence", o.accept_exit_code_evidence)
        .boolean("accept_output_evidence", o.accept_output_evidence)
        .boolean("check_assertion_execution", o.check_assertion_execution)
        .boolean("check_fail_to_pass", o.check_fail_to_pass)
        .boolean("check_near_tested_inputs", o.check_near_tested_inputs);
    o.flaky_reruns = static_cast<int>(reruns);
    c.validator = o;
  });
  r.object("embeddings", [&](detail::ObjectReader& e) {
    EmbeddingsConfig ec;
    ModelConfig& m = ec.model;
    auto candidates = static_cast<std::int64_t>(ec.candidates);
    e.string("model", m.spec, true).string("base_url", m.base_url).string("api_key_env", m.api_key_env)
        .integer("candidates", candidates, false, 0, static_cast<std::int64_t>(kMaxSemanticCandidates))
        .number("weight", ec.weight, false, 0.0, 1.0);
    ec.candidates = static_cast<std::size_t>(candidates);
    if (m.spec.empty()) return;
    if (m.spec.rfind("replay:", 0) == 0 || m.spec.rfind("anthropic:", 0) == 0)
      e.set_error("model", "the provider has no embeddings endpoint");
    else if (auto ep = resolve_model_spec(m); !ep)
      e.set_error("model", ep.error().message);
    c.embeddings = ec;
  });
  r.any("sandbox", sandbox)
      .string("trajectory_dir", trajectory_dir)
      .string("record", record)
      .strings("known_flaky_tests", c.known_flaky_tests);
  if (doc->find("run_baseline")) {
    r.boolean("run_baseline", run_baseline);
    c.run_baseline = run_baseline;
  }
  r.strings("trusted_model_origins", c.trusted_model_origins);
  for (std::size_t i = 0; i < c.trusted_model_origins.size(); ++i)
    if (url_origin(c.trusted_model_origins[i]).empty())
      r.set_error("trusted_model_origins[" + std::to_string(i) + "]", "must be a URL such as https://host:port");
  for (auto [key, dst] : {std::pair{"allow_replay_models", &c.allow_replay_models}, std::pair{"rubric_review", &c.rubric_review}})
    if (doc->find(key)) {
      bool v = false;
      r.boolean(key, v);
      *dst = v;
    }
  if (auto e = r.finish(); !e.empty()) return fail(Errc::schema, e);
  if (!sandbox.is_null()) {
    auto s = sandbox_options_from_json(sandbox);
    if (!s) return unexpected(s.error());
    c.sandbox = std::move(*s);
  }
  c.trajectory_dir = trajectory_dir;
  c.record = record;
  return c;
}

Expected<void> apply_agent_config(AgentOptions& options, const AgentConfig& c, std::shared_ptr<HttpTransport> transport) {
  if (c.worker_threads) options.worker_threads = *c.worker_threads;
  if (c.workspace) options.workspaces = make_git_workspace_provider(*c.workspace);
  if (c.validator) options.validator = make_command_validator(*c.validator);
  if (c.sandbox) options.sandbox = *c.sandbox;
  if (!c.trajectory_dir.empty()) options.trajectory_dir = c.trajectory_dir;
  if (!c.known_flaky_tests.empty()) options.known_flaky_tests = c.known_flaky_tests;
  if (c.run_baseline) options.run_baseline = *c.run_baseline;
  if (!c.trusted_model_origins.empty()) options.trusted_model_origins = c.trusted_model_origins;
  if (c.allow_replay_models) options.allow_replay_models = *c.allow_replay_models;
  std::shared_ptr<CodeRetriever> retriever;
  if (c.embeddings) {  // the semantic tier behind the context section and search_relevant_code
    auto made = make_semantic_retriever(*c.embeddings, transport);
    if (!made) return fail(made.error().code, "agent_config: embeddings: " + made.error().message);
    retriever = std::move(*made);
  }
  const bool rubric = c.rubric_review && *c.rubric_review;
  if (rubric || retriever) detail::use_default_strategies(options, std::move(retriever), rubric);
  if (transport || !c.record.empty()) {
    options.llm_factory = [transport, record = c.record](const ModelConfig& m) -> Expected<std::shared_ptr<LlmClient>> {
      if (m.spec.empty() || m.spec == "builtin") return std::shared_ptr<LlmClient>();
      ModelClientOptions mo;
      mo.model = m;
      mo.transport = transport;  // null: the built-in transport
      mo.record_path = record;
      return make_llm_client(std::move(mo));
    };
  }
  return {};
}

}  // namespace flowagent
