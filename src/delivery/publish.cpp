// Delivery formats: SARIF 2.1.0, Gerrit ReviewInput, GitHub review, reviewdog rdjsonl, LSP.
#include <algorithm>
#include <cctype>
#include <map>

#include "flowagent/delivery.hpp"

namespace flowagent {

namespace {

std::string join_lines(const std::vector<std::string>& lines, bool trailing_newline) {
  std::string s;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    s += lines[i];
    if (i + 1 < lines.size() || trailing_newline) s += '\n';
  }
  return s;
}

/// The summary's HTML as plain text (for formats that show text).
std::string plain_text(std::string_view html) {
  std::string out;
  for (std::size_t i = 0; i < html.size(); ++i) {
    if (html[i] == '<') {
      auto close = html.find('>', i);
      if (close == std::string_view::npos) break;
      i = close;
      continue;
    }
    if (html[i] == '&') {
      static const std::pair<std::string_view, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#39;", '\''}};
      bool matched = false;
      for (auto [e, c] : kEntities)
        if (html.substr(i, e.size()) == e) {
          out += c;
          i += e.size() - 1;
          matched = true;
          break;
        }
      if (matched) continue;
    }
    out += html[i];
  }
  return out;
}

std::string message_of(const RepairResult& r) {
  std::string m = plain_text(r.summary);
  return m.empty() ? r.message : m;
}

/// A position in one of the column systems.
enum class Cols { utf16_1based, utf16_0based, utf8_1based, utf8_0based };

std::int64_t col(const FixEdit& e, std::size_t bytes, Cols c) {
  const std::string& line = e.old_lines[0];
  std::size_t v = (c == Cols::utf16_1based || c == Cols::utf16_0based) ? utf16_column(line, bytes) : bytes;
  return static_cast<std::int64_t>(v) + ((c == Cols::utf16_1based || c == Cols::utf8_1based) ? 1 : 0);
}

/// Region of an edit as {start_line, start_col, end_line, end_col} (exclusive end) in `c`; lines
/// 1-based unless `zero_lines`.
struct Region {
  std::int64_t sl, sc, el, ec;
  std::string text;
};

Region region(const FixEdit& e, Cols c, bool zero_lines) {
  const std::int64_t base = zero_lines ? 1 : 0;
  const std::int64_t first_col = (c == Cols::utf16_1based || c == Cols::utf8_1based) ? 1 : 0;
  if (e.intra_line) return {e.start_line - base, col(e, e.col_start, c), e.start_line - base, col(e, e.col_end, c), e.replacement};
  // Whole lines: from the start of start_line to the start of the line after end_line.
  return {e.start_line - base, first_col, e.end_line + 1 - base, first_col, join_lines(e.new_lines, !e.new_lines.empty())};
}

std::string dump(const Json& j) { return dump_json_lossy(j, {2}); }

Expected<std::vector<FixEdit>> edits_of(const Patch& patch) {
  auto edits = fix_edits(patch);
  if (edits.empty()) return fail(Errc::protocol, "the patch holds no text edits");
  return edits;
}

// ---- SARIF ----------------------------------------------------------------------------------------

Json sarif(const RepairResult& r, const std::vector<FixEdit>& edits, const PublishOptions& o) {
  std::map<std::string, Json> changes;
  std::vector<std::string> order;
  for (const auto& e : edits) {
    Region g = region(e, Cols::utf16_1based, false);
    Json deleted = Json::obj({{"startLine", g.sl}, {"startColumn", g.sc}, {"endLine", g.el}, {"endColumn", g.ec}});
    if (!changes.count(e.path)) {
      order.push_back(e.path);
      changes[e.path] = Json::obj({{"artifactLocation", Json::obj({{"uri", e.path}})}, {"replacements", Json::array()}});
    }
    changes[e.path]["replacements"].push_back(
        Json::obj({{"deletedRegion", deleted}, {"insertedContent", Json::obj({{"text", g.text}})}}));
  }
  Json artifact_changes = Json::array();
  for (const auto& p : order) artifact_changes.push_back(changes[p]);
  const auto& first = edits.front();
  Json result = Json::obj(
      {{"ruleId", o.rule_id},
       {"level", "error"},
       {"message", Json::obj({{"text", message_of(r)}})},
       {"locations", Json(Json::Array{Json::obj(
                         {{"physicalLocation",
                           Json::obj({{"artifactLocation", Json::obj({{"uri", first.path}})},
                                      {"region", Json::obj({{"startLine", std::max(1, first.start_line)}})}})}})})},
       {"fixes", Json(Json::Array{Json::obj({{"description", Json::obj({{"text", r.message}})},
                                             {"artifactChanges", artifact_changes}})})},
       {"properties", Json::obj({{"changeId", r.change_id}, {"revision", r.revision}})}});
  return Json::obj(
      {{"$schema", "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"},
       {"version", "2.1.0"},
       {"runs",
        Json(Json::Array{Json::obj(
            {{"tool", Json::obj({{"driver",
                                  Json::obj({{"name", o.tool_name},
                                             {"rules", Json(Json::Array{Json::obj(
                                                           {{"id", o.rule_id},
                                                            {"shortDescription", Json::obj({{"text", "Failing test repaired"}})},
                                                            {"fullDescription", Json::obj({{"text", "A validated fix for a failing pre-submit test."}})},
                                                            {"help", Json::obj({{"text", "Review the fix and its root-cause summary."}})}})})}})}})},
             {"columnKind", "utf16CodeUnits"},
             {"results", Json(Json::Array{result})}})})}});
}

// ---- Gerrit ---------------------------------------------------------------------------------------

Json gerrit(const RepairResult& r, const std::vector<FixEdit>& edits, const PublishOptions& o) {
  Json comments = Json::object();
  std::map<std::string, Json> per_file;
  std::vector<std::string> order;
  for (const auto& e : edits) {
    Region g = region(e, Cols::utf16_0based, false);
    Json range = Json::obj({{"start_line", g.sl}, {"start_character", g.sc}, {"end_line", g.el}, {"end_character", g.ec}});
    if (!per_file.count(e.path)) {
      order.push_back(e.path);
      per_file[e.path] = Json::array();
    }
    per_file[e.path].push_back(Json::obj({{"path", e.path}, {"range", range}, {"replacement", g.text}}));
  }
  for (const auto& p : order) {
    const auto& first = *std::find_if(edits.begin(), edits.end(), [&](const FixEdit& e) { return e.path == p; });
    Region g = region(first, Cols::utf16_0based, false);
    // The comment sits on the first replaced line; its range is that line.
    const std::int64_t line = std::max<std::int64_t>(1, first.intra_line ? first.start_line : std::max(first.start_line, 1));
    Json c = Json::obj({{"line", line},
                        {"message", message_of(r)},
                        {"unresolved", true},
                        {"fix_suggestions", Json(Json::Array{Json::obj({{"description", r.message}, {"replacements", per_file[p]}})})}});
    if (first.intra_line)
      c["range"] = Json::obj({{"start_line", g.sl}, {"start_character", g.sc}, {"end_line", g.el}, {"end_character", g.ec}});
    comments[p] = Json(Json::Array{c});
  }
  return Json::obj({{"tag", "autogenerated:" + o.tool_name}, {"message", message_of(r)}, {"comments", comments}});
}

// ---- GitHub ---------------------------------------------------------------------------------------

/// New-side line ranges of each hunk of the change, per file.
using ChangeHunks = std::map<std::string, std::vector<std::pair<int, int>>>;
Expected<ChangeHunks> change_hunks(const std::string& diff) {
  ChangeHunks out;
  auto change = parse_patch(diff);
  if (!change) return fail(Errc::invalid_argument, "change_diff: " + change.error().message);
  for (const auto& f : change->files) {
    if (f.status == PatchStatus::deleted) continue;
    for (const auto& h : f.hunks) out[f.new_path].emplace_back(h.new_start, h.new_start + h.new_count - 1);
  }
  return out;
}

std::string fence_for(const std::string& text) { return text.find("```") != std::string::npos ? "````" : "```"; }

Json github(const RepairResult& r, const std::vector<FixEdit>& edits, ChangeHunks hunks) {
  Json comments = Json::array();
  std::string fallback;
  for (const auto& e : edits) {
    // A suggestion replaces whole RIGHT-side lines; an insertion is anchored on the line above it.
    int first = e.start_line, last = e.end_line;
    std::vector<std::string> replacement = e.new_lines;
    if (e.old_lines.empty()) {
      first = last = e.start_line - 1;
      if (first < 1) first = last = 0;
    }
    bool inside = false;
    if (first >= 1 && !e.new_file && !e.deleted_file)
      for (const auto& [a, b] : hunks[e.path])
        if (first >= a && last <= b) inside = true;
    if (inside && e.old_lines.empty()) inside = false;  // the anchor line's text is not in the patch
    if (!inside) {
      std::string block = "--- a/" + e.path + "\n+++ b/" + e.path + "\n@@ -" + std::to_string(e.start_line) + "," +
                          std::to_string(e.old_lines.size()) + " @@\n";
      for (const auto& l : e.old_lines) block += "-" + l + "\n";
      for (const auto& l : e.new_lines) block += "+" + l + "\n";
      fallback += "\n" + fence_for(block) + "diff\n" + block + fence_for(block) + "\n";
      continue;
    }
    const std::string text = join_lines(replacement, !replacement.empty());
    const std::string fence = fence_for(text);
    Json c = Json::obj({{"path", e.path},
                        {"line", last},
                        {"side", "RIGHT"},
                        {"body", plain_text(r.summary).empty() ? r.message : r.summary}});
    c["body"] = c.get_string("body") + "\n\n" + fence + "suggestion\n" + text + fence;
    if (last > first) {
      c["start_line"] = first;
      c["start_side"] = "RIGHT";
    }
    comments.push_back(std::move(c));
  }
  std::string body = (r.summary.empty() ? r.message : r.summary);
  if (!fallback.empty())
    body += "\n\nThese parts of the fix are outside the pull request's diff, so they cannot be suggestions:\n" + fallback;
  return Json::obj({{"commit_id", r.head_commit}, {"event", "COMMENT"}, {"body", body}, {"comments", comments}});
}

// ---- reviewdog, LSP ---------------------------------------------------------------------------------

std::string rdjsonl(const RepairResult& r, const std::vector<FixEdit>& edits, const PublishOptions& o) {
  std::string out;
  for (const auto& e : edits) {
    Region g = region(e, Cols::utf8_1based, false);
    Json range = Json::obj({{"start", Json::obj({{"line", g.sl}, {"column", g.sc}})},
                            {"end", Json::obj({{"line", g.el}, {"column", g.ec}})}});
    Json d = Json::obj({{"message", message_of(r)},
                        {"location", Json::obj({{"path", e.path}, {"range", range}})},
                        {"severity", "ERROR"},
                        {"source", Json::obj({{"name", o.tool_name}})},
                        {"code", Json::obj({{"value", o.rule_id}})},
                        {"suggestions", Json(Json::Array{Json::obj({{"range", range}, {"text", g.text}})})}});
    out += dump_json_lossy(d) + "\n";
  }
  return out;
}

std::string file_uri(const std::string& base, const std::string& path) {
  std::string full = base.empty() ? path : base + "/" + path;
  std::string out = "file://";
  if (!full.empty() && full.front() != '/') out += "/";
  static const char* hex = "0123456789ABCDEF";
  for (unsigned char c : full) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

Json lsp(const RepairResult& r, const std::vector<FixEdit>& edits, const PublishOptions& o) {
  Json changes = Json::object();
  const Cols c = o.lsp_utf8 ? Cols::utf8_0based : Cols::utf16_0based;
  for (const auto& e : edits) {
    Region g = region(e, c, true);
    changes[file_uri(o.uri_base, e.path)].push_back(Json::obj(
        {{"range", Json::obj({{"start", Json::obj({{"line", g.sl}, {"character", g.sc}})},
                              {"end", Json::obj({{"line", g.el}, {"character", g.ec}})}})},
         {"newText", g.text}}));
  }
  return Json::obj({{"title", "flowagent: " + r.message},
                    {"kind", "quickfix"},
                    {"isPreferred", true},
                    {"positionEncoding", o.lsp_utf8 ? "utf-8" : "utf-16"},
                    {"edit", Json::obj({{"changes", changes}})}});
}

}  // namespace

Expected<std::string> publish(const RepairResult& r, std::string_view format, const PublishOptions& o) {
  static const std::string_view kFormats[] = {"diff", "sarif", "gerrit", "github", "rdjsonl", "lsp"};
  if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats))
    return fail(Errc::invalid_argument, "unknown format \"" + std::string(format) +
                                            "\" (diff, sarif, gerrit, github, rdjsonl, lsp)");
  auto patch = deliverable_patch(r);
  if (!patch) return unexpected(patch.error());
  if (format == "diff") return patch->text;  // the canonical text of what was checked
  auto edits = edits_of(*patch);
  if (!edits) return unexpected(edits.error());
  if (format == "sarif") return dump(sarif(r, *edits, o));
  if (format == "gerrit") return dump(gerrit(r, *edits, o));
  if (format == "github") {
    auto hunks = change_hunks(o.change_diff);
    if (!hunks) return unexpected(hunks.error());
    return dump(github(r, *edits, std::move(*hunks)));
  }
  if (format == "rdjsonl") return rdjsonl(r, *edits, o);
  return dump(lsp(r, *edits, o));
}

}  // namespace flowagent
