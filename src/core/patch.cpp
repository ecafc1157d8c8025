// The candidate patch as a value: the one parser of git's unified diff format, its canonical
// rendering, and the rules a deliverable patch must satisfy.
#include "flowagent/patch.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <charconv>
#include <cstring>
#include <map>

#include "core/git_names.hpp"

namespace flowagent {

namespace {

/// C-style quoting as git does it (core.quotePath=false: bytes >= 0x80 stay as they are).
bool needs_quote(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) return true;
  return false;
}

std::string quote(std::string_view s) {
  if (!needs_quote(s)) return std::string(s);
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\a': out += "\\a"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\v': out += "\\v"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[5];
          buf[0] = '\\';
          buf[1] = static_cast<char>('0' + ((c >> 6) & 7));
          buf[2] = static_cast<char>('0' + ((c >> 3) & 7));
          buf[3] = static_cast<char>('0' + (c & 7));
          buf[4] = 0;
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

/// Reads a C-quoted string starting at s[0] == '"'; `used` receives the characters consumed.
std::optional<std::string> unquote(std::string_view s, std::size_t& used) {
  std::string out;
  for (std::size_t i = 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      used = i + 1;
      return out;
    }
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i >= s.size()) return std::nullopt;
    switch (s[i]) {
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'v': out += '\v'; break;
      case 'f': out += '\f'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      default: {
        if (i + 2 >= s.size()) return std::nullopt;
        int v = 0;
        for (int k = 0; k < 3; ++k) {
          char d = s[i + k];
          if (d < '0' || d > '7') return std::nullopt;
          v = v * 8 + (d - '0');
        }
        if (v > 255) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
      }
    }
  }
  return std::nullopt;
}

/// A path as written after "rename from", "---" and the like: quoted, or raw up to a tab.
std::optional<std::string> read_name(std::string_view s) {
  if (!s.empty() && s[0] == '"') {
    std::size_t used = 0;
    auto q = unquote(s, used);
    if (!q) return std::nullopt;
    auto rest = s.substr(used);
    if (!rest.empty() && rest[0] != '\t') return std::nullopt;
    return q;
  }
  auto tab = s.find('\t');  // git appends a tab to names with spaces; GNU diff a timestamp
  return std::string(s.substr(0, tab));
}

/// "a/x" -> "x" (prefix required).
std::optional<std::string> strip_prefix(std::optional<std::string> name, char side) {
  if (!name || name->size() < 3 || (*name)[0] != side || (*name)[1] != '/') return std::nullopt;
  return name->substr(2);
}

/// The two names of a "diff --git" line (after the command).
bool header_names(std::string_view s, std::string& a, std::string& b) {
  if (!s.empty() && s[0] == '"') {
    std::size_t used = 0;
    auto qa = unquote(s, used);
    if (!qa || used >= s.size() || s[used] != ' ') return false;
    auto rest = s.substr(used + 1);
    std::optional<std::string> qb;
    if (!rest.empty() && rest[0] == '"') {
      std::size_t u2 = 0;
      qb = unquote(rest, u2);
      if (!qb || u2 != rest.size()) return false;
    } else {
      qb = std::string(rest);
    }
    auto pa = strip_prefix(qa, 'a'), pb = strip_prefix(qb, 'b');
    if (!pa || !pb) return false;
    a = *pa;
    b = *pb;
    return true;
  }
  // Unquoted first name: "a/X b/Y". With a quoted second name the split is at ' "'.
  if (auto q = s.find(" \"b/"); q != std::string_view::npos) {
    std::size_t used = 0;
    auto qb = unquote(s.substr(q + 1), used);
    auto pa = strip_prefix(std::string(s.substr(0, q)), 'a'), pb = strip_prefix(qb, 'b');
    if (!qb || q + 1 + used != s.size() || !pa || !pb) return false;
    a = *pa;
    b = *pb;
    return true;
  }
  if (s.substr(0, 2) != "a/") return false;
  // Both unquoted and equal (no rename): "a/X b/X", whatever X holds.
  if (s.size() >= 7 && (s.size() - 5) % 2 == 0) {
    const std::size_t len = (s.size() - 5) / 2;
    if (s.substr(2 + len, 3) == " b/" && s.substr(2, len) == s.substr(5 + len)) {
      a = b = std::string(s.substr(2, len));
      return true;
    }
  }
  // Different names (a rename): unambiguous only with a single " b/"; else the "rename" or
  // "---"/"+++" lines name the files.
  auto sep = s.find(" b/");
  if (sep == std::string_view::npos || s.find(" b/", sep + 1) != std::string_view::npos) return false;
  a = std::string(s.substr(2, sep - 2));
  b = std::string(s.substr(sep + 3));
  return true;
}

