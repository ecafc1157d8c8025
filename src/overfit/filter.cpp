// The overfitting detector's inputs from a workspace, and its post-filter.
#include <set>

#include "flowagent/overfit.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent {

Expected<OverfitInput> overfit_input_from_workspace(Workspace& ws, const RepairRequest& request, const Patch& patch,
                                                    const CancelToken& cancel) {
  OverfitInput in;
  in.failing_tests = request.failure.failing_tests;
  auto files = file_versions_from_workspace(ws, patch);
  if (!files) return unexpected(files.error());
  in.files = std::move(*files);
  // The failing tests' sources at the change head (the candidate's own test edits do not count).
  std::set<std::string> names;
  for (const auto& id : in.failing_tests) {
    for (std::string_view sep : {"::", " › ", " > ", ".", "/", "#"}) {
      auto p = id.rfind(sep);
      if (p != std::string::npos && id.size() - p - sep.size() >= 3) names.insert(id.substr(p + sep.size()));
    }
    if (id.size() >= 3) names.insert(id);
  }
  if (names.empty()) return in;
  std::vector<std::string> needles;
  for (const auto& n : names) needles.push_back(n.substr(0, n.find('[')));
  const auto repo = detail::workspace_repo(ws);
  auto found = detail::files_containing(repo, ws.head_commit(), needles, cancel);
  if (!found) return unexpected(found.error());
  for (const auto& path : *found) {
    if (in.test_sources.size() >= 20) break;
    if (!is_test_path(path)) continue;
    auto text = detail::read_file_at(repo, ws.head_commit(), path, cancel);
    if (!text) continue;
    in.test_sources.push_back(FileVersions{path, *text, *text});
  }
  return in;
}

namespace {

class OverfitFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "overfitting"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken& cancel) override {
    if (in.patch.files.empty()) return std::optional<Rejection>{};
    // Fail closed: without the workspace's object store the production code cannot be checked.
    if (!in.workspace)
      return std::optional<Rejection>(Rejection{"overfitting_unverifiable",
                                                "the overfitting check has no workspace to read the patched files from",
                                                Status::rejected});
    auto input = overfit_input_from_workspace(*in.workspace, in.request, in.patch, cancel);
    if (!input) return unexpected(input.error());
    auto findings = check_overfitting(*input);
    if (findings.empty()) return std::optional<Rejection>{};
    return std::optional<Rejection>(Rejection{"overfitting_" + findings.front().rule,
                                              "the fix overfits the failing tests: " + format_overfit_findings(findings),
                                              Status::rejected});
  }
};

}  // namespace

std::shared_ptr<PostFilter> make_overfit_filter() { return std::make_shared<OverfitFilter>(); }

}  // namespace flowagent
