// The built-in tools. Output is written for a model: short, numbered, with the reason on failure.
#include "flowagent/builtin_tools.hpp"

#include <algorithm>
#include <sstream>

#include "flowagent/process.hpp"
#include "flowagent/reports.hpp"
#include "tools/test_command.hpp"
#include "workspace/sandbox_fs.hpp"

namespace flowagent {

namespace {

Json schema(std::string_view text) { return *parse_json(text); }

ToolOutput ok(std::string s) { return ToolOutput{true, std::move(s)}; }
ToolOutput bad(std::string s) { return ToolOutput{false, std::move(s)}; }

std::string cap_text(std::string s, std::size_t max) {
  if (s.size() <= max) return s;
  std::size_t head = max * 2 / 3, tail = max - head;
  return s.substr(0, head) + "\n[... " + std::to_string(s.size() - head - tail) + " characters omitted ...]\n" +
         s.substr(s.size() - tail);
}

/// Tool failures the model can act on become ok=false outputs; cancellation and a missing sandbox
/// stay Errors (the job ends).
Expected<ToolOutput> as_output(const Error& e) {
  if (e.code == Errc::cancelled || e.code == Errc::timeout || e.code == Errc::sandbox_unavailable) return unexpected(e);
  return bad(e.message);
}

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto e = s.find('\n', start);
    if (e == std::string_view::npos) e = s.size();
    out.push_back(s.substr(start, e - start));
    start = e + 1;
  }
  return out;
}

class ToolBase : public Tool {
 public:
  ToolBase(std::string name, std::string desc, Json params, BuiltinToolOptions opt, bool mutates = false)
      : name_(std::move(name)), desc_(std::move(desc)), params_(std::move(params)), opt_(opt), mutates_(mutates) {}
  std::string_view name() const override { return name_; }
  std::string_view description() const override { return desc_; }
  const Json& parameters() const override { return params_; }
  bool mutates() const override { return mutates_; }

 protected:
  Expected<detail::SandboxFs> fs(ToolContext& ctx) const { return detail::SandboxFs::open(ctx.workspace.root()); }
  std::string name_, desc_;
  Json params_;
  BuiltinToolOptions opt_;
  bool mutates_;
};

class ReadFile final : public ToolBase {
 public:
  explicit ReadFile(BuiltinToolOptions o)
      : ToolBase("read_file",
                 "Read a text file of the workspace. Returns numbered lines (\"  12| text\"). Use start_line and "
                 "end_line (1-based, inclusive) for large files.",
                 schema(R"({"type":"object","properties":{"path":{"type":"string","description":"workspace-relative path"},
                   "start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},
                   "required":["path"],"additionalProperties":false})"),
                 o) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    auto sfs = fs(ctx);
    if (!sfs) return unexpected(sfs.error());
    auto data = sfs->read(a.get_string("path"), opt_.max_read_bytes);
    if (!data) return as_output(data.error());
    if (detail::looks_binary(*data)) return bad(a.get_string("path") + " is a binary file");
    auto lines = split_lines(*data);
    std::int64_t from = a.get_int("start_line", 1), to = a.get_int("end_line", static_cast<std::int64_t>(lines.size()));
    if (lines.empty()) return ok("(empty file)");
    if (from > static_cast<std::int64_t>(lines.size()))
      return bad("start_line " + std::to_string(from) + " is past the end (" + std::to_string(lines.size()) + " lines)");
    to = std::min<std::int64_t>(to, static_cast<std::int64_t>(lines.size()));
    if (to < from) return bad("end_line is before start_line");
    std::string out;
    const int width = static_cast<int>(std::to_string(to).size());
    for (std::int64_t i = from; i <= to; ++i) {
      std::string num = std::to_string(i);
      out += std::string(static_cast<std::size_t>(std::max(0, width - static_cast<int>(num.size()))), ' ') + num + "| ";
      out.append(lines[static_cast<std::size_t>(i - 1)]);
      out += '\n';
      if (out.size() > opt_.max_output_chars) {
        out += "[... truncated at line " + std::to_string(i) + " of " + std::to_string(lines.size()) +
               "; read further with start_line=" + std::to_string(i + 1) + "]\n";
        break;
      }
    }
    return ok(out);
  }
};