std::optional<std::uint32_t> parse_mode(std::string_view s) {
  if (s.size() < 5 || s.size() > 6) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '7') return std::nullopt;
    v = v * 8 + static_cast<std::uint32_t>(c - '0');
  }
  return v;
}

bool is_hex(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

/// "-a,b" / "+c" ranges.
bool parse_range(std::string_view s, char sign, int& start, int& count) {
  if (s.empty() || s[0] != sign) return false;
  s.remove_prefix(1);
  auto comma = s.find(',');
  auto a = to_int(s.substr(0, comma));
  if (!a) return false;
  start = *a;
  if (comma == std::string_view::npos) {
    count = 1;
    return true;
  }
  auto b = to_int(s.substr(comma + 1));
  if (!b) return false;
  count = *b;
  return true;
}

std::string mode_text(std::uint32_t m) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%06o", m);
  return buf;
}

std::string range_text(int start, int count) {
  return count == 1 ? std::to_string(start) : std::to_string(start) + "," + std::to_string(count);
}

/// "--- a/x y\t": git ends a name holding a space with a tab.
std::string name_line(std::string_view marker, const std::string& prefixed) {
  std::string q = quote(prefixed);
  return std::string(marker) + q + (prefixed.find(' ') != std::string::npos ? "\t" : "") + "\n";
}

