// The guard's project context from a git repository (see the header).
#include "integrity/repo_context.hpp"

#include <set>

#include "core/regex.hpp"
#include "workspace/git_patch.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent::detail {

namespace {

/// The name a line defines (a function, method or class), or "".
std::string defined_name(const std::string& line) {
  static const rx::regex keyword_def(
      R"(^\s*(?:(?:export|default|async|public|private|protected|internal|static|final|abstract|open|override|pub|inline|virtual)\s+)*)"
      R"((?:def|class|function|func|fn|struct|interface|enum|trait)\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*))");
  // Java/C/C++ style: `public static boolean isValid(String s) {`, `int Calc::add(int a) const {`.
  static const rx::regex typed_def(R"(^\s*(?:[\w<>\[\],\*&:]+\s+)+(?:\w+::)*([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:const\s*)?(?:throws\s+[\w., ]+)?\{?\s*$)");
  static const std::set<std::string, std::less<>> kNot = {"if", "for", "while", "switch", "return", "catch", "new", "else", "do", "sizeof"};
  rx::smatch m;
  if (rx::regex_search(line, m, keyword_def)) return m[1].str();
  if (line.size() < 400 && rx::regex_search(line, m, typed_def) && !kNot.count(m[1].str())) return m[1].str();
  return {};
}

std::string folded(const std::string& name) {
  std::string out;
  for (char c : name)
    if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::map<std::string, std::string> change_renames(const Patch& change, const std::vector<FileVersions>& head_files) {
  std::map<std::string, std::string> out;
  for (const auto& f : change.files) {
    if (f.status == PatchStatus::deleted || f.status == PatchStatus::added || is_test_path(f.path())) continue;
    const FileVersions* head = nullptr;
    for (const auto& h : head_files)
      if (h.path == f.path()) head = &h;
    for (const auto& hunk : f.hunks) {
      std::set<std::string> removed, added;
      for (const auto& l : hunk.lines) {
        if (l.kind == '-') {
          if (auto n = defined_name(l.text); !n.empty()) removed.insert(n);
        } else if (l.kind == '+') {
          if (auto n = defined_name(l.text); !n.empty()) added.insert(n);
        }
      }
      std::vector<std::string> gone, fresh;
      for (const auto& n : removed)
        if (!added.count(n)) gone.push_back(n);
      for (const auto& n : added)
        if (!removed.count(n)) fresh.push_back(n);
      std::map<std::string, std::string> pairs;
      if (gone.size() == 1 && fresh.size() == 1) {
        pairs.emplace(gone[0], fresh[0]);
      } else {
        for (const auto& g : gone)
          for (const auto& n : fresh)
            if (folded(g) == folded(n)) pairs.emplace(g, n);
      }
      for (const auto& [old_name, new_name] : pairs) {
        if (old_name.size() < 3 || out.count(old_name)) continue;
        // Still defined in the file at the head (an overload, a kept alias): not a rename.
        bool kept = false;
        if (head && head->after) {
          std::size_t p = 0;
          const std::string& text = *head->after;
          while (!kept && p < text.size() && p < (std::size_t{1} << 22)) {
            const auto e = std::min(text.find('\n', p), text.size());
            if (defined_name(text.substr(p, std::min<std::size_t>(e - p, 400))) == old_name) kept = true;
            p = e + 1;
          }
        }
        if (!kept) out.emplace(old_name, new_name);
      }
    }
  }
  return out;
}

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
    o.renamed = change_renames(*change, o.change_files);
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
