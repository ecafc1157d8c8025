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

}  // namespace flowagent::detail
