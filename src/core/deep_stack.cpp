#include "core/deep_stack.hpp"

#include <pthread.h>

namespace flowagent::detail {

namespace {

thread_local bool deep = false;

struct Job {
  const std::function<void()>* fn;
  std::exception_ptr error;
};

void* trampoline(void* arg) {
  auto* job = static_cast<Job*>(arg);
  deep = true;
  try {
    (*job->fn)();
  } catch (...) {
    job->error = std::current_exception();
  }
  return nullptr;
}

}  // namespace

bool on_deep_stack() { return deep; }

void run_on_deep_stack(const std::function<void()>& fn) {
  if (deep) return fn();
  Job job{&fn, nullptr};
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return fn();
  pthread_t thread;
  const bool started = pthread_attr_setstacksize(&attr, kDeepStackBytes) == 0 && pthread_create(&thread, &attr, trampoline, &job) == 0;
  pthread_attr_destroy(&attr);
  if (!started) return fn();
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace flowagent::detail
