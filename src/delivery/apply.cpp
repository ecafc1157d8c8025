// Applying a fix to a working tree that moved on: git apply when it still fits, else a per-file
// three-way merge (git merge-file) computed completely before anything is written.
#include <unistd.h>

#include <fstream>
#include <optional>
#include <map>
#include <sstream>

#include "flowagent/delivery.hpp"
#include "workspace/git.hpp"

namespace flowagent {

namespace fs = std::filesystem;

namespace {

struct FilePatch {
  std::string path;
  std::string old_blob, new_blob;
  bool new_file = false, deleted = false;
};

std::vector<FilePatch> file_patches(const std::string& patch) {
  std::vector<FilePatch> out;
  std::istringstream in(patch);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("diff --git ", 0) == 0) {
      FilePatch f;
      f.path = line.substr(line.rfind(" b/") + 3);
      out.push_back(f);
    } else if (!out.empty() && line.rfind("index ", 0) == 0) {
      auto dots = line.find("..");
      auto sp = line.find(' ', dots);
      out.back().old_blob = line.substr(6, dots - 6);
      out.back().new_blob = line.substr(dots + 2, sp == std::string::npos ? std::string::npos : sp - dots - 2);
    } else if (!out.empty() && line.rfind("new file mode", 0) == 0) {
      out.back().new_file = true;
    } else if (!out.empty() && line.rfind("deleted file mode", 0) == 0) {
      out.back().deleted = true;
    }
  }
  return out;
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
  if (result.patch.empty()) return fail(Errc::invalid_argument, "the result has no patch to apply");
  std::error_code ec;
  const fs::path repo = fs::canonical(repo_in, ec);
  if (ec) return fail(Errc::not_found, "repository " + repo_in.string() + " does not exist");
  auto top = detail::git(repo, {"rev-parse", "--show-toplevel"});
  if (!top) return fail(Errc::not_found, repo.string() + " is not a git repository");
  const fs::path root = detail::chomp(*top);

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
  if (!write_all(tmp / "fix.diff", result.patch)) return fail(Errc::io, "cannot write the patch");

  ApplyReport report;
  for (const auto& f : file_patches(result.patch)) report.files.push_back(f.path);
  // 1. The patch still applies as it is.
  auto check = detail::git_result(root, {"apply", "--check", (tmp / "fix.diff").string()});
  if (!check) return unexpected(check.error());
  if (check->exit_code == 0) {
    if (auto r = detail::git(root, {"apply", (tmp / "fix.diff").string()}); !r) return unexpected(r.error());
    report.applied = true;
    report.message = "applied cleanly";
    return report;
  }
  // 2. Three-way merge per file, all computed before anything is written.
  std::map<fs::path, std::optional<std::string>> writes;  // nullopt: delete
  std::vector<std::string> conflicts;
  for (const auto& f : file_patches(result.patch)) {
    if (f.old_blob.empty() || f.new_blob.empty())
      return fail(Errc::conflict, f.path + ": the patch has no blob ids (not made with --full-index); cannot merge");
    auto blob = [&](const std::string& id) -> Expected<std::string> {
      if (zero_blob(id)) return std::string();
      return detail::git(root, {"cat-file", "blob", id});
    };
    auto base = blob(f.old_blob);
    auto theirs = blob(f.new_blob);
    if (!base || !theirs)
      return fail(Errc::conflict, f.path + ": the fix's objects are not in this repository (fetch " +
                                      result.head_commit.substr(0, 12) + " first); the tree was not changed");
    const fs::path target = root / f.path;
    auto ours = read_all(target);
    if (f.new_file) {
      if (ours && *ours != *theirs) conflicts.push_back(f.path + " (already exists)");
      else writes[target] = *theirs;
      continue;
    }
    if (!ours) {
      conflicts.push_back(f.path + " (deleted in the working tree)");
      continue;
    }
    if (f.deleted) {
      if (*ours != *base) conflicts.push_back(f.path + " (changed since; the fix deletes it)");
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
    auto merged = detail::git_result(root, {"merge-file", "-p", "--quiet", (tmp / ("ours" + id)).string(),
                                            (tmp / ("base" + id)).string(), (tmp / ("theirs" + id)).string()});
    if (!merged) return unexpected(merged.error());
    if (merged->exit_code != 0) conflicts.push_back(f.path);
    else writes[target] = merged->output;
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
  }
  report.applied = true;
  report.three_way = true;
  report.message = "merged three-way into a working tree that had moved on";
  return report;
}

}  // namespace flowagent
