// Test support: temp dirs, real git repositories, and simple policy doubles for pipeline tests.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "flowagent/flowagent.hpp"

namespace flowagent::testkit {

/// A unique directory under the system temp dir, removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Runs a shell command (sh -c) and returns its exit status; output is captured into *out.
int sh(const std::string& command, std::string* out = nullptr);

void write_file(const std::filesystem::path& p, std::string_view content);
std::string read_file(const std::filesystem::path& p);

/// Makes a git repository with an initial commit of `files` (path -> content). Returns HEAD.
std::string make_repo(const std::filesystem::path& dir,
                      const std::vector<std::pair<std::string, std::string>>& files);
/// Commits `files` on top of HEAD; returns the new HEAD.
std::string commit_files(const std::filesystem::path& dir,
                         const std::vector<std::pair<std::string, std::string>>& files,
                         const std::string& message);

/// The trajectory's notes of `name` ("validator", "overfitting", ...) whose output holds `needle`.
int count_notes(const RepairResult& r, const std::string& name, const std::string& needle);

/// Runs `fn` on a new thread whose stack is `stack_bytes` (a host's worker thread: an IDE's, a
/// JVM's) and waits for it. Throws std::runtime_error when the thread cannot be made.
void on_thread_with_stack(std::size_t stack_bytes, const std::function<void()>& fn);

/// The end-to-end tests' small pytest project: shop.py's price() looks a tier's rate up in RATES,
/// and the change ("Normalize tiers") lower-cases the tier, so test_shop.py::test_gold fails at
/// the head. `extra` files join the base commit. With `local_rates`, shop.py first imports RATES
/// from an optional, git-ignored local_rates.py (a developer's local override). `request` asks to
/// repair it with pytest and a scripted model ("openai-compatible:scripted"; the test sets
/// model.base_url).
struct ShopProject {
  explicit ShopProject(std::string change_id, std::vector<std::pair<std::string, std::string>> extra = {},
                       bool local_rates = false);
  TempDir tmp;
  std::filesystem::path repo = tmp.path() / "repo";
  RepairRequest request;
};

/// A minimal valid request for tests.
RepairRequest sample_request(const std::string& repo = "/nonexistent", const std::string& change_id = "c1",
                             std::int64_t revision = 1);

}  // namespace flowagent::testkit
