// flowagent/request.hpp: RepairRequest, what the host tells flowagent about one failure.
//
// A RepairRequest is a plain value. It crosses the C ABI and the CLI as JSON with the schema name
// "flowagent.repair_request/v1" (docs/SCHEMA.md). Parsing is strict: unknown fields, wrong types,
// invalid UTF-8 and unknown schema versions are errors naming the field path.
// [Threading] plain value; [Errors] parse_repair_request returns Errc::invalid_json or Errc::schema.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/json.hpp"

namespace flowagent {

inline constexpr std::string_view kRequestSchema = "flowagent.repair_request/v1";

enum class AuthorKind { person, bot };

struct Author {
  std::string name;
  std::string email;
  AuthorKind kind = AuthorKind::person;
};

struct ChangedFile {
  std::string path;          ///< repository-relative, '/' separated
  std::int64_t added = 0;    ///< lines added
  std::int64_t removed = 0;  ///< lines removed
  bool binary = false;       ///< git reports it as binary (or it is an image)
};

struct Change {
  std::string id;               ///< host's change id (Gerrit Change-Id, PR number, ...); required
  std::int64_t revision = 1;    ///< patch set / revision number; newer supersedes older
  std::string base_commit;      ///< commit the change applies to; required
  std::string head_commit;      ///< commit holding the change; required
  std::string description;      ///< commit message / PR description
  Author author;
  std::vector<ChangedFile> files;  ///< may be empty: flowagent then asks git
};

enum class FailureKind { test, build };

struct Failure {
  FailureKind kind = FailureKind::test;
  std::vector<std::string> failing_tests;  ///< test ids as the runner names them
  std::vector<std::string> reports;        ///< report files (JUnit XML, gtest JSON, ...), repo-relative or absolute
  std::vector<std::string> logs;           ///< raw build/test log files
};

struct Commands {
  std::string build;        ///< shell command that builds; empty: no build step
  std::string test;         ///< shell command that runs tests; `{tests}` expands to the failing ones
  std::string wider_test;   ///< shell command for the wider affected set (regressions); may be empty
  std::vector<std::string> report_globs;  ///< where test commands write reports, workspace-relative
  std::int64_t timeout_seconds = 600;     ///< per command
};

struct Limits {
  std::int64_t max_tool_calls = 100;
  std::int64_t max_wall_seconds = 1800;
  std::int64_t max_tokens = 2'000'000;   ///< input + output tokens over all model calls
  double max_cost_usd = 10.0;            ///< 0 disables the cost budget
  std::int64_t max_files = 100;          ///< pre-filter: change touches more files -> abstain
  std::int64_t max_changed_lines = 1000; ///< pre-filter: change adds+removes more lines -> abstain
  std::int64_t context_tokens = 16'000;  ///< budget of the initial prompt
  double localization_budget = 3.0;      ///< coverage localization may cost this many test runs; 0 disables it
};

struct ModelConfig {
  std::string spec;          ///< "openai:<model>", "anthropic:<model>", "ollama:<model>", "builtin", ...
  std::string base_url;      ///< overrides the provider's default
  std::string api_key_env;   ///< environment variable holding the key (never the key itself)
  double temperature = 0.1;
  double top_p = 0.95;
  std::int64_t max_output_tokens = 4096;
};

/// Several candidates (docs/ARCHITECTURE.md, "Several candidates"): up to `count` independent
/// loops, each in its own workspace with its own temperature (or strategy chain,
/// AgentOptions::candidates), sharing the job's limits (tool calls, tokens, cost, wall time).
/// Each candidate is validated by the deterministic stage and checked by the post-filters; the
/// result delivers one and keeps the others in the trajectory. JSON: `"candidates": 3` or
/// `"candidates": {"count": 3, "concurrency": 2, "early_stop": true}`.
struct CandidateConfig {
  std::int64_t count = 1;        ///< 1..16; 1 is the single-loop behaviour
  std::int64_t concurrency = 2;  ///< candidates run at once (1..16; capped by count and the host's limit)
  bool early_stop = false;       ///< stop the others once one candidate is validated and clean
};

struct RepairRequest {
  std::string repository;  ///< path of the developer's repository (never modified)
  Change change;
  Failure failure;
  Commands commands;
  Limits limits;
  ModelConfig model;
  CandidateConfig candidates;
};

/// Parses and validates a request document.
Expected<RepairRequest> parse_repair_request(std::string_view json_text);
/// Validates a parsed document.
Expected<RepairRequest> repair_request_from_json(const Json& doc);
/// The document form, including "schema". Round-trips with repair_request_from_json.
Json to_json(const RepairRequest& request);

// ---- test ids are data, never options ------------------------------------------------------------
//
// Test ids reach the test command from the request, the CLI (--failing), parsed CI logs and
// reports, and the model's run_tests calls. Every source goes through check_test_id, and every
// command template through check_test_template, before anything runs.

/// Refuses an id that is empty, longer than 4096 bytes, starts with '-' (a runner would read it as
/// an option) or holds a control character (newline, NUL, ESC, ...). Errc::schema; the message
/// names the id (escaped) and `source` (e.g. "failure.failing_tests[2]", "--failing", "run_tests").
Expected<void> check_test_id(std::string_view id, std::string_view source);

/// Refuses a command template whose `{tests}` / `{tests|SEP}` placeholder sits inside single or
/// double quotes (or $'...'): flowagent shell-quotes every id itself, and inside quotes an id could
/// end the quoting or run `$(...)`. Errc::schema naming `field` and saying why.
Expected<void> check_test_template(std::string_view command, std::string_view field);

/// Both checks over a whole request: failure.failing_tests and commands.test / wider_test.
Expected<void> check_request_commands(const RepairRequest& request);

std::string_view to_string(AuthorKind kind) noexcept;
std::string_view to_string(FailureKind kind) noexcept;

}  // namespace flowagent
