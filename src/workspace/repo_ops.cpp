// The named git operations of repo_ops.hpp, over the hardened runner.
#include "workspace/repo_ops.hpp"

#include <unistd.h>

#include <cstdio>
#include <list>
#include <mutex>
#include <sstream>
#include <unordered_map>

namespace flowagent::detail {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t s = 0;
  while (s < text.size()) {
    auto e = text.find(sep, s);
    if (e == std::string::npos) e = text.size();
    if (e > s) out.push_back(text.substr(s, e - s));
    s = e + 1;
  }
  return out;
}

/// A full object id (SHA-1 or SHA-256 hex): what it names never changes.
bool full_object_id(const std::string& rev) {
  return (rev.size() == 40 || rev.size() == 64) &&
         rev.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// Reads of immutable objects (a blob by id, a file or listing of a commit named by its full id),
/// kept for the process: a validation reads the same few files of the base and the head dozens of
/// times (the guard, the values checks, each checkout's patch), one git process each. The key is
/// content-addressed, so it holds across repositories and workspaces. Bounded by bytes (least
/// recently used out); errors are never kept. Thread-safe.
class ObjectReads {
 public:
  static ObjectReads& instance() {
    static ObjectReads* reads = new ObjectReads();  // (never destroyed: used from any thread at exit)
    return *reads;
  }

  std::optional<std::string> find(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = index_.find(key);
    if (it == index_.end()) return std::nullopt;
    lru_.splice(lru_.begin(), lru_, it->second);
    return it->second->second;
  }

  void keep(const std::string& key, const std::string& value) {
    const std::size_t size = key.size() + value.size();
    if (size > kMaxEntry) return;
    std::lock_guard lock(mu_);
    if (index_.count(key)) return;
    lru_.emplace_front(key, value);
    index_[key] = lru_.begin();
    bytes_ += size;
    while (bytes_ > kMaxBytes && !lru_.empty()) {
      auto& last = lru_.back();
      bytes_ -= last.first.size() + last.second.size();
      index_.erase(last.first);
      lru_.pop_back();
    }
  }

 private:
  static constexpr std::size_t kMaxBytes = 32u << 20, kMaxEntry = 2u << 20;
  std::mutex mu_;
  std::list<std::pair<std::string, std::string>> lru_;
  std::unordered_map<std::string, std::list<std::pair<std::string, std::string>>::iterator> index_;
  std::size_t bytes_ = 0;
};

/// `read()` through the object reads when `key` is not empty (an immutable object).
template <typename Read>
Expected<std::string> kept_read(const GitRepo& repo, const std::string& key, Read read) {
  if (key.empty()) return read();
  // (A call git would refuse is refused from the cache too.)
  if (auto allowed = discovery_allowed(repo); !allowed) return unexpected(allowed.error());
  if (auto hit = ObjectReads::instance().find(key)) return std::move(*hit);
  auto text = read();
  if (text) ObjectReads::instance().keep(key, *text);
  return text;
}

}  // namespace

Expected<std::string> resolve_commit(const GitRepo& repo, const std::string& rev) {
  auto sha = git(repo, {"rev-parse", "--verify", "--quiet", rev + "^{commit}"});
  if (!sha) return fail(Errc::not_found, rev + " is not a commit of " + repo.dir.string());
  return chomp(*sha);
}

Expected<fs::path> repository_top(const fs::path& dir) {
  auto top = git(dir, {"rev-parse", "--show-toplevel"});
  if (!top) return fail(Errc::not_found, dir.string() + " is not a git repository");
  return fs::path(chomp(*top));
}

Expected<std::string> read_blob(const GitRepo& repo, const std::string& id, const CancelToken& cancel) {
  return kept_read(repo, full_object_id(id) ? "blob " + id : std::string(),
                   [&] { return git(repo, {"cat-file", "blob", id}, cancel); });
}

Expected<std::string> read_file_at(const GitRepo& repo, const std::string& rev, const std::string& path,
                                   const CancelToken& cancel) {
  return kept_read(repo, full_object_id(rev) ? "show " + rev + ":" + path : std::string(),
                   [&] { return git(repo, {"show", rev + ":" + path}, cancel); });
}

Expected<CommitInfo> commit_info(const GitRepo& repo, const std::string& rev) {
  auto text = git(repo, {"log", "-1", "--format=%an%x1f%ae%x1f%B", rev});
  if (!text) return unexpected(text.error());
  CommitInfo info;
  const std::string s = chomp(*text);
  const auto a = s.find('\x1f');
  const auto b = a == std::string::npos ? a : s.find('\x1f', a + 1);
  if (b == std::string::npos) return fail(Errc::protocol, "git log printed no author for " + rev);
  info.author_name = s.substr(0, a);
  info.author_email = s.substr(a + 1, b - a - 1);
  info.message = s.substr(b + 1);
  return info;
}

