// Several candidates per job (RepairRequest::candidates; docs/ARCHITECTURE.md, "Several candidates"):
// independent attempts in their own workspaces, run in parallel up to a limit, sharing the job's
// budgets, each validated and post-filtered as a single attempt would be; then the accepted ones
// are ranked by agreement and size and one is delivered.
#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>

#include "agent/candidates.hpp"
#include "agent/pipeline.hpp"
#include "flowagent/model_client.hpp"

namespace flowagent::detail {

namespace {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1) return {};
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

/// The job's limits, shared by its candidates: tool calls are taken one by one; tokens and cost
/// (the model client's Budget) are added after each model call and checked before the next one.
class SharedBudget {
 public:
  explicit SharedBudget(const Limits& limits) : max_tool_calls_(limits.max_tool_calls), money_(limits.max_tokens, limits.max_cost_usd) {}
  bool take_tool_call() {
    std::lock_guard lock(mu_);
    if (tool_calls_ >= max_tool_calls_) return false;
    ++tool_calls_;
    return true;
  }
  Budget& money() { return money_; }

 private:
  std::mutex mu_;
  const std::int64_t max_tool_calls_;
  std::int64_t tool_calls_ = 0;
  Budget money_;
};

/// Every model call of every candidate (loop, review, summary) passes the shared budget.
class BudgetedClient final : public LlmClient {
 public:
  BudgetedClient(std::shared_ptr<LlmClient> inner, SharedBudget& budget) : inner_(std::move(inner)), budget_(budget) {}
  std::string_view name() const override { return inner_->name(); }
  std::vector<std::string> secrets() const override { return inner_->secrets(); }
  Expected<ChatResponse> complete(const ChatRequest& request, const CancelToken& cancel) override {
    if (auto ok = budget_.money().check(); !ok)
      return fail(Errc::budget_exceeded, "the job's " + ok.error().message + " (shared by its candidates)");
    auto r = inner_->complete(request, cancel);
    if (r) budget_.money().add(r->usage, r->cost_usd);
    return r;
  }

 private:
  std::shared_ptr<LlmClient> inner_;
  SharedBudget& budget_;
};

std::string normalise_ws(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

struct Slot {
  std::size_t index = 0;  // 0-based
  RepairRequest request;
  const std::vector<std::shared_ptr<RepairStrategy>>* chain = nullptr;
  std::string chain_name;
  RepairResult r;
  std::unique_ptr<Workspace> ws;
  Accepted accepted;
  bool ok = false;       // accepted
  bool started = false;  // under winner_mu while the candidates run
  bool threw = false;
  std::atomic<bool> finished{false};
  bool stopped_early = false;  // cancelled by another candidate's early stop while running (winner_mu)
  CancelToken token;
};

}  // namespace

std::string equivalence_key(const Patch& patch) {
  std::vector<const PatchFile*> files;
  for (const auto& f : patch.files) files.push_back(&f);
  std::sort(files.begin(), files.end(), [](const PatchFile* a, const PatchFile* b) { return a->path() < b->path(); });
  std::string key;
  for (const auto* f : files) {
    key += "F " + std::to_string(static_cast<int>(f->status)) + " " + f->old_path + " -> " + f->new_path + "\n";
    for (const auto& h : f->hunks)
      for (const auto& l : h.lines) {
        if (l.kind == ' ') continue;
        auto n = normalise_ws(l.text);
        if (n.empty()) continue;  // blank lines added or removed do not make another fix
        key += l.kind;
        key += n;
        key += '\n';
      }
  }
  return key;
}

std::int64_t changed_lines(const Patch& patch) {
  std::int64_t n = 0;
  for (const auto& f : patch.files)
    for (const auto& h : f.hunks)
      for (const auto& l : h.lines) n += l.kind != ' ';
  return n;
}

std::vector<std::size_t> rank_candidates(const std::vector<RankInput>& in) {
  std::map<std::string, std::int64_t> votes;
  for (const auto& c : in) votes[c.key]++;
  std::vector<std::size_t> order(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto va = votes[in[a].key], vb = votes[in[b].key];
    if (va != vb) return va > vb;
    if (in[a].size != in[b].size) return in[a].size < in[b].size;
    return in[a].index < in[b].index;
  });
  return order;
}

