// The overfitting detector's inputs from a workspace, and its post-filter.
#include <set>

#include "flowagent/overfit.hpp"
#include "workspace/git.hpp"

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
  std::vector<std::string> args{"grep", "-l", "-F"};
  for (const auto& n : names) {
    args.push_back("-e");
    args.push_back(n.substr(0, n.find('[')));
  }
  args.push_back(ws.head_commit());
  const auto repo = detail::workspace_repo(ws);
  auto found = detail::git_result(repo, args, cancel);
  if (!found) return unexpected(found.error());
  std::size_t pos = 0;
  const std::string& out = found->output;
  while (pos < out.size() && in.test_sources.size() < 20) {
    auto eol = out.find('\n', pos);
    std::string l = out.substr(pos, (eol == std::string::npos ? out.size() : eol) - pos);
    pos = eol == std::string::npos ? out.size() : eol + 1;
    auto colon = l.find(':');
    if (colon == std::string::npos) continue;
    std::string path = l.substr(colon + 1);
    if (!is_test_path(path)) continue;
    auto text = detail::git(repo, {"show", ws.head_commit() + ":" + path}, cancel);
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
