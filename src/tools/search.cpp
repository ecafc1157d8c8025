// search_code: parallel RE2 search over the files git considers part of the tree.
#include <fcntl.h>
#include <fnmatch.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include "flowagent/builtin_tools.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

struct Mapped {
  const char* data = nullptr;
  std::size_t size = 0;
  ~Mapped() {
    if (data && size) ::munmap(const_cast<char*>(data), size);
  }
};

bool glob_match(const std::string& glob, const std::string& path) {
  if (glob.empty()) return true;
  if (::fnmatch(glob.c_str(), path.c_str(), 0) == 0) return true;
  // "*.cc" also matches in sub-folders; compare against the base name.
  auto slash = path.rfind('/');
  if (glob.find('/') == std::string::npos && slash != std::string::npos)
    return ::fnmatch(glob.c_str(), path.c_str() + slash + 1, 0) == 0;
  return false;
}

bool has_git_component(const std::string& rel) {
  std::size_t s = 0;
  while (s <= rel.size()) {
    auto e = rel.find('/', s);
    if (detail::is_git_name(std::string_view(rel).substr(s, e == std::string::npos ? std::string::npos : e - s)))
      return true;
    if (e == std::string::npos) break;
    s = e + 1;
  }
  return false;
}

/// Opens `rel` for reading strictly beneath `root_fd`: no symlink (in the path or at its end) may
/// lead out of the tree, no magic links. -1 when refused or missing.
int open_beneath(int root_fd, const std::string& rel) {
  struct open_how how {};
  how.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS;
  long fd = ::syscall(SYS_openat2, root_fd, rel.c_str(), &how, sizeof how);
  if (fd >= 0 || errno != ENOSYS) return static_cast<int>(fd);
  // Kernels before 5.6: one component at a time, never following a symlink.
  int dir = ::openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  std::size_t s = 0;
  while (dir >= 0) {
    auto e = rel.find('/', s);
    const std::string comp = rel.substr(s, e == std::string::npos ? std::string::npos : e - s);
    const int flags = e == std::string::npos ? O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
                                             : O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW;
    const int next = comp == ".." ? -1 : ::openat(dir, comp.c_str(), flags);
    ::close(dir);
    if (e == std::string::npos) return next;
    dir = next;
    s = e + 1;
  }
  return -1;
}

void search_file(int root_fd, const std::string& rel, const RE2& re, int context, std::vector<SearchHit>& out,
                 std::size_t cap) {
  int fd = open_beneath(root_fd, rel);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink > 1 || st.st_size == 0 || st.st_size > (64 << 20)) {
    ::close(fd);
    return;
  }
  Mapped m;
  void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return;
  m.data = static_cast<const char*>(p);
  m.size = static_cast<std::size_t>(st.st_size);
  std::string_view all(m.data, m.size);
  if (all.substr(0, 8192).find('\0') != std::string_view::npos) return;  // binary
  re2::StringPiece whole(all.data(), all.size());
  if (!RE2::PartialMatch(whole, re)) return;
  // Walk the lines only for files that match somewhere.
  std::vector<std::string_view> recent;  // for "before" context
  std::size_t start = 0;
  int lineno = 0;
  std::vector<std::pair<std::size_t, int>> pending_after;  // index into out, lines still wanted
  while (start < all.size() && out.size() < cap) {
    auto end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view line = all.substr(start, end - start);
    ++lineno;
    for (auto& [idx, left] : pending_after)
      if (left > 0) {
        out[idx].after.emplace_back(line.substr(0, 400));
        --left;
      }
    if (RE2::PartialMatch(re2::StringPiece(line.data(), line.size()), re)) {
      SearchHit h{rel, lineno, std::string(line.substr(0, 400)), {}, {}};
      for (auto& b : recent) h.before.emplace_back(b.substr(0, 400));
      out.push_back(std::move(h));
      if (context > 0) pending_after.emplace_back(out.size() - 1, context);
    }
    if (context > 0) {
      recent.push_back(line);
      if (recent.size() > static_cast<std::size_t>(context)) recent.erase(recent.begin());
    }
    start = end + 1;
  }
}

}  // namespace

Expected<std::vector<SearchHit>> search_code(const std::filesystem::path& root, const SearchOptions& o,
                                             const CancelToken& cancel) {
  if (o.pattern.empty()) return fail(Errc::invalid_argument, "empty search pattern");
  RE2::Options ro;
  ro.set_literal(o.literal);
  ro.set_case_sensitive(!o.ignore_case);
  ro.set_log_errors(false);
  ro.set_max_mem(64 << 20);
  RE2 re(o.pattern, ro);
  if (!re.ok()) return fail(Errc::invalid_argument, "invalid regular expression: " + re.error());
  const detail::GitRepo repo = o.git_dir.empty() ? detail::GitRepo(root) : detail::GitRepo(o.git_dir, root);
  auto listing = detail::work_tree_files(repo, cancel);
  if (!listing) return unexpected(listing.error());
  std::vector<std::string> files;
  for (auto& f : *listing)
    if (!has_git_component(f) && glob_match(o.glob, f)) files.push_back(std::move(f));
  const int root_fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return fail(Errc::io, "cannot open " + root.string());
  const detail::Fd root_guard(root_fd);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min<int>(threads, static_cast<int>(std::max<std::size_t>(1, files.size() / 16)));
  std::vector<std::vector<SearchHit>> per_file(files.size());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> found{0};
  auto work = [&] {
    for (;;) {
      std::size_t i = next.fetch_add(1);
      if (i >= files.size() || cancel.cancelled() || found.load() >= o.max_results) return;
      search_file(root_fd, files[i], re, o.context, per_file[i], o.max_results);
      found += per_file[i].size();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  if (cancel.cancelled()) return fail(Errc::cancelled, "search cancelled");
  std::vector<SearchHit> hits;
  for (auto& v : per_file)
    for (auto& h : v) {
      if (hits.size() >= o.max_results) break;
      hits.push_back(std::move(h));
    }
  return hits;
}

}  // namespace flowagent
