// search_code: parallel RE2 search over the files git considers part of the tree.
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "flowagent/builtin_tools.hpp"
#include "workspace/git.hpp"

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

void search_file(const std::filesystem::path& root, const std::string& rel, const RE2& re, int context,
                 std::vector<SearchHit>& out, std::size_t cap) {
  int fd = ::open((root / rel).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return;
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0 || st.st_size > (64 << 20)) {
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
  auto listing = detail::git(root, {"ls-files", "-z", "--cached", "--others", "--exclude-standard"}, cancel);
  if (!listing) return unexpected(listing.error());
  std::vector<std::string> files;
  std::string_view l = *listing;
  std::size_t s = 0;
  while (s < l.size()) {
    auto e = l.find('\0', s);
    if (e == std::string_view::npos) e = l.size();
    std::string f(l.substr(s, e - s));
    if (!f.empty() && glob_match(o.glob, f)) files.push_back(std::move(f));
    s = e + 1;
  }
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
      search_file(root, files[i], re, o.context, per_file[i], o.max_results);
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
