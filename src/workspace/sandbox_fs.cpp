#include "workspace/sandbox_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <random>

#include "flowagent/json.hpp"

namespace flowagent::detail {

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}
Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

namespace {

constexpr int kMaxSymlinks = 40;

unexpected<Error> sys_error(std::string_view what, std::string_view path, int err) {
  Errc code = err == ENOENT || err == ENOTDIR ? Errc::not_found : Errc::io;
  return fail(code, std::string(what) + " " + std::string(path) + ": " + std::strerror(err));
}

}  // namespace


bool looks_binary(std::string_view data) {
  if (data.substr(0, 8192).find('\0') != std::string_view::npos) return true;
  return !is_valid_utf8(data);
}

Expected<SandboxFs> SandboxFs::open(const std::filesystem::path& root) {
  int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return sys_error("cannot open workspace", root.string(), errno);
  return SandboxFs(root, Fd(fd));
}

Expected<std::vector<std::string>> SandboxFs::split(std::string_view rel) {
  if (rel.empty()) return fail(Errc::sandbox, "empty path");
  if (rel.find('\0') != std::string_view::npos) return fail(Errc::sandbox, "path contains a NUL byte");
  if (rel.front() == '/') return fail(Errc::sandbox, "absolute paths are not allowed: " + std::string(rel));
  if (rel.find('\\') != std::string_view::npos) return fail(Errc::sandbox, "backslashes are not allowed in paths");
  if (rel.size() > 4096) return fail(Errc::sandbox, "path too long");
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= rel.size()) {
    auto end = rel.find('/', start);
    auto part = rel.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part == "..") return fail(Errc::sandbox, "'..' is not allowed in paths: " + std::string(rel));
    if (is_git_name(part))
      return fail(Errc::sandbox, "git metadata is not accessible: " + std::string(rel) +
                                     " (paths with a .git component are refused)");
    if (!part.empty() && part != ".") parts.emplace_back(part);
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (parts.empty()) return std::vector<std::string>{};
  return parts;
}