class Parser {
 public:
  explicit Parser(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
      auto eol = text.find('\n', pos);
      if (eol == std::string_view::npos) {
        lines_.push_back(text.substr(pos));
        break;
      }
      lines_.push_back(text.substr(pos, eol - pos));
      pos = eol + 1;
    }
  }

  Expected<Patch> run() {
    Patch patch;
    while (i_ < lines_.size()) {
      if (!lines_[i_].starts_with("diff --git ")) return error("expected \"diff --git\"");
      auto f = file();
      if (!f) return unexpected(f.error());
      patch.files.push_back(std::move(*f));
    }
    patch.text = render_patch(patch.files);
    return patch;
  }

 private:
  unexpected<Error> error(const std::string& what) const {
    std::string line(i_ < lines_.size() ? lines_[i_].substr(0, 80) : std::string_view("end of text"));
    return fail(Errc::protocol, "patch line " + std::to_string(i_ + 1) + ": " + what + " (\"" + line + "\")");
  }

  bool at(std::string_view prefix) const { return i_ < lines_.size() && lines_[i_].starts_with(prefix); }

  Expected<PatchFile> file() {
    PatchFile f;
    // Names the header leaves ambiguous come from "rename from/to" or "---"/"+++" below.
    const bool named = header_names(lines_[i_].substr(11), f.old_path, f.new_path);
    if (!named && lines_[i_].substr(11, 1) == "\"") return error("cannot read the file names");
    ++i_;
    bool added = false, deleted = false, renamed = false, binary_marker = false;
    std::uint32_t old_mode = 0, new_mode = 0, index_mode = 0;
    std::optional<std::string> minus, plus;
    for (; i_ < lines_.size() && !at("diff --git ") && !at("@@ "); ++i_) {
      std::string_view l = lines_[i_];
      auto rest = [&](std::string_view p) { return l.substr(p.size()); };
      if (l.starts_with("old mode ")) {
        auto m = parse_mode(rest("old mode "));
        if (!m) return error("bad mode");
        old_mode = *m;
      } else if (l.starts_with("new mode ")) {
        auto m = parse_mode(rest("new mode "));
        if (!m) return error("bad mode");
        new_mode = *m;
      } else if (l.starts_with("new file mode ")) {
        auto m = parse_mode(rest("new file mode "));
        if (!m) return error("bad mode");
        new_mode = *m;
        added = true;
      } else if (l.starts_with("deleted file mode ")) {
        auto m = parse_mode(rest("deleted file mode "));
        if (!m) return error("bad mode");
        old_mode = *m;
        deleted = true;
      } else if (l.starts_with("index ")) {
        auto v = rest("index ");
        auto dots = v.find("..");
        auto sp = v.find(' ');
        if (dots == std::string_view::npos || (sp != std::string_view::npos && sp < dots)) return error("bad index line");
        f.old_blob = std::string(v.substr(0, dots));
        f.new_blob = std::string(v.substr(dots + 2, sp == std::string_view::npos ? std::string_view::npos : sp - dots - 2));
        if (!is_hex(f.old_blob) || !is_hex(f.new_blob)) return error("bad object id");
        if (sp != std::string_view::npos) {
          auto m = parse_mode(v.substr(sp + 1));
          if (!m) return error("bad mode");
          index_mode = *m;
        }
      } else if (l.starts_with("similarity index ") || l.starts_with("dissimilarity index ")) {
        auto v = l.substr(l.find("index ") + 6);
        if (v.empty() || v.back() != '%') return error("bad similarity");
        auto n = to_int(v.substr(0, v.size() - 1));
        if (!n || *n > 100) return error("bad similarity");
        if (l.starts_with("similarity")) f.similarity = *n;
      } else if (l.starts_with("rename from ")) {
        auto n = read_name(rest("rename from "));
        if (!n) return error("bad name");
        f.old_path = *n;
        renamed = true;
      } else if (l.starts_with("rename to ")) {
        auto n = read_name(rest("rename to "));
        if (!n) return error("bad name");
        f.new_path = *n;
        renamed = true;
      } else if (l.starts_with("copy from ") || l.starts_with("copy to ")) {
        return error("copies are not supported");
      } else if (l.starts_with("Binary files ")) {
        f.is_text = false;
        binary_marker = true;
      } else if (l == "GIT binary patch") {
        f.is_text = false;
        binary_marker = true;
        while (i_ + 1 < lines_.size() && !lines_[i_ + 1].starts_with("diff --git ")) ++i_;
      } else if (l.starts_with("--- ")) {
        auto n = read_name(rest("--- "));
        if (!n) return error("bad name");
        minus = *n;
        ++i_;
        if (!at("+++ ")) return error("expected \"+++\"");
        auto p = read_name(lines_[i_].substr(4));
        if (!p) return error("bad name");
        plus = *p;
      } else {
        return error("unknown header line");
      }
    }
    if (added && deleted) return error("a file both added and deleted");
    if (!named) {  // take the names from the lines that state them one by one
      auto m = minus && *minus != "/dev/null" ? strip_prefix(*minus, 'a') : std::nullopt;
      auto p = plus && *plus != "/dev/null" ? strip_prefix(*plus, 'b') : std::nullopt;
      if (f.old_path.empty()) f.old_path = m ? *m : p ? *p : "";
      if (f.new_path.empty()) f.new_path = p ? *p : m ? *m : "";
      if (f.old_path.empty() || f.new_path.empty()) return fail(Errc::protocol, "patch: cannot read the file names of a section");
    }
    // ---/+++ names must agree with the header.
    if (minus && *minus != "/dev/null") {
      auto p = strip_prefix(*minus, 'a');
      if (!p || *p != f.old_path) return fail(Errc::protocol, "patch: \"---\" names another file than the header: " + *minus);
    }
    if (plus && *plus != "/dev/null") {
      auto p = strip_prefix(*plus, 'b');
      if (!p || *p != f.new_path) return fail(Errc::protocol, "patch: \"+++\" names another file than the header: " + *plus);
    }
    if ((minus && *minus == "/dev/null") != added || (plus && *plus == "/dev/null") != deleted) {
      if (minus || plus) return fail(Errc::protocol, "patch: /dev/null does not match the file's status for " + f.new_path);
    }
    if (added) {
      f.status = PatchStatus::added;
      f.old_path = f.new_path;
    } else if (deleted) {
      f.status = PatchStatus::deleted;
      f.new_path = f.old_path;
    } else if (renamed || f.old_path != f.new_path) {
      if (!renamed) return fail(Errc::protocol, "patch: different names without a rename for " + f.new_path);
      f.status = PatchStatus::renamed;
    }
    if (f.status == PatchStatus::modified || f.status == PatchStatus::renamed) {
      if (old_mode == 0 && new_mode == 0) old_mode = new_mode = index_mode;
      else if ((old_mode == 0) != (new_mode == 0)) return error("\"old mode\" without \"new mode\"");
    }
    f.old_mode = old_mode;
    f.new_mode = new_mode;
    while (at("@@ ")) {
      auto h = hunk(f);
      if (!h) return unexpected(h.error());
      f.hunks.push_back(std::move(*h));
    }
    if (!f.hunks.empty() && !minus) return fail(Errc::protocol, "patch: hunks without \"---\"/\"+++\" for " + f.new_path);
    if (!f.hunks.empty() && binary_marker) return fail(Errc::protocol, "patch: a binary file with text hunks: " + f.new_path);
    return f;
  }

  Expected<PatchHunk> hunk(PatchFile& f) {
    PatchHunk h;
    std::string_view l = lines_[i_];
    auto end = l.find(" @@", 3);
    if (end == std::string_view::npos) return error("bad hunk header");
    auto ranges = l.substr(3, end - 3);
    auto sp = ranges.find(' ');
    if (sp == std::string_view::npos || !parse_range(ranges.substr(0, sp), '-', h.old_start, h.old_count) ||
        !parse_range(ranges.substr(sp + 1), '+', h.new_start, h.new_count))
      return error("bad hunk header");
    auto section = l.substr(end + 3);
    if (!section.empty()) {
      if (section[0] != ' ') return error("bad hunk header");
      h.section = std::string(section.substr(1));
    }
    ++i_;
    int old_left = h.old_count, new_left = h.new_count;
    int old_no = h.old_count == 0 ? h.old_start + 1 : h.old_start;
    int new_no = h.new_count == 0 ? h.new_start + 1 : h.new_start;
    while (i_ < lines_.size()) {
      std::string_view x = lines_[i_];
      if (!x.empty() && x[0] == '\\') {
        if (h.lines.empty()) return error("\"\\\" before any line");
        h.lines.back().no_newline = true;
        ++i_;
        continue;
      }
      if (old_left == 0 && new_left == 0) break;
      PatchLine pl;
      pl.kind = x.empty() ? ' ' : x[0];
      pl.text = std::string(x.empty() ? x : x.substr(1));
      if (pl.kind == ' ') {
        if (old_left == 0 || new_left == 0) return error("hunk longer than its header says");
        pl.old_line = old_no++;
        pl.new_line = new_no++;
        --old_left;
        --new_left;
      } else if (pl.kind == '-') {
        if (old_left == 0) return error("hunk removes more lines than its header says");
        pl.old_line = old_no++;
        --old_left;
      } else if (pl.kind == '+') {
        if (new_left == 0) return error("hunk adds more lines than its header says");
        pl.new_line = new_no++;
        --new_left;
      } else {
        return error("hunk shorter than its header says");
      }
      if (pl.text.find('\0') != std::string::npos) f.is_text = false;
      h.lines.push_back(std::move(pl));
      ++i_;
    }
    if (old_left != 0 || new_left != 0) return error("hunk shorter than its header says");
    return h;
  }

  std::vector<std::string_view> lines_;
  std::size_t i_ = 0;
};

