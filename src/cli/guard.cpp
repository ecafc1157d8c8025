// flowagent guard: checks a candidate patch for test cheating and for reverting the change.
#include <filesystem>
#include <iostream>
#include <optional>

#include "cli/args.hpp"
#include "cli/common.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/patch.hpp"
#include "integrity/repo_context.hpp"
#include "workspace/git_patch.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent::cli {

int cmd_guard(const std::vector<std::string>& args, Output& out) {
  std::string repo, head, base, patch_file;
  IntegrityOptions o;
  bool json = false;
  ArgParser p("guard", "--repo DIR --head REV --patch FILE [--base REV] [--failing ID]...",
              "Checks a candidate patch for test cheating (and for reverting base..head); exit 1 when found.");
  p.text("--repo", "DIR", "the repository", repo)
      .text("--head", "REV", "the change head the patch applies to", head)
      .text("--patch", "FILE", "the candidate patch (unified diff)", patch_file)
      .text("--base", "REV", "the change's base: also check that the patch does not undo base..head", base)
      .list("--failing", "ID", "a failing test the patch should fix (repeatable)", o.failing_tests)
      .flag("--json", "print {\"clean\",\"patch_problems\",\"findings\",\"revert\"} or an error document", json);
  if (auto done = parse_or_exit(p, args, out)) return *done;
  out.set_json(json);
  if (repo.empty() || head.empty() || patch_file.empty()) return out.usage_error("guard needs --repo, --head and --patch", p.help());
  auto patch = read_input(patch_file);
  if (!patch) return out.error(kExitUsage, patch.error());
  const auto abs = std::filesystem::absolute(patch_file);
  auto fixed = detail::commit_patch(repo, head, abs, "flowagent: change from " + abs.string());
  if (!fixed)
    return out.error(kExitUsage, "invalid_input", "the patch does not apply to " + head + ": " + fixed.error().message);
  auto parsed_patch = parse_patch(*patch);
  if (!parsed_patch) return out.error(kExitUsage, "invalid_input", parsed_patch.error().message);
  std::vector<FileVersions> files;
  for (const auto& f : parsed_patch->files) {
    FileVersions v;
    v.path = f.path();
    if (f.status != PatchStatus::added) {
      auto b = detail::read_file_at(repo, head, f.old_path);
      if (!b) return out.error(kExitUsage, "invalid_input", f.old_path + " at " + head + ": " + b.error().message);
      v.before = *b;
    }
    if (f.status != PatchStatus::deleted) {
      auto a = detail::read_file_at(repo, *fixed, f.new_path);
      if (!a) return out.error(kExitUsage, "invalid_input", f.new_path + " after the patch: " + a.error().message);
      v.after = *a;
    }
    files.push_back(std::move(v));
  }
  // A hand-written patch may leave modes out; everything else that delivery refuses is reported.
  std::vector<PatchProblem> problems;
  for (auto& problem : check_patch(*parsed_patch))
    if (problem.reason != "patch_mode_unstated") problems.push_back(std::move(problem));
  // The change (with --base), the project's files and its files at the head: the guard follows the
  // tests' helper modules through them, as the post-filter does.
  std::optional<Patch> change;
  if (!base.empty()) {
    auto d = detail::git_patch(repo, {base, head}, false);
    if (!d) return out.error(kExitUsage, "invalid_input", "the change " + base + ".." + head + ": " + d.error().message);
    change = std::move(*d);
  }
  if (auto context = detail::add_repo_context(o, repo, head, change ? &*change : nullptr); !context)
    return out.error(kExitUsage, "invalid_input", head + ": " + context.error().message);
  auto findings = check_test_integrity(files, o);
  std::optional<RevertReport> revert;
  if (change) revert = measure_revert(*change, *parsed_patch);
  const bool reverted = revert && revert->changed_lines && revert->share > 0.5;
  const bool clean = findings.empty() && !reverted && problems.empty();
  if (json) {
    Json jp = Json::array(), jf = Json::array();
    for (const auto& pr : problems) jp.push_back(Json::obj({{"path", pr.path}, {"reason", pr.reason}, {"message", pr.message}}));
    for (const auto& f : findings)
      jf.push_back(Json::obj({{"path", f.path}, {"line", f.line}, {"rule", f.rule}, {"message", f.message}}));
    Json jr = nullptr;
    if (revert) {
      Json hunks = Json::array();
      for (const auto& h : revert->hunks) hunks.push_back(h);
      jr = Json::obj({{"reverts_change", reverted}, {"reverted_lines", revert->reverted_lines},
                      {"changed_lines", revert->changed_lines}, {"share", revert->share}, {"hunks", hunks}});
    }
    out.document(Json::obj({{"clean", clean}, {"patch_problems", jp}, {"findings", jf}, {"revert", jr}}));
    return clean ? kExitFixed : kExitNoFix;
  }
  for (const auto& pr : problems) std::cout << pr.path << ": [" << pr.reason << "] " << pr.message << "\n";
  for (const auto& f : findings) std::cout << f.path << ":" << f.line << ": [" << f.rule << "] " << f.message << "\n";
  if (reverted) {
    std::cout << "[reverts_change] the patch undoes " << revert->reverted_lines << " of " << revert->changed_lines
              << " changed lines\n";
    for (const auto& h : revert->hunks) std::cout << "  " << h << "\n";
  }
  if (clean) std::cout << "ok: no cheating found\n";
  return clean ? kExitFixed : kExitNoFix;
}

}  // namespace flowagent::cli