class EditFile final : public ToolBase {
 public:
  explicit EditFile(BuiltinToolOptions o)
      : ToolBase("edit_file",
                 "Replace one exact occurrence of old_text with new_text in a file. old_text must match exactly once "
                 "(include surrounding lines to make it unique); whitespace matters.",
                 schema(R"({"type":"object","properties":{"path":{"type":"string"},"old_text":{"type":"string"},
                   "new_text":{"type":"string"}},"required":["path","old_text","new_text"],"additionalProperties":false})"),
                 o, true) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    auto sfs = fs(ctx);
    if (!sfs) return unexpected(sfs.error());
    const std::string path = a.get_string("path"), old_text = a.get_string("old_text"),
                      new_text = a.get_string("new_text");
    if (old_text.empty()) return bad("old_text is empty; use write_file to create a file");
    auto data = sfs->read(path, opt_.max_read_bytes);
    if (!data) return as_output(data.error());
    if (detail::looks_binary(*data)) return bad(path + " is a binary file and cannot be edited as text");
    std::size_t count = 0, first = std::string::npos;
    for (std::size_t p = data->find(old_text); p != std::string::npos; p = data->find(old_text, p + 1)) {
      if (count == 0) first = p;
      ++count;
    }
    if (count > 1)
      return bad("old_text occurs " + std::to_string(count) + " times in " + path +
                 "; include more surrounding lines so it matches exactly once");
    if (count == 0) return bad("old_text was not found in " + path + "." + nearest(*data, old_text));
    std::string updated = data->substr(0, first) + new_text + data->substr(first + old_text.size());
    if (updated.size() > opt_.max_write_bytes) return bad("the edited file would exceed the size limit");
    if (auto w = sfs->write(path, updated, false); !w) return as_output(w.error());
    auto line = 1 + std::count(data->begin(), data->begin() + static_cast<std::ptrdiff_t>(first), '\n');
    return ok("edited " + path + " at line " + std::to_string(line));
  }

 private:
  /// Shows the lines most similar to the first line of old_text.
  static std::string nearest(const std::string& data, const std::string& old_text) {
    std::string_view want = std::string_view(old_text).substr(0, old_text.find('\n'));
    auto trimmed = [](std::string_view s) {
      while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
      return s;
    };
    want = trimmed(want);
    if (want.empty()) return "";
    auto lines = split_lines(data);
    std::vector<std::pair<double, std::size_t>> scored;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      auto l = trimmed(lines[i]);
      if (l.empty()) continue;
      // Similarity: length of the common prefix and suffix over the longer length.
      std::size_t pre = 0;
      while (pre < l.size() && pre < want.size() && l[pre] == want[pre]) ++pre;
      std::size_t suf = 0;
      while (suf < l.size() - pre && suf < want.size() - pre && l[l.size() - 1 - suf] == want[want.size() - 1 - suf]) ++suf;
      double score = static_cast<double>(pre + suf) / static_cast<double>(std::max(l.size(), want.size()));
      if (l == want) score = 2;  // same text, different indentation or context
      if (score > 0.5) scored.emplace_back(score, i);
    }
    if (scored.empty()) return " No similar line exists; read the file first.";
    std::sort(scored.begin(), scored.end(), [](auto& x, auto& y) { return x.first > y.first; });
    std::string out = " Nearest candidates:\n";
    for (std::size_t k = 0; k < scored.size() && k < 3; ++k)
      out += "  " + std::to_string(scored[k].second + 1) + "| " + std::string(lines[scored[k].second]) + "\n";
    out += "Whitespace, indentation and line breaks must match exactly.";
    return out;
  }
};

class WriteFile final : public ToolBase {
 public:
  explicit WriteFile(BuiltinToolOptions o)
      : ToolBase("write_file", "Create a file or replace its whole content. Prefer edit_file for changes to existing files.",
                 schema(R"({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},
                   "required":["path","content"],"additionalProperties":false})"),
                 o, true) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    auto sfs = fs(ctx);
    if (!sfs) return unexpected(sfs.error());
    const std::string path = a.get_string("path"), content = a.get_string("content");
    if (content.size() > opt_.max_write_bytes) return bad("content exceeds the size limit");
    const bool existed = sfs->exists(path);
    if (auto st = sfs->stat(path); st && S_ISREG(st->st_mode)) {
      auto old = sfs->read(path, opt_.max_read_bytes);
      if (old && detail::looks_binary(*old)) return bad(path + " is a binary file and cannot be written as text");
    }
    if (auto w = sfs->write(path, content, true); !w) return as_output(w.error());
    if (!existed)
      if (auto t = ctx.workspace.track_new_file(path); !t) return unexpected(t.error());
    return ok("wrote " + std::to_string(content.size()) + " bytes to " + path);
  }
};

class DeleteFile final : public ToolBase {
 public:
  explicit DeleteFile(BuiltinToolOptions o)
      : ToolBase("delete_file", "Delete a file of the workspace.",
                 schema(R"({"type":"object","properties":{"path":{"type":"string"}},"required":["path"],
                   "additionalProperties":false})"),
                 o, true) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    auto sfs = fs(ctx);
    if (!sfs) return unexpected(sfs.error());
    if (auto r = sfs->remove(a.get_string("path")); !r) return as_output(r.error());
    return ok("deleted " + a.get_string("path"));
  }
};

