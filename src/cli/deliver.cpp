// flowagent publish and apply: delivering a fixed result (docs/DELIVERY.md).
#include <filesystem>
#include <iostream>

#include "cli/args.hpp"
#include "cli/common.hpp"
#include "flowagent/delivery.hpp"
#include "workspace/git_patch.hpp"

namespace flowagent::cli {

namespace {

/// A result that is not fixed is refused with its own exit code.
int delivery_exit(const Error& e) {
  if (e.code == Errc::not_fixed) return kExitNotFixed;
  return e.code == Errc::conflict ? kExitNoFix : kExitUsage;
}

}  // namespace

int cmd_publish(const std::vector<std::string>& args, Output& out) {
  std::string format, result_path = "-", repo;
  bool json = false;
  PublishOptions o;
  ArgParser p("publish", "--format FORMAT [--result FILE|-] [--repo DIR] [options]",
              "Writes a fixed result in a review tool's or IDE's format (docs/DELIVERY.md).");
  p.text("--format", "FORMAT", "diff, sarif, gerrit, github, gitlab, rdjsonl or lsp", format)
      .text("--result", "FILE|-", "the flowagent.repair_result/v1 document (default: stdin)", result_path)
      .text("--repo", "DIR", "the repository: the change's diff (what a review shows) and the LSP uri base", repo)
      .text("--uri-base", "DIR", "lsp: absolute folder the paths are relative to (default: --repo)", o.uri_base)
      .flag("--lsp-utf8", "lsp: positions in UTF-8 code units instead of UTF-16", o.lsp_utf8)
      .flag("--json", "print {\"format\",\"content\"} (the published text as one string) or an error document", json);
  if (auto done = parse_or_exit(p, args, out)) return *done;
  out.set_json(json);
  if (format.empty()) return out.usage_error("publish needs --format", p.help());
  auto result = load_result(result_path);
  if (!result) return out.error(kExitUsage, "invalid_input", "invalid result: " + result.error().message);
  if (!repo.empty()) {
    if (o.uri_base.empty()) o.uri_base = std::filesystem::absolute(repo).string();
    if (!result->base_commit.empty() && !result->head_commit.empty())
      if (auto d = detail::git_patch(repo, {result->base_commit, result->head_commit}, false)) o.change_diff = d->text;
  }
  auto text = publish(*result, format, o);
  if (!text) return out.error(delivery_exit(text.error()), std::string(errc_name(text.error().code)),
                              "refusing to publish: " + text.error().message);
  if (json) {
    out.document(Json::obj({{"format", format}, {"content", *text}}));
    return kExitFixed;
  }
  std::cout << *text;
  if (!text->empty() && text->back() != '\n') std::cout << "\n";
  return kExitFixed;
}

int cmd_apply(const std::vector<std::string>& args, Output& out) {
  std::string result_path = "-", repo;
  bool json = false;
  ArgParser p("apply", "--repo DIR [--result FILE|-]",
              "Applies a fixed result to a working tree (three-way when it moved on; nothing written on a conflict).");
  p.text("--repo", "DIR", "the working tree to change", repo)
      .text("--result", "FILE|-", "the flowagent.repair_result/v1 document (default: stdin)", result_path)
      .flag("--json", "print {\"three_way\",\"files\",\"message\"} or an error document", json);
  if (auto done = parse_or_exit(p, args, out)) return *done;
  out.set_json(json);
  if (repo.empty()) return out.usage_error("apply needs --repo", p.help());
  auto result = load_result(result_path);
  if (!result) return out.error(kExitUsage, "invalid_input", "invalid result: " + result.error().message);
  auto r = apply_fix(repo, *result);
  if (!r)
    return out.error(delivery_exit(r.error()), std::string(errc_name(r.error().code)),
                     (r.error().code == Errc::conflict ? "" : "refusing to apply: ") + r.error().message);
  if (json) {
    Json files = Json::array();
    for (const auto& f : r->files) files.push_back(f);
    out.document(Json::obj({{"three_way", r->three_way}, {"files", files}, {"message", r->message}}));
    return kExitFixed;
  }
  std::cout << r->message << ":";
  for (const auto& f : r->files) std::cout << " " << f;
  std::cout << "\n";
  return kExitFixed;
}

}  // namespace flowagent::cli
