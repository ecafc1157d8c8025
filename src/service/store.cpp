#include "service/store.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent/pipeline.hpp"

namespace flowagent::service {

// ---- metrics ----------------------------------------------------------------------------------

void Histogram::observe(double v) {
  std::size_t i = 0;
  while (i < bounds.size() && v > bounds[i]) ++i;
  counts[i]++;
  sum += v;
  n++;
}

namespace {

std::string num(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

/// Prometheus label values escape backslash, double quote and newline.
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void counter(std::string& out, const std::string& name, const std::string& help, double v) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n" + name + " " + num(v) + "\n";
}

void by_reason(std::string& out, const std::string& name, const std::string& help,
               const std::map<std::string, std::int64_t>& m) {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " counter\n";
  for (const auto& [k, v] : m) out += name + "{reason=\"" + label(k) + "\"} " + std::to_string(v) + "\n";
}

}  // namespace

void Histogram::render(std::string& out, const std::string& name, const std::string& help) const {
  out += "# HELP " + name + " " + help + "\n# TYPE " + name + " histogram\n";
  std::uint64_t cum = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    cum += counts[i];
    out += name + "_bucket{le=\"" + num(bounds[i]) + "\"} " + std::to_string(cum) + "\n";
  }
  cum += counts.back();
  out += name + "_bucket{le=\"+Inf\"} " + std::to_string(cum) + "\n";
  out += name + "_sum " + num(sum) + "\n" + name + "_count " + std::to_string(n) + "\n";
}

JobCounters::JobCounters()
    : start_latency({0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 30, 120}),
      run_seconds({0.01, 0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800}),
      total_seconds({0.01, 0.1, 1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800}) {}

void JobCounters::started(double queue_s) { start_latency.observe(queue_s); }

void JobCounters::finished(const RepairResult& r, double queue_s, double run_s) {
  const bool ran = r.metrics.phase_ms.count("prefilter") > 0;
  const bool was_attempted = ran && r.status != Status::abstained && r.metrics.phase_ms.count("workspace") > 0;
  const bool produced = r.metrics.phase_ms.count("validate") > 0 || r.metrics.phase_ms.count("postfilter") > 0;
  if (was_attempted) attempted++;
  if (produced) patch_produced++;
  if (!r.evidence.kind.empty()) validated++;
  switch (r.status) {
    case Status::abstained: abstained[r.reason]++; break;
    case Status::fixed: delivered++; break;
    case Status::no_fix: no_fix++; break;
    case Status::error: errors[r.reason.empty() ? "error" : r.reason]++; break;
    case Status::rejected: rejected[r.reason]++; break;
    case Status::superseded:
      superseded++;
      if (produced) rejected[r.reason]++;
      break;
  }
  input_tokens += r.metrics.input_tokens;
  output_tokens += r.metrics.output_tokens;
  cached_tokens += r.metrics.cached_tokens;
  tool_calls += r.metrics.tool_calls;
  model_calls += r.metrics.model_calls;
  cost_micro_usd += static_cast<std::int64_t>(r.metrics.cost_usd * 1e6 + 0.5);
  if (run_s >= 0) run_seconds.observe(run_s);
  total_seconds.observe(queue_s + std::max(run_s, 0.0));
}

namespace {

struct Scalar {
  const char* name;
  std::int64_t JobCounters::*field;
};
constexpr Scalar kScalars[] = {
    {"received", &JobCounters::received},         {"attempted", &JobCounters::attempted},
    {"patch_produced", &JobCounters::patch_produced}, {"validated", &JobCounters::validated},
    {"delivered", &JobCounters::delivered},       {"no_fix", &JobCounters::no_fix},
    {"superseded", &JobCounters::superseded},     {"tokens:input", &JobCounters::input_tokens},
    {"tokens:output", &JobCounters::output_tokens}, {"tokens:cached", &JobCounters::cached_tokens},
    {"tool_calls", &JobCounters::tool_calls},     {"model_calls", &JobCounters::model_calls},
    {"cost_micro_usd", &JobCounters::cost_micro_usd}};

struct Labelled {
  const char* prefix;
  std::map<std::string, std::int64_t> JobCounters::*field;
};
constexpr Labelled kLabelled[] = {{"filtered:", &JobCounters::abstained},
                                  {"rejected:", &JobCounters::rejected},
                                  {"errors:", &JobCounters::errors}};

struct Hist {
  const char* prefix;
  Histogram JobCounters::*field;
};
constexpr Hist kHists[] = {{"h:start:", &JobCounters::start_latency},
                           {"h:run:", &JobCounters::run_seconds},
                           {"h:total:", &JobCounters::total_seconds}};

}  // namespace