double candidate_temperature(const CandidatePolicy& policy, double requested, std::size_t i) {
  if (!policy.temperatures.empty()) return policy.temperatures[i % policy.temperatures.size()];
  if (i == 0) return requested;
  return std::min(1.0, std::round((requested + 0.3 * static_cast<double>(i)) * 100.0) / 100.0);
}

void Pipeline::run_candidates(const RepairRequest& request, const CancelToken& cancel, RepairResult& result,
                              const Emit& emit, const std::shared_ptr<LlmClient>& llm) const {
  const auto& policy = options_.candidates;
  std::size_t n = static_cast<std::size_t>(request.candidates.count);
  if (policy.max_count >= 1 && n > static_cast<std::size_t>(policy.max_count)) {
    result.trajectory.push_back(TrajectoryStep{"note", "candidates", {},
                                               "the request asks for " + std::to_string(n) + " candidates; the host allows " +
                                                   std::to_string(policy.max_count),
                                               true, 0});
    n = static_cast<std::size_t>(policy.max_count);
  }
  std::size_t parallel = static_cast<std::size_t>(std::max<std::int64_t>(1, request.candidates.concurrency));
  parallel = std::min({parallel, n, static_cast<std::size_t>(std::max(1, policy.max_concurrency))});

  SharedBudget budget(request.limits);
  std::shared_ptr<LlmClient> shared_llm = llm ? std::make_shared<BudgetedClient>(llm, budget) : nullptr;

  std::vector<Slot> slots(n);
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    s.index = i;
    s.request = request;
    s.request.model.temperature = candidate_temperature(policy, request.model.temperature, i);
    s.chain = policy.strategies.empty() ? &options_.strategies : &policy.strategies[i % policy.strategies.size()];
    for (const auto& st : *s.chain) s.chain_name += (s.chain_name.empty() ? "" : ",") + std::string(st->name());
    s.r = base_result(request);
  }
  result.trajectory.push_back(TrajectoryStep{
      "note", "candidates", {},
      std::to_string(n) + " candidates, " + std::to_string(parallel) + " at a time" +
          (request.candidates.early_stop ? ", early stop" : "") + "; budgets shared: " +
          std::to_string(request.limits.max_tool_calls) + " tool calls, " + std::to_string(request.limits.max_tokens) +
          " tokens",
      true, 0});
  {
    Event e;
    e.kind = EventKind::phase;
    e.phase = "repair";
    e.message = "running " + std::to_string(n) + " candidates, " + std::to_string(parallel) + " at a time";
    emit(e);
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex winner_mu;
  auto run_slot = [&](Slot& s) {
    const std::int64_t number = static_cast<std::int64_t>(s.index) + 1;
    auto link = cancel.on_cancel([t = s.token] { t.cancel(); });
    Emit cemit = [&emit, &budget, number](const Event& e0) {
      Event e = e0;
      e.candidate = number;
      e.tokens = budget.money().tokens();
      emit(e);
    };
    {
      PhaseTimer timer(s.r, "workspace");
      Event e;
      e.kind = EventKind::phase;
      e.phase = "workspace";
      e.message = "preparing the checkout of candidate " + std::to_string(number);
      cemit(e);
      auto acquired = options_.workspaces->acquire(s.request, s.token);
      if (!acquired) {
        set(s.r, Status::error, acquired.error().code == Errc::cancelled ? "cancelled" : "workspace_error",
            acquired.error().to_string());
        return;
      }
      s.ws = std::move(*acquired);
    }
    AttemptEnv env{s.request, s.token, s.r, cemit, shared_llm.get(), *s.chain, [&budget] { return budget.take_tool_call(); }};
    s.ok = run_attempt(env, *s.ws, s.accepted);
    if (s.ok && request.candidates.early_stop) {
      std::lock_guard lock(winner_mu);
      if (!stop.exchange(true))
        for (auto& other : slots)
          if (&other != &s && other.started && !other.finished) {
            other.stopped_early = true;
            other.token.cancel();
          }
    }
  };
  auto worker = [&] {
    for (;;) {
      if (stop || cancel.cancelled()) return;
      const std::size_t i = next++;
      if (i >= n) return;
      {
        std::lock_guard lock(winner_mu);  // an early stop and a start never cross
        if (stop) return;
        slots[i].started = true;
      }
      try {
        run_slot(slots[i]);
      } catch (const std::exception& e) {
        slots[i].threw = true;
        set(slots[i].r, Status::error, "internal_error", std::string("unexpected exception: ") + e.what());
      } catch (...) {
        slots[i].threw = true;
        set(slots[i].r, Status::error, "internal_error", "unexpected exception");
      }
      slots[i].finished = true;
    }
  };
  {
    std::vector<std::thread> threads;
    // (Each on a deep stack, as the job's: core/deep_stack.hpp.)
    const detail::RunIds ids = detail::current_run_ids();
    for (std::size_t t = 1; t < parallel; ++t)
      threads.emplace_back([&, ids] {
        detail::set_current_run_ids(ids);  // this thread's own, carried on to its deep stack
        detail::run_as_job_on_deep_stack(worker);
      });
    worker();
    for (auto& t : threads) t.join();
  }

  // Rank the accepted candidates: agreement (equivalent edits), then size, then order.
  std::vector<RankInput> rank_in;
  std::vector<std::size_t> accepted_slots;
  std::vector<std::string> keys(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!slots[i].ok) continue;
    keys[i] = sha256_hex(equivalence_key(slots[i].accepted.patch));
    rank_in.push_back(RankInput{keys[i], changed_lines(slots[i].accepted.patch), i});
    accepted_slots.push_back(i);
  }
  std::map<std::string, std::int64_t> votes;
  for (const auto& x : rank_in) votes[x.key]++;
  const bool job_cancelled = cancel.cancelled();
  std::size_t chosen = n;
  if (!rank_in.empty() && !job_cancelled) chosen = accepted_slots[rank_candidates(rank_in).front()];

  // The summary of the chosen one (its own trajectory and evidence).
  if (chosen < n) {
    Slot& w = slots[chosen];
    const std::int64_t number = static_cast<std::int64_t>(chosen) + 1;
    Emit cemit = [&emit, &budget, number](const Event& e0) {
      Event e = e0;
      e.candidate = number;
      e.tokens = budget.money().tokens();
      emit(e);
    };
    AttemptEnv env{w.request, cancel, w.r, cemit, shared_llm.get(), *w.chain, {}};
    finish_fixed(env, *w.ws, w.accepted);
  }

  // Merge: metrics of every candidate, every trajectory (tagged), one report per candidate.
  std::string outcomes;
  for (std::size_t i = 0; i < n; ++i) {
    Slot& s = slots[i];
    const std::int64_t number = static_cast<std::int64_t>(i) + 1;
    auto& m = result.metrics;
    m.tool_calls += s.r.metrics.tool_calls;
    m.model_calls += s.r.metrics.model_calls;
    m.input_tokens += s.r.metrics.input_tokens;
    m.output_tokens += s.r.metrics.output_tokens;
    m.cached_tokens += s.r.metrics.cached_tokens;
    m.cost_usd += s.r.metrics.cost_usd;
    for (const auto& [k, v] : s.r.metrics.phase_ms) m.phase_ms[k] += v;
    CandidateReport rep;
    rep.index = number;
    rep.temperature = s.request.model.temperature;
    rep.strategies = s.chain_name;
    rep.tool_calls = s.r.metrics.tool_calls;
    rep.tokens = s.r.metrics.input_tokens + s.r.metrics.output_tokens;
    if (s.ok) {
      rep.outcome = "accepted";
      rep.patch_digest = sha256_hex(s.accepted.patch.text);
      rep.equivalence = keys[i];
      rep.changed_lines = changed_lines(s.accepted.patch);
      rep.agreement = votes[keys[i]];
      rep.chosen = i == chosen;
      rep.message = i == chosen ? "delivered" : "validated and clean; not chosen";
    } else if (!s.started || (s.stopped_early && !s.threw)) {
      rep.outcome = "stopped";
      rep.reason = s.started ? "early_stop" : "not_started";
      rep.message = "another candidate was validated and clean first";
    } else {
      rep.outcome = s.r.status == Status::rejected || s.r.status == Status::superseded ? "rejected"
                    : s.r.status == Status::no_fix                                       ? "no_fix"
                    : job_cancelled && s.r.reason.empty()                                 ? "stopped"
                                                                                          : "error";
      rep.reason = s.r.reason.empty() ? (job_cancelled ? "cancelled" : "internal_error") : s.r.reason;
      rep.message = s.r.message;
    }
    outcomes += (outcomes.empty() ? "" : "; ") + std::string("candidate ") + std::to_string(number) + ": " + rep.outcome +
                (rep.reason.empty() ? "" : " (" + rep.reason + ")");
    result.trajectory.push_back(TrajectoryStep{"note", "candidate", {},
                                               "candidate " + std::to_string(number) + " (temperature " +
                                                   std::to_string(rep.temperature).substr(0, 4) + ", " + s.chain_name +
                                                   "): " + rep.outcome + (rep.reason.empty() ? "" : ": " + rep.reason),
                                               rep.outcome == "accepted", 0, number});
    for (auto step : s.r.trajectory) {
      step.candidate = number;
      result.trajectory.push_back(std::move(step));
    }
    if (s.ok)  // the candidate's patch, for the record (only the result's `patch` is ever delivered)
      result.trajectory.push_back(TrajectoryStep{"note", "candidate_patch", {}, s.accepted.patch.text.substr(0, 8000),
                                                 true, 0, number});
    result.candidates.push_back(std::move(rep));
  }

  if (chosen < n) {
    Slot& w = slots[chosen];
    result.chosen_candidate = static_cast<std::int64_t>(chosen) + 1;
    result.patch = w.r.patch;
    result.summary = w.r.summary;
    result.evidence = w.r.evidence;
    result.hypotheses = w.r.hypotheses;
    set(result, Status::fixed, "validated",
        "a validated fix was found by candidate " + std::to_string(chosen + 1) + " of " + std::to_string(n) + " (" +
            w.accepted.strategy + "); " + std::to_string(votes[keys[chosen]]) + " of " +
            std::to_string(accepted_slots.size()) + " accepted candidate(s) made an equivalent edit");
    return;
  }
  if (job_cancelled) return;  // the job's wrapper says why (time limit, cancel, newer revision)
  // No candidate can be delivered: the most telling outcome decides.
  auto first_with = [&](Status st) -> const Slot* {
    for (const auto& s : slots)
      if (s.started && s.r.status == st && !s.r.reason.empty()) return &s;
    return nullptr;
  };
  const Slot* decisive = first_with(Status::superseded);
  if (!decisive) decisive = first_with(Status::rejected);
  if (!decisive) decisive = first_with(Status::no_fix);
  if (!decisive) decisive = first_with(Status::error);
  if (!decisive) {
    set(result, Status::no_fix, "no_candidate", "no candidate produced a fix: " + outcomes);
    return;
  }
  if (decisive->r.status == Status::superseded) {
    set(result, Status::superseded, decisive->r.reason, decisive->r.message);
    return;
  }
  result.evidence = decisive->r.evidence;
  set(result, decisive->r.status, decisive->r.reason,
      "none of the " + std::to_string(n) + " candidates can be delivered (" + outcomes + "); candidate " +
          std::to_string(decisive->index + 1) + ": " + decisive->r.message);
}

}  // namespace flowagent::detail
