// Revert detection and the post-filters of the trust layer.
#include <cctype>
#include <map>
#include <set>
#include <string_view>

#include "flowagent/integrity.hpp"
#include "integrity/repo_context.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

bool zero_id(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

bool blank(const std::string& t) { return t.find_first_not_of(" \t\r") == std::string::npos; }

/// A line as compared for "is this the base content?": whitespace removed and a trailing `#` or
/// `//` comment outside quotes dropped, so base content restored with other indentation, spacing
/// or a comment appended is still recognised as restored.
std::string normal(std::string_view t) {
  std::string out;
  char quote = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char ch = t[i];
    if (quote) {
      if (ch == '\\' && i + 1 < t.size()) {
        out += ch;
        out += t[++i];
        continue;
      }
      if (ch == quote) quote = 0;
    } else if (ch == '"' || ch == '\'' || ch == '`') {
      quote = ch;
    } else if ((ch == '#' || (ch == '/' && i + 1 < t.size() && t[i + 1] == '/')) && !out.empty() &&
               (i == 0 || std::isspace(static_cast<unsigned char>(t[i - 1])))) {
      break;  // a trailing comment (a line that is only a comment keeps its text)
    }
    if (!std::isspace(static_cast<unsigned char>(ch))) out += ch;
  }
  return out;
}

/// Tokens of a line: identifiers/numbers and single punctuation characters.
std::multiset<std::string> tokens(std::string_view t) {
  std::multiset<std::string> out;
  for (std::size_t i = 0; i < t.size();) {
    const auto c = static_cast<unsigned char>(t[i]);
    if (std::isspace(c)) {
      ++i;
    } else if (std::isalnum(c) || c == '_') {
      std::size_t b = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) ++i;
      out.emplace(t.substr(b, i - b));
    } else {
      out.emplace(1, t[i++]);
    }
  }
  return out;
}

/// Dice coefficient of two lines' token multisets (1: same tokens, 0: nothing shared).
double similarity(std::string_view a, std::string_view b) {
  auto ta = tokens(a), tb = tokens(b);
  if (ta.empty() || tb.empty()) return 0;
  const std::size_t total = ta.size() + tb.size();
  std::size_t shared = 0;
  for (const auto& t : ta)
    if (auto it = tb.find(t); it != tb.end()) {
      tb.erase(it);
      ++shared;
    }
  return 2.0 * static_cast<double>(shared) / static_cast<double>(total);
}

using Lines = std::multiset<std::pair<std::string, std::string>>;  // (path, text)

bool take(Lines& from, const std::string& path, const std::string& text) {
  auto it = from.find({path, text});
  if (it == from.end()) return false;
  from.erase(it);
  return true;
}

/// The developer's changed lines by file, exactly and normalised.
struct ChangeLines {
  Lines added, removed, removed_normal;
  std::size_t count = 0;
};

ChangeLines change_lines(const Patch& change) {
  ChangeLines c;
  for (const auto& f : change.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) {
        if (l.kind == ' ' || blank(l.text)) continue;
        ++c.count;
        if (l.kind == '+') {
          c.added.emplace(f.path(), l.text);
        } else {
          c.removed.emplace(f.path(), l.text);
          c.removed_normal.emplace(f.path(), normal(l.text));
        }
      }
  return c;
}

}  // namespace

RevertReport measure_revert(const Patch& change, const Patch& patch) {
  RevertReport r;
  ChangeLines ch = change_lines(change);
  r.changed_lines = ch.count;
  if (r.changed_lines == 0) return r;
  auto note = [&](std::string s) {
    if (r.hunks.size() < 10) r.hunks.push_back(std::move(s));
  };
  // The fix, one block of consecutive removed/added lines at a time: what the block removes of the
  // developer's new lines is reverted when the block puts nothing in their place or only base
  // content back, and corrected when the block puts a line in their place that resembles it and is
  // not base content.
  for (const auto& f : patch.files) {
    const std::string path = f.path();
    for (const auto& h : f.hunks) {
      for (std::size_t i = 0; i < h.lines.size();) {
        if (h.lines[i].kind == ' ') {
          ++i;
          continue;
        }
        std::vector<const PatchLine*> removed, added;
        for (; i < h.lines.size() && h.lines[i].kind != ' '; ++i)
          if (!blank(h.lines[i].text)) (h.lines[i].kind == '-' ? removed : added).push_back(&h.lines[i]);
        // Lines the block brings back that the developer removed (as written, or only respaced or
        // commented): restored base content.
        std::vector<const PatchLine*> fresh;
        for (const auto* a : added) {
          if (take(ch.removed_normal, path, normal(a->text))) {
            ++r.reverted_lines;
            note(path + ": restores \"" + a->text.substr(0, 80) + "\"");
          } else {
            fresh.push_back(a);
          }
        }
        std::vector<bool> used(fresh.size(), false);
        for (const auto* d : removed) {
          if (!take(ch.added, path, d->text)) continue;  // not a line the developer added
          std::size_t best = fresh.size();
          double best_sim = kCorrectionSimilarity;  // strictly more than this
          for (std::size_t k = 0; k < fresh.size(); ++k) {
            if (used[k]) continue;
            const double s = similarity(d->text, fresh[k]->text);
            if (s > best_sim) {
              best_sim = s;
              best = k;
            }
          }
          if (best < fresh.size()) {
            used[best] = true;
            ++r.corrected_lines;
          } else {
            ++r.reverted_lines;
            note(path + ": removes the change's \"" + d->text.substr(0, 80) + "\"");
          }
        }
      }
    }
  }
  r.share = static_cast<double>(r.reverted_lines) / static_cast<double>(r.changed_lines);
  return r;
}

