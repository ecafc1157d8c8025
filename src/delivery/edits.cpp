// Parsing a git diff into edits, and columns.
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

std::vector<FixEdit> fix_edits(const Patch& patch) {
  std::vector<FixEdit> out;
  for (const auto& f : patch.files) {
    if (!f.is_text) continue;
    for (const auto& h : f.hunks) {
      FixEdit cur;
      // Insertions go before the next old line: after the last context/removed line seen.
      int next_old = h.old_count == 0 ? h.old_start + 1 : h.old_start;
      for (const auto& l : h.lines) {
        if (l.kind == ' ') {
          finish_edit(out, cur);
          next_old = l.old_line + 1;
          continue;
        }
        if (cur.old_lines.empty() && cur.new_lines.empty()) {
          cur.path = f.path();
          cur.start_line = l.kind == '-' ? l.old_line : next_old;
          cur.new_file = f.status == PatchStatus::added;
          cur.deleted_file = f.status == PatchStatus::deleted;
        }
        if (l.kind == '-') {
          cur.old_lines.push_back(l.text);
          next_old = l.old_line + 1;
        } else {
          cur.new_lines.push_back(l.text);
        }
      }
      finish_edit(out, cur);
    }
  }
  return out;
}

Expected<std::vector<FixEdit>> parse_fix_edits(std::string_view text) {
  auto patch = parse_patch(text);
  if (!patch) return unexpected(patch.error());
  return fix_edits(*patch);
}

Expected<Patch> deliverable_patch(const RepairResult& result) {
  if (result.status != Status::fixed)
    return fail(Errc::not_fixed, "the result's status is " + std::string(to_string(result.status)) +
                                     (result.reason.empty() ? std::string() : " (" + result.reason + ")") +
                                     ", not fixed: only a validated fix is delivered");
  if (result.patch.empty()) return fail(Errc::invalid_argument, "the result has no patch");
  auto patch = parse_patch(result.patch);
  if (!patch) return unexpected(patch.error());
  if (patch->empty()) return fail(Errc::invalid_argument, "the result's patch changes no file");
  if (auto problems = check_patch(*patch); !problems.empty()) {
    std::string msg;
    for (const auto& p : problems) msg += (msg.empty() ? "" : "; ") + p.reason + ": " + p.message;
    return fail(Errc::sandbox, "the patch may not be delivered: " + msg);
  }
  return patch;
}

}  // namespace flowagent
