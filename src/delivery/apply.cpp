// Applying a fix to a working tree that moved on: git apply when it still fits, else a per-file
// three-way merge (git merge-file) computed completely before anything is written.
#include <unistd.h>

#include <fstream>
#include <optional>
#include <map>
#include <sstream>
#include <vector>

#include "flowagent/delivery.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent {

namespace fs = std::filesystem;

namespace {

/// Refuses a target that is not a regular file or that is reached through a symbolic link (the
/// patch's paths are already checked to stay inside the tree; this covers the working tree's own
/// links). Nothing is written before every target passed.
Expected<void> check_target(const fs::path& root, const std::string& rel) {
  fs::path cur = root;
  std::size_t pos = 0;
  while (true) {
    auto slash = rel.find('/', pos);
    cur /= rel.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    std::error_code ec;
    auto st = fs::symlink_status(cur, ec);
    if (ec || !fs::exists(st)) return {};  // the rest does not exist yet: created as plain folders and a file
    if (fs::is_symlink(st))
      return fail(Errc::sandbox, rel + ": " + cur.lexically_relative(root).string() +
                                     " is a symbolic link in the working tree; the fix is not written through it");
    if (slash == std::string::npos) {
      if (!fs::is_regular_file(st)) return fail(Errc::sandbox, rel + ": not a regular file in the working tree");
      return {};
    }
    if (!fs::is_directory(st)) return fail(Errc::conflict, rel + ": " + cur.lexically_relative(root).string() + " is not a folder");
    pos = slash + 1;
  }
}

bool zero_blob(const std::string& b) { return b.find_first_not_of('0') == std::string::npos; }

std::optional<std::string> read_all(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool write_all(const fs::path& p, const std::string& s) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << s;
  return static_cast<bool>(f);
}

}  // namespace

Expected<ApplyReport> apply_fix(const fs::path& repo_in, const RepairResult& result) {
  auto patch = deliverable_patch(result);  // fixed results only; regular files inside the tree only
  if (!patch) return unexpected(patch.error());
  std::error_code ec;
  const fs::path repo = fs::canonical(repo_in, ec);
  if (ec) return fail(Errc::not_found, "repository " + repo_in.string() + " does not exist");
  auto top = detail::repository_top(repo);
  if (!top) return unexpected(top.error());
  const fs::path root = *top;
  for (const auto& f : patch->files) {
    for (const auto* p : {&f.old_path, &f.new_path})
      if (auto ok = check_target(root, *p); !ok) return unexpected(ok.error());
  }

  char tmpl[] = "/tmp/flowagent-apply-XXXXXX";
  if (!::mkdtemp(tmpl)) return fail(Errc::io, "cannot create a temporary folder");
  const fs::path tmp = tmpl;
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } cleanup{tmp};
  // git applies the canonical text of the checked value, not the text the result document held.
  if (!write_all(tmp / "fix.diff", patch->text)) return fail(Errc::io, "cannot write the patch");

  ApplyReport report;
  for (const auto& f : patch->files) report.files.push_back(f.path());
  // 1. The patch still applies as it is.
  auto check = detail::patch_applies(root, tmp / "fix.diff");
  if (!check) return unexpected(check.error());
  if (*check) {
    if (auto r = detail::apply_patch(root, tmp / "fix.diff"); !r) return unexpected(r.error());
    report.applied = true;
    report.message = "applied cleanly";
    return report;
  }
  // 2. Three-way merge per file, all computed before anything is written.
  std::map<fs::path, std::optional<std::string>> writes;  // nullopt: delete
  std::map<fs::path, bool> executable;
  std::vector<std::string> conflicts;
  for (const auto& f : patch->files) {
    if (f.old_blob.empty() || f.new_blob.empty())
      return fail(Errc::conflict, f.path() + ": the patch has no blob ids (not made with --full-index); cannot merge");
    auto blob = [&](const std::string& id) -> Expected<std::string> {
      if (zero_blob(id)) return std::string();
      return detail::read_blob(root, id);
    };
    auto base = blob(f.old_blob);
    auto theirs = blob(f.new_blob);
    if (!base || !theirs)
      return fail(Errc::conflict, f.path() + ": the fix's objects are not in this repository (fetch " +
                                      result.head_commit.substr(0, 12) + " first); the tree was not changed");
    if (f.status == PatchStatus::renamed) {  // the old name goes, the new one is merged from the old file
      const fs::path from = root / f.old_path;
      auto ours_old = read_all(from);
      if (!ours_old) {
        conflicts.push_back(f.old_path + " (deleted in the working tree)");
        continue;
      }
      writes[from] = std::nullopt;
    }
    const fs::path target = root / f.path();
    executable[target] = f.new_mode == kModeExecutable;
    auto ours = read_all(f.status == PatchStatus::renamed ? root / f.old_path : target);
    if (f.status == PatchStatus::added) {
      if (ours && *ours != *theirs) conflicts.push_back(f.path() + " (already exists)");
      else writes[target] = *theirs;
      continue;
    }
    if (!ours) {
      conflicts.push_back(f.path() + " (deleted in the working tree)");
      continue;
    }
    if (f.status == PatchStatus::deleted) {
      if (*ours != *base) conflicts.push_back(f.path() + " (changed since; the fix deletes it)");
      else writes[target] = std::nullopt;
      continue;
    }
    if (*ours == *base || *ours == *theirs) {
      writes[target] = *theirs;
      continue;
    }
    const auto id = std::to_string(writes.size() + conflicts.size());
    write_all(tmp / ("ours" + id), *ours);
    write_all(tmp / ("base" + id), *base);
    write_all(tmp / ("theirs" + id), *theirs);
    auto merged = detail::merge_file(root, tmp / ("ours" + id), tmp / ("base" + id), tmp / ("theirs" + id));
    if (!merged) return unexpected(merged.error());
    if (!*merged) conflicts.push_back(f.path());
    else writes[target] = **merged;
  }
  if (!conflicts.empty()) {
    std::string list;
    for (const auto& c : conflicts) list += (list.empty() ? "" : ", ") + c;
    return fail(Errc::conflict, "the fix conflicts with changes in the working tree: " + list +
                                    "; nothing was changed");
  }
  for (const auto& [path, content] : writes) {
    if (!content) {
      fs::remove(path, ec);
      continue;
    }
    fs::create_directories(path.parent_path(), ec);
    if (!write_all(path, *content)) return fail(Errc::io, "cannot write " + path.string());
    if (executable[path])
      fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add, ec);
  }
  report.applied = true;
  report.three_way = true;
  report.message = "merged three-way into a working tree that had moved on";
  return report;
}

}  // namespace flowagent