Expected<std::vector<FileVersions>> file_versions_from_workspace(Workspace& ws, const Patch& patch) {
  // Both sides come from the object store by the ids the patch names: exactly what the patch holds,
  // whatever the working tree holds now. A side that cannot be read is an error, never "absent".
  auto read = [&](const std::string& id, const std::string& path) -> Expected<std::string> {
    const auto repo = detail::workspace_repo(ws);
    if (!id.empty() && !zero_id(id)) return detail::read_blob(repo, id);
    return detail::read_file_at(repo, ws.head_commit(), path);
  };
  std::vector<FileVersions> out;
  for (const auto& f : patch.files) {
    FileVersions v;
    v.path = f.path();
    if (f.status != PatchStatus::added) {
      auto before = read(f.old_blob, f.old_path);
      if (!before) return unexpected(with_context(before.error(), f.old_path + " at the change head"));
      v.before = std::move(*before);
    }
    if (f.status != PatchStatus::deleted) {
      if (f.new_blob.empty() || zero_id(f.new_blob)) {
        auto fs = detail::SandboxFs::open(ws.root());
        if (!fs) return unexpected(fs.error());
        auto after = fs->read(f.new_path, 64u << 20);
        if (!after) return unexpected(with_context(after.error(), f.new_path + " after the fix"));
        v.after = std::move(*after);
      } else {
        auto after = read(f.new_blob, "");
        if (!after) return unexpected(with_context(after.error(), f.new_path + " after the fix"));
        v.after = std::move(*after);
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

namespace {

class IntegrityFilter final : public PostFilter {
 public:
  std::string_view name() const override { return "test_integrity"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken& cancel) override {
    if (!in.workspace)  // no file contents to compare: cannot vouch for the fix
      return std::optional<Rejection>(Rejection{"integrity_unverifiable",
                                                "the test-integrity guard has no workspace to read the touched files from",
                                                Status::rejected});
    auto files = file_versions_from_workspace(*in.workspace, in.patch);
    if (!files) return unexpected(files.error());
    IntegrityOptions o;
    o.failing_tests = in.request.failure.failing_tests;
    // What the developer changed (names its production files define are code under test), what
    // the project holds (project modules from third-party ones) and the files at the head (the
    // tests' helper modules the guard follows). A change that cannot be read leaves its names
    // unknown (the revert filter fails closed on it).
    auto context = detail::add_repo_context(o, detail::workspace_repo(*in.workspace), in.workspace->head_commit(),
                                            in.change);
    if (!context) return unexpected(context.error());
    o.cancelled = [&cancel] { return cancel.cancelled(); };
    auto findings = check_test_integrity(*files, o);
    // (The job's wall-clock limit or its cancel stopped the walk of a developer's huge test file.)
    if (cancel.cancelled()) return fail(Errc::cancelled, "cancelled while the test-integrity guard read the files");
    if (findings.empty()) return std::optional<Rejection>{};
    std::string msg;
    for (const auto& f : findings) {
      if (!msg.empty()) msg += "; ";
      msg += f.path + ":" + std::to_string(f.line) + " [" + f.rule + "] " + f.message;
    }
    return std::optional<Rejection>(Rejection{"integrity_" + findings.front().rule, msg, Status::rejected});
  }
};

class RevertFilter final : public PostFilter {
 public:
  explicit RevertFilter(double t) : threshold_(t) {}
  std::string_view name() const override { return "reverts_change"; }
  Expected<std::optional<Rejection>> check(const PostFilterInput& in, const CancelToken&) override {
    if (!in.change)  // the developer's change could not be read: cannot tell a revert from a fix
      return std::optional<Rejection>(Rejection{"reverts_change_unverifiable",
                                                "the developer's change could not be read, so reverting it cannot be ruled out",
                                                Status::rejected});
    auto r = measure_revert(*in.change, in.patch);
    if (r.changed_lines == 0 || r.share <= threshold_) return std::optional<Rejection>{};  // "most": more than the threshold
    std::string msg = "the fix reverts " + std::to_string(r.reverted_lines) + " of the " +
                      std::to_string(r.changed_lines) + " lines the change added or removed";
    for (const auto& h : r.hunks) msg += "; " + h;
    return std::optional<Rejection>(Rejection{"reverts_change", msg, Status::rejected});
  }

 private:
  double threshold_;
};

}  // namespace

std::shared_ptr<PostFilter> make_integrity_filter() { return std::make_shared<IntegrityFilter>(); }
std::shared_ptr<PostFilter> make_revert_filter(double threshold) { return std::make_shared<RevertFilter>(threshold); }

}  // namespace flowagent