bool bad_component(std::string_view c) {
  if (c.empty() || c == "." || c == "..") return true;
  for (char ch : c)
    if ((static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7f) return true;  // git quotes a tab
  return detail::is_git_name(c);  // every spelling the tools refuse (case, HFS+, NTFS)
}

/// The first terminal control in an added line: C0 controls but tab, form feed, vertical tab and a
/// carriage return ending the line (CRLF files); DEL; C1 controls (U+0080-U+009F, in UTF-8 C2 80-9F;
/// U+009B is CSI to many terminals). Such bytes can rewrite what a reviewer sees on a terminal.
std::optional<std::size_t> terminal_control(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c == '\t' || c == '\f' || c == '\v') continue;
    if (c == '\r' && i + 1 == line.size()) continue;
    if (c < 0x20 || c == 0x7f) return i;
    if (c == 0xC2 && i + 1 < line.size() && static_cast<unsigned char>(line[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(line[i + 1]) <= 0x9F)
      return i;
  }
  return std::nullopt;
}

bool path_inside_tree(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string_view::npos) return false;
  std::size_t pos = 0;
  while (true) {
    auto slash = p.find('/', pos);
    if (bad_component(p.substr(pos, slash == std::string_view::npos ? std::string_view::npos : slash - pos))) return false;
    if (slash == std::string_view::npos) return true;
    pos = slash + 1;
  }
}

