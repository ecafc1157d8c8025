// flowagent/review.hpp: the optional rubric review. A second model call reads the production-code
// part of a candidate the loop considers done (after its own validation check passed) and judges
// it against a fixed rubric of overfitting patterns (docs/INTEGRITY.md, "Rubric review"). Its
// findings go back to the loop like the deterministic overfitting detector's, within the same
// refinement rounds (ReactOptions::max_refinement_rounds); a candidate still flagged after them is
// not delivered (reason "overfitting_review").
//
// Off by default: set ReactOptions::reviewer (CLI --rubric-review).
//
// Fail closed: the reply must be exactly one JSON object of the documented form (rubric ids from
// the list, paths of reviewed files, lines in range, no other members). Anything else -- prose, a
// second object, unknown members, an "approve" that carries findings, a failed or cut-off call --
// is "review unavailable": never an approval. The loop does not show such a reply to the model; the
// candidate ends rejected with reason "review_unavailable" and the parse error in the message.
// [Threading] a reviewer is immutable; review() may run concurrently for different jobs.
// [Errors] review() has none: every failure is ReviewOutcome::unavailable with a note.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/llm.hpp"
#include "flowagent/patch.hpp"
#include "flowagent/request.hpp"

namespace flowagent {

/// The rubric's rule ids, in the order the prompt lists them.
inline constexpr std::string_view kRubricRules[] = {
    "special_cased_input",       // branches on values taken from the failing tests
    "hardcoded_output",          // returns the tests' expected values instead of computing them
    "swallowed_error",           // catches and discards errors the tests provoke
    "removed_functionality",     // deletes or stubs behaviour the tests do not cover
    "disabled_check",            // turns off validation, flags or guards to get past the failure
    "test_detection",            // behaves differently when it detects a test run
    "symptom_not_cause",         // hides the symptom at the call site, leaving the faulty logic
};

struct ReviewFinding {
  std::string rule;     ///< one of kRubricRules
  std::string path;     ///< a file of the reviewed patch
  int line = 0;         ///< 1-based, in the file after the patch
  std::string message;  ///< at most 400 characters, control characters removed
};

enum class ReviewOutcome { approved, flagged, unavailable };

struct ReviewVerdict {
  ReviewOutcome outcome = ReviewOutcome::unavailable;
  std::vector<ReviewFinding> findings;  ///< non-empty exactly when flagged
  std::string note;                     ///< why the review is unavailable; empty otherwise
  Usage usage;                          ///< of the review call (0 when none was made)
  double cost_usd = 0;
};

class PatchReviewer {
 public:
  virtual ~PatchReviewer() = default;
  virtual std::string_view name() const = 0;
  /// Reviews `production` (the patch without test files) for `request`. `job_model` is the job's
  /// model client (budgeted, redacting); a reviewer may use its own model instead.
  virtual ReviewVerdict review(const RepairRequest& request, const Patch& production, LlmClient* job_model,
                               const CancelToken& cancel) = 0;
};

/// The model-call reviewer. `model` null: the job's model. The prompt is rubric_review_prompt().
std::shared_ptr<PatchReviewer> make_rubric_reviewer(std::shared_ptr<LlmClient> model = nullptr);

/// The system prompt holding the rubric and the reply format (docs/INTEGRITY.md).
std::string rubric_review_prompt();

/// Strict parse of a review reply against the reviewed patch. Never approves what it cannot read.
ReviewVerdict parse_rubric_reply(std::string_view reply, const Patch& production);

/// The files of `patch` that are not test files (is_test_path), hunks unchanged.
Patch production_part(const Patch& patch);

/// "path:line [rule] message; ..." for rejections and for the model.
std::string format_review_findings(const std::vector<ReviewFinding>& findings);

}  // namespace flowagent
