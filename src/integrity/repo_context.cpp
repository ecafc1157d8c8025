// The guard's project context from a git repository (see the header).
#include "integrity/repo_context.hpp"

#include "workspace/git_patch.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent::detail {

Expected<void> add_repo_context(IntegrityOptions& o, const GitRepo& repo, const std::string& head, const Patch* change) {
  auto listed = commit_files(repo, head);
  if (!listed) return unexpected(listed.error());
  o.project_files = std::move(*listed);
  if (change) {
    for (const auto& f : change->files) {
      if (f.status == PatchStatus::deleted || is_test_path(f.path())) continue;
      if (o.change_files.size() >= kChangeFilesRead) break;
      auto text = read_file_at(repo, head, f.new_path);
      if (text) o.change_files.push_back(FileVersions{f.path(), std::nullopt, std::move(*text)});
    }
  }
  o.read_head_file = [repo, head](const std::string& path) -> std::optional<std::string> {
    auto text = read_file_at(repo, head, path);
    if (!text) return std::nullopt;
    return std::move(*text);
  };
  return {};
}

}  // namespace flowagent::detail

namespace flowagent {

Expected<void> add_repository_context(IntegrityOptions& options, const std::filesystem::path& repo,
                                      const std::string& head, const std::string& base) {
  for (const std::string* rev : {&head, &base})
    if (!rev->empty() && rev->front() == '-') return fail(Errc::invalid_argument, "revision " + *rev + " starts with '-'");
  const detail::GitRepo git(repo);
  auto head_id = detail::resolve_commit(git, head.empty() ? std::string("HEAD") : head);
  if (!head_id) return unexpected(head_id.error());
  std::optional<Patch> change;
  if (!base.empty()) {
    auto base_id = detail::resolve_commit(git, base);
    if (!base_id) return unexpected(base_id.error());
    auto d = detail::git_patch(git, {*base_id, *head_id}, false);
    if (!d) return unexpected(d.error());
    change = std::move(*d);
  }
  return detail::add_repo_context(options, git, *head_id, change ? &*change : nullptr);
}

}  // namespace flowagent