Expected<std::vector<ChangedFile>> changed_files(const GitRepo& repo, const std::string& base, const std::string& head) {
  auto d = git(repo, {"diff", "--no-ext-diff", "--no-textconv", "--no-renames", "-z", "--numstat", base, head});
  if (!d) return unexpected(d.error());
  std::vector<ChangedFile> out;
  // -z: "added<TAB>removed<TAB>path<NUL>" per file (no quoting of unusual names).
  for (const auto& rec : split(*d, '\0')) {
    const auto t1 = rec.find('\t');
    const auto t2 = t1 == std::string::npos ? t1 : rec.find('\t', t1 + 1);
    if (t2 == std::string::npos) continue;
    ChangedFile f;
    const std::string added = rec.substr(0, t1), removed = rec.substr(t1 + 1, t2 - t1 - 1);
    f.path = rec.substr(t2 + 1);
    f.binary = added == "-";
    if (!f.binary) {
      f.added = std::stoll(added);
      f.removed = std::stoll(removed);
    }
    out.push_back(std::move(f));
  }
  return out;
}

Expected<std::string> commit_patch(const GitRepo& repo, const std::string& base, const fs::path& patch_file,
                                   const std::string& message) {
  char tmpl[] = "/tmp/flowagent-index-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) return fail(Errc::io, "cannot create a temporary index");
  ::close(fd);
  const std::string index = tmpl;
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::remove(path.c_str()); }
  } cleanup{index};
  GitRepo r = repo;
  r.env = {{"GIT_INDEX_FILE", index},          {"GIT_AUTHOR_NAME", "flowagent"},
           {"GIT_AUTHOR_EMAIL", "flowagent@localhost"}, {"GIT_COMMITTER_NAME", "flowagent"},
           {"GIT_COMMITTER_EMAIL", "flowagent@localhost"}};
  auto run = [&](const std::vector<std::string>& args) -> Expected<std::string> {
    auto res = git_result(r, args);
    if (!res) return unexpected(res.error());
    if (res->exit_code != 0) return fail(Errc::conflict, "git " + args[0] + ": " + res->output);
    return chomp(res->output);
  };
  auto step = run({"read-tree", base});
  if (step) step = run({"apply", "--cached", "--whitespace=nowarn", patch_file.string()});
  if (step) step = run({"write-tree"});
  if (!step) return unexpected(step.error());
  return run({"commit-tree", *step, "-p", base, "-m", message});
}

Expected<bool> patch_applies(const fs::path& root, const fs::path& patch_file) {
  auto check = git_result(root, {"apply", "--check", patch_file.string()});
  if (!check) return unexpected(check.error());
  return check->exit_code == 0;
}

Expected<void> apply_patch(const fs::path& root, const fs::path& patch_file) {
  if (auto r = git(root, {"apply", patch_file.string()}); !r) return unexpected(r.error());
  return {};
}

Expected<std::optional<std::string>> merge_file(const fs::path& root, const fs::path& ours, const fs::path& base,
                                                const fs::path& theirs) {
  auto merged = git_result(root, {"merge-file", "-p", "--quiet", ours.string(), base.string(), theirs.string()});
  if (!merged) return unexpected(merged.error());
  if (merged->exit_code != 0) return std::optional<std::string>();
  return std::optional<std::string>(merged->output);
}

Expected<std::vector<std::string>> tracked_files(const GitRepo& repo, const std::string& pattern, const CancelToken& cancel) {
  auto listing = git(repo, {"ls-files", "-z", "--", pattern}, cancel);
  if (!listing) return unexpected(listing.error());
  return split(*listing, '\0');
}

Expected<std::vector<std::string>> work_tree_files(const GitRepo& repo, const CancelToken& cancel) {
  auto listing = git(repo, {"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, cancel);
  if (!listing) return unexpected(listing.error());
  return split(*listing, '\0');
}

Expected<std::vector<std::string>> commit_files(const GitRepo& repo, const std::string& rev, const CancelToken& cancel) {
  auto listing = kept_read(repo, full_object_id(rev) ? "ls-tree " + rev : std::string(),
                           [&] { return git(repo, {"ls-tree", "-r", "-z", "--name-only", rev}, cancel); });
  if (!listing) return unexpected(listing.error());
  return split(*listing, '\0');
}

Expected<std::vector<std::string>> files_containing(const GitRepo& repo, const std::string& rev,
                                                    const std::vector<std::string>& needles, const CancelToken& cancel) {
  if (needles.empty()) return std::vector<std::string>();
  std::vector<std::string> args{"grep", "-z", "-l", "-F"};
  for (const auto& n : needles) {
    args.push_back("-e");
    args.push_back(n);
  }
  args.push_back(rev);
  auto found = git_result(repo, args, cancel);
  if (!found) return unexpected(found.error());
  if (found->exit_code > 1) return fail(Errc::process, "git grep failed: " + found->output);
  std::vector<std::string> out;
  // "rev:path" per match.
  for (auto& hit : split(found->output, '\0'))
    if (hit.rfind(rev + ":", 0) == 0) out.push_back(hit.substr(rev.size() + 1));
  return out;
}

}  // namespace flowagent::detail
