// flowagent/strategy.hpp: RepairStrategy proposes a fix by editing the workspace; Validator judges
// it; Summarizer explains it.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/llm.hpp"
#include "flowagent/patch.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "flowagent/tools.hpp"
#include "flowagent/workspace.hpp"

namespace flowagent {

/// Everything a strategy works with during one job. References outlive propose().
class Validator;

struct RepairContext {
  const RepairRequest& request;
  Workspace& workspace;
  ToolRegistry& tools;
  ToolState& state;
  LlmClient* llm;  ///< may be null (offline); model strategies then step aside
  const CancelToken& cancel;
  RepairResult& result;  ///< metrics and trajectory are appended here
  std::function<void(const Event&)> emit;  ///< progress; never null
  Validator* validator = nullptr;  ///< lets a loop check its candidate (Validator::check) before it stops
  /// How untrusted commands are confined (AgentOptions::sandbox); null: the SandboxOptions defaults.
  /// Every build/test command a strategy or validator runs goes through it.
  const SandboxOptions* sandbox = nullptr;
  const Patch* patch = nullptr;    ///< the candidate, set before validation (applied to a fresh checkout), post-filters and the summary
  /// Where the validation stage gets its fresh checkout of the change head; may be null (then the
  /// built-in validator fails with Errc::invalid_argument).
  WorkspaceProvider* workspaces = nullptr;
  /// Set when several candidates share the job's tool-call budget (RepairRequest::candidates):
  /// a loop calls it before each tool call; false means the job's limits.max_tool_calls is spent.
  /// Empty: this context's own metrics count against the limit.
  std::function<bool()> take_tool_call;
};

/// What a strategy claims. The workspace holds the edits; `claims_fixed` is the strategy's own
/// belief, which the Validator checks independently.
struct Candidate {
  bool produced = false;       ///< the workspace holds edits worth validating
  bool claims_fixed = false;
  std::string explanation;     ///< the strategy's account of the root cause (summarizer input)
  std::string stop_reason;     ///< why the strategy stopped when not by choice ("tool_call_limit", "loop_stalled", ...)
  /// The strategy's own check (Validator::check) passed on this state. Informational only: the
  /// pipeline's validation stage always validates the candidate itself.
  bool validated = false;
  /// Set when the strategy's own review still objects to the candidate (the rubric review,
  /// flowagent/review.hpp: "overfitting_review" or "review_unavailable"): the pipeline validates
  /// it but never delivers it; the job (or this candidate) ends rejected with this reason.
  std::string rejection_reason = {};
  std::string rejection_message = {};
};

/// [Threading] propose() runs on one job thread; different jobs may call it concurrently.
/// [Errors] Errc::cancelled, Errc::budget_exceeded, Errc::model...: the Agent records the error
/// and tries the next strategy (budget and cancel end the job).
class RepairStrategy {
 public:
  virtual ~RepairStrategy() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<Candidate> propose(RepairContext& context) = 0;
};

struct ValidationReport {
  bool passed = false;
  /// when not passed: "build_failed", "failing_tests_still_fail", "failing_test_missing",
  /// "unverified" (no per-test result could be read), "regression", "patch_tests_fail" (a test of a
  /// file the patch adds or changes fails, and did not at the head), "flaky_fix", "empty_patch",
  /// "patch_does_not_apply", "patch_mismatch", "no_test_command"
  std::string reason;
  std::string message;
  Evidence evidence;
};

/// [Threading] as RepairStrategy. [Errors] infrastructure failures only; a failing test is a
/// ValidationReport with passed=false, not an Error.
class Validator {
 public:
  virtual ~Validator() = default;
  virtual std::string_view name() const = 0;
  /// The deciding validation: the pipeline's "validate" stage, once per candidate. The built-in
  /// validator applies the workspace's patch to a fresh checkout from context.workspaces.
  virtual Expected<ValidationReport> validate(RepairContext& context) = 0;
  /// A check a strategy may run for feedback before it stops. Never final evidence by itself; the
  /// built-in validator's check is its validation in a fresh checkout (in the strategy's own tree
  /// when context.workspaces is null), and within one repair run its validate() takes the check's
  /// report for the same request, head and patch, once, instead of running the tests again: a
  /// repeatable verdict only, and a pass only when no check of the run failed before
  /// (docs/ARCHITECTURE.md, "The repair loop and validation"). Defaults to validate().
  virtual Expected<ValidationReport> check(RepairContext& context) { return validate(context); }
};

/// Turns a finished trajectory into at most five sentences of sanitized one-line HTML.
/// [Errors] none: a summarizer falls back to a deterministic summary when its model call fails.
class Summarizer {
 public:
  virtual ~Summarizer() = default;
  virtual std::string_view name() const = 0;
  virtual std::string summarize(RepairContext& context, const Candidate& candidate) = 0;
};

}  // namespace flowagent
