// flowagent/host.hpp: policies the embedding host provides: where the change stands, and progress.
#pragma once

#include <cstdint>
#include <string_view>

#include "flowagent/error.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"

namespace flowagent {

struct ChangeState {
  std::int64_t current_revision = 0;  ///< newest revision the host knows
  bool submitted = false;             ///< merged / submitted meanwhile
  bool abandoned = false;
};

/// Asks the review system about a change.
/// [Threading] called from job threads, possibly concurrently; must be thread-safe.
/// [Errors] an Error makes the post-filter fail closed (the fix is not delivered).
class ChangeTracker {
 public:
  virtual ~ChangeTracker() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<ChangeState> state(const Change& change) = 0;
};

/// Receives progress and results.
/// [Threading] called from job threads, possibly concurrently for different jobs, never
/// concurrently for one job. Must not block for long: it delays the repair.
/// [Errors] exceptions thrown by a sink are caught and ignored.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual std::string_view name() const = 0;
  virtual void on_event(const Event& event) = 0;
  virtual void on_result(const RepairResult& result) = 0;
};

}  // namespace flowagent
