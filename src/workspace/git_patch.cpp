#include "workspace/git_patch.hpp"

#include "workspace/git.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent::detail {

namespace {
bool zero_id(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }
}  // namespace

Expected<Patch> git_patch(const GitRepo& dir, const std::vector<std::string>& revs, bool check_blobs,
                          const CancelToken& cancel) {
  std::vector<std::string> args = {"-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false",
                                   "-c", "diff.relative=false", "-c", "diff.suppressBlankEmpty=false",
                                   "-c", "diff.context=3",      "-c", "diff.interHunkContext=0",
                                   "-c", "color.ui=never",      "diff",
                                   "--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-renames",
                                   "--full-index", "--no-relative", "--src-prefix=a/", "--dst-prefix=b/",
                                   "--submodule=short", "--ignore-submodules=none", "-U3"};
  args.insert(args.end(), revs.begin(), revs.end());
  auto text = git(dir, args, cancel);
  if (!text) return unexpected(text.error());
  auto patch = parse_patch(*text);
  if (!patch) return fail(Errc::protocol, "cannot read git's diff: " + patch.error().message);
  if (!check_blobs) return patch;
  bool changed = false;
  for (auto& f : patch->files) {
    if (!f.is_text) continue;
    for (const auto& [id, mode] : {std::pair{f.old_blob, f.old_mode}, std::pair{f.new_blob, f.new_mode}}) {
      if (id.empty() || zero_id(id) || (mode != kModeRegular && mode != kModeExecutable)) continue;
      auto content = read_blob(dir, id, cancel);
      if (!content) return unexpected(content.error());
      if (flowagent::looks_binary(*content)) {
        f.is_text = false;
        changed = true;
        break;
      }
    }
  }
  if (changed) patch->text = render_patch(patch->files);
  return patch;
}

}  // namespace flowagent::detail
