// Agent::create builds only the policies the host left empty, and host pre-filters add to the
// built-in ones.
#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

#include "flowagent/flowagent.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

class NoWorkspaces final : public WorkspaceProvider {
 public:
  std::string_view name() const override { return "host_workspaces"; }
  Expected<std::unique_ptr<Workspace>> acquire(const RepairRequest&, const CancelToken&) override {
    return fail(Errc::unsupported, "the host's provider has no workspaces");
  }
};

class CountingFilter final : public PreFilter {
 public:
  explicit CountingFilter(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Expected<std::optional<Abstention>> check(const RepairRequest&, const CancelToken&) override {
    ++calls;
    return std::optional<Abstention>();
  }
  std::atomic<int> calls{0};

 private:
  std::string name_;
};

/// A stale workspace as a crashed process leaves it under the default root of $TMPDIR.
fs::path plant_stale_workspace(const fs::path& tmpdir) {
  const fs::path repo_dir = tmpdir / ("flowagent-" + std::to_string(::getuid())) / "workspaces" / "r1";
  fs::create_directories(repo_dir / "wt-1");
  write_file(repo_dir / "wt-1.lock", "");
  write_file(repo_dir / "wt-1" / "file.txt", "left over\n");
  return repo_dir / "wt-1";
}

RepairRequest flaky_request() {
  RepairRequest r;
  r.repository = "/nonexistent";
  r.change.id = "c1";
  r.change.base_commit = "a";
  r.change.head_commit = "b";
  r.failure.failing_tests = {"T.flaky"};
  return r;
}

}  // namespace

TEST(AgentPolicies, NoDefaultWorkspaceProviderWhenTheHostBringsOne) {
  TempDir tmp;
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old ? old : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  const fs::path stale = plant_stale_workspace(tmp.path());
  {
    AgentOptions o;
    o.workspaces = std::make_shared<NoWorkspaces>();
    auto agent = Agent::create(std::move(o));
    ASSERT_TRUE(agent);
    EXPECT_EQ((*agent)->options().workspaces->name(), "host_workspaces");
    EXPECT_TRUE(fs::exists(stale)) << "a default provider was built and pruned the default root";
  }
  {
    auto agent = Agent::create(AgentOptions{});  // the default provider prunes what crashed runs left
    ASSERT_TRUE(agent);
    EXPECT_FALSE(fs::exists(stale));
  }
  if (old) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

TEST(AgentPolicies, HostPreFiltersAddToTheBuiltInOnes) {
  auto host = std::make_shared<CountingFilter>("host_policy");
  AgentOptions o;
  o.pre_filters = {host};
  o.known_flaky_tests = {"T.flaky"};
  auto agent = Agent::create(std::move(o));
  ASSERT_TRUE(agent);
  std::vector<std::string> names;
  for (const auto& f : (*agent)->options().pre_filters) names.emplace_back(f->name());
  EXPECT_NE(std::find(names.begin(), names.end(), "known_flaky"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "automated_author"), names.end());
  EXPECT_EQ(names.back(), "host_policy");
  // The flaky filter, kept beside the host's, abstains.
  auto r = (*agent)->run(flaky_request());
  EXPECT_EQ(r.status, Status::abstained);
  EXPECT_EQ(r.reason, "known_flaky");
}

TEST(AgentPolicies, HostFilterReplacesTheBuiltInOfItsNameAndTheOptOutKeepsOnlyTheHosts) {
  auto mine = std::make_shared<CountingFilter>("known_flaky");
  AgentOptions o;
  o.pre_filters = {mine};
  o.known_flaky_tests = {"T.flaky"};
  auto agent = Agent::create(o);
  ASSERT_TRUE(agent);
  int flaky = 0;
  for (const auto& f : (*agent)->options().pre_filters) flaky += f->name() == "known_flaky";
  EXPECT_EQ(flaky, 1);
  EXPECT_NE((*agent)->run(flaky_request()).reason, "known_flaky");
  EXPECT_GE(mine->calls.load(), 1);

  o.use_default_pre_filters = false;
  o.pre_filters = {std::make_shared<CountingFilter>("only_mine")};
  auto bare = Agent::create(o);
  ASSERT_TRUE(bare);
  ASSERT_EQ((*bare)->options().pre_filters.size(), 1u);
  EXPECT_EQ((*bare)->options().pre_filters[0]->name(), "only_mine");
}

TEST(AgentPolicies, MutatingToolsCountAsEditsThroughTheRegistry) {
  class Touch final : public Tool {
   public:
    explicit Touch(bool mutates) : mutates_(mutates) {}
    std::string_view name() const override { return mutates_ ? "touch" : "look"; }
    std::string_view description() const override { return "test tool"; }
    const Json& parameters() const override { return schema_; }
    bool mutates() const override { return mutates_; }
    Expected<ToolOutput> invoke(const Json& a, ToolContext&) override { return ToolOutput{a.get_bool("ok"), "done"}; }

   private:
    bool mutates_;
    Json schema_ = *parse_json(R"({"type":"object","properties":{"ok":{"type":"boolean"}}})");
  };
  ToolRegistry reg;
  ASSERT_TRUE(reg.add(std::make_shared<Touch>(true)));
  ASSERT_TRUE(reg.add(std::make_shared<Touch>(false)));
  TempDir tmp;
  auto base = make_repo(tmp.path() / "repo", {{"a.txt", "1\n"}});
  auto provider = make_git_workspace_provider(GitWorkspaceOptions{tmp.path() / "ws", "build", 0, false});
  RepairRequest req;
  req.repository = (tmp.path() / "repo").string();
  req.change.id = "c";
  req.change.base_commit = base;
  req.change.head_commit = base;
  auto ws = provider->acquire(req, CancelToken());
  ASSERT_TRUE(ws) << ws.error().message;
  ToolState state;
  CancelToken cancel;
  ToolContext ctx{**ws, req, state, cancel};
  ASSERT_TRUE(reg.invoke("look", *parse_json(R"({"ok":true})"), ctx));
  EXPECT_EQ(state.last_edit_seq, 0u);
  ASSERT_TRUE(reg.invoke("touch", *parse_json(R"({"ok":false})"), ctx));
  EXPECT_EQ(state.last_edit_seq, 0u);  // a failed call changed nothing
  ASSERT_TRUE(reg.invoke("touch", *parse_json(R"({"ok":true})"), ctx));
  EXPECT_EQ(state.last_edit_seq, 1u);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