class ListDir final : public ToolBase {
 public:
  explicit ListDir(BuiltinToolOptions o)
      : ToolBase("list_dir", "List a folder of the workspace (\".\" for the root). Folders end with '/'.",
                 schema(R"({"type":"object","properties":{"path":{"type":"string"}},"additionalProperties":false})"), o) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    auto sfs = fs(ctx);
    if (!sfs) return unexpected(sfs.error());
    std::string path = a.get_string("path", ".");
    auto entries = sfs->list(path);
    if (!entries) return as_output(entries.error());
    std::sort(entries->begin(), entries->end(), [](auto& x, auto& y) { return x.name < y.name; });
    std::string out;
    std::size_t n = 0;
    for (const auto& e : *entries) {
      if (n++ == opt_.max_list_entries) {
        out += "[... " + std::to_string(entries->size() - opt_.max_list_entries) + " more entries]\n";
        break;
      }
      out += e.name + (e.type == 'd' ? "/" : e.type == 'l' ? " -> (symlink)" : "") + "\n";
    }
    return ok(out.empty() ? "(empty folder)" : out);
  }
};

class SearchCode final : public ToolBase {
 public:
  explicit SearchCode(BuiltinToolOptions o)
      : ToolBase("search_code",
                 "Search the workspace (respecting .gitignore, skipping binary files) for a regular expression (RE2 "
                 "syntax) or a literal string. Returns file:line:text.",
                 schema(R"({"type":"object","properties":{"pattern":{"type":"string"},"literal":{"type":"boolean"},
                   "ignore_case":{"type":"boolean"},"glob":{"type":"string","description":"e.g. *.py or src/*"},
                   "context":{"type":"integer","minimum":0,"maximum":10}},"required":["pattern"],"additionalProperties":false})"),
                 o) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    SearchOptions so;
    so.pattern = a.get_string("pattern");
    so.literal = a.get_bool("literal");
    so.ignore_case = a.get_bool("ignore_case");
    so.glob = a.get_string("glob");
    so.context = static_cast<int>(a.get_int("context", 0));
    so.max_results = opt_.max_search_results;
    so.threads = opt_.search_threads;
    so.git_dir = ctx.workspace.git_dir();
    auto hits = search_code(ctx.workspace.root(), so, ctx.cancel);
    if (!hits) return as_output(hits.error());
    if (hits->empty()) return ok("no matches");
    std::string out;
    for (const auto& h : *hits) {
      int ln = h.line - static_cast<int>(h.before.size());
      for (const auto& b : h.before) out += h.path + "-" + std::to_string(ln++) + "-" + b + "\n";
      out += h.path + ":" + std::to_string(h.line) + ":" + h.text + "\n";
      ln = h.line + 1;
      for (const auto& b : h.after) out += h.path + "-" + std::to_string(ln++) + "-" + b + "\n";
      if (so.context > 0) out += "--\n";
    }
    if (hits->size() >= so.max_results) out += "[results capped at " + std::to_string(so.max_results) + "]\n";
    return ok(cap_text(out, opt_.max_output_chars));
  }
};

class Build final : public ToolBase {
 public:
  explicit Build(BuiltinToolOptions o)
      : ToolBase("build", "Build the project with the change's build command. Returns the exit status and the end of the log.",
                 schema(R"({"type":"object","properties":{},"additionalProperties":false})"), o) {}
  Expected<ToolOutput> invoke(const Json&, ToolContext& ctx) override {
    if (ctx.request.commands.build.empty()) return ok("this project has no separate build step; run_tests builds");
    auto r = detail::run_command(ctx.workspace.root(), ctx.request.commands.build, ctx.request, ctx.cancel, ctx.sandbox);
    if (!r) return as_output(r.error());
    ctx.state.last_build_log = r->output;
    std::string head = r->ok() ? "build succeeded" : r->timed_out ? "build timed out" : "build FAILED (exit " + std::to_string(r->exit_code) + ")";
    if (!r->killed_by.empty()) head = "build STOPPED by the sandbox: " + r->killed_by;
    return ToolOutput{r->ok(), head + "\n" + reports::failure_excerpt(reports::strip_ansi(r->output), 60, opt_.max_output_chars)};
  }
};

