// flowagent/repair.hpp: the built-in repair pipeline policies: the context builder, the ReAct loop,
// the command validator, the model summarizer and the filters that need the host or a baseline run.
//
// [Threading] every object made here is immutable after construction (the baseline filter's cache
// is locked), so one instance serves concurrent jobs. [Lifetime] shared_ptr-held by AgentOptions.
// [Errors] as documented by the policy interfaces (strategy.hpp, filters.hpp): infrastructure
// failures and cancellation are Errors; a failed validation or an abstention is a value.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flowagent/filters.hpp"
#include "flowagent/localize.hpp"
#include "flowagent/reports.hpp"
#include "flowagent/review.hpp"
#include "flowagent/sandbox.hpp"
#include "flowagent/strategy.hpp"
#include "flowagent/workspace.hpp"

namespace flowagent {

// ---- context --------------------------------------------------------------------------------------

struct ContextOptions {
  std::int64_t token_budget = 16'000;  ///< overridden by request.limits.context_tokens when set
  std::size_t chars_per_token = 4;     ///< estimate used for budgeting
  std::size_t max_failures = 8;        ///< structured failures shown in full
};

struct InitialContext {
  std::string text;                       ///< the first user message
  std::vector<reports::TestCase> failures;  ///< structured failures found in reports/logs
  std::string change_diff;                ///< git diff base..head (untrimmed)
  std::int64_t estimated_tokens = 0;
  std::vector<std::string> trimmed;       ///< what was cut to fit (for the trajectory)
  std::string fault_section;              ///< the "Where the failure most likely is" text included
};

/// Reads the request's reports and logs (repository-relative or absolute paths), the change's diff
/// (git diff base..head in the developer's repository, read-only) and builds the paper's template
/// (a) adapted to a tool-using loop: structured failures first, then the description, then the diff
/// trimmed around the files that failed. Never exceeds the budget. `fault_section` (from
/// build_fault_section) goes after the failures and takes its room from the diff's share; it is cut
/// to a fifth of the budget.
Expected<InitialContext> build_initial_context(const RepairRequest& request, const CancelToken& cancel,
                                               ContextOptions options = {}, std::string fault_section = {});

// ---- ReAct loop -----------------------------------------------------------------------------------

struct ReactOptions {
  ContextOptions context;
  int max_repeats = 3;                ///< identical calls without effect before the loop gives up
  bool validate_before_stopping = true;  ///< run the validator when the model says it is done
  int max_validation_rounds = 3;      ///< validation failures shown back to the model
  std::string extra_instructions;     ///< appended to the system prompt
  /// Overfitting findings (flowagent/overfit.hpp) shown back to the model when it says it is done;
  /// 0 turns refinement off. A candidate that still overfits is rejected by the "overfitting" post-filter.
  int max_refinement_rounds = 2;
  /// Offer the record_hypothesis tool (the ledger is pinned into every call and kept in the result).
  bool hypotheses = true;
  /// Context manager (docs/PROMPTS.md, "Bounded context"): every model call's messages stay under
  /// max_call_tokens (estimate chars/4) by eliding older tool outputs. 0: the initial prompt plus
  /// working_context_tokens. Both <= 0 send the whole history (the old behaviour).
  std::int64_t max_call_tokens = 0;
  std::int64_t working_context_tokens = 4'000;
  int keep_recent_tool_outputs = 2;  ///< newest tool outputs never elided
  /// Optional rubric review (flowagent/review.hpp), off when null: once the model says it is done,
  /// the deterministic detector finds nothing and the loop's validation check passes, the reviewer
  /// reads the production-code part of the patch; its findings go back to the model within the
  /// same max_refinement_rounds. Still flagged after them: rejected "overfitting_review"; an
  /// unusable review: rejected "review_unavailable" (fail closed).
  std::shared_ptr<PatchReviewer> reviewer;
  /// First phase: coverage localization and retrieval for "Where the failure most likely is"
  /// (either may be null; both null: no section).
  std::shared_ptr<Localizer> localizer;
  std::shared_ptr<CodeRetriever> retriever;
  std::size_t max_locations = 5;      ///< functions shown in the section
};

/// The generate-and-validate loop: the model reads the context and works through the tools until
/// it says it is done and validation passes, or a cap (tool calls, tokens, cost, time) ends it.
std::shared_ptr<RepairStrategy> make_react_strategy(ReactOptions options = {});

/// The system prompt of the loop (documented in docs/PROMPTS.md).
std::string react_system_prompt();

// ---- validation -----------------------------------------------------------------------------------

struct ValidatorOptions {
  int flaky_reruns = 0;  ///< extra runs of the failing tests; every run must pass (commands run in RepairContext::sandbox)
  /// When no per-test result can be read (unknown runner, no report, unparseable output), accept a
  /// test command that exits 0 as evidence; the result's evidence.kind then says "exit_code".
  /// Off by default: such a run is reason "unverified", never "fixed".
  bool accept_exit_code_evidence = false;
  /// Results parsed from the output of a runner flowagent does not know (`make test`, tox, a
  /// script): the test process printed them and no runner summary can be cross-checked, so they
  /// are "unverified" unless the host accepts them (then evidence.kind says "output").
  /// accept_exit_code_evidence implies this.
  bool accept_output_evidence = false;
  /// After the requested tests pass, run them once more under line coverage (coverage.py for
  /// pytest, NODE_V8_COVERAGE for node --test and tape) and reject the fix with
  /// "assertion_not_executed" when an assertion line of a requested test did not execute (an early
  /// return, a branch false under the bug, a nested function never called). Other runners get the
  /// guard's static check only (docs/INTEGRITY.md).
  bool check_assertion_execution = true;
  /// Last, fail to pass: when the patch changes a test file, the requested tests as the patch leaves
  /// them must not pass both on the head's code without the patch's code changes and on the code
  /// before the developer's change ("tests_pass_without_the_fix"; for a patch changing only tests,
  /// "tests_pass_without_the_change"). One or two more runs of the requested tests in the head's
  /// checkout. When a run fails there, the values the tests ask of the functions they pinned are
  /// compared (pytest, node): a patch whose tests no longer ask what the fix changed is
  /// "tests_pass_without_the_fix", and one that takes out a check the fix breaks while it answers
  /// every kept or new call as before the change is "broken_check_dropped" (a few more runs;
  /// docs/INTEGRITY.md "Fail to pass").
  bool check_fail_to_pass = true;
  /// With fail to pass: a code fix's changed functions are called next to the requested tests'
  /// calls (each integer argument one lower and one higher) on the fix, the head and the code
  /// before the change; a fix that corrects the tested calls and keeps the head's answers at most
  /// neighbours where the change shows is "overfitting_special_cased_test_value" (four more runs
  /// for a Python or JavaScript code fix; docs/INTEGRITY.md "Behaviour near the tested inputs").
  bool check_near_tested_inputs = true;
};

/// validate(): acquires a fresh checkout of the change head from RepairContext::workspaces, removes
/// every untracked and ignored file (Workspace::make_pristine), applies the candidate's git diff
/// (Workspace::apply_patch) and checks that git shows the same diff there; then builds, runs the
/// failing tests with the runner asked for a machine report in a directory flowagent creates
/// (validate/runner.hpp) and requires each requested test to be seen passing in per-test results
/// (names compared by reports/test_identity.hpp). A requested test that no longer exists is
/// validated through its enclosing test file or target (every test there must pass) and the tests
/// that replaced it are recorded in evidence.replacements. Then (check_assertion_execution) the
/// requested tests run once more under line coverage and every assertion line of theirs must have
/// executed ("assertion_not_executed" otherwise). Then optional re-runs and the wider set,
/// where a failing test that is not one of the request's failing tests is a regression. Last
/// (check_fail_to_pass) the patch's tests must fail without the fix.
/// check(): the same steps in the strategy's own tree, for feedback.
std::shared_ptr<Validator> make_command_validator(ValidatorOptions options = {});

// ---- summary --------------------------------------------------------------------------------------

/// One model call with the paper's prompt (b); output sanitized. Falls back to the template
/// summarizer when there is no model or the call fails.
std::shared_ptr<Summarizer> make_model_summarizer();

/// Keeps the tags b, i, code, ul, li, p, br (without attributes), escapes everything else, joins
/// lines into one, and keeps at most `max_sentences` sentences.
std::string sanitize_summary_html(std::string_view html, std::size_t max_sentences = 5);

// ---- filters that need the host or the repository -------------------------------------------------

/// "known_flaky": every failing test is known to be flaky (list, or a host predicate).
std::shared_ptr<PreFilter> make_known_flaky_filter(std::vector<std::string> flaky_tests,
                                                   std::function<bool(const std::string&)> is_flaky = {});

/// Answers which of `tests` already fail at the base commit.
using BaselineOracle =
    std::function<Expected<std::vector<std::string>>(const RepairRequest&, const std::vector<std::string>& tests)>;

/// "baseline_failing": every failing test already fails at the base commit. Asks `host` when
/// given; otherwise (run_baseline) runs the test command at the base commit in a workspace from
/// `workspaces`, inside the sandbox configured by `sandbox`, caching results per (repository,
/// base commit, test).
std::shared_ptr<PreFilter> make_baseline_filter(BaselineOracle host, std::shared_ptr<WorkspaceProvider> workspaces,
                                                bool run_baseline = true, SandboxOptions sandbox = {});

}  // namespace flowagent