bool regular(std::uint32_t m) { return m == kModeRegular || m == kModeExecutable; }

}  // namespace

Expected<Patch> parse_patch(std::string_view text) { return Parser(text).run(); }

std::string render_file_header(const PatchFile& f) {
  std::string s = "diff --git " + quote("a/" + f.old_path) + " " + quote("b/" + f.new_path) + "\n";
  if (f.status == PatchStatus::added) s += "new file mode " + mode_text(f.new_mode) + "\n";
  if (f.status == PatchStatus::deleted) s += "deleted file mode " + mode_text(f.old_mode) + "\n";
  const bool both = f.status == PatchStatus::modified || f.status == PatchStatus::renamed;
  if (both && f.old_mode != f.new_mode)
    s += "old mode " + mode_text(f.old_mode) + "\nnew mode " + mode_text(f.new_mode) + "\n";
  if (f.status == PatchStatus::renamed)
    s += "similarity index " + std::to_string(f.similarity) + "%\nrename from " + quote(f.old_path) + "\nrename to " +
         quote(f.new_path) + "\n";
  if (!f.old_blob.empty() || !f.new_blob.empty()) {
    s += "index " + f.old_blob + ".." + f.new_blob;
    if (both && f.old_mode == f.new_mode && f.old_mode != 0) s += " " + mode_text(f.old_mode);
    s += "\n";
  }
  if (!f.is_text) {
    s += "Binary files " + (f.status == PatchStatus::added ? std::string("/dev/null") : quote("a/" + f.old_path)) +
         " and " + (f.status == PatchStatus::deleted ? std::string("/dev/null") : quote("b/" + f.new_path)) + " differ\n";
  } else if (!f.hunks.empty()) {
    s += f.status == PatchStatus::added ? std::string("--- /dev/null\n") : name_line("--- ", "a/" + f.old_path);
    s += f.status == PatchStatus::deleted ? std::string("+++ /dev/null\n") : name_line("+++ ", "b/" + f.new_path);
  }
  return s;
}

