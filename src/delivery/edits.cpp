// Parsing a git diff into edits, and columns.
#include <charconv>

#include "flowagent/delivery.hpp"

namespace flowagent {

std::size_t utf16_column(std::string_view line, std::size_t bytes) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < bytes && i < line.size();) {
    auto c = static_cast<unsigned char>(line[i]);
    std::size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return units;
}

namespace {

int number(std::string_view s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

void finish_edit(std::vector<FixEdit>& out, FixEdit& e) {
  if (e.old_lines.empty() && e.new_lines.empty()) return;
  e.end_line = e.start_line + static_cast<int>(e.old_lines.size()) - 1;
  if (e.old_lines.size() == 1 && e.new_lines.size() == 1) {
    const std::string &a = e.old_lines[0], &b = e.new_lines[0];
    std::size_t p = 0;
    while (p < a.size() && p < b.size() && a[p] == b[p]) ++p;
    while (p > 0 && p < a.size() && is_continuation(static_cast<unsigned char>(a[p]))) --p;  // UTF-8 boundary
    std::size_t q = 0;
    while (q < a.size() - p && q < b.size() - p && a[a.size() - 1 - q] == b[b.size() - 1 - q]) ++q;
    while (q > 0 && a.size() - q < a.size() && is_continuation(static_cast<unsigned char>(a[a.size() - q]))) --q;
    e.intra_line = true;
    e.col_start = p;
    e.col_end = a.size() - q;
    e.replacement = b.substr(p, b.size() - q - p);
  }
  out.push_back(e);
  e = FixEdit{};
}

}  // namespace

Expected<std::vector<FixEdit>> parse_fix_edits(std::string_view patch) {
  std::vector<FixEdit> out;
  std::string path;
  bool new_file = false, deleted = false, binary = false;
  int old_line = 0, old_left = 0, new_left = 0;
  bool in_hunk = false;
  FixEdit cur;
  std::size_t pos = 0;
  auto start_block = [&] {
    if (cur.old_lines.empty() && cur.new_lines.empty()) {
      cur.path = path;
      cur.start_line = old_line;
      cur.new_file = new_file;
      cur.deleted_file = deleted;
    }
  };
  while (pos < patch.size()) {
    auto eol = patch.find('\n', pos);
    std::string_view line = patch.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    pos = eol == std::string_view::npos ? patch.size() : eol + 1;
    if (in_hunk && (old_left > 0 || new_left > 0) && !line.empty() &&
        (line[0] == ' ' || line[0] == '-' || line[0] == '+')) {
      if (line[0] == ' ') {
        finish_edit(out, cur);
        ++old_line;
        --old_left;
        --new_left;
      } else if (line[0] == '-') {
        start_block();
        cur.old_lines.emplace_back(line.substr(1));
        ++old_line;
        --old_left;
      } else {
        start_block();
        cur.new_lines.emplace_back(line.substr(1));
        --new_left;
      }
      continue;
    }
    if (in_hunk && line.empty() && (old_left > 0 && new_left > 0)) {  // an empty context line without the space
      finish_edit(out, cur);
      ++old_line;
      --old_left;
      --new_left;
      continue;
    }
    if (line.rfind("\\ No newline", 0) == 0) continue;
    finish_edit(out, cur);
    in_hunk = false;
    if (line.rfind("diff --git ", 0) == 0) {
      auto b = line.rfind(" b/");
      if (b == std::string_view::npos) return fail(Errc::protocol, "bad diff header: " + std::string(line));
      path = std::string(line.substr(b + 3));
      new_file = deleted = binary = false;
    } else if (line.rfind("new file mode", 0) == 0) {
      new_file = true;
    } else if (line.rfind("deleted file mode", 0) == 0) {
      deleted = true;
    } else if (line.rfind("GIT binary patch", 0) == 0 || line.rfind("Binary files", 0) == 0) {
      binary = true;
    } else if (line.rfind("@@ -", 0) == 0 && !binary) {
      // @@ -a,b +c,d @@
      auto minus = line.substr(4);
      auto sp = minus.find(' ');
      auto old_part = minus.substr(0, sp);
      auto comma = old_part.find(',');
      old_line = number(old_part.substr(0, comma));
      old_left = comma == std::string_view::npos ? 1 : number(old_part.substr(comma + 1));
      auto plus = minus.substr(sp + 2);
      auto sp2 = plus.find(' ');
      auto new_part = plus.substr(0, sp2);
      auto c2 = new_part.find(',');
      new_left = c2 == std::string_view::npos ? 1 : number(new_part.substr(c2 + 1));
      if (old_left == 0) ++old_line;  // "-0,0" / "-5,0": insertion after line a
      in_hunk = true;
    }
  }
  finish_edit(out, cur);
  return out;
}

}  // namespace flowagent