std::vector<std::pair<std::string, std::int64_t>> JobCounters::fields() const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  auto put = [&](std::string name, std::int64_t v) {
    if (v != 0) out.emplace_back(std::move(name), v);
  };
  for (const auto& s : kScalars) put(s.name, this->*s.field);
  for (const auto& l : kLabelled)
    for (const auto& [reason, n] : this->*l.field) put(l.prefix + reason, n);
  for (const auto& h : kHists) {
    const Histogram& hist = this->*h.field;
    for (std::size_t i = 0; i < hist.counts.size(); ++i) put(h.prefix + std::to_string(i), static_cast<std::int64_t>(hist.counts[i]));
    put(std::string(h.prefix) + "n", static_cast<std::int64_t>(hist.n));
    put(std::string(h.prefix) + "sum_us", static_cast<std::int64_t>(hist.sum * 1e6 + 0.5));
  }
  return out;
}

void JobCounters::add_fields(const std::map<std::string, std::string>& f) {
  for (const auto& [name, text] : f) {
    const std::int64_t v = std::strtoll(text.c_str(), nullptr, 10);
    bool done = false;
    for (const auto& s : kScalars)
      if (name == s.name) {
        this->*s.field += v;
        done = true;
      }
    for (const auto& l : kLabelled)
      if (!done && name.starts_with(l.prefix) && name.size() > std::strlen(l.prefix)) {
        (this->*l.field)[name.substr(std::strlen(l.prefix))] += v;
        done = true;
      }
    for (const auto& h : kHists) {
      if (done || !name.starts_with(h.prefix)) continue;
      Histogram& hist = this->*h.field;
      const std::string rest = name.substr(std::strlen(h.prefix));
      if (rest == "n") hist.n += static_cast<std::uint64_t>(v);
      else if (rest == "sum_us") hist.sum += static_cast<double>(v) / 1e6;
      else if (!rest.empty() && rest.find_first_not_of("0123456789") == std::string::npos) {
        const auto i = std::strtoul(rest.c_str(), nullptr, 10);
        if (i < hist.counts.size()) hist.counts[i] += static_cast<std::uint64_t>(v);
      }
      done = true;
    }
  }
}

