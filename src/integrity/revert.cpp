// Revert detection and the post-filters of the trust layer.
#include <map>
#include <set>

#include "flowagent/integrity.hpp"
#include "workspace/git.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

struct DiffLines {
  std::multiset<std::pair<std::string, std::string>> added, removed;  // (path, text)
};

DiffLines diff_lines(std::string_view diff) {
  DiffLines d;
  std::string path;
  std::size_t pos = 0;
  bool in_hunk = false;
  while (pos < diff.size()) {
    auto eol = diff.find('\n', pos);
    std::string_view l = diff.substr(pos, (eol == std::string_view::npos ? diff.size() : eol) - pos);
    pos = eol == std::string_view::npos ? diff.size() : eol + 1;
    if (l.substr(0, 11) == "diff --git ") {
      path = std::string(l.substr(l.rfind(" b/") + 3));
      in_hunk = false;
    } else if (l.substr(0, 2) == "@@") {
      in_hunk = true;
    } else if (in_hunk && !l.empty() && l[0] == '+') {
      std::string text(l.substr(1));
      if (text.find_first_not_of(" \t") != std::string::npos) d.added.emplace(path, text);
    } else if (in_hunk && !l.empty() && l[0] == '-') {
      std::string text(l.substr(1));
      if (text.find_first_not_of(" \t") != std::string::npos) d.removed.emplace(path, text);
    }
  }
  return d;
}

}  // namespace

RevertReport measure_revert(std::string_view change_diff, std::string_view patch) {
  RevertReport r;
  const DiffLines change = diff_lines(change_diff), fix = diff_lines(patch);
  r.changed_lines = change.added.size() + change.removed.size();
  if (r.changed_lines == 0) return r;
  auto fix_removed = fix.removed, fix_added = fix.added;
  for (const auto& line : change.added) {  // the developer added it, the fix removes it
    auto it = fix_removed.find(line);
    if (it == fix_removed.end()) continue;
    fix_removed.erase(it);
    ++r.reverted_lines;
    if (r.hunks.size() < 10) r.hunks.push_back(line.first + ": removes the change's \"" + line.second.substr(0, 80) + "\"");
  }
  for (const auto& line : change.removed) {  // the developer removed it, the fix brings it back
    auto it = fix_added.find(line);
    if (it == fix_added.end()) continue;
    fix_added.erase(it);
    ++r.reverted_lines;
    if (r.hunks.size() < 10) r.hunks.push_back(line.first + ": restores \"" + line.second.substr(0, 80) + "\"");
  }
  r.share = static_cast<double>(r.reverted_lines) / static_cast<double>(r.changed_lines);
  return r;
}

Expected<std::vector<FileVersions>> file_versions_from_workspace(Workspace& ws, std::string_view patch) {
  std::vector<FileVersions> out;
  std::set<std::string> seen;
  auto fs = detail::SandboxFs::open(ws.root());
  if (!fs) return unexpected(fs.error());
  std::size_t pos = 0;
  while ((pos = patch.find("diff --git a/", pos)) != std::string_view::npos) {
    auto eol = patch.find('\n', pos);
    std::string_view header = patch.substr(pos, eol - pos);
    pos = eol;
    auto b = header.rfind(" b/");
    std::string path(header.substr(b + 3));
    std::string old_path(header.substr(13, b - 13));
    if (!seen.insert(path).second) continue;
    FileVersions v;
    v.path = path;
    auto before = detail::git(detail::workspace_repo(ws), {"show", "--no-textconv", ws.head_commit() + ":" + old_path});
    if (before) v.before = std::move(*before);
    auto after = fs->read(path, 64u << 20);
    if (after) v.after = std::move(*after);
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

class IntegrityFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "test_integrity"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (!in.workspace) return std::optional<Rejection>{};
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
    if (in.change_diff.empty()) return std::optional<Rejection>{};
    auto r = measure_revert(in.change_diff, in.patch);
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
