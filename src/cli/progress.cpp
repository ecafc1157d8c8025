#include "cli/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

namespace flowagent::cli {

Progress::Progress() : tty_(::isatty(2) != 0) {}

std::string terminal_safe(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
        static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      out += '?';
      ++i;
    } else if ((c < 0x20 && !(keep_newlines && (c == '\n' || c == '\t'))) || c == 0x7f) {
      out += '?';
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string progress_line(const Event& e) {
  char eta[32] = "";
  if (e.eta_ms >= 0) std::snprintf(eta, sizeof eta, "  ETA %llds", static_cast<long long>(e.eta_ms / 1000));
  std::string what = e.message;
  if (e.kind == EventKind::tool_call) what = "tool " + std::to_string(e.index) + "/" + std::to_string(e.max) + " " + what;
  what = terminal_safe(what, /*keep_newlines=*/false);  // a newline or escape would break the line
  const std::string phase = terminal_safe(e.phase, false);
  char head[64];
  std::snprintf(head, sizeof head, "[%6.1fs] %-10s ", static_cast<double>(e.elapsed_ms) / 1000.0, phase.c_str());
  return std::string(head) + what + "  tokens " + std::to_string(e.tokens) + eta;
}

std::string fit_to_width(const std::string& line, int columns) {
  if (columns <= 1) return {};
  const std::size_t max = static_cast<std::size_t>(columns - 1);
  std::size_t cols = 0, i = 0;
  while (i < line.size()) {
    std::size_t len = 1;
    const auto c = static_cast<unsigned char>(line[i]);
    if (c >= 0xf0) len = 4;
    else if (c >= 0xe0) len = 3;
    else if (c >= 0xc0) len = 2;
    if (cols + 1 > max) {
      // Cut: end with "..." when there is room for it.
      std::string out = line.substr(0, i);
      if (max >= 4) {
        std::size_t cut = out.size(), drop = 3;
        while (drop > 0 && cut > 0) {
          do --cut;
          while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80);
          --drop;
        }
        out = out.substr(0, cut) + "...";
      }
      return out;
    }
    ++cols;
    i += len;
  }
  return line;
}

void Progress::on_event(const Event& e) {
  std::lock_guard lock(mu_);
  const std::string line = progress_line(e);
  if (!tty_) {
    std::fprintf(stderr, "%s\n", line.c_str());
    return;
  }
  winsize ws{};
  const int columns = ::ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;  // asked each time: resizes
  std::fprintf(stderr, "\r\033[K%s%s", fit_to_width(line, columns).c_str(), e.kind == EventKind::result ? "\n" : "");
}

}  // namespace flowagent::cli
