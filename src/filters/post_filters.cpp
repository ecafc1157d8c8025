// Built-in post-execution filters that need no tree-sitter or git: the fix changes something, and
// the change is still the one the fix was made for. (The test-integrity guard and revert detection
// live in src/integrity/, the overfitting detector in src/overfit/.)
#include "flowagent/filters.hpp"
#include "flowagent/host.hpp"

namespace flowagent {

namespace {

class EmptyPatchFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "empty_patch"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (in.patch.empty())
      return std::optional<Rejection>(Rejection{"empty_patch", "the fix changes nothing", Status::rejected});
    return std::optional<Rejection>{};
  }
};

class ChangeMovedFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "change_moved"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (!in.tracker) return std::optional<Rejection>{};
    auto st = in.tracker->state(in.request.change);
    if (!st) return unexpected(st.error());
    if (st->submitted)
      return std::optional<Rejection>(
          Rejection{"change_submitted", "the change was submitted while the fix was being made", Status::superseded});
    if (st->abandoned)
      return std::optional<Rejection>(Rejection{"change_abandoned", "the change was abandoned", Status::superseded});
    if (st->current_revision > in.request.change.revision)
      return std::optional<Rejection>(Rejection{
          "change_updated",
          "the developer uploaded revision " + std::to_string(st->current_revision) + " while the fix was being made",
          Status::superseded});
    return std::optional<Rejection>{};
  }
};

}  // namespace

std::shared_ptr<PostFilter> make_empty_patch_filter() { return std::make_shared<EmptyPatchFilter>(); }
std::shared_ptr<PostFilter> make_change_moved_filter() { return std::make_shared<ChangeMovedFilter>(); }

}  // namespace flowagent