class RunTests final : public ToolBase {
 public:
  explicit RunTests(BuiltinToolOptions o)
      : ToolBase("run_tests",
                 "Run tests: by default the failing tests of the change; or the named tests. Returns each test's "
                 "pass/fail and failure messages.",
                 schema(R"({"type":"object","properties":{"tests":{"type":"array","items":{"type":"string"}}},
                   "additionalProperties":false})"),
                 o) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    std::vector<std::string> tests = ctx.request.failure.failing_tests;
    bool failing_set = true;
    if (const Json* t = a.find("tests"); t && t->is_array() && !t->as_array().empty()) {
      tests.clear();
      for (const auto& x : t->as_array()) tests.push_back(x.as_string());
      failing_set = tests == ctx.request.failure.failing_tests;
      for (std::size_t i = 0; i < tests.size(); ++i)  // ids from the model are data, never options
        if (auto ok = check_test_id(tests[i], "run_tests tests[" + std::to_string(i) + "]"); !ok)
          return bad(ok.error().message);
    }
    auto run = detail::run_tests(ctx.workspace.root(), ctx.request, tests, ctx.cancel, ctx.sandbox, "loop");
    if (!run) return as_output(run.error());
    ctx.state.last_test_log = run->log;
    ctx.state.note_test_run(run->run, failing_set);
    std::string out = run->run.exit_code == 0 ? "tests PASSED" : run->run.timed_out ? "tests TIMED OUT" : "tests FAILED";
    out += " (exit " + std::to_string(run->run.exit_code) + ")\n";
    if (!run->run.stopped_by.empty()) out += "STOPPED by the sandbox: " + run->run.stopped_by + "\n";
    for (const auto& p : run->run.passed) out += "PASS " + p + "\n";
    for (const auto& f : run->failures) {
      out += "FAIL " + f.id + (f.file.empty() ? "" : " at " + f.file + ":" + std::to_string(f.line)) + "\n";
      if (!f.expected.empty() || !f.actual.empty()) out += "  expected: " + f.expected + "\n  actual: " + f.actual + "\n";
      out += f.excerpt + "\n";
    }
    if (run->failures.empty() && run->run.exit_code != 0)
      out += reports::failure_excerpt(reports::strip_ansi(run->log), 60, opt_.max_output_chars);
    return ToolOutput{run->run.exit_code == 0, cap_text(out, opt_.max_output_chars)};
  }
};

class ReadLog final : public ToolBase {
 public:
  explicit ReadLog(BuiltinToolOptions o)
      : ToolBase("read_log",
                 "Read the output of the last build or test run: the tail (default), lines matching grep, or a line range.",
                 schema(R"({"type":"object","properties":{"which":{"enum":["build","test"]},"tail":{"type":"integer","minimum":1},
                   "grep":{"type":"string"},"start_line":{"type":"integer","minimum":1},"end_line":{"type":"integer","minimum":1}},
                   "required":["which"],"additionalProperties":false})"),
                 o) {}
  Expected<ToolOutput> invoke(const Json& a, ToolContext& ctx) override {
    const std::string& log = a.get_string("which") == "build" ? ctx.state.last_build_log : ctx.state.last_test_log;
    if (log.empty()) return bad("there is no " + a.get_string("which") + " log yet");
    const std::string clean = reports::strip_ansi(log);
    auto lines = split_lines(clean);
    std::string out;
    if (a.find("grep")) {
      const std::string g = a.get_string("grep");
      for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find(g) != std::string_view::npos) out += std::to_string(i + 1) + ": " + std::string(lines[i]) + "\n";
      if (out.empty()) out = "no line contains \"" + g + "\"";
    } else if (a.find("start_line")) {
      auto from = static_cast<std::size_t>(a.get_int("start_line"));
      auto to = static_cast<std::size_t>(a.get_int("end_line", static_cast<std::int64_t>(from + 99)));
      for (std::size_t i = from; i <= to && i <= lines.size(); ++i) out += std::to_string(i) + ": " + std::string(lines[i - 1]) + "\n";
    } else {
      auto n = static_cast<std::size_t>(a.get_int("tail", 80));
      std::size_t from = lines.size() > n ? lines.size() - n : 0;
      for (std::size_t i = from; i < lines.size(); ++i) out += std::to_string(i + 1) + ": " + std::string(lines[i]) + "\n";
    }
    return ok(cap_text(out, opt_.max_output_chars));
  }
};

}  // namespace

Expected<void> register_builtin_tools(ToolRegistry& reg, BuiltinToolOptions o) {
  std::vector<std::shared_ptr<Tool>> tools = {
      std::make_shared<ReadFile>(o),   std::make_shared<EditFile>(o),   std::make_shared<WriteFile>(o),
      std::make_shared<DeleteFile>(o), std::make_shared<ListDir>(o),    std::make_shared<SearchCode>(o),
      std::make_shared<Build>(o),      std::make_shared<RunTests>(o),   std::make_shared<ReadLog>(o)};
  for (auto& t : tools)
    if (auto r = reg.add(t); !r) return r;
  return {};
}

}  // namespace flowagent
