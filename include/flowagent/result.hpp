// flowagent/result.hpp: RepairResult (what a repair produced) and Event (progress on the way).
//
// Both cross the C ABI as JSON: "flowagent.repair_result/v1" and "flowagent.event/v1"
// (docs/SCHEMA.md). Plain values; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/json.hpp"

namespace flowagent {

inline constexpr std::string_view kResultSchema = "flowagent.repair_result/v1";
inline constexpr std::string_view kEventSchema = "flowagent.event/v1";

enum class Status {
  fixed,       ///< a validated patch that passed every post-filter
  no_fix,      ///< the strategies ran but found no validated fix
  abstained,   ///< a pre-filter decided not to try (reason says which)
  rejected,    ///< a fix was found but a post-filter refused it (reason says which)
  superseded,  ///< a newer revision of the change arrived, or the change was submitted/edited
  error,       ///< infrastructure failure (reason/message say what); also used for cancel
};

/// One run of tests (by the loop or by the validator).
struct TestRun {
  std::string command;
  int exit_code = -1;
  bool timed_out = false;
  std::int64_t duration_ms = 0;
  std::vector<std::string> passed;
  std::vector<std::string> failed;
  std::string purpose;  ///< "failing", "wider", "rerun", "scope" (enclosing file/target), "loop", "assertions", "sensitivity",
                        ///< "sensitivity-control", "sensitivity-reversed", "values-record", "values-record-head",
                        ///< "values-record-base", "values-fix", "values-head",
                        ///< "values-base", "values-only", "without-fix", "before-change", "near-record", "near-fix",
                        ///< "near-head", "near-base", "values+near-record", "values+near-fix", "values+near-head", "values+near-base"
                        ///< (a values run that made the near check's calls too), "standin-record", "standin-record-base",
                        ///< "standin-head", "standin-base", "standin-fix" (docs/INTEGRITY.md, docs/SCHEMA.md)
  /// Where the per-test results came from: "report:<format>" (a machine report the runner wrote
  /// where flowagent asked), "output:<format>" (parsed from the output); "" when none could be read.
  std::string report_format;
  /// Set when the sandbox stopped the command for a bound it crossed (e.g. "the run added more than
  /// 1000000 entries to the workspace (max_workspace_inodes)"); empty otherwise.
  std::string stopped_by;
};

/// A requested failing test that no longer exists after the fix, and the tests that replaced it
/// (validated by running its whole enclosing test file or target).
struct TestReplacement {
  std::string old_id;
  std::vector<std::string> new_ids;
  std::string scope;  ///< the enclosing file or target that was run instead ("tests/test_x.py", "Suite.*")
};

/// What the validation saw of one requested failing test.
struct TestVerdict {
  std::string id;       ///< as requested
  std::string outcome;  ///< "passed", "failed", "skipped", "missing", "replaced", "unverified"
  std::vector<std::string> seen_as;  ///< the reported names that denote it (or its replacements)
};

/// Why the validator believes (or not) the fix works.
struct Evidence {
  bool build_ok = false;
  bool failing_tests_pass = false;
  bool wider_tests_pass = false;  ///< true when there is no wider test command
  bool loop_evidence_used = false;  ///< always false: the loop's own runs never count as final evidence
  /// "structured": every requested failing test was seen to run and pass in parsed per-test results;
  /// "exit_code": results could not be read and the host accepts exit-code evidence
  /// (ValidatorOptions::accept_exit_code_evidence); "" when the fix was not validated.
  std::string kind;
  bool fresh_checkout = false;  ///< the runs happened in a fresh checkout of head + the patch
  std::vector<TestVerdict> tests;
  std::vector<TestReplacement> replacements;
  std::vector<TestRun> runs;
  /// Tests of the wider set that failed with the patch and also failed at the pristine change head
  /// without it (a baseline run of just those tests): not regressions of the fix.
  std::vector<std::string> preexisting_failures;
  /// False when the job's commands ran WITHOUT the sandbox (the host set
  /// allow_unsandboxed_commands and the sandbox was unavailable); `isolation` then says why.
  bool sandboxed = true;
  std::string isolation;  ///< "bubblewrap" or "none: <why>"; empty when the request has no commands
  /// Whether the requested tests' assertions were seen to execute (ValidatorOptions::
  /// check_assertion_execution, docs/INTEGRITY.md "Runtime evidence"): "runtime" (a coverage run
  /// decided), "not available: <why>" (no coverage for this runner or project: the static check
  /// alone), "not applicable: <why>", "off" (the host turned the check off); "" when the
  /// validation did not get that far.
  std::string assertion_check;
};

struct Metrics {
  std::int64_t tool_calls = 0;
  std::int64_t model_calls = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cached_tokens = 0;
  double cost_usd = 0;
  std::int64_t wall_ms = 0;
  std::map<std::string, std::int64_t> phase_ms;  ///< per pipeline phase
};

/// One step of the trajectory: a model turn, a tool call, or a phase boundary.
struct TrajectoryStep {
  std::string kind;  ///< "phase", "model", "tool", "note"
  std::string name;  ///< phase name, tool name, model spec
  std::string input;
  std::string output;
  bool ok = true;
  std::int64_t ms = 0;
  /// 1-based candidate the step belongs to when the job ran several (RepairRequest::candidates);
  /// 0: the job itself (or a single-candidate job).
  std::int64_t candidate = 0;
};

/// A hypothesis the model recorded with the loop's record_hypothesis tool (docs/PROMPTS.md).
struct Hypothesis {
  std::int64_t id = 0;
  std::string statement;
  std::string evidence;
  std::string status;            ///< "proposed", "confirmed" or "refuted"
  std::int64_t tool_call = 0;    ///< the tool call that last updated it (1-based)
};

/// What became of one candidate of a job with several (RepairRequest::candidates).
struct CandidateReport {
  std::int64_t index = 0;      ///< 1-based; trajectory steps and events carry it
  double temperature = 0;      ///< the sampling temperature its loop used
  std::string strategies;      ///< its strategy chain ("expectation_update,react")
  /// "accepted" (validated, every post-filter passed), "rejected" (a post-filter or the review
  /// refused it), "no_fix" (no validated candidate), "stopped" (early stop or the job's end),
  /// "error" (infrastructure)
  std::string outcome;
  std::string reason;          ///< the stable reason code of that outcome ("" when accepted)
  std::string message;
  std::string patch_digest;    ///< SHA-256 hex of the canonical patch; "" without a patch
  std::string equivalence;     ///< SHA-256 hex of the whitespace-normalised edits (equal = equivalent)
  std::int64_t changed_lines = 0;  ///< added + removed lines of its patch
  std::int64_t agreement = 0;  ///< accepted candidates (itself included) with equivalent edits
  std::int64_t tool_calls = 0;
  std::int64_t tokens = 0;     ///< input + output
  bool chosen = false;         ///< this candidate's patch is the result's patch
};

struct RepairResult {
  Status status = Status::error;
  std::string reason;   ///< stable reason code, e.g. "change_too_large", "integrity_skip_added"
  std::string message;  ///< one human sentence
  std::string change_id;
  std::int64_t revision = 0;
  std::string base_commit;  ///< the change's base, as given in the request
  std::string head_commit;  ///< the commit the patch applies to
  std::string patch;    ///< the fix against the change head (canonical git diff, flowagent/patch.hpp);
                        ///< empty unless status is fixed (the pipeline, to_json and parsing enforce it)
  std::string summary;  ///< sanitized one-line HTML, root cause first
  Evidence evidence;
  Metrics metrics;
  std::vector<TrajectoryStep> trajectory;
  std::vector<Hypothesis> hypotheses;  ///< the loop's hypothesis ledger, in recording order
                                       ///< (of the chosen candidate when there were several)
  std::vector<CandidateReport> candidates;  ///< one per candidate when the job ran several; else empty
  std::int64_t chosen_candidate = 0;        ///< 1-based index of the delivered candidate; 0: none / single
};

enum class EventKind { phase, tool_call, model_call, result, log };

struct Event {
  EventKind kind = EventKind::log;
  std::string change_id;
  std::int64_t revision = 0;
  std::string phase;        ///< current phase name
  std::string message;
  std::int64_t index = 0;   ///< tool call i ...
  std::int64_t max = 0;     ///< ... of max
  std::int64_t tokens = 0;  ///< tokens used so far
  std::int64_t eta_ms = -1; ///< estimated time to completion; -1 unknown
  std::int64_t elapsed_ms = 0;
  std::int64_t candidate = 0;  ///< 1-based candidate the event belongs to (several candidates); 0: the job
  std::uint64_t job_id = 0; ///< Job::id() of the job (current_job_id()); 0 for Agent::run
};

Json to_json(const RepairResult& result);
Expected<RepairResult> repair_result_from_json(const Json& doc);
Expected<RepairResult> parse_repair_result(std::string_view json_text);
Json to_json(const Event& event);

std::string_view to_string(Status status) noexcept;
std::string_view to_string(EventKind kind) noexcept;

}  // namespace flowagent