void JobCounters::render(std::string& o) const {
  counter(o, "flowagent_notifications_total", "Repair requests accepted (new jobs; idempotent resubmissions excluded).", double(received));
  by_reason(o, "flowagent_filtered_total", "Jobs a pre-filter abstained from, per reason.", abstained);
  counter(o, "flowagent_attempted_total", "Jobs that passed the pre-filters and got a workspace.", double(attempted));
  counter(o, "flowagent_patch_produced_total", "Jobs whose strategies produced a candidate patch.", double(patch_produced));
  counter(o, "flowagent_validated_total", "Jobs whose candidate passed validation.", double(validated));
  by_reason(o, "flowagent_rejected_total", "Validated fixes a post-filter refused (or superseded after a patch), per reason.", rejected);
  counter(o, "flowagent_delivered_total", "Jobs that ended fixed.", double(delivered));
  counter(o, "flowagent_no_fix_total", "Jobs that ended without a validated fix.", double(no_fix));
  counter(o, "flowagent_superseded_total", "Jobs superseded by a newer revision.", double(superseded));
  by_reason(o, "flowagent_errors_total", "Jobs that ended in an error (cancelled included), per reason.", errors);
  o += "# HELP flowagent_tokens_total Model tokens used by finished jobs.\n# TYPE flowagent_tokens_total counter\n";
  o += "flowagent_tokens_total{kind=\"input\"} " + std::to_string(input_tokens) + "\n";
  o += "flowagent_tokens_total{kind=\"output\"} " + std::to_string(output_tokens) + "\n";
  o += "flowagent_tokens_total{kind=\"cached\"} " + std::to_string(cached_tokens) + "\n";
  counter(o, "flowagent_cost_usd_total", "Model cost of finished jobs in US dollars.", double(cost_micro_usd) / 1e6);
  counter(o, "flowagent_tool_calls_total", "Tool calls of finished jobs.", double(tool_calls));
  counter(o, "flowagent_model_calls_total", "Model calls of finished jobs.", double(model_calls));
  start_latency.render(o, "flowagent_job_start_latency_seconds", "Time from enqueue to a worker starting the job.");
  run_seconds.render(o, "flowagent_job_run_seconds", "Time a worker spent on a job.");
  total_seconds.render(o, "flowagent_job_seconds", "Time from enqueue to the result.");
}

void Metrics::received() {
  std::lock_guard lock(mu_);
  jobs_.received++;
}

void Metrics::started(double queue_s) {
  std::lock_guard lock(mu_);
  jobs_.started(queue_s);
}

void Metrics::http(int status) {
  std::lock_guard lock(mu_);
  http_[status]++;
}

void Metrics::finished(const RepairResult& r, double queue_s, double run_s) {
  std::lock_guard lock(mu_);
  jobs_.finished(r, queue_s, run_s);
}

std::string Metrics::render(std::size_t queued, std::size_t running, std::size_t connections, const JobCounters* shared,
                            bool with_jobs) const {
  std::lock_guard lock(mu_);
  std::string o;
  if (with_jobs) {
    (shared ? *shared : jobs_).render(o);
    o += "# HELP flowagent_jobs Jobs by state.\n# TYPE flowagent_jobs gauge\n";
    o += "flowagent_jobs{state=\"queued\"} " + std::to_string(queued) + "\n";
    o += "flowagent_jobs{state=\"running\"} " + std::to_string(running) + "\n";
  }
  o += "# HELP flowagent_http_connections Open HTTP connections.\n# TYPE flowagent_http_connections gauge\n";
  o += "flowagent_http_connections " + std::to_string(connections) + "\n";
  o += "# HELP flowagent_http_responses_total HTTP responses by status code.\n# TYPE flowagent_http_responses_total counter\n";
  for (const auto& [code, n] : http_) o += "flowagent_http_responses_total{code=\"" + std::to_string(code) + "\"} " + std::to_string(n) + "\n";
  return o;
}

// ---- store ------------------------------------------------------------------------------------

std::string_view to_string(JobRec::State s) {
  switch (s) {
    case JobRec::State::queued: return "queued";
    case JobRec::State::running: return "running";
    case JobRec::State::done: return "done";
  }
  return "done";
}

namespace {
std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}
double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

void run_notes(std::vector<std::function<void()>>& notes) {
  for (auto& n : notes) n();
}
}  // namespace