std::string render_hunk(const PatchHunk& h) {
  std::string s = "@@ -" + range_text(h.old_start, h.old_count) + " +" + range_text(h.new_start, h.new_count) + " @@";
  if (!h.section.empty()) s += " " + h.section;
  s += "\n";
  for (const auto& l : h.lines) {
    s += l.kind;
    s += l.text;
    s += "\n";
    if (l.no_newline) s += "\\ No newline at end of file\n";
  }
  return s;
}

std::string render_patch(const std::vector<PatchFile>& files) {
  std::string s;
  for (const auto& f : files) {
    s += render_file_header(f);
    if (f.is_text)
      for (const auto& h : f.hunks) s += render_hunk(h);
  }
  return s;
}

bool looks_binary(std::string_view content) noexcept {
  return std::memchr(content.data(), 0, std::min<std::size_t>(content.size(), 8000)) != nullptr;
}

namespace {

constexpr std::size_t kMaxSourceLine = 16384;
/// What a patch may add to source and configuration files in all (patch_too_large).
constexpr std::size_t kMaxSourceAdded = 256u << 10;

/// A file of a language or configuration the checks read line by line.
bool source_like(std::string_view path) {
  const auto dot = path.rfind('.');
  const auto slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return false;
  static constexpr std::string_view kExts[] = {"py", "pyi", "js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts", "go", "java", "kt",
                                               "kts", "scala", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "rs", "rb", "cs",
                                               "php", "swift", "ini", "cfg", "toml"};
  const std::string_view ext = path.substr(dot + 1);
  return std::find(std::begin(kExts), std::end(kExts), ext) != std::end(kExts);
}

}  // namespace

