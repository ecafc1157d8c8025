// Delivery formats: SARIF 2.1.0, Gerrit ReviewInput, GitHub review, GitLab merge-request
// discussions, reviewdog rdjsonl, LSP.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

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

// ---- review suggestions (GitHub, GitLab) ---------------------------------------------------------

/// What a review of the change shows: per file, the new-side lines of each hunk, and for each such
/// line its old-side line when it is a context line (GitLab positions need both then).
struct ChangeView {
  struct Hunk {
    int first = 0, last = 0;
    std::map<int, int> context_old_line;  ///< new line -> old line, context lines only
  };
  std::map<std::string, std::vector<Hunk>> files;
  std::map<std::string, std::string> old_path;  ///< new path -> old path (renames)

  /// The hunk holding new-side lines [first, last] of `path`, or nullptr.
  const Hunk* hunk_of(const std::string& path, int first, int last) const {
    auto it = files.find(path);
    if (it == files.end() || first < 1) return nullptr;
    for (const auto& h : it->second)
      if (first >= h.first && last <= h.last) return &h;
    return nullptr;
  }
};

Expected<ChangeView> change_view(const std::string& diff) {
  ChangeView out;
  auto change = parse_patch(diff);
  if (!change) return fail(Errc::invalid_argument, "change_diff: " + change.error().message);
  for (const auto& f : change->files) {
    if (f.status == PatchStatus::deleted) continue;
    out.old_path[f.new_path] = f.old_path;
    for (const auto& h : f.hunks) {
      ChangeView::Hunk v{h.new_start, h.new_start + h.new_count - 1, {}};
      for (const auto& l : h.lines)
        if (l.kind == ' ') v.context_old_line[l.new_line] = l.old_line;
      out.files[f.new_path].push_back(std::move(v));
    }
  }
  return out;
}

std::string fence_for(const std::string& text) { return text.find("```") != std::string::npos ? "````" : "```"; }

/// A fix edit as a suggestion: the head-side lines [first, last] it replaces and their new text.
/// A pure insertion has no line of its own: it takes the line above it (or, at the top of the
/// file, the line below) into the suggestion, with that line's text from the fix's context.
struct Suggestion {
  int first = 0, last = 0;
  std::vector<std::string> lines;
};

std::optional<Suggestion> suggestion_of(const FixEdit& e, const std::map<std::pair<std::string, int>, std::string>& head_lines) {
  if (e.new_file || e.deleted_file) return std::nullopt;
  if (!e.old_lines.empty()) return Suggestion{e.start_line, e.end_line, e.new_lines};
  const int above = e.start_line - 1;
  if (auto it = head_lines.find({e.path, above}); above >= 1 && it != head_lines.end()) {
    Suggestion s{above, above, {it->second}};
    s.lines.insert(s.lines.end(), e.new_lines.begin(), e.new_lines.end());
    return s;
  }
  if (auto it = head_lines.find({e.path, e.start_line}); it != head_lines.end()) {
    Suggestion s{e.start_line, e.start_line, e.new_lines};
    s.lines.push_back(it->second);
    return s;
  }
  return std::nullopt;
}

/// Head-side lines the fix shows as context or removes, by (path, line).
std::map<std::pair<std::string, int>, std::string> head_lines_of(const Patch& fix) {
  std::map<std::pair<std::string, int>, std::string> out;
  for (const auto& f : fix.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.kind != '+') out[{f.old_path, l.old_line}] = l.text;
  return out;
}

/// The parts of the fix that cannot be suggestions, as a diff git applies: each file's header and
/// every hunk of the fix that holds such an edit, in git's own format.
std::string fallback_diff(const Patch& fix, const std::vector<const FixEdit*>& outside) {
  std::string out;
  for (const auto& f : fix.files) {
    std::string hunks;
    for (const auto& h : f.hunks) {
      const int lo = h.old_start, hi = h.old_start + std::max(h.old_count, 1) - 1;
      bool wanted = false;
      for (const auto* e : outside)
        if (e->path == f.path() && e->start_line >= lo && std::max(e->start_line - 1, e->end_line) <= hi + 1) wanted = true;
      if (wanted) hunks += render_hunk(h);
    }
    if (!hunks.empty()) out += render_file_header(f) + hunks;
  }
  return out;
}

std::string outside_note(const std::string& diff) {
  if (diff.empty()) return {};
  const std::string fence = fence_for(diff);
  return "\n\nThese parts of the fix are outside the change's diff, so they cannot be suggestions:\n\n" + fence +
         "diff\n" + diff + fence + "\n";
}

Json github(const RepairResult& r, const Patch& fix, const std::vector<FixEdit>& edits, const ChangeView& view) {
  Json comments = Json::array();
  std::vector<const FixEdit*> outside;
  const auto head_lines = head_lines_of(fix);
  const std::string note = plain_text(r.summary).empty() ? r.message : r.summary;
  for (const auto& e : edits) {
    auto s = suggestion_of(e, head_lines);
    if (!s || !view.hunk_of(e.path, s->first, s->last)) {
      outside.push_back(&e);
      continue;
    }
    // A suggestion replaces whole RIGHT-side lines start_line..line.
    const std::string text = join_lines(s->lines, !s->lines.empty());
    const std::string fence = fence_for(text);
    Json c = Json::obj({{"path", e.path}, {"line", s->last}, {"side", "RIGHT"},
                        {"body", note + "\n\n" + fence + "suggestion\n" + text + fence}});
    if (s->last > s->first) {
      c["start_line"] = s->first;
      c["start_side"] = "RIGHT";
    }
    comments.push_back(std::move(c));
  }
  return Json::obj({{"commit_id", r.head_commit}, {"event", "COMMENT"},
                    {"body", (r.summary.empty() ? r.message : r.summary) + outside_note(fallback_diff(fix, outside))},
                    {"comments", comments}});
}