JobStore::Submitted JobStore::submit(RepairRequest request, const std::string& owner, int owner_limit,
                                     std::size_t max_queued, Refusal& refusal) {
  refusal = Refusal::none;
  const std::string id = job_id(request.change.id, request.change.revision);
  std::vector<std::function<void()>> notes;
  std::vector<std::shared_ptr<JobRec>> to_cancel;
  Submitted out;
  {
    std::lock_guard lock(mu_);
    if (auto it = jobs_.find(id); it != jobs_.end()) return {it->second, true};
    if (stopped_) {
      refusal = Refusal::draining;
      return {};
    }
    if (queue_.size() >= max_queued) {
      refusal = Refusal::queue_full;
      return {};
    }
    if (active_[owner] >= owner_limit) {
      refusal = Refusal::owner_limit;
      return {};
    }
    auto job = std::make_shared<JobRec>();
    job->id = id;
    job->request = std::move(request);
    job->owner = owner;
    job->submitted_unix_ms = unix_ms();
    jobs_[id] = job;
    metrics_.received();
    const auto& cid = job->request.change.id;
    const auto rev = job->request.change.revision;
    append_locked(*job, "state", Json::obj({{"state", "queued"}}), notes);
    auto newest = newest_.find(cid);
    if (newest != newest_.end() && newest->second > rev) {
      finish_locked(job, detail::superseded_result(job->request, "a newer revision (" + std::to_string(newest->second) +
                                                                     ") was already submitted"),
                    notes);
    } else {
      newest_[cid] = rev;
      auto& live = live_[cid];
      for (auto& w : live) {
        auto old = w.lock();
        if (!old || old->state == JobRec::State::done || old->request.change.revision >= rev) continue;
        old->superseded = true;
        if (old->state == JobRec::State::queued) {
          queue_.erase(std::remove(queue_.begin(), queue_.end(), old), queue_.end());
          finish_locked(old, detail::superseded_result(old->request, "revision " + std::to_string(rev) + " was submitted"), notes);
        } else {
          to_cancel.push_back(old);
        }
      }
      std::erase_if(live, [](const auto& w) {
        auto s = w.lock();
        return !s || s->state == JobRec::State::done;
      });
      live.push_back(job);
      active_[owner]++;
      job->counted = true;
      queue_.push_back(job);
    }
    out.job = job;
  }
  for (auto& j : to_cancel) j->cancel.cancel();
  run_notes(notes);
  cv_.notify_one();
  return out;
}

std::shared_ptr<JobRec> JobStore::get(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  return it == jobs_.end() ? nullptr : it->second;
}

std::optional<RepairResult> JobStore::finished_result(const std::string& id) const {
  std::lock_guard lock(mu_);
  auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second->state != JobRec::State::done) return std::nullopt;
  return it->second->result;
}

std::vector<std::shared_ptr<JobRec>> JobStore::list(std::size_t limit) const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<JobRec>> v;
  for (const auto& [id, j] : jobs_) v.push_back(j);
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a->submitted > b->submitted; });
  if (v.size() > limit) v.resize(limit);
  return v;
}

bool JobStore::cancel(const std::string& id) {
  std::vector<std::function<void()>> notes;
  std::shared_ptr<JobRec> running;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second->state == JobRec::State::done) return false;
    auto job = it->second;
    if (job->state == JobRec::State::queued) {
      queue_.erase(std::remove(queue_.begin(), queue_.end(), job), queue_.end());
      RepairResult r = detail::superseded_result(job->request, "");
      r.status = Status::error;
      r.reason = "cancelled";
      r.message = "cancelled before it started";
      finish_locked(job, std::move(r), notes);
    } else {
      running = job;
    }
  }
  if (running) running->cancel.cancel();
  run_notes(notes);
  return true;
}

std::shared_ptr<JobRec> JobStore::next() {
  std::shared_ptr<JobRec> job;
  std::vector<std::function<void()>> notes;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return stopped_ || !queue_.empty(); });
    if (queue_.empty()) return nullptr;
    job = std::move(queue_.front());
    queue_.pop_front();
    job->state = JobRec::State::running;
    job->started = Clock::now();
    running_++;
    append_locked(*job, "state", Json::obj({{"state", "running"}}), notes);
  }
  metrics_.started(seconds(job->started - job->submitted));
  run_notes(notes);
  return job;
}

void JobStore::finish(const std::shared_ptr<JobRec>& job, RepairResult result) {
  std::vector<std::function<void()>> notes;
  {
    std::lock_guard lock(mu_);
    if (job->state == JobRec::State::running) running_--;
    finish_locked(job, std::move(result), notes);
  }
  run_notes(notes);
}

