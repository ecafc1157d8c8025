#include "workspace/git.hpp"

#include <algorithm>
#include <mutex>

#include "flowagent/workspace.hpp"

namespace flowagent::detail {

const char* const kNeutralAttributes =
    "# Written by flowagent: highest-precedence attributes, so no .gitattributes in the work tree can\n"
    "# select a filter, diff, merge or line-ending conversion.\n"
    "* !filter !diff !merge !text !eol !ident !working-tree-encoding !crlf\n";

std::string chomp(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

GitRepo workspace_repo(const Workspace& ws) {
  const auto gd = ws.git_dir();
  if (gd.empty()) return GitRepo(ws.root());
  return GitRepo(gd, ws.root());
}

const std::vector<std::string>& hardened_git_config() {
  static const std::vector<std::string> args = [] {
    std::vector<std::string> kv = {
        "core.fsmonitor=false",       "core.untrackedCache=false",   "core.hooksPath=/dev/null",
        "core.sshCommand=false",      "core.askPass=false",
        "core.attributesFile=/dev/null", "core.excludesFile=/dev/null", "core.pager=cat",
        "core.editor=false",          "sequence.editor=false",       "core.autocrlf=false",
        "core.safecrlf=false",        "core.quotePath=false",
        "core.splitIndex=false",      "credential.helper=",          "diff.external=",
        "diff.noprefix=false",        "diff.mnemonicPrefix=false",   "diff.relative=false",
        "diff.renames=false",         "color.ui=false",              "log.showSignature=false",
        "gpg.program=false",          "commit.gpgSign=false",        "tag.gpgSign=false",
        "protocol.allow=never",       "protocol.file.allow=always",  "submodule.recurse=false",
        "fetch.recurseSubmodules=false", "advice.detachedHead=false", "gc.auto=0",
        "maintenance.auto=false",     "feature.manyFiles=false",
        "index.sparse=false",         "core.sparseCheckout=false",
    };
    std::vector<std::string> out;
    for (auto& s : kv) {
      out.emplace_back("-c");
      out.push_back(std::move(s));
    }
    return out;
  }();
  return args;
}

namespace {
std::mutex g_forbidden_mu;
std::vector<std::filesystem::path>& forbidden_roots() {
  static std::vector<std::filesystem::path> roots;
  return roots;
}
std::filesystem::path normal(const std::filesystem::path& p) {
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(std::filesystem::absolute(p, ec), ec);
  return (ec ? p : c).lexically_normal();
}
/// Is `p` inside a work tree of the pool at `root` (root/<repo-hash>/wt-<id>/...)? The pool's own
/// folders and the git dirs beside the trees (wt-<id>.git) are not work trees.
bool in_work_tree(const std::filesystem::path& p, const std::filesystem::path& root) {
  auto r = root.begin();
  auto q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (r->empty()) continue;
    if (q == p.end() || *q != *r) return false;
  }
  if (q == p.end() || ++q == p.end()) return false;  // root itself or root/<repo-hash>
  const std::string tree = q->string();
  return tree.rfind("wt-", 0) == 0 && !(tree.size() > 4 && tree.compare(tree.size() - 4, 4, ".git") == 0);
}
}  // namespace

void forbid_git_discovery_below(const std::filesystem::path& root) {
  auto n = normal(root);
  std::lock_guard lock(g_forbidden_mu);
  auto& roots = forbidden_roots();
  if (std::find(roots.begin(), roots.end(), n) == roots.end()) roots.push_back(std::move(n));
}

Expected<void> discovery_allowed(const GitRepo& repo) {
  if (repo.git_dir.empty()) {
    const auto dir = normal(repo.dir);
    std::lock_guard lock(g_forbidden_mu);
    for (const auto& root : forbidden_roots())
      if (in_work_tree(dir, root))
        return fail(Errc::sandbox, "refusing git discovery in " + repo.dir.string() +
                                       ": it is inside a workspace pool; workspace git calls name their git dir");
  }
  return {};
}

Expected<ProcessResult> git_result(const GitRepo& repo, const std::vector<std::string>& args,
                                   const CancelToken& cancel, std::chrono::milliseconds timeout) {
  if (auto allowed = discovery_allowed(repo); !allowed) return unexpected(allowed.error());
  ProcessOptions o;
  o.argv = {"git", "--no-pager"};
  if (!repo.git_dir.empty()) {
    o.argv.push_back("--git-dir=" + repo.git_dir.string());
    o.argv.push_back("--work-tree=" + repo.work_tree.string());
    o.cwd = repo.work_tree;
  } else {
    o.argv.insert(o.argv.end(), {"-C", repo.dir.string()});
  }
  const auto& hard = hardened_git_config();
  o.argv.insert(o.argv.end(), hard.begin(), hard.end());
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.env_allow = {"PATH", "TMPDIR"};
  o.env_set = {{"GIT_TERMINAL_PROMPT", "0"},
               {"LC_ALL", "C"},
               {"GIT_OPTIONAL_LOCKS", "0"},
               {"GIT_CONFIG_NOSYSTEM", "1"},
               {"GIT_CONFIG_GLOBAL", "/dev/null"},
               {"GIT_ATTR_NOSYSTEM", "1"},
               {"GIT_NO_REPLACE_OBJECTS", "1"},
               {"GIT_PROTOCOL_FROM_USER", "0"},
               {"GIT_ASKPASS", "false"},
               {"SSH_ASKPASS", "false"},
               {"HOME", "/nonexistent/flowagent-git-home"},
               {"XDG_CONFIG_HOME", "/nonexistent/flowagent-git-home"}};
  for (const auto& [k, v] : repo.env) o.env_set[k] = v;
  o.timeout = timeout;
  o.output_cap = 64 << 20;
  o.cancel = cancel;
  return run_process(o);
}

Expected<std::string> git(const GitRepo& repo, const std::vector<std::string>& args, const CancelToken& cancel,
                          std::chrono::milliseconds timeout) {
  auto r = git_result(repo, args, cancel, timeout);
  if (!r) return unexpected(r.error());
  if (r->cancelled) return fail(Errc::cancelled, "git cancelled");
  if (r->timed_out) return fail(Errc::timeout, "git " + (args.empty() ? std::string() : args[0]) + " timed out");
  if (r->exit_code != 0) {
    std::string cmd;
    for (const auto& a : args) cmd += (cmd.empty() ? "" : " ") + a;
    return fail(Errc::process, "git " + cmd + " failed (exit " + std::to_string(r->exit_code) + "): " +
                                   chomp(r->output.substr(0, 2000)));
  }
  return std::move(r->output);
}

}  // namespace flowagent::detail
