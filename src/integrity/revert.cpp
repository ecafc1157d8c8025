// Revert detection and the post-filters of the trust layer.
#include <map>
#include <set>

#include "flowagent/integrity.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

struct DiffLines {
  std::multiset<std::pair<std::string, std::string>> added, removed;  // (path, text)
};

DiffLines diff_lines(const Patch& patch) {
  DiffLines d;
  for (const auto& f : patch.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.kind == ' ' || l.text.find_first_not_of(" \t") == std::string::npos) continue;
        (l.kind == '+' ? d.added : d.removed).emplace(f.path(), l.text);
      }
  return d;
}

bool zero_id(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

}  // namespace

RevertReport measure_revert(const Patch& change, const Patch& patch) {
  RevertReport r;
  const DiffLines ch = diff_lines(change), fix = diff_lines(patch);
  r.changed_lines = ch.added.size() + ch.removed.size();
  if (r.changed_lines == 0) return r;
  auto fix_removed = fix.removed, fix_added = fix.added;
  for (const auto& line : ch.added) {  // the developer added it, the fix removes it
    auto it = fix_removed.find(line);
    if (it == fix_removed.end()) continue;
    fix_removed.erase(it);
    ++r.reverted_lines;
    if (r.hunks.size() < 10) r.hunks.push_back(line.first + ": removes the change's \"" + line.second.substr(0, 80) + "\"");
  }
  for (const auto& line : ch.removed) {  // the developer removed it, the fix brings it back
    auto it = fix_added.find(line);
    if (it == fix_added.end()) continue;
    fix_added.erase(it);
    ++r.reverted_lines;
    if (r.hunks.size() < 10) r.hunks.push_back(line.first + ": restores \"" + line.second.substr(0, 80) + "\"");
  }
  r.share = static_cast<double>(r.reverted_lines) / static_cast<double>(r.changed_lines);
  return r;
}

Expected<std::vector<FileVersions>> file_versions_from_workspace(Workspace& ws, const Patch& patch) {
  // Both sides come from the object store by the ids the patch names: exactly what the patch holds,
  // whatever the working tree holds now. A side that cannot be read is an error, never "absent".
  auto read = [&](const std::string& id, const std::string& path) -> Expected<std::string> {
    const auto repo = detail::workspace_repo(ws);
    if (!id.empty() && !zero_id(id)) return detail::read_blob(repo, id);
    return detail::read_file_at(repo, ws.head_commit(), path);
  };
  std::vector<FileVersions> out;
  for (const auto& f : patch.files) {
    FileVersions v;
    v.path = f.path();
    if (f.status != PatchStatus::added) {
      auto before = read(f.old_blob, f.old_path);
      if (!before) return unexpected(with_context(before.error(), f.old_path + " at the change head"));
      v.before = std::move(*before);
    }
    if (f.status != PatchStatus::deleted) {
      if (f.new_blob.empty() || zero_id(f.new_blob)) {
        auto fs = detail::SandboxFs::open(ws.root());
        if (!fs) return unexpected(fs.error());
        auto after = fs->read(f.new_path, 64u << 20);
        if (!after) return unexpected(with_context(after.error(), f.new_path + " after the fix"));
        v.after = std::move(*after);
      } else {
        auto after = read(f.new_blob, "");
        if (!after) return unexpected(with_context(after.error(), f.new_path + " after the fix"));
        v.after = std::move(*after);
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

class IntegrityFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "test_integrity"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (!in.workspace)  // no file contents to compare: cannot vouch for the fix
      return std::optional<Rejection>(Rejection{"integrity_unverifiable",
                                                "the test-integrity guard has no workspace to read the touched files from",
                                                Status::rejected});
    auto files = file_versions_from_workspace(*in.workspace, in.patch);
    if (!files) return unexpected(files.error());
    IntegrityOptions o;
    o.failing_tests = in.request.failure.failing_tests;
    auto findings = check_test_integrity(*files, o);
    if (findings.empty()) return std::optional<Rejection>{};
    std::string msg;
    for (const auto& f : findings) {
      if (!msg.empty()) msg += "; ";
      msg += f.path + ":" + std::to_string(f.line) + " [" + f.rule + "] " + f.message;
    }
    return std::optional<Rejection>(Rejection{"integrity_" + findings.front().rule, msg, Status::rejected});
  }
};

class RevertFilter final : public PostFilter {
 public:
  explicit RevertFilter(double t) : threshold_(t) {}
  std::string_view name() const override { return "reverts_change"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (!in.change)  // the developer's change could not be read: cannot tell a revert from a fix
      return std::optional<Rejection>(Rejection{"reverts_change_unverifiable",
                                                "the developer's change could not be read, so reverting it cannot be ruled out",
                                                Status::rejected});
    auto r = measure_revert(*in.change, in.patch);
    if (r.changed_lines == 0 || r.share <= threshold_) return std::optional<Rejection>{};  // "most": more than the threshold
    std::string msg = "the fix reverts " + std::to_string(r.reverted_lines) + " of the " +
                      std::to_string(r.changed_lines) + " lines the change added or removed";
    for (const auto& h : r.hunks) msg += "; " + h;
    return std::optional<Rejection>(Rejection{"reverts_change", msg, Status::rejected});
  }

 private:
  double threshold_;
};

}  // namespace

std::shared_ptr<PostFilter> make_integrity_filter() { return std::make_shared<IntegrityFilter>(); }
std::shared_ptr<PostFilter> make_revert_filter(double threshold) { return std::make_shared<RevertFilter>(threshold); }

}  // namespace flowagent
