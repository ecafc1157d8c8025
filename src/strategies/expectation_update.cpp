// The zero-token tier: rewrite an expectation literal to the value the change now produces.
#include <algorithm>
#include <map>
#include <set>
#include <cctype>

#include "flowagent/integrity.hpp"
#include "flowagent/zero_token.hpp"
#include "flowagent/reports.hpp"
#include "tools/test_command.hpp"
#include "workspace/git.hpp"
#include "workspace/git_patch.hpp"
#include "workspace/repo_ops.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

struct Literal {
  enum class Type { string, number, boolean, raw } type = Type::raw;
  std::string value;  // unescaped string value, or the token
};

bool is_number(std::string_view s) {
  if (s.empty()) return false;
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  bool digit = false;
  for (; i < s.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(s[i]))) digit = true;
    else if (s[i] != '.' && s[i] != 'e' && s[i] != 'E' && s[i] != '_' && s[i] != '-') return false;
  }
  return digit;
}

std::string unescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '0': out += '\0'; break;
      default: out += c;
    }
  }
  return out;
}

Literal parse_literal(std::string v) {
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.erase(0, 1);
  Literal l;
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'' || v.front() == '`') && v.back() == v.front()) {
    l.type = Literal::Type::string;
    l.value = unescape(std::string_view(v).substr(1, v.size() - 2));
  } else if (v == "true" || v == "false" || v == "True" || v == "False") {
    l.type = Literal::Type::boolean;
    l.value = (v == "true" || v == "True") ? "true" : "false";
  } else if (is_number(v)) {
    l.type = Literal::Type::number;
    l.value = v;
  } else {
    l.value = v;
  }
  return l;
}

struct Occurrence {
  std::size_t begin, end;  // byte range in the window text (the whole literal, quotes included)
  char quote = 0;
};

/// String literals in `text` whose unescaped value equals `value`.
std::vector<Occurrence> find_strings(std::string_view text, const std::string& value) {
  std::vector<Occurrence> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char q = text[i];
    if (q != '"' && q != '\'' && q != '`') continue;
    if (i + 2 < text.size() && text[i + 1] == q && text[i + 2] == q) {  // triple quotes: skip the block
      auto close = text.find(std::string(3, q), i + 3);
      if (close == std::string_view::npos) break;
      i = close + 2;
      continue;
    }
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != q && text[j] != '\n') j += text[j] == '\\' ? 2 : 1;
    if (j >= text.size() || text[j] != q) continue;
    if (unescape(text.substr(i + 1, j - i - 1)) == value) out.push_back({i, j + 1, q});
    i = j;
  }
  return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::vector<Occurrence> find_tokens(std::string_view text, const std::vector<std::string>& spellings) {
  std::vector<Occurrence> out;
  for (const auto& tok : spellings)
    for (std::size_t p = text.find(tok); p != std::string_view::npos; p = text.find(tok, p + 1)) {
      bool left = p == 0 || !ident_char(text[p - 1]);
      bool right = p + tok.size() >= text.size() || !ident_char(text[p + tok.size()]);
      if (left && right) out.push_back({p, p + tok.size(), 0});
    }
  return out;
}

