#include "support/test_support.hpp"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace flowagent::testkit {

TempDir::TempDir() {
  std::random_device rd;
  for (int i = 0; i < 100; ++i) {
    auto p = std::filesystem::temp_directory_path() /
             ("flowagent-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::error_code ec;
    if (std::filesystem::create_directory(p, ec)) {
      path_ = std::filesystem::canonical(p);
      return;
    }
  }
  throw std::runtime_error("cannot create a temp dir");
}

TempDir::~TempDir() {
  std::error_code ec;
  // Make everything writable first (tests create read-only files).
  sh("chmod -R u+rwX '" + path_.string() + "' 2>/dev/null");
  std::filesystem::remove_all(path_, ec);
}

int sh(const std::string& command, std::string* out) {
  std::string cmd = command + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf{};
  std::string text;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) text.append(buf.data(), n);
  int status = ::pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write_file(const std::filesystem::path& p, std::string_view content) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(content.data(), static_cast<std::streamsize>(content.size()));
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

static std::string git(const std::filesystem::path& dir, const std::string& args) {
  std::string out;
  int rc = sh("git -C '" + dir.string() + "' -c user.name=Dev -c user.email=dev@example.com " + args, &out);
  if (rc != 0) throw std::runtime_error("git " + args + " failed: " + out);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string make_repo(const std::filesystem::path& dir,
                      const std::vector<std::pair<std::string, std::string>>& files) {
  std::filesystem::create_directories(dir);
  git(dir, "init -q -b main");
  return commit_files(dir, files, "initial");
}

std::string commit_files(const std::filesystem::path& dir,
                         const std::vector<std::pair<std::string, std::string>>& files,
                         const std::string& message) {
  for (const auto& [path, content] : files) write_file(dir / path, content);
  git(dir, "add -A");
  git(dir, "commit -q --allow-empty -m '" + message + "'");
  return git(dir, "rev-parse HEAD");
}

RepairRequest sample_request(const std::string& repo, const std::string& change_id, std::int64_t revision) {
  RepairRequest r;
  r.repository = repo;
  r.change.id = change_id;
  r.change.revision = revision;
  r.change.base_commit = "base";
  r.change.head_commit = "head";
  r.change.description = "Make parse() strict";
  r.change.author = {"Dev", "dev@example.com", AuthorKind::person};
  r.change.files = {{"src/a.cc", 10, 2, false}};
  r.failure.failing_tests = {"ParseTest.Strict"};
  r.commands.test = "ctest -R {tests}";
  r.model.spec = "";
  return r;
}

int count_notes(const RepairResult& r, const std::string& name, const std::string& needle) {
  int n = 0;
  for (const auto& s : r.trajectory)
    if (s.kind == "note" && s.name == name && s.output.find(needle) != std::string::npos) ++n;
  return n;
}

ShopProject::ShopProject(std::string change_id, std::vector<std::pair<std::string, std::string>> extra, bool local_rates) {
  const std::string rates = local_rates ? "try:\n    from local_rates import RATES\nexcept ImportError:\n    RATES = {\"GOLD\": 0.2}\n\n\n"
                                        : "RATES = {\"GOLD\": 0.2}\n\n\n";
  auto shop = [&](const std::string& tier) {
    return rates + "def price(amount, tier):\n    rate = RATES.get(" + tier + ", 0)\n    return amount * (1 - rate)\n";
  };
  std::vector<std::pair<std::string, std::string>> files = {
      {"shop.py", shop("tier")},
      {"test_shop.py", "from shop import price\n\n\ndef test_gold():\n    assert price(250, \"GOLD\") == 200\n"},
      {".gitignore", local_rates ? "__pycache__/\nlocal_rates.py\n" : "__pycache__/\n"}};
  for (auto& f : extra) files.push_back(std::move(f));
  const std::string base = make_repo(repo, files);
  const std::string head = commit_files(repo, {{"shop.py", shop("tier.lower()")}}, "Normalize tiers");
  auto& r = request;
  r.repository = repo.string();
  r.change.id = std::move(change_id);
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.change.author = {"Dev", "dev@example.com", AuthorKind::person};
  r.failure.failing_tests = {"test_shop.py::test_gold"};
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.commands.timeout_seconds = 120;
  r.model.spec = "openai-compatible:scripted";
}

void on_thread_with_stack(std::size_t stack_bytes, const std::function<void()>& fn) {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) throw std::runtime_error("pthread_attr_init failed");
  pthread_t t;
  const bool ok = pthread_attr_setstacksize(&attr, stack_bytes) == 0 &&
                  pthread_create(
                      &t, &attr,
                      [](void* p) -> void* {
                        (*static_cast<const std::function<void()>*>(p))();
                        return nullptr;
                      },
                      const_cast<std::function<void()>*>(&fn)) == 0;
  pthread_attr_destroy(&attr);
  if (!ok) throw std::runtime_error("no thread with that stack size");
  pthread_join(t, nullptr);
}

}  // namespace flowagent::testkit
