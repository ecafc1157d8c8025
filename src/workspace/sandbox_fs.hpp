// Internal: race-free file access confined to a workspace root.
//
// Paths are workspace-relative. Every lookup walks the path one component at a time with
// openat(O_NOFOLLOW) from a descriptor of the root, so a symlink (or a symlinked parent folder)
// swapped in between a check and the use cannot redirect it. Symlinks are followed only when
// their target, resolved the same way, stays inside the root; absolute targets, `..` above the
// root, device files, FIFOs and sockets are refused with Errc::sandbox.
// Git metadata is out of reach: every path with a component that names `.git` (any case, with
// trailing dots or spaces, with Unicode code points HFS+ ignores, or the 8.3 name `git~1`) is
// refused, whether it comes from the caller or from a symlink's target, and list() never shows
// one. Files with more than one hard link are refused too (a hard link made by test code could
// reach a file outside the workspace), and the only things a write creates are regular files
// (temp file + rename, never following or writing through a link) and directories.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/git_names.hpp"
#include "flowagent/error.hpp"

namespace flowagent::detail {

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct DirEntry {
  std::string name;
  char type;  ///< 'f' file, 'd' directory, 'l' symlink, '?' other
  std::uint64_t size;
};

class SandboxFs {
 public:
  /// Opens the root. Errc::io when it is not a directory.
  static Expected<SandboxFs> open(const std::filesystem::path& root);

  /// Normalises a model-supplied path: refuses empty, absolute, NUL, `..` components,
  /// backslashes and `.git` components (is_git_name); drops `.` and empty components. Returns the
  /// components.
  static Expected<std::vector<std::string>> split(std::string_view rel);

  /// Reads a regular file (at most max_bytes; Errc::invalid_argument when larger).
  Expected<std::string> read(std::string_view rel, std::uint64_t max_bytes) const;
  /// Replaces (or creates) a regular file atomically (temp file + rename), keeping its mode.
  /// create_dirs: missing parent folders are created.
  Expected<void> write(std::string_view rel, std::string_view content, bool create_dirs = true) const;
  /// Removes a regular file or symlink (never follows it). Directories are refused.
  Expected<void> remove(std::string_view rel) const;
  /// Lists a directory (entries named like `.git` are left out).
  Expected<std::vector<DirEntry>> list(std::string_view rel) const;
  /// stat() of the resolved path.
  Expected<struct stat> stat(std::string_view rel) const;
  bool exists(std::string_view rel) const { return stat(rel).has_value(); }

  const std::filesystem::path& root() const { return root_; }

 private:
  SandboxFs(std::filesystem::path root, Fd fd) : root_(std::move(root)), root_fd_(std::make_shared<Fd>(std::move(fd))) {}
  /// Opens the directory holding the last component; returns it and the leaf name.
  Expected<std::pair<Fd, std::string>> open_parent(std::string_view rel, bool create_dirs) const;
  /// Resolves the full path to an O_PATH descriptor (following in-root symlinks).
  Expected<Fd> resolve(std::string_view rel) const;

  std::filesystem::path root_;
  std::shared_ptr<Fd> root_fd_;
};

// is_git_name(): core/git_names.hpp (one rule for the tools, search and the patch check).

/// True when the bytes look binary: a NUL byte in the first 8 KiB, or not UTF-8.
bool looks_binary(std::string_view data);

}  // namespace flowagent::detail
