// libFuzzer entry: one report parser (FUZZ_FORMAT) on arbitrary bytes. Must never crash, hang or
// leak; every test case it returns must have an id or a name.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "flowagent/reports.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view fmt = FUZZ_FORMAT;
  auto r = fmt == "auto" ? flowagent::reports::parse_report(in) : flowagent::reports::parse_report_as(fmt, in);
  for (const auto& t : r.tests)
    if (t.excerpt.size() > 1 << 20) std::abort();  // excerpts are bounded
  (void)flowagent::reports::strip_ansi(in);
  return 0;
}
