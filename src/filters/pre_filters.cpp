// Built-in pre-execution filters: decide early, and say why, when a repair is not worth trying.
#include <absl/strings/ascii.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "flowagent/filters.hpp"
#include "flowagent/host.hpp"

namespace flowagent {

namespace {

bool has_suffix(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Expected<std::optional<Abstention>> go_on() { return std::optional<Abstention>{}; }
Expected<std::optional<Abstention>> abstain(std::string reason, std::string message) {
  return std::optional<Abstention>(Abstention{std::move(reason), std::move(message)});
}

class BuildFailureFilter final : public PreFilter {
 public:
  std::string_view name() const override { return "build_failure"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    if (r.failure.kind == FailureKind::build)
      return abstain("build_failure", "the change fails to build; flowagent repairs failing tests only");
    return go_on();
  }
};

class AutomatedAuthorFilter final : public PreFilter {
 public:
  std::string_view name() const override { return "automated_author"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    const auto& a = r.change.author;
    if (a.kind == AuthorKind::bot) return abstain("automated_author", "the change was made by an automated account");
    const std::string name = absl::AsciiStrToLower(a.name), email = absl::AsciiStrToLower(a.email);
    static constexpr std::array<std::string_view, 8> kMarkers = {
        "[bot]", "dependabot", "renovate", "github-actions", "copybara", "autoroll", "-bot@", "greenkeeper"};
    for (auto m : kMarkers) {
      if (name.find(m) != std::string::npos || email.find(m) != std::string::npos)
        return abstain("automated_author", "the author \"" + a.name + "\" looks like an automated account");
    }
    if (has_suffix(name, " bot") || has_suffix(name, "-bot") || has_suffix(name, "_bot"))
      return abstain("automated_author", "the author \"" + a.name + "\" looks like an automated account");
    return go_on();
  }
};

class ChangeSizeFilter final : public PreFilter {
 public:
  std::string_view name() const override { return "change_too_large"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    const auto files = static_cast<std::int64_t>(r.change.files.size());
    std::int64_t lines = 0;
    for (const auto& f : r.change.files) lines += f.added + f.removed;
    if (files > r.limits.max_files)
      return abstain("change_too_large", "the change touches " + std::to_string(files) + " files (limit " +
                                             std::to_string(r.limits.max_files) + ")");
    if (lines > r.limits.max_changed_lines)
      return abstain("change_too_large", "the change has " + std::to_string(lines) + " changed lines (limit " +
                                             std::to_string(r.limits.max_changed_lines) + ")");
    return go_on();
  }
};

class BinaryFilesFilter final : public PreFilter {
 public:
  std::string_view name() const override { return "binary_files"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    static constexpr std::array<std::string_view, 16> kImage = {".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico",
                                                                ".webp", ".tif", ".tiff", ".psd", ".svgz", ".heic",
                                                                ".avif", ".pdf", ".zip", ".jar"};
    for (const auto& f : r.change.files) {
      const std::string p = absl::AsciiStrToLower(f.path);
      bool image = std::any_of(kImage.begin(), kImage.end(), [&](auto ext) { return has_suffix(p, ext); });
      if (f.binary || image)
        return abstain("binary_files", "the change touches the binary file " + f.path);
    }
    return go_on();
  }
};

class NewerRevisionFilter final : public PreFilter {
 public:
  explicit NewerRevisionFilter(std::shared_ptr<ChangeTracker> t) : tracker_(std::move(t)) {}
  std::string_view name() const override { return "newer_revision"; }
  Expected<std::optional<Abstention>> check(const RepairRequest& r, const CancelToken&) override {
    if (!tracker_) return go_on();
    auto st = tracker_->state(r.change);
    if (!st) return unexpected(st.error());
    if (st->submitted) return abstain("change_submitted", "the change was already submitted");
    if (st->abandoned) return abstain("change_abandoned", "the change was abandoned");
    if (st->current_revision > r.change.revision)
      return abstain("newer_revision", "revision " + std::to_string(st->current_revision) +
                                           " of the change is already uploaded");
    return go_on();
  }

 private:
  std::shared_ptr<ChangeTracker> tracker_;
};

}  // namespace

std::shared_ptr<PreFilter> make_build_failure_filter() { return std::make_shared<BuildFailureFilter>(); }
std::shared_ptr<PreFilter> make_automated_author_filter() { return std::make_shared<AutomatedAuthorFilter>(); }
std::shared_ptr<PreFilter> make_change_size_filter() { return std::make_shared<ChangeSizeFilter>(); }
std::shared_ptr<PreFilter> make_binary_files_filter() { return std::make_shared<BinaryFilesFilter>(); }
std::shared_ptr<PreFilter> make_newer_revision_filter(std::shared_ptr<ChangeTracker> tracker) {
  return std::make_shared<NewerRevisionFilter>(std::move(tracker));
}

}  // namespace flowagent
