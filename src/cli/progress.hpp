// Progress of a repair on stderr: on a terminal one line rewritten in place, cut to the terminal's
// current width (a line wider than the terminal would wrap, and "\r" would then leave its first
// rows behind); otherwise one line per event.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "flowagent/host.hpp"

namespace flowagent::cli {

class Progress final : public EventSink {
 public:
  Progress();
  std::string_view name() const override { return "cli"; }
  void on_event(const Event& e) override;
  void on_result(const RepairResult&) override {}

 private:
  std::mutex mu_;
  bool tty_;
};

/// One progress line for `e`, without control characters.
std::string progress_line(const Event& e);
/// `line` cut to at most `columns` - 1 display columns (UTF-8 aware; one column per code point),
/// so that it never reaches the last column (some terminals wrap there).
std::string fit_to_width(const std::string& line, int columns);

/// `text` made safe for a terminal: C0 controls (but newline and tab when `keep_newlines`), DEL and
/// C1 controls (U+0080-U+009F; U+009B is CSI to many terminals) become '?', so model-influenced
/// text (messages, summaries, tool arguments in progress lines) cannot move the cursor, erase
/// lines or retitle the terminal.
std::string terminal_safe(std::string_view text, bool keep_newlines = true);

}  // namespace flowagent::cli
