#include "loop/refinement.hpp"

#include "flowagent/overfit.hpp"
#include "flowagent/patch.hpp"

namespace flowagent::detail {

Expected<std::optional<std::string>> overfitting_feedback(RepairContext& ctx, std::string_view patch, int& rounds,
                                                          int max_rounds) {
  if (max_rounds <= 0 || patch.empty()) return std::optional<std::string>{};
  auto parsed = parse_patch(patch);
  if (!parsed) {
    ctx.result.trajectory.push_back(
        TrajectoryStep{"note", "overfitting", {}, "not checked: " + parsed.error().to_string(), false, 0});
    return std::optional<std::string>{};  // the pipeline's own patch rules decide on such a diff
  }
  auto input = overfit_input_from_workspace(ctx.workspace, ctx.request, *parsed, ctx.cancel);
  if (!input) {
    // A workspace the detector cannot read (not git, no files): the post-filter decides later.
    if (input.error().code == Errc::cancelled) return unexpected(input.error());
    ctx.result.trajectory.push_back(
        TrajectoryStep{"note", "overfitting", {}, "not checked: " + input.error().to_string(), false, 0});
    return std::optional<std::string>{};
  }
  auto findings = check_overfitting(*input);
  if (findings.empty()) {
    if (rounds > 0)
      ctx.result.trajectory.push_back(TrajectoryStep{"note", "overfitting", {},
                                                     "clean after " + std::to_string(rounds) + " refinement round(s)", true, 0});
    return std::optional<std::string>{};
  }
  const std::string list = format_overfit_findings(findings);
  if (rounds >= max_rounds) {
    ctx.result.trajectory.push_back(TrajectoryStep{
        "note", "overfitting", {}, "still overfits after " + std::to_string(rounds) + " refinement round(s): " + list, false, 0});
    return std::optional<std::string>{};
  }
  ++rounds;
  ctx.result.trajectory.push_back(TrajectoryStep{"note", "overfitting", {},
                                                 "refinement round " + std::to_string(rounds) + " of " +
                                                     std::to_string(max_rounds) + ": " + list,
                                                 false, 0});
  std::string msg = "The overfitting check flagged your patch (refinement round " + std::to_string(rounds) + " of " +
                    std::to_string(max_rounds) + "):\n";
  for (const auto& f : findings) msg += "- " + f.path + ":" + std::to_string(f.line) + " [" + f.rule + "] " + f.message + "\n";
  msg += "Such code makes the failing tests pass without fixing the bug for other inputs. Replace it with a general "
         "fix of the root cause, run the tests, then answer again. A patch that still overfits is not delivered.";
  return std::optional<std::string>(std::move(msg));
}

Expected<std::optional<std::string>> review_feedback(RepairContext& ctx, PatchReviewer* reviewer, std::string_view patch,
                                                     int& rounds, int max_rounds, Candidate& candidate) {
  candidate.rejection_reason.clear();
  candidate.rejection_message.clear();
  if (!reviewer || patch.empty()) return std::optional<std::string>{};
  auto note = [&](std::string text, bool ok) {
    ctx.result.trajectory.push_back(TrajectoryStep{"note", "review", {}, std::move(text), ok, 0});
  };
  auto parsed = parse_patch(patch);
  if (!parsed) {
    // Fail closed: what the review cannot read it does not approve.
    candidate.rejection_reason = "review_unavailable";
    candidate.rejection_message = "the rubric review could not read the patch: " + parsed.error().message;
    note(candidate.rejection_message, false);
    return std::optional<std::string>{};
  }
  Event e;
  e.kind = EventKind::log;
  e.phase = "repair";
  e.message = "rubric review of the candidate";
  ctx.emit(e);
  const Patch production = production_part(*parsed);
  ReviewVerdict v = reviewer->review(ctx.request, production, ctx.llm, ctx.cancel);
  if (ctx.cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
  if (v.usage.input_tokens || v.usage.output_tokens) {
    auto& m = ctx.result.metrics;
    m.model_calls++;
    m.input_tokens += v.usage.input_tokens;
    m.output_tokens += v.usage.output_tokens;
    m.cached_tokens += v.usage.cached_tokens;
    m.cost_usd += v.cost_usd;
  }
  switch (v.outcome) {
    case ReviewOutcome::approved:
      note(rounds > 0 ? "approved after " + std::to_string(rounds) + " refinement round(s)" : "approved", true);
      return std::optional<std::string>{};
    case ReviewOutcome::unavailable:
      candidate.rejection_reason = "review_unavailable";
      candidate.rejection_message = "review unavailable: " + v.note;
      note(candidate.rejection_message, false);
      return std::optional<std::string>{};
    case ReviewOutcome::flagged: break;
  }
  const std::string list = format_review_findings(v.findings);
  if (rounds >= max_rounds) {
    candidate.rejection_reason = "overfitting_review";
    candidate.rejection_message = "the rubric review still flags the fix after " + std::to_string(rounds) +
                                  " refinement round(s): " + list;
    note(candidate.rejection_message, false);
    return std::optional<std::string>{};
  }
  ++rounds;
  note("refinement round " + std::to_string(rounds) + " of " + std::to_string(max_rounds) + ": " + list, false);
  std::string msg = "A review of your patch against the overfitting rubric flagged it (refinement round " +
                    std::to_string(rounds) + " of " + std::to_string(max_rounds) + "):\n";
  for (const auto& f : v.findings) msg += "- " + f.path + ":" + std::to_string(f.line) + " [" + f.rule + "] " + f.message + "\n";
  msg += "Make a general fix of the root cause, run the tests, then answer again. A patch that is still flagged is "
         "not delivered.";
  return std::optional<std::string>(std::move(msg));
}

}  // namespace flowagent::detail