// Walks `parts` from the root. Intermediate components must be directories (or in-root symlinks
// to directories). When follow_last is false the last component is opened O_PATH|O_NOFOLLOW.
static Expected<Fd> walk(int root_fd, std::vector<std::string> parts, bool follow_last, const std::string& shown,
                         int& symlinks) {
  std::vector<Fd> stack;  // directories from the root down; empty means "at the root"
  auto cur = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  std::size_t i = 0;
  while (i < parts.size()) {
    const std::string comp = parts[i];
    if (comp == "..") {
      if (stack.empty()) return fail(Errc::sandbox, "path leaves the workspace: " + shown);
      stack.pop_back();
      ++i;
      continue;
    }
    const bool last = i + 1 == parts.size();
    if (is_git_name(comp)) return fail(Errc::sandbox, "git metadata is not accessible (via " + shown + ")");
    int fd = ::openat(cur(), comp.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return sys_error("cannot open", shown, errno);
    Fd opened(fd);
    struct stat st;
    if (::fstat(opened.get(), &st) != 0) return sys_error("cannot stat", shown, errno);
    if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
      if (++symlinks > kMaxSymlinks) return fail(Errc::sandbox, "too many symlinks: " + shown);
      char buf[4096];
      ssize_t n = ::readlinkat(cur(), comp.c_str(), buf, sizeof buf - 1);
      if (n < 0) return sys_error("cannot read link", shown, errno);
      std::string target(buf, static_cast<std::size_t>(n));
      if (target.empty() || target.front() == '/')
        return fail(Errc::sandbox, "symlink " + comp + " points outside the workspace: " + shown);
      std::vector<std::string> expanded;
      std::size_t s = 0;
      while (s <= target.size()) {
        auto e = target.find('/', s);
        auto p = target.substr(s, e == std::string::npos ? std::string::npos : e - s);
        if (!p.empty() && p != ".") expanded.push_back(p);
        if (e == std::string::npos) break;
        s = e + 1;
      }
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(i));
      parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(i), expanded.begin(), expanded.end());
      continue;
    }
    if (last) return opened;
    if (!S_ISDIR(st.st_mode)) return fail(Errc::not_found, "not a directory in path: " + shown);
    int dfd = ::openat(cur(), comp.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return sys_error("cannot open", shown, errno);
    stack.emplace_back(dfd);
    ++i;
  }
  // Path resolved to a directory on the stack (or the root).
  int fd = ::openat(cur(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return sys_error("cannot open", shown, errno);
  return Fd(fd);
}

Expected<Fd> SandboxFs::resolve(std::string_view rel) const {
  auto parts = split(rel);
  if (!parts) return unexpected(parts.error());
  int symlinks = 0;
  return walk(root_fd_->get(), *parts, true, std::string(rel), symlinks);
}

Expected<std::pair<Fd, std::string>> SandboxFs::open_parent(std::string_view rel, bool create_dirs) const {
  auto parts = split(rel);
  if (!parts) return unexpected(parts.error());
  if (parts->empty()) return fail(Errc::sandbox, "path names the workspace root");
  std::string leaf = parts->back();
  parts->pop_back();
  if (create_dirs) {
    // Create missing folders one by one, each through a confined walk.
    std::vector<std::string> prefix;
    for (const auto& p : *parts) {
      prefix.push_back(p);
      int symlinks = 0;
      auto d = walk(root_fd_->get(), prefix, true, std::string(rel), symlinks);
      if (!d && d.error().code == Errc::not_found) {
        std::vector<std::string> up(prefix.begin(), prefix.end() - 1);
        int s2 = 0;
        auto parent = walk(root_fd_->get(), up, true, std::string(rel), s2);
        if (!parent) return unexpected(parent.error());
        int real = ::openat(parent->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (real < 0) return sys_error("cannot open", rel, errno);
        Fd realfd(real);
        if (::mkdirat(realfd.get(), p.c_str(), 0755) != 0 && errno != EEXIST)
          return sys_error("cannot create folder for", rel, errno);
      } else if (!d) {
        return unexpected(d.error());
      }
    }
  }
  int symlinks = 0;
  auto dir = walk(root_fd_->get(), *parts, true, std::string(rel), symlinks);
  if (!dir) return unexpected(dir.error());
  struct stat st;
  if (::fstat(dir->get(), &st) != 0 || !S_ISDIR(st.st_mode))
    return fail(Errc::not_found, "parent of " + std::string(rel) + " is not a directory");
  // Re-open as a real directory fd (O_PATH cannot be used for unlinkat/renameat on all kernels).
  int real = ::openat(dir->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (real < 0) return sys_error("cannot open folder of", rel, errno);
  return std::pair<Fd, std::string>(Fd(real), leaf);
}

Expected<std::string> SandboxFs::read(std::string_view rel, std::uint64_t max_bytes) const {
  auto fd = resolve(rel);
  if (!fd) return unexpected(fd.error());
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return sys_error("cannot stat", rel, errno);
  if (S_ISDIR(st.st_mode)) return fail(Errc::invalid_argument, std::string(rel) + " is a directory");
  if (!S_ISREG(st.st_mode)) return fail(Errc::sandbox, std::string(rel) + " is not a regular file");
  if (st.st_nlink > 1)
    return fail(Errc::sandbox, std::string(rel) + " has " + std::to_string(st.st_nlink) +
                                   " hard links; files with several links are not accessible");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return fail(Errc::invalid_argument, std::string(rel) + " is " + std::to_string(st.st_size) +
                                            " bytes, over the limit of " + std::to_string(max_bytes));
  // Re-open the very inode we checked for reading, via /proc (no path lookup can be raced).
  std::string proc = "/proc/self/fd/" + std::to_string(fd->get());
  int rfd = ::open(proc.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (rfd < 0) return sys_error("cannot read", rel, errno);
  Fd r(rfd);
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(r.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

Expected<void> SandboxFs::write(std::string_view rel, std::string_view content, bool create_dirs) const {
  auto parent = open_parent(rel, create_dirs);
  if (!parent) return unexpected(parent.error());
  auto& [dir, leaf] = *parent;
  mode_t mode = 0644;
  struct stat st;
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISDIR(st.st_mode)) return fail(Errc::invalid_argument, std::string(rel) + " is a directory");
    if (S_ISLNK(st.st_mode)) return fail(Errc::sandbox, std::string(rel) + " is a symlink; edit its target instead");
    if (!S_ISREG(st.st_mode)) return fail(Errc::sandbox, std::string(rel) + " is not a regular file");
    if (st.st_nlink > 1)
      return fail(Errc::sandbox, std::string(rel) + " has several hard links; files with several links are not accessible");
    mode = st.st_mode & 0777;  // never keeps set-id or sticky bits
  }
  std::random_device rd;
  const std::string tmp = ".flowagent-tmp-" + std::to_string(rd()) + "-" + leaf;
  int fd = ::openat(dir.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return sys_error("cannot write", rel, errno);
  Fd f(fd);
  std::size_t off = 0;
  while (off < content.size()) {
    ssize_t n = ::write(f.get(), content.data() + off, content.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::unlinkat(dir.get(), tmp.c_str(), 0);
      return sys_error("cannot write", rel, e);
    }
    off += static_cast<std::size_t>(n);
  }
  ::fchmod(f.get(), mode);
  if (::renameat(dir.get(), tmp.c_str(), dir.get(), leaf.c_str()) != 0) {
    int e = errno;
    ::unlinkat(dir.get(), tmp.c_str(), 0);
    return sys_error("cannot replace", rel, e);
  }
  return {};
}

Expected<void> SandboxFs::remove(std::string_view rel) const {
  auto parent = open_parent(rel, false);
  if (!parent) return unexpected(parent.error());
  auto& [dir, leaf] = *parent;
  struct stat st;
  if (::fstatat(dir.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return sys_error("cannot delete", rel, errno);
  if (S_ISDIR(st.st_mode)) return fail(Errc::invalid_argument, std::string(rel) + " is a directory; delete its files");
  if (::unlinkat(dir.get(), leaf.c_str(), 0) != 0) return sys_error("cannot delete", rel, errno);
  return {};
}

Expected<std::vector<DirEntry>> SandboxFs::list(std::string_view rel) const {
  Expected<Fd> fd = (rel.empty() || rel == ".") ? Expected<Fd>(Fd(::openat(root_fd_->get(), ".", O_PATH | O_DIRECTORY | O_CLOEXEC)))
                                                : resolve(rel);
  if (!fd) return unexpected(fd.error());
  int dfd = ::openat(fd->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return sys_error("cannot list", rel, errno);
  DIR* d = ::fdopendir(dfd);
  if (!d) {
    ::close(dfd);
    return sys_error("cannot list", rel, errno);
  }
  std::vector<DirEntry> out;
  while (auto* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == ".." || is_git_name(name)) continue;
    struct stat st;
    DirEntry de{name, '?', 0};
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      de.type = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : S_ISLNK(st.st_mode) ? 'l' : '?';
      de.size = static_cast<std::uint64_t>(st.st_size);
    }
    out.push_back(std::move(de));
  }
  ::closedir(d);
  return out;
}

Expected<struct stat> SandboxFs::stat(std::string_view rel) const {
  auto fd = resolve(rel);
  if (!fd) return unexpected(fd.error());
  struct stat st;
  if (::fstat(fd->get(), &st) != 0) return sys_error("cannot stat", rel, errno);
  return st;
}

}  // namespace flowagent::detail