void JobStore::finish_locked(const std::shared_ptr<JobRec>& job, RepairResult result,
                             std::vector<std::function<void()>>& notes) {
  if (job->state == JobRec::State::done) return;
  if (job->superseded && result.status == Status::error && result.reason == "cancelled") {
    RepairResult s = detail::superseded_result(job->request, "a newer revision was submitted");
    s.metrics = result.metrics;
    s.trajectory = std::move(result.trajectory);
    result = std::move(s);
  }
  const bool ran = job->state == JobRec::State::running;
  if (job->counted) {
    active_[job->owner]--;
    job->counted = false;
  }
  job->finished = Clock::now();
  const double queue_s = seconds((ran ? job->started : job->finished) - job->submitted);
  const double run_s = ran ? seconds(job->finished - job->started) : -1;
  metrics_.finished(result, queue_s, run_s);
  Json done = Json::obj({{"state", "done"}, {"status", to_string(result.status)}, {"reason", result.reason}});
  job->result = std::move(result);
  job->state = JobRec::State::done;
  append_locked(*job, "done", done, notes);
  finished_order_.push_back(job->id);
  retain_locked();
}

void JobStore::retain_locked() {
  while (finished_order_.size() > retain_) {
    auto it = jobs_.find(finished_order_.front());
    if (it != jobs_.end() && it->second->state == JobRec::State::done) jobs_.erase(it);
    finished_order_.pop_front();
  }
}

void JobStore::append_event(const std::string& id, const Event& e) {
  std::vector<std::function<void()>> notes;
  {
    std::lock_guard lock(mu_);
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second->state == JobRec::State::done) return;
    Json j = to_json(e);
    it->second->last_progress = j;
    append_locked(*it->second, to_string(e.kind), j, notes);
  }
  run_notes(notes);
}

void JobStore::append(const std::shared_ptr<JobRec>& job, std::string_view kind, const Json& data) {
  std::vector<std::function<void()>> notes;
  {
    std::lock_guard lock(mu_);
    append_locked(*job, kind, data, notes);
  }
  run_notes(notes);
}

void JobStore::append_locked(JobRec& job, std::string_view kind, const Json& data,
                             std::vector<std::function<void()>>& notes) {
  job.events.push_back("event: " + std::string(kind) + "\ndata: " + dump_json_lossy(data) + "\n");
  std::erase_if(job.watchers, [&](const std::weak_ptr<Watcher>& w) {
    auto s = w.lock();
    if (s) notes.push_back(s->notify);
    return !s;
  });
}

bool JobStore::frames_since(const std::shared_ptr<JobRec>& job, std::size_t after, std::vector<std::string>& out) const {
  std::lock_guard lock(mu_);
  for (std::size_t i = after; i < job->events.size(); ++i)
    out.push_back("id: " + std::to_string(i + 1) + "\n" + job->events[i] + "\n");
  return job->state == JobRec::State::done;
}

void JobStore::watch(const std::shared_ptr<JobRec>& job, const std::shared_ptr<Watcher>& w) {
  std::lock_guard lock(mu_);
  job->watchers.push_back(w);
}

void JobStore::stop_queue() {
  std::vector<std::function<void()>> notes;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    for (auto& job : queue_) {
      RepairResult r = detail::superseded_result(job->request, "");
      r.status = Status::error;
      r.reason = "service_shutdown";
      r.message = "the service shut down before the job started; submit it again";
      finish_locked(job, std::move(r), notes);
    }
    queue_.clear();
  }
  cv_.notify_all();
  run_notes(notes);
}

void JobStore::cancel_running() {
  std::vector<std::shared_ptr<JobRec>> v;
  {
    std::lock_guard lock(mu_);
    for (auto& [id, j] : jobs_)
      if (j->state == JobRec::State::running) v.push_back(j);
  }
  for (auto& j : v) j->cancel.cancel();
}

std::size_t JobStore::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

std::size_t JobStore::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

}  // namespace flowagent::service
