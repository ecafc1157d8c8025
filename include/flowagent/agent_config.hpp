// flowagent/agent_config.hpp: the "flowagent.agent_config/v1" document, the one place where an
// Agent's configurable knobs are read from JSON (the C API's fa_agent_options::config_json, the
// CLI's `repair --config`, the Python Agent(config=...)). docs/SCHEMA.md lists the fields.
//
// {"schema": "flowagent.agent_config/v1",
//  "worker_threads": 2,
//  "workspace": {"root": "/var/tmp/fa", "keep_dir": "build", "pool_per_repo": 2, "init_submodules": true},
//  "validator": {"flaky_reruns": 0, "accept_exit_code_evidence": false, "accept_output_evidence": false,
//                 "check_assertion_execution": true, "check_fail_to_pass": true,
//                 "check_near_tested_inputs": true},
//  "sandbox": {... sandbox_options_from_json ...},
//  "trajectory_dir": "/path", "record": "/path/model.jsonl",
//  "known_flaky_tests": ["..."], "run_baseline": false,
//  "trusted_model_origins": ["https://llm.example.com"], "allow_replay_models": false,
//  "rubric_review": false,
//  "embeddings": {"model": "openai:text-embedding-3-small", "base_url": "...", "api_key_env": "...",
//                 "candidates": 50, "weight": 0.5}}
//
// Every member is optional; an absent one keeps the default. Unknown members, wrong types and
// out-of-range values are errors (Errc::schema, the message names the field), as in requests.
// [Threading] plain functions on values.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/agent.hpp"
#include "flowagent/git_workspace.hpp"
#include "flowagent/localize.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/repair.hpp"
#include "flowagent/sandbox.hpp"

namespace flowagent {

struct AgentConfig {
  std::optional<int> worker_threads;
  std::optional<GitWorkspaceOptions> workspace;  ///< set: the built-in git workspace provider with these options
  std::optional<ValidatorOptions> validator;     ///< set: the command validator with these options
  std::optional<SandboxOptions> sandbox;
  std::filesystem::path trajectory_dir;
  std::filesystem::path record;                  ///< append every model request/response here (JSONL)
  std::vector<std::string> known_flaky_tests;
  std::optional<bool> run_baseline;
  std::vector<std::string> trusted_model_origins;  ///< AgentOptions::trusted_model_origins
  std::optional<bool> allow_replay_models;         ///< AgentOptions::allow_replay_models
  /// true: the default strategies with the rubric review on (flowagent/review.hpp), as the CLI's
  /// --rubric-review.
  std::optional<bool> rubric_review;
  /// The retrieval's semantic tier (make_semantic_retriever): "model" PROVIDER:MODEL (required),
  /// optional "base_url" and "api_key_env" (as the CLI's --embeddings-model/-base-url/-api-key-env),
  /// "candidates" (0..100000, default 50: the lexical hits re-ranked; 0: every chunk of the index is
  /// embedded and searched, --embeddings-candidates) and "weight" (0..1, default 0.5: the cosine's
  /// share of the score, --embeddings-weight). The context section and search_relevant_code use it.
  std::optional<EmbeddingsConfig> embeddings;
};

/// Reads a "flowagent.agent_config/v1" document. [Errors] Errc::invalid_json, Errc::schema,
/// Errc::unsupported (another version of the schema).
Expected<AgentConfig> parse_agent_config(std::string_view json_text);

/// Sets what `config` holds on `options` (policies it names are built here; the others are left
/// alone). `transport`, when set, carries every model call (the record path still applies) and
/// the embeddings calls. [Errors] building the embedder (make_model_embedder: no key for a
/// hosted provider without a host transport); `options` may then be partly set.
Expected<void> apply_agent_config(AgentOptions& options, const AgentConfig& config,
                        std::shared_ptr<HttpTransport> transport = nullptr);

}  // namespace flowagent
