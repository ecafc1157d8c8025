// Internal: run work on a thread with a deep stack. The guard walks syntax trees recursively, and
// until the library's patterns moved to Boost.Regex (core/regex.hpp), libstdc++'s std::regex
// matched by recursion, one level per character a repetition consumes (~300 bytes each, ~600 under
// ASan): a pattern's `\w*` or `[^)]*` over a 30,000-character run of a file overflowed an 8 MiB
// stack, and a host's thread (an IDE's worker, a JVM thread) may have far less. The guard and the validation read the
// developer's files, whose long lines (test data, a minified fixture) are not the model's to bound
// (patch_long_line bounds what a patch adds), so the pipeline and the public entry points that
// match patterns over file text run on a thread whose stack is kDeepStackBytes: reserved address
// space, committed only as far as a match recurses.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

namespace flowagent::detail {

/// The stack of a deep-stack thread: 1 GiB of address space (a 1 MiB text matched by one
/// repetition needs ~300 MiB, ~600 MiB under ASan).
inline constexpr std::size_t kDeepStackBytes = std::size_t{1} << 30;

/// Whether the calling thread is a deep-stack thread (its work needs no further hop).
bool on_deep_stack();

/// Runs `fn` on a new thread with a kDeepStackBytes stack and waits for it; what it throws is
/// rethrown here. Runs `fn` on the calling thread when that is a deep-stack thread already, or
/// when no such thread can be made (address space refused: then as before, on the caller's stack).
/// Thread-safe; the caller blocks until `fn` returns.
void run_on_deep_stack(const std::function<void()>& fn);

/// run_on_deep_stack for a function returning a value.
template <class F>
auto with_deep_stack(F&& f) -> std::invoke_result_t<F&> {
  using R = std::invoke_result_t<F&>;
  if constexpr (std::is_void_v<R>) {
    run_on_deep_stack([&] { f(); });
  } else {
    std::optional<R> out;
    run_on_deep_stack([&] { out.emplace(f()); });
    return std::move(*out);
  }
}

}  // namespace flowagent::detail