/// GitLab merge-request diff notes: POST /projects/:id/merge_requests/:iid/discussions, one per
/// element of "discussions", each with a ```suggestion:-A+B block anchored on `new_line` (A lines
/// above and B lines below it are replaced too; at most 100 each).
Json gitlab(const RepairResult& r, const Patch& fix, const std::vector<FixEdit>& edits, const ChangeView& view) {
  constexpr int kMaxOffset = 100;  // GitLab's limit for A and B
  Json discussions = Json::array();
  std::vector<const FixEdit*> outside;
  const auto head_lines = head_lines_of(fix);
  const std::string note = plain_text(r.summary).empty() ? r.message : plain_text(r.summary);  // GitLab renders Markdown
  for (const auto& e : edits) {
    auto s = suggestion_of(e, head_lines);
    const ChangeView::Hunk* h = s ? view.hunk_of(e.path, s->first, s->last) : nullptr;
    if (!h || s->last - s->first > kMaxOffset) {
      outside.push_back(&e);
      continue;
    }
    const std::string text = join_lines(s->lines, !s->lines.empty());
    const std::string fence = fence_for(text);
    Json position = Json::obj({{"position_type", "text"}, {"base_sha", r.base_commit}, {"start_sha", r.base_commit},
                               {"head_sha", r.head_commit}, {"old_path", view.old_path.at(e.path)},
                               {"new_path", e.path}, {"new_line", s->first}});
    // A context line of the change is addressed by both sides, an added line by its new side only.
    if (auto it = h->context_old_line.find(s->first); it != h->context_old_line.end()) position["old_line"] = it->second;
    discussions.push_back(Json::obj(
        {{"body", note + "\n\n" + fence + "suggestion:-0+" + std::to_string(s->last - s->first) + "\n" + text + fence},
         {"position", position}}));
  }
  return Json::obj({{"body", note + outside_note(fallback_diff(fix, outside))}, {"discussions", discussions}});
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

/// `base` is an absolute folder ("/abs/repo") or a file URI of one ("file:///abs/repo/").
std::string file_uri(std::string base, const std::string& path) {
  if (base.rfind("file://", 0) == 0) base = base.substr(7);
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string full = base == "/" ? "/" + path : base + "/" + path;
  std::string out = "file://";
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

Expected<PublishOptions> publish_options_from_json(std::string_view json_text) {
  auto doc = parse_json(json_text);
  if (!doc) return unexpected(doc.error());
  if (!doc->is_object()) return fail(Errc::schema, "options: expected an object");
  PublishOptions o;
  for (const auto& [key, value] : doc->as_object()) {
    if (key == "change_diff" || key == "uri_base") {
      if (!value.is_string()) return fail(Errc::schema, "options." + key + ": expected a string");
      (key == "change_diff" ? o.change_diff : o.uri_base) = value.as_string();
    } else if (key == "lsp_utf8") {
      if (!value.is_bool()) return fail(Errc::schema, "options.lsp_utf8: expected a boolean");
      o.lsp_utf8 = value.as_bool();
    } else {
      return fail(Errc::schema, "options." + key + ": unknown field");
    }
  }
  return o;
}

Expected<std::string> publish(const RepairResult& r, std::string_view format, const PublishOptions& o) {
  static const std::string_view kFormats[] = {"diff", "sarif", "gerrit", "github", "gitlab", "rdjsonl", "lsp"};
  if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats))
    return fail(Errc::invalid_argument, "unknown format \"" + std::string(format) +
                                            "\" (diff, sarif, gerrit, github, gitlab, rdjsonl, lsp)");
  auto patch = deliverable_patch(r);
  if (!patch) return unexpected(patch.error());
  if (format == "lsp") {  // checked after the patch: a result that may not be delivered says so first
    // File URIs must name the real files: no guessing from the file system root.
    const std::string base = o.uri_base.rfind("file://", 0) == 0 ? o.uri_base.substr(7) : o.uri_base;
    if (base.empty() || base.front() != '/')
      return fail(Errc::invalid_argument, "lsp needs uri_base: the repository's absolute path or file:// URI");
  }
  if (format == "diff") return patch->text;  // the canonical text of what was checked
  auto edits = edits_of(*patch);
  if (!edits) return unexpected(edits.error());
  if (format == "sarif") return dump(sarif(r, *edits, o));
  if (format == "gerrit") return dump(gerrit(r, *edits, o));
  if (format == "github" || format == "gitlab") {
    auto view = change_view(o.change_diff);
    if (!view) return unexpected(view.error());
    return dump(format == "github" ? github(r, *patch, *edits, *view) : gitlab(r, *patch, *edits, *view));
  }
  if (format == "rdjsonl") return rdjsonl(r, *edits, o);
  return dump(lsp(r, *edits, o));
}

}  // namespace flowagent