std::vector<PatchProblem> check_patch(const Patch& patch) {
  std::vector<PatchProblem> out;
  auto add = [&](const PatchFile& f, std::string reason, std::string message) {
    out.push_back(PatchProblem{std::move(reason), f.path(), f.path() + ": " + std::move(message)});
  };
  auto mode_problem = [&](const PatchFile& f, std::uint32_t m, const char* side) {
    if (m == kModeSymlink) add(f, "patch_symlink", std::string(side) + " is a symbolic link (mode 120000)");
    else if (m == kModeGitlink) add(f, "patch_gitlink", std::string(side) + " is a submodule (mode 160000)");
    else if (m == 0) add(f, "patch_mode_unstated", std::string("the patch does not state the mode of the ") + side);
    else if (!regular(m)) add(f, "patch_mode", std::string(side) + " has mode " + mode_text(m) + ", not a regular file");
    else return false;
    return true;
  };
  std::map<std::string, PatchStatus> seen;
  for (const auto& f : patch.files) {
    const bool has_old = f.status != PatchStatus::added, has_new = f.status != PatchStatus::deleted;
    if ((has_old && !path_inside_tree(f.old_path)) || (has_new && !path_inside_tree(f.new_path))) {
      add(f, "patch_path", "the path leaves the repository's tree or names its .git");
      continue;
    }
    bool bad_old = has_old && mode_problem(f, f.old_mode, "the old file");
    bool bad_new = has_new && mode_problem(f, f.new_mode, "the new file");
    if (bad_old || bad_new) {
      if (has_old && has_new && bad_old != bad_new && f.old_mode != 0 && f.new_mode != 0)
        add(f, "patch_type_change", "the patch changes the file's type (" + mode_text(f.old_mode) + " to " +
                                        mode_text(f.new_mode) + ")");
      continue;
    }
    bool twice = false;
    const bool same = has_old && has_new && f.old_path == f.new_path;
    for (const auto* p : {has_old ? &f.old_path : nullptr, has_new && !same ? &f.new_path : nullptr}) {
      if (!p || twice) continue;
      auto [it, fresh] = seen.emplace(*p, f.status);
      if (fresh) continue;
      twice = true;
      const bool replaced = (it->second == PatchStatus::deleted && f.status == PatchStatus::added) ||
                            (it->second == PatchStatus::added && f.status == PatchStatus::deleted);
      if (replaced) add(f, "patch_type_change", "the patch deletes the file and adds it again (a type change)");
      else add(f, "patch_path", "the patch names this file twice");
    }
    if (twice) continue;
    if (has_old && has_new && f.old_mode != f.new_mode) {
      add(f, "patch_mode_change", "the patch changes the file's mode (" + mode_text(f.old_mode) + " to " +
                                      mode_text(f.new_mode) + ")");
      continue;
    }
    if (!f.is_text) {
      add(f, "patch_binary", "binary content (a NUL byte, or a binary patch) in a fix");
      continue;
    }
    if (f.status == PatchStatus::modified && f.hunks.empty()) {
      add(f, "patch_binary", "the patch changes the file without a text hunk");
      continue;
    }
    for (const auto& h : f.hunks) {
      const auto bad = std::find_if(h.lines.begin(), h.lines.end(),
                                    [](const PatchLine& l) { return l.kind == '+' && terminal_control(l.text); });
      if (bad == h.lines.end()) continue;
      add(f, "patch_control_chars",
          "line " + std::to_string(bad->new_line) + " adds a terminal control character (byte " +
              std::to_string(static_cast<unsigned char>(bad->text[*terminal_control(bad->text)])) +
              "), which can hide what the line does from a reviewer");
      break;
    }
    // A source file's line over kMaxSourceLine bytes: the checks read code line by line with
    // std::regex, which recurses per character a repetition takes (hostile review 56: a 300 kB line
    // overflowed the stack and killed the process). Minified or generated code is no fix.
    if (source_like(f.path()))
      for (const auto& h : f.hunks) {
        const auto bad = std::find_if(h.lines.begin(), h.lines.end(),
                                      [](const PatchLine& l) { return l.kind == '+' && l.text.size() > kMaxSourceLine; });
        if (bad == h.lines.end()) continue;
        add(f, "patch_long_line",
            "line " + std::to_string(bad->new_line) + " adds " + std::to_string(bad->text.size()) + " bytes on one line (more than " +
                std::to_string(kMaxSourceLine) + " in a source or configuration file): minified or generated code is no fix");
        break;
      }
  }
  // Source and configuration added in all: the guard and the validation read every file the patch
  // touches, some of it in time that grows faster than the file (hostile review 57: four model-
  // written test files of 1 MiB held a 60-second job for 101 s). A fix adding more is no fix.
  std::size_t added = 0;
  for (const auto& f : patch.files) {
    if (!source_like(f.path())) continue;
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines)
        if (l.kind == '+') added += l.text.size() + 1;
    if (added > kMaxSourceAdded) {
      add(f, "patch_too_large",
          "the patch adds more than " + std::to_string(kMaxSourceAdded >> 10) +
              " KiB to source and configuration files (reaching it here): generated code or data is no fix");
      break;
    }
  }
  return out;
}

namespace detail {
bool is_git_name(std::string_view c) {
  std::string folded;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(c[k]); };
    // Code points HFS+ ignores in names: U+200C-U+200F, U+202A-U+202E, U+206A-U+206F, U+FEFF.
    if (i + 2 < c.size()) {
      const unsigned char x = b(i), y = b(i + 1), z = b(i + 2);
      if ((x == 0xE2 && y == 0x80 && ((z >= 0x8C && z <= 0x8F) || (z >= 0xAA && z <= 0xAE))) ||
          (x == 0xE2 && y == 0x81 && z >= 0xAA && z <= 0xAF) || (x == 0xEF && y == 0xBB && z == 0xBF)) {
        i += 2;
        continue;
      }
    }
    folded += static_cast<char>(std::tolower(b(i)));
  }
  while (!folded.empty() && (folded.back() == '.' || folded.back() == ' ')) folded.pop_back();
  return folded == ".git" || folded == "git~1";
}
}  // namespace detail

}  // namespace flowagent
