#include "flowagent/agent.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "agent/defaults.hpp"
#include "agent/pipeline.hpp"
#include "core/deep_stack.hpp"
#include "flowagent/repair.hpp"

namespace flowagent {

// ---- Job --------------------------------------------------------------------------------------

struct Job::State {
  std::uint64_t id = 0;
  RepairRequest request;
  CancelToken cancel;
  std::atomic<bool> superseded{false};
  mutable std::mutex mu;
  mutable std::condition_variable cv;
  bool done = false;
  std::optional<RepairResult> result;

  void finish(RepairResult r) {
    {
      std::lock_guard lock(mu);
      result = std::move(r);
      done = true;
    }
    cv.notify_all();
  }
};

std::uint64_t Job::id() const { return state_ ? state_->id : 0; }
const std::string& Job::change_id() const {
  static const std::string empty;
  return state_ ? state_->request.change.id : empty;
}
std::int64_t Job::revision() const { return state_ ? state_->request.change.revision : 0; }
bool Job::done() const {
  if (!state_) return true;
  std::lock_guard lock(state_->mu);
  return state_->done;
}
bool Job::wait_for(std::chrono::milliseconds timeout) const {
  if (!state_) return true;
  std::unique_lock lock(state_->mu);
  return state_->cv.wait_for(lock, timeout, [&] { return state_->done; });
}
void Job::wait() const {
  if (!state_) return;
  std::unique_lock lock(state_->mu);
  state_->cv.wait(lock, [&] { return state_->done; });
}
void Job::cancel() const {
  if (state_) state_->cancel.cancel();
}
std::optional<RepairResult> Job::result() const {
  if (!state_) return std::nullopt;
  std::lock_guard lock(state_->mu);
  return state_->result;
}

// ---- Agent ------------------------------------------------------------------------------------

namespace {
thread_local std::uint64_t t_current_job = 0;
thread_local std::uint64_t t_current_run = 0;
std::atomic<std::uint64_t> g_runs{0};
}  // namespace

std::uint64_t current_job_id() noexcept { return t_current_job; }

void detail::set_current_job_id(std::uint64_t id) noexcept { t_current_job = id; }

std::uint64_t detail::current_run_id() noexcept { return t_current_run; }

std::uint64_t detail::new_run_id() noexcept { return ++g_runs; }

detail::RunIds detail::current_run_ids() noexcept { return {t_current_job, t_current_run}; }

void detail::set_current_run_ids(RunIds ids) noexcept {
  t_current_job = ids.job;
  t_current_run = ids.run;
}

void detail::run_as_job_on_deep_stack(const std::function<void()>& fn, std::uint64_t run) {
  const RunIds outer = current_run_ids();
  const RunIds ids{outer.job, run ? run : outer.run};
  run_on_deep_stack([&] {
    // (Inline when the caller is a deep-stack thread already: its ids are put back after.)
    const RunIds before = current_run_ids();
    set_current_run_ids(ids);
    try {
      fn();
    } catch (...) {
      set_current_run_ids(before);
      throw;
    }
    set_current_run_ids(before);
  });
}

struct Agent::Impl {
  AgentOptions options;
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::shared_ptr<Job::State>> queue;
  std::map<std::string, std::int64_t> newest_revision;            // per change id
  std::map<std::string, std::vector<std::weak_ptr<Job::State>>> live;  // per change id
  std::vector<std::thread> workers;
  std::uint64_t next_id = 1;
  bool stopping = false;
  detail::Pipeline pipeline;
  mutable std::mutex funnel_mu;
  Funnel counts;

  explicit Impl(AgentOptions opts) : options(std::move(opts)), pipeline(options) {}

  void count(const RepairResult& r) {
    std::lock_guard lock(funnel_mu);
    counts.received++;
    const bool attempted = r.status != Status::abstained && !(r.status == Status::superseded && r.trajectory.empty());
    if (attempted) counts.attempted++;
    if (r.metrics.phase_ms.count("postfilter")) counts.patch_produced++;
    switch (r.status) {
      case Status::abstained: counts.abstained[r.reason]++; break;
      case Status::fixed: counts.delivered++; break;
      case Status::no_fix: counts.no_fix++; break;
      case Status::error: counts.errors++; break;
      case Status::rejected: counts.rejected[r.reason]++; break;
      case Status::superseded:
        counts.superseded++;
        if (r.metrics.phase_ms.count("postfilter")) counts.rejected[r.reason]++;
        break;
    }
  }

  void worker() {
    for (;;) {
      std::shared_ptr<Job::State> job;
      {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        job = std::move(queue.front());
        queue.pop_front();
      }
      t_current_job = job->id;
      RepairResult r = pipeline.run(job->request, job->cancel, [&] { return job->superseded.load(); });
      t_current_job = 0;
      count(r);
      forget(job);
      job->finish(std::move(r));
    }
  }