std::string quote(const std::string& value, char q) {
  std::string out(1, q);
  for (char c : value) {
    if (c == q || c == '\\') out += '\\';
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return out + q;
}

bool is_python(const std::string& path) { return path.size() > 3 && path.substr(path.size() - 3) == ".py"; }

class ExpectationUpdate final : public RepairStrategy {
 public:
  std::string_view name() const override { return "expectation_update"; }

  Expected<Candidate> propose(RepairContext& ctx) override {
    const auto& req = ctx.request;
    std::vector<reports::TestCase> failures;
    for (const auto& list : {req.failure.reports, req.failure.logs})
      for (const auto& p : list) {
        std::filesystem::path path(p);
        if (path.is_relative()) path = std::filesystem::path(req.repository) / path;
        for (auto& t : reports::parse_report_file(path).tests)
          if ((t.outcome == reports::Outcome::failed || t.outcome == reports::Outcome::error) && !t.expected.empty())
            failures.push_back(std::move(t));
      }
    if (failures.empty() && !req.commands.test.empty()) {
      // No usable report: build and run the failing tests once (zero tokens) to read expected/actual.
      if (!req.commands.build.empty()) {
        auto b = detail::run_command(ctx.workspace.root(), req.commands.build, req, ctx.cancel, ctx.sandbox);
        if (!b) return unexpected(b.error());
        if (!b->ok()) return Candidate{false, false, "the change does not build", {}, false};
      }
      auto run = detail::run_tests(ctx.workspace.root(), req, req.failure.failing_tests, ctx.cancel, ctx.sandbox, "probe");
      if (!run) return unexpected(run.error());
      for (auto& t : run->failures)
        if (!t.expected.empty()) failures.push_back(std::move(t));
    }
    if (failures.empty()) return Candidate{false, false, "no failure shows expected and actual values", {}, false};
    auto fs = detail::SandboxFs::open(ctx.workspace.root());
    if (!fs) return unexpected(fs.error());
    // The lines the developer's change wrote, per file: an expectation there is the developer's own
    // (a new test, an updated value), the specification the fix must meet, never one to move to
    // what the code now gives. Unknown (no base/head, git fails): step aside altogether.
    std::map<std::string, std::set<int>> written;
    {
      const auto& change = req.change;
      if (change.base_commit.empty() || change.head_commit.empty())
        return Candidate{false, false, "the change's own lines are not known (no base and head)", {}, false};
      auto d = detail::git_patch(req.repository, {change.base_commit, change.head_commit}, false, ctx.cancel);
      if (!d) {
        if (d.error().code == Errc::cancelled) return unexpected(d.error());
        return Candidate{false, false, "the change's own lines could not be read: " + d.error().message, {}, false};
      }
      for (const auto& file : d->files)
        for (const auto& h : file.hunks)
          for (const auto& l : h.lines)
            if (l.kind == '+') written[file.new_path].insert(l.new_line);
    }
    std::vector<std::string> changes;
    std::vector<std::string> declined;
    for (const auto& f : failures) {
      if (f.file.empty() || f.line <= 0) continue;
      auto path = resolve(ctx, f.file);
      if (path.empty() || !is_test_path(path)) continue;  // never production code
      auto text = fs->read(path, 8u << 20);
      if (!text) continue;
      auto edit = rewrite(*text, path, f, written[path]);
      if (!edit) continue;
      if (edit->first.empty()) {
        declined.push_back(edit->second);
        continue;
      }
      if (auto w = fs->write(path, edit->first, false); !w) return unexpected(w.error());
      ctx.state.note_edit();
      changes.push_back(edit->second + " (" + path + ":" + std::to_string(f.line) + ")");
      ctx.result.trajectory.push_back(TrajectoryStep{"tool", "expectation_update", f.id, edit->second, true, 0});
    }
    if (changes.empty())
      return Candidate{false, false,
                       declined.empty() ? "no expectation literal was found exactly once next to a failure"
                                        : declined.front() + (declined.size() > 1 ? " (and " + std::to_string(declined.size() - 1) + " more)" : ""),
                       {}, false};
    std::string explanation;
    for (const auto& c : changes) explanation += (explanation.empty() ? "" : " ") + c + ".";
    explanation += " Confirm that the new behaviour is intended.";
    return Candidate{true, false, explanation, {}, false};
  }

 private:
  /// Repository-relative path of a report's file name ("g.cc", "/abs/path/x_test.go", "pkg/Foo.java").
  static std::string resolve(RepairContext& ctx, const std::string& file) {
    std::string f = file;
    const std::string root = ctx.workspace.root().string() + "/";
    if (f.rfind(root, 0) == 0) f = f.substr(root.size());
    if (!ctx.request.repository.empty() && f.rfind(ctx.request.repository + "/", 0) == 0)
      f = f.substr(ctx.request.repository.size() + 1);
    auto fs = detail::SandboxFs::open(ctx.workspace.root());
    if (fs && f.front() != '/' && fs->exists(f)) return f;
    // Search by base name among the tracked files; must be unique.
    auto base = std::filesystem::path(f).filename().string();
    auto listing = detail::tracked_files(detail::workspace_repo(ctx.workspace), "*" + base);
    if (!listing) return {};
    std::vector<std::string> hits;
    for (const auto& l : *listing)
      if (std::filesystem::path(l).filename() == base) hits.push_back(l);
    return hits.size() == 1 ? hits[0] : std::string();
  }

  /// The file with the literal rewritten, and a sentence saying what moved; nullopt to step aside;
  /// an empty text with the reason when the literal is on a line the change wrote (`written`).
  static std::optional<std::pair<std::string, std::string>> rewrite(const std::string& text, const std::string& path,
                                                                    const reports::TestCase& f, const std::set<int>& written) {
    Literal expected = parse_literal(f.expected), actual = parse_literal(f.actual);
    if (expected.value == actual.value && expected.type == actual.type) return std::nullopt;
    // Line offsets.
    std::vector<std::size_t> starts{0};
    for (std::size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts.push_back(i + 1);
    const int nlines = static_cast<int>(starts.size());
    if (f.line > nlines) return std::nullopt;
    auto range = [&](int from, int to) {  // 1-based inclusive line range -> byte range
      from = std::max(1, from);
      to = std::min(nlines, to);
      std::size_t b = starts[static_cast<std::size_t>(from - 1)];
      std::size_t e = to < nlines ? starts[static_cast<std::size_t>(to)] : text.size();
      return std::pair<std::size_t, std::size_t>(b, e);
    };
    auto search = [&](std::size_t b, std::size_t e) {
      std::string_view w(text.data() + b, e - b);
      std::vector<Occurrence> occ;
      switch (expected.type) {
        case Literal::Type::string: occ = find_strings(w, expected.value); break;
        case Literal::Type::number: occ = find_tokens(w, {expected.value}); break;
        case Literal::Type::boolean:
          occ = find_tokens(w, expected.value == "true" ? std::vector<std::string>{"true", "True"}
                                                        : std::vector<std::string>{"false", "False"});
          break;
        case Literal::Type::raw:
          for (std::size_t p = w.find(expected.value); p != std::string_view::npos; p = w.find(expected.value, p + 1))
            occ.push_back({p, p + expected.value.size(), 0});
          break;
      }
      for (auto& o : occ) {
        o.begin += b;
        o.end += b;
      }
      return occ;
    };
    // The failing line first, then a few lines around it (multi-line calls), then the enclosing Go
    // test function (table-driven tests keep their wants in a table above the check).
    std::vector<Occurrence> occ;
    for (auto [from, to] : {std::pair{f.line, f.line}, std::pair{f.line - 3, f.line + 3}}) {
      auto [b, e] = range(from, to);
      occ = search(b, e);
      if (!occ.empty()) break;
    }
    if (occ.empty() && path.size() > 3 && path.substr(path.size() - 3) == ".go") {
      auto [b, e] = range(1, f.line);
      auto func = text.rfind("\nfunc ", b + (e - b));
      auto end = text.find("\nfunc ", e);
      if (func != std::string::npos) occ = search(func, end == std::string::npos ? text.size() : end);
    }
    if (occ.size() != 1) return std::nullopt;  // ambiguous or absent: the model's turn
    const auto& o = occ[0];
    const int at_line = static_cast<int>(std::upper_bound(starts.begin(), starts.end(), o.begin) - starts.begin());
    if (written.count(at_line))
      return std::pair<std::string, std::string>(
          std::string(), "the expectation of " + f.id + " (" + path + ":" + std::to_string(at_line) +
                             ") is on a line the change wrote: the developer's own expectation is not moved to what the code gives");
    std::string replacement;
    if (expected.type == Literal::Type::string) {
      if (actual.type != Literal::Type::string) return std::nullopt;
      replacement = quote(actual.value, o.quote);
    } else if (expected.type == Literal::Type::boolean) {
      if (actual.type != Literal::Type::boolean) return std::nullopt;
      replacement = is_python(path) ? (actual.value == "true" ? "True" : "False") : actual.value;
    } else if (expected.type == Literal::Type::number) {
      if (actual.type != Literal::Type::number) return std::nullopt;
      replacement = actual.value;
    } else {
      replacement = f.actual;
    }
    std::string out = text.substr(0, o.begin) + replacement + text.substr(o.end);
    std::string what = "The change moved the value checked by " + f.id + " from " + f.expected + " to " + f.actual +
                       "; the test's expectation was updated";
    return std::pair<std::string, std::string>(std::move(out), std::move(what));
  }
};

}  // namespace

std::shared_ptr<RepairStrategy> make_expectation_update_strategy() { return std::make_shared<ExpectationUpdate>(); }

}  // namespace flowagent
