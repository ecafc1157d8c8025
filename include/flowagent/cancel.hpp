// flowagent/cancel.hpp: cooperative cancellation shared by a job and everything it runs.
//
// [Threading] All members are safe to call from any thread. cancel() runs the registered callbacks
// on the calling thread, once; a callback registered after cancel() runs immediately.
// [Lifetime] CancelToken is a cheap shared handle; copies refer to the same state. A Registration
// unregisters its callback when destroyed and waits for a running invocation of it to finish.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

namespace flowagent {

class CancelToken {
 public:
  class Registration;

  CancelToken();
  /// Requests cancellation. Idempotent.
  void cancel() const;
  bool cancelled() const noexcept;
  /// Runs `callback` on cancel (or now, if already cancelled). Keep the Registration alive for as
  /// long as the callback may run.
  [[nodiscard]] Registration on_cancel(std::function<void()> callback) const;
  /// Blocks until cancelled or `timeout` passes; true when cancelled.
  bool wait_for(std::chrono::milliseconds timeout) const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

class CancelToken::Registration {
 public:
  Registration() = default;
  Registration(std::shared_ptr<CancelToken::State> state, std::uint64_t id) : state_(std::move(state)), id_(id) {}
  Registration(Registration&& other) noexcept;
  Registration& operator=(Registration&& other) noexcept;
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  ~Registration();

 private:
  void reset() noexcept;
  std::shared_ptr<CancelToken::State> state_;
  std::uint64_t id_ = 0;
};

}  // namespace flowagent