  void forget(const std::shared_ptr<Job::State>& job) {
    std::lock_guard lock(mu);
    auto it = live.find(job->request.change.id);
    if (it == live.end()) return;
    auto& v = it->second;
    v.erase(std::remove_if(v.begin(), v.end(),
                           [&](const auto& w) {
                             auto s = w.lock();
                             return !s || s == job;
                           }),
            v.end());
    if (v.empty()) live.erase(it);
  }
};

Agent::Agent(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Expected<std::unique_ptr<Agent>> Agent::create(AgentOptions options) {
  if (options.worker_threads < 1 || options.worker_threads > 256)
    return fail(Errc::invalid_argument, "worker_threads must be between 1 and 256");
  // Only what the host left empty is built (a default workspace provider, for one, prunes stale
  // workspaces when it starts).
  if (!options.workspaces) options.workspaces = detail::default_workspaces();
  if (options.use_default_pre_filters) {
    // The built-in pre-filters (and those the options ask for) come first; the host's are added
    // after them. A host filter with a built-in's name replaces that built-in.
    std::vector<std::shared_ptr<PreFilter>> built_in = detail::default_pre_filters();
    if (options.change_tracker) built_in.push_back(make_newer_revision_filter(options.change_tracker));
    if (!options.known_flaky_tests.empty() || options.is_flaky)
      built_in.push_back(make_known_flaky_filter(options.known_flaky_tests, options.is_flaky));
    if (options.baseline_oracle || options.run_baseline)
      built_in.push_back(
          make_baseline_filter(options.baseline_oracle, options.workspaces, options.run_baseline, options.sandbox));
    std::vector<std::shared_ptr<PreFilter>> all;
    for (auto& f : built_in) {
      const bool replaced = std::any_of(options.pre_filters.begin(), options.pre_filters.end(),
                                        [&](const auto& h) { return h && h->name() == f->name(); });
      if (!replaced) all.push_back(std::move(f));
    }
    all.insert(all.end(), options.pre_filters.begin(), options.pre_filters.end());
    options.pre_filters = std::move(all);
  }
  if (options.post_filters.empty() && options.use_default_post_filters) options.post_filters = detail::default_post_filters();
  if (!options.tools) options.tools = detail::default_tools();
  if (!options.llm && !options.llm_factory) options.llm_factory = detail::default_llm_factory();
  if (options.strategies.empty()) options.strategies = detail::default_strategies();
  if (!options.validator) options.validator = detail::default_validator();
  if (!options.summarizer) options.summarizer = detail::default_summarizer();
  for (const auto& f : options.pre_filters)
    if (!f) return fail(Errc::invalid_argument, "pre_filters holds a null filter");
  for (const auto& f : options.post_filters)
    if (!f) return fail(Errc::invalid_argument, "post_filters holds a null filter");
  for (const auto& s : options.strategies)
    if (!s) return fail(Errc::invalid_argument, "strategies holds a null strategy");
  auto impl = std::make_unique<Impl>(std::move(options));
  auto* raw = impl.get();
  for (int i = 0; i < raw->options.worker_threads; ++i) raw->workers.emplace_back([raw] { raw->worker(); });
  return std::unique_ptr<Agent>(new Agent(std::move(impl)));
}

Agent::~Agent() {
  cancel_all();
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->cv.notify_all();
  for (auto& t : impl_->workers) t.join();
}

Expected<Job> Agent::submit(RepairRequest request) {
  if (request.change.id.empty()) return fail(Errc::invalid_argument, "change.id is empty");
  auto state = std::make_shared<Job::State>();
  state->request = std::move(request);
  const auto& cid = state->request.change.id;
  const auto rev = state->request.change.revision;
  std::vector<std::shared_ptr<Job::State>> to_cancel;
  bool stale = false;
  std::int64_t newest = rev;
  {
    std::lock_guard lock(impl_->mu);
    if (impl_->stopping) return fail(Errc::cancelled, "agent is shutting down");
    state->id = impl_->next_id++;
    auto it = impl_->newest_revision.find(cid);
    if (it != impl_->newest_revision.end() && it->second > rev) {
      stale = true;
      newest = it->second;
    } else {
      impl_->newest_revision[cid] = rev;
      for (auto& w : impl_->live[cid]) {
        if (auto s = w.lock(); s && s->request.change.revision < rev) {
          s->superseded = true;
          to_cancel.push_back(std::move(s));
        }
      }
      impl_->live[cid].push_back(state);
      impl_->queue.push_back(state);
    }
  }
  for (auto& s : to_cancel) s->cancel.cancel();
  if (stale) {
    impl_->count(detail::superseded_result(state->request, ""));
    state->finish(detail::superseded_result(
        state->request, "a newer revision (" + std::to_string(newest) + ") was already submitted"));
    return Job(state);
  }
  impl_->cv.notify_one();
  return Job(state);
}

RepairResult Agent::run(const RepairRequest& request, const CancelToken& cancel) {
  RepairResult r = impl_->pipeline.run(request, cancel, [] { return false; });
  impl_->count(r);
  return r;
}

Funnel Agent::funnel() const {
  std::lock_guard lock(impl_->funnel_mu);
  return impl_->counts;
}

Json to_json(const Funnel& f) {
  Json abst = Json::object(), rej = Json::object();
  for (const auto& [k, v] : f.abstained) abst[k] = v;
  for (const auto& [k, v] : f.rejected) rej[k] = v;
  return Json::obj({{"received", f.received}, {"abstained", abst}, {"attempted", f.attempted},
                    {"patch_produced", f.patch_produced}, {"rejected", rej}, {"delivered", f.delivered},
                    {"no_fix", f.no_fix}, {"errors", f.errors}, {"superseded", f.superseded}});
}

void Agent::cancel_all() {
  std::vector<std::shared_ptr<Job::State>> all;
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [k, v] : impl_->live)
      for (auto& w : v)
        if (auto s = w.lock()) all.push_back(std::move(s));
  }
  for (auto& s : all) s->cancel.cancel();
}

const AgentOptions& Agent::options() const { return impl_->options; }

}  // namespace flowagent
