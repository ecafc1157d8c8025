#include "flowagent/cancel.hpp"

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

namespace flowagent {

struct CancelToken::State {
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> cancelled{false};
  std::uint64_t next_id = 1;
  std::map<std::uint64_t, std::function<void()>> callbacks;
  std::uint64_t running_id = 0;  // callback being invoked by cancel(), 0 when none
  std::thread::id running_thread;
};

CancelToken::CancelToken() : state_(std::make_shared<State>()) {}

void CancelToken::cancel() const {
  std::unique_lock lock(state_->mu);
  if (state_->cancelled.exchange(true)) return;
  state_->cv.notify_all();
  state_->running_thread = std::this_thread::get_id();
  while (!state_->callbacks.empty()) {
    auto it = state_->callbacks.begin();
    auto id = it->first;
    auto cb = std::move(it->second);
    state_->callbacks.erase(it);
    state_->running_id = id;
    lock.unlock();
    try {
      cb();
    } catch (...) {
      // a cancel callback must not stop the others
    }
    lock.lock();
    state_->running_id = 0;
    state_->cv.notify_all();
  }
}

bool CancelToken::cancelled() const noexcept { return state_->cancelled.load(std::memory_order_acquire); }

CancelToken::Registration CancelToken::on_cancel(std::function<void()> callback) const {
  {
    std::lock_guard lock(state_->mu);
    if (!state_->cancelled) {
      auto id = state_->next_id++;
      state_->callbacks.emplace(id, std::move(callback));
      return Registration(state_, id);
    }
  }
  callback();
  return Registration();
}

bool CancelToken::wait_for(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [&] { return state_->cancelled.load(); });
}

CancelToken::Registration::Registration(Registration&& other) noexcept
    : state_(std::move(other.state_)), id_(other.id_) {
  other.id_ = 0;
}

CancelToken::Registration& CancelToken::Registration::operator=(Registration&& other) noexcept {
  if (this != &other) {
    reset();
    state_ = std::move(other.state_);
    id_ = other.id_;
    other.id_ = 0;
  }
  return *this;
}

CancelToken::Registration::~Registration() { reset(); }

void CancelToken::Registration::reset() noexcept {
  if (!state_ || id_ == 0) return;
  std::unique_lock lock(state_->mu);
  state_->callbacks.erase(id_);
  // If cancel() is running this very callback on another thread, wait for it to return.
  if (state_->running_thread != std::this_thread::get_id())
    state_->cv.wait(lock, [&] { return state_->running_id != id_; });
  state_.reset();
  id_ = 0;
}

}  // namespace flowagent
