#include "agent/pipeline.hpp"
#include "core/patch_rules.hpp"
#include "flowagent/model_client.hpp"
#include "workspace/git.hpp"
#include "workspace/git_patch.hpp"

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <chrono>
#include <fstream>
#include <exception>
#include <thread>

namespace flowagent::detail {

namespace {

/// Does a line the patch adds hold something the redactor would mask?
bool adds_secret(std::string_view patch, const Redactor& redactor) {
  for (std::size_t b = 0; b < patch.size();) {
    std::size_t e = patch.find('\n', b);
    if (e == std::string_view::npos) e = patch.size();
    const std::string_view line = patch.substr(b, e - b);
    if (line.starts_with("+") && !line.starts_with("+++ ") && redactor.contains_secret(line)) return true;
    b = e + 1;
  }
  return false;
}

using Clock = std::chrono::steady_clock;

std::int64_t ms_since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

}  // namespace

PhaseTimer::PhaseTimer(RepairResult& r, std::string name) : r_(r), name_(std::move(name)), t0_(Clock::now()) {}
PhaseTimer::~PhaseTimer() {
  auto ms = ms_since(t0_);
  r_.metrics.phase_ms[name_] += ms;
  r_.trajectory.push_back(TrajectoryStep{"phase", name_, {}, {}, true, ms});
}

void set(RepairResult& r, Status s, std::string reason, std::string message) {
  r.status = s;
  r.reason = std::move(reason);
  r.message = std::move(message);
}

RepairResult base_result(const RepairRequest& request) {
  RepairResult r;
  r.change_id = request.change.id;
  r.revision = request.change.revision;
  r.base_commit = request.change.base_commit;
  r.head_commit = request.change.head_commit;
  return r;
}

namespace {
constexpr const char* kPhaseOrder[] = {"prefilter", "workspace", "repair", "validate", "postfilter", "summarize"};
}

void EtaModel::learn(const RepairResult& r) {
  if (r.status != Status::fixed && r.status != Status::no_fix && r.status != Status::rejected) return;
  std::lock_guard lock(mu_);
  ++samples_;
  for (const char* p : kPhaseOrder) {
    auto it = r.metrics.phase_ms.find(p);
    double v = it == r.metrics.phase_ms.end() ? 0.0 : static_cast<double>(it->second);
    auto& avg = avg_ms_[p];
    avg = samples_ == 1 ? v : 0.7 * avg + 0.3 * v;
  }
}

std::int64_t EtaModel::remaining_ms(const std::string& phase, std::int64_t phase_elapsed_ms,
                                    const std::map<std::string, std::int64_t>& done) const {
  std::lock_guard lock(mu_);
  if (samples_ == 0) return -1;
  double left = 0;
  bool after = false;
  for (const char* p : kPhaseOrder) {
    auto avg = avg_ms_.count(p) ? avg_ms_.at(p) : 0.0;
    if (p == phase) {
      left += std::max(0.0, avg - static_cast<double>(phase_elapsed_ms));
      after = true;
    } else if (after || !done.count(p)) {
      if (after) left += avg;
    }
  }
  return static_cast<std::int64_t>(left);
}

RepairResult superseded_result(const RepairRequest& request, std::string message) {
  RepairResult r = base_result(request);
  set(r, Status::superseded, "newer_revision", std::move(message));
  return r;
}

void Pipeline::write_trajectory(const RepairResult& r) const {
  std::error_code ec;
  std::filesystem::create_directories(options_.trajectory_dir, ec);
  std::string safe;
  for (char c : r.change_id) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  static std::atomic<std::uint64_t> seq{0};
  auto path = options_.trajectory_dir /
              (safe + "-" + std::to_string(r.revision) + "-" + std::to_string(++seq) + "-" +
               std::to_string(std::chrono::system_clock::now().time_since_epoch().count()) + ".jsonl");
  std::ofstream out(path);
  for (const auto& s : r.trajectory)
    out << dump_json_lossy(Json::obj({{"kind", s.kind}, {"name", s.name}, {"input", s.input}, {"output", s.output},
                                      {"ok", s.ok}, {"ms", s.ms}, {"candidate", s.candidate}}))
        << "\n";
  out << dump_json_lossy(Json::obj({{"kind", "result"}, {"status", to_string(r.status)}, {"reason", r.reason},
                                    {"message", r.message}, {"wall_ms", r.metrics.wall_ms}}))
      << "\n";
}

RepairResult Pipeline::run(const RepairRequest& request, const CancelToken& cancel,
                           const std::function<bool()>& superseded) const {
  const auto t0 = Clock::now();
  RepairResult result = base_result(request);
  // Secrets this job knows of; the model client's key is added once the client exists.
  auto redactor = std::make_shared<Redactor>();
  redactor->add_secrets(options_.secrets);
  redactor->add_secrets(environment_secrets());
  if (options_.llm) redactor->add_secrets(options_.llm->secrets());
  if (!request.model.api_key_env.empty())
    if (const char* v = std::getenv(request.model.api_key_env.c_str())) redactor->add_secret(v);

  // The job's own token, cancelled by the caller's token or by the wall-clock cap.
  CancelToken token;
  auto link = cancel.on_cancel([token] { token.cancel(); });
  std::atomic<bool> timed_out{false};
  std::thread watchdog([&] {
    if (!token.wait_for(std::chrono::seconds(request.limits.max_wall_seconds))) {
      timed_out = true;
      token.cancel();
    }
  });

  try {
    // The stages run on a deep stack (core/deep_stack.hpp: std::regex recursion over the
    // developer's long lines), as the caller's job.
    run_as_job_on_deep_stack(
        [&] {
          run_stages(request, token, result, redactor);
          note_isolation(request, result);
        },
        new_run_id());
  } catch (const std::exception& e) {
    set(result, Status::error, "internal_error", std::string("unexpected exception: ") + e.what());
  } catch (...) {
    set(result, Status::error, "internal_error", "unexpected exception");
  }
  if (token.cancelled() && result.status != Status::fixed && result.status != Status::abstained &&
      result.status != Status::rejected) {
    if (superseded()) {
      set(result, Status::superseded, "newer_revision", "a newer revision of the change was submitted");
      result.patch.clear();
    } else if (timed_out) {
      set(result, Status::no_fix, "time_limit",
          "the repair hit its wall-clock limit of " + std::to_string(request.limits.max_wall_seconds) + " s");
      result.patch.clear();
    } else if (result.status != Status::superseded) {
      set(result, Status::error, "cancelled", "the repair was cancelled");
      result.patch.clear();
    }
  }
  // The validated patch is never redacted (it would no longer be what was validated): a fix that
  // adds a line holding a credential (a configured key, an environment secret, a key shape) is not
  // delivered at all.
  if (result.status == Status::fixed && adds_secret(result.patch, *redactor))
    set(result, Status::rejected, "secret_in_patch",
        "the fix adds a line that holds a credential (an API key or token); it is not delivered");
  // Nothing but a fixed result carries a patch (whatever path ended the job).
  if (result.status != Status::fixed) result.patch.clear();
  token.cancel();  // stops the watchdog
  watchdog.join();
  result.metrics.wall_ms = ms_since(t0);
  redactor->redact_in_place(result);  // before the trajectory file, the events and the caller see it
  eta_.learn(result);
  if (!options_.trajectory_dir.empty()) write_trajectory(result);

  Event done;
  done.kind = EventKind::result;
  done.change_id = request.change.id;
  done.revision = request.change.revision;
  done.job_id = current_job_id();
  done.phase = "done";
  done.message = std::string(to_string(result.status)) + (result.reason.empty() ? "" : ": " + result.reason);
  done.elapsed_ms = result.metrics.wall_ms;
  done.tokens = result.metrics.input_tokens + result.metrics.output_tokens;
  done.eta_ms = 0;
  redactor->redact_in_place(done);
  if (options_.event_sink) {
    try {
      options_.event_sink->on_event(done);
      options_.event_sink->on_result(result);
    } catch (...) {
    }
  }
  return result;
}

namespace {
bool has_commands(const RepairRequest& r) {
  return !r.commands.build.empty() || !r.commands.test.empty() || !r.commands.wider_test.empty();
}
/// Stage errors caused by a missing sandbox end the job with their own reason.
std::string reason_for(const Error& e, std::string otherwise) {
  return e.code == Errc::sandbox_unavailable ? "sandbox_unavailable" : std::move(otherwise);
}
}  // namespace

void Pipeline::note_isolation(const RepairRequest& request, RepairResult& result) const {
  if (!has_commands(request)) return;
  if (auto ok = probe_sandbox(options_.sandbox); ok) {
    result.evidence.sandboxed = true;
    result.evidence.isolation = "bubblewrap";
  } else {
    result.evidence.sandboxed = false;
    result.evidence.isolation = options_.sandbox.allow_unsandboxed_commands
                                    ? "none: commands ran without isolation (allow_unsandboxed_commands): " +
                                          ok.error().message
                                    : "none: no command ran: " + ok.error().message;
  }
}

RepairResult Pipeline::run_stages(const RepairRequest& request, const CancelToken& cancel, RepairResult& result,
                                  const std::shared_ptr<Redactor>& redactor) const {
  // Requests built in C++ skip the parser: the same checks as parse time (ids are data, templates
  // do not quote {tests}).
  if (auto ok = check_request_commands(request); !ok) {
    set(result, Status::error, "bad_request", ok.error().message);
    return result;
  }
  // Fail closed before anything runs: no sandbox, no untrusted command (unless the host opted out).
  if (has_commands(request) && !options_.sandbox.allow_unsandboxed_commands) {
    if (auto ok = probe_sandbox(options_.sandbox); !ok) {
      set(result, Status::error, "sandbox_unavailable",
          ok.error().message + "; untrusted commands never run unsandboxed unless the host sets allow_unsandboxed_commands");
      return result;
    }
  }
  const auto t0 = Clock::now();
  std::string current_phase = "prefilter";
  auto phase_t0 = Clock::now();
  // Several candidates emit from several threads: one at a time (EventSink's contract).
  auto emit_mu = std::make_shared<std::mutex>();
  Emit emit = [&, emit_mu](const Event& e0) {
    if (!options_.event_sink) return;
    std::lock_guard lock(*emit_mu);
    Event e = e0;
    e.change_id = request.change.id;
    e.revision = request.change.revision;
    e.job_id = current_job_id();
    e.elapsed_ms = ms_since(t0);
    if (e.candidate == 0) e.tokens = result.metrics.input_tokens + result.metrics.output_tokens;
    if (e.kind == EventKind::phase && e.phase != current_phase) {
      current_phase = e.phase;
      phase_t0 = Clock::now();
    }
    e.eta_ms = eta_.remaining_ms(current_phase, ms_since(phase_t0), result.metrics.phase_ms);
    redactor->redact_in_place(e);
    try {
      options_.event_sink->on_event(e);
    } catch (...) {
    }
  };
  auto phase = [&](std::string name, std::string message) {
    Event e;
    e.kind = EventKind::phase;
    e.phase = std::move(name);
    e.message = std::move(message);
    emit(e);
  };

  // 1. Pre-execution filters.
  {
    PhaseTimer timer(result, "prefilter");
    phase("prefilter", "checking whether to try");
    for (const auto& f : options_.pre_filters) {
      if (cancel.cancelled()) return result;
      auto verdict = f->check(request, cancel);
      if (!verdict) {
        set(result, Status::error, reason_for(verdict.error(), "filter_error"),
            "pre-filter " + std::string(f->name()) + " failed: " + verdict.error().to_string());
        return result;
      }
      if (*verdict) {
        set(result, Status::abstained, (*verdict)->reason, (*verdict)->message);
        return result;
      }
    }
  }
  if (!options_.workspaces) {
    set(result, Status::error, "workspace_error", "no workspace provider is configured");
    return result;
  }

  // Model client (optional: strategies that need one step aside without it).
  std::shared_ptr<LlmClient> llm = options_.llm;
  if (!llm && options_.llm_factory && !request.model.spec.empty()) {
    if (auto ok = check_model_destination(request.model, options_.trusted_model_origins, options_.allow_replay_models);
        !ok) {
      set(result, Status::error, "model_config", ok.error().to_string());
      return result;
    }
    auto made = options_.llm_factory(request.model);
    if (!made) {
      set(result, Status::error, "model_config", made.error().to_string());
      return result;
    }
    llm = *made;
  }
  // Every model request passes the redactor: tool results, log excerpts, the initial context.
  if (llm) {
    redactor->add_secrets(llm->secrets());
    llm = make_redacting_client(std::move(llm), redactor);
  }

  // Several candidates: their own stage (src/agent/candidates.cpp).
  if (request.candidates.count > 1) {
    run_candidates(request, cancel, result, emit, llm);
    return result;
  }

  // 2. Workspace.
  std::unique_ptr<Workspace> ws;
  {
    PhaseTimer timer(result, "workspace");
    phase("workspace", "preparing an isolated checkout");
    auto acquired = options_.workspaces->acquire(request, cancel);
    if (!acquired) {
      set(result, Status::error, acquired.error().code == Errc::cancelled ? "cancelled" : "workspace_error",
          acquired.error().to_string());
      return result;
    }
    ws = std::move(*acquired);
    result.head_commit = ws->head_commit();  // resolved to a full commit id
  }

  // 3-5. Strategies, validation, post-filters; 6. summary.
  AttemptEnv env{request, cancel, result, emit, llm.get(), options_.strategies, {}};
  Accepted accepted;
  if (run_attempt(env, *ws, accepted)) finish_fixed(env, *ws, accepted);
  return result;
}

void Pipeline::finish_fixed(const AttemptEnv& env, Workspace& ws, Accepted& accepted) const {
  RepairResult& result = env.result;
  result.patch = accepted.patch.text;
  {
    PhaseTimer timer(result, "summarize");
    Event e;
    e.kind = EventKind::phase;
    e.phase = "summarize";
    e.message = "writing the root-cause summary";
    env.emit(e);
    ToolRegistry no_tools;
    ToolState state;
    RepairContext ctx{env.request, ws, no_tools, state, env.llm, env.cancel, result, env.emit, options_.validator.get(),
                      &options_.sandbox, &accepted.patch, options_.workspaces.get(), {}};
    if (options_.summarizer) result.summary = options_.summarizer->summarize(ctx, accepted.candidate);
  }
  set(result, Status::fixed, "validated", "a validated fix was found by " + accepted.strategy);
}

bool Pipeline::run_attempt(const AttemptEnv& env, Workspace& ws_ref, Accepted& out) const {
  const RepairRequest& request = env.request;
  const CancelToken& cancel = env.cancel;
  RepairResult& result = env.result;
  Workspace* ws = &ws_ref;
  auto phase = [&](std::string name, std::string message) {
    Event e;
    e.kind = EventKind::phase;
    e.phase = std::move(name);
    e.message = std::move(message);
    env.emit(e);
  };
  ToolRegistry empty_tools;
  ToolRegistry& tools = options_.tools ? *options_.tools : empty_tools;
  ToolState state;
  RepairContext ctx{request, *ws, tools, state, env.llm, cancel, result, env.emit, options_.validator.get(),
                    &options_.sandbox, nullptr, options_.workspaces.get(), env.take_tool_call};

  std::string last_failure_reason = "no_candidate";
  std::string last_failure_message = "no strategy produced a candidate fix";
  for (const auto& strategy : env.strategies) {
    if (cancel.cancelled()) return false;
    const std::string sname(strategy->name());
    Expected<Candidate> cand = [&] {
      PhaseTimer timer(result, "repair");
      phase("repair", "strategy " + sname);
      return strategy->propose(ctx);
    }();
    if (!cand) {
      result.trajectory.push_back(TrajectoryStep{"note", sname, {}, cand.error().to_string(), false, 0});
      if (cand.error().code == Errc::cancelled) return false;
      if (cand.error().code == Errc::sandbox_unavailable) {
        set(result, Status::error, "sandbox_unavailable", cand.error().message);
        return false;
      }
      if (cand.error().code == Errc::budget_exceeded) {
        set(result, Status::no_fix, "budget_exceeded", cand.error().message);
        return false;
      }
      last_failure_reason = "strategy_error";
      last_failure_message = sname + ": " + cand.error().to_string();
      if (auto reset = ws->reset(); !reset) {
        set(result, Status::error, "workspace_error", reset.error().to_string());
        return false;
      }
      state = ToolState{};
      continue;
    }
    if (!cand->produced) {
      result.trajectory.push_back(TrajectoryStep{"note", sname, {}, "stepped aside: " + cand->explanation, true, 0});
      if (!cand->stop_reason.empty()) {
        last_failure_reason = cand->stop_reason;
        last_failure_message = sname + ": " + cand->explanation;
      }
      continue;
    }

    // The candidate as a value, made once (flowagent/patch.hpp); only regular text files pass.
    auto diff = ws->diff();
    if (!diff) {
      set(result, Status::error, "workspace_error", diff.error().to_string());
      return false;
    }
    auto patch = parse_patch(*diff);
    if (!patch) {
      set(result, Status::error, "workspace_error", "the workspace's diff does not parse: " + patch.error().message);
      return false;
    }
    // The patch rules (a post-filter no host policy can remove: regular text files inside the tree)
    // run before validation, so a symlink or gitlink never reaches a test command. Booked as the
    // post-filter phase: the funnel counts the candidate as a patch produced and rejected.
    if (auto problems = check_patch(*patch); !problems.empty()) {
      PhaseTimer timer(result, "postfilter");
      phase("postfilter", "checking the patch rules");
      set(result, Status::rejected, problems.front().reason, "the fix may not be delivered: " + join_patch_problems(problems));
      return false;
    }
    ctx.patch = &*patch;  // the validator applies exactly this to a fresh checkout
    // (It lives in this iteration only: the next strategy's tools must not read a candidate that is
    // gone; review 30 found the react loop's test runs reading the rejected zero-token patch.)
    struct PatchInScope {
      RepairContext& c;
      ~PatchInScope() { c.patch = nullptr; }
    } patch_in_scope{ctx};

    // 4. Deterministic validation, always its own stage: a strategy's own checks never count.
    Expected<ValidationReport> report = [&]() -> Expected<ValidationReport> {
      PhaseTimer timer(result, "validate");
      phase("validate", "validating the candidate of " + sname);
      if (!options_.validator) return fail(Errc::invalid_argument, "no validator configured");
      return options_.validator->validate(ctx);
    }();
    if (!report) {
      if (report.error().code == Errc::cancelled) return false;
      set(result, Status::error, reason_for(report.error(), "validation_error"), report.error().to_string());
      return false;
    }
    result.evidence = report->evidence;
    if (!report->passed) {
      result.trajectory.push_back(
          TrajectoryStep{"note", "validator", {}, sname + ": " + report->reason + ": " + report->message, false, 0});
      last_failure_reason = report->reason.empty() ? "validation_failed" : report->reason;
      last_failure_message = report->message;
      if (!cand->stop_reason.empty()) last_failure_message += " (" + sname + " stopped: " + cand->stop_reason + ")";
      if (auto reset = ws->reset(); !reset) {
        set(result, Status::error, "workspace_error", reset.error().to_string());
        return false;
      }
      state = ToolState{};
      continue;
    }

    if (!result.evidence.replacements.empty()) {
      std::string note;
      for (const auto& x : result.evidence.replacements) {
        note += (note.empty() ? "" : "; ") + x.old_id + " -> ";
        for (std::size_t i = 0; i < x.new_ids.size(); ++i) note += (i ? ", " : "") + x.new_ids[i];
      }
      result.trajectory.push_back(TrajectoryStep{"note", "validator", {}, "replaced tests: " + note, true, 0});
    }

    // 5. Post-execution filters.
    {
      PhaseTimer timer(result, "postfilter");
      phase("postfilter", "checking the fix");
      // The strategy's own review (the rubric review) still objects: validated, never delivered.
      if (!cand->rejection_reason.empty()) {
        set(result, Status::rejected, cand->rejection_reason, cand->rejection_message);
        return false;
      }
      // The developer's change, made the same way as the candidate; null when git cannot read it
      // (filters that need it then fail closed).
      auto change = detail::git_patch(detail::workspace_repo(*ws), {request.change.base_commit, ws->head_commit()},
                                      /*check_blobs=*/false, cancel);
      if (!change && change.error().code == Errc::cancelled) return false;
      if (!change)
        result.trajectory.push_back(TrajectoryStep{"note", "postfilter", {}, "the change's diff: " + change.error().to_string(), false, 0});
      PostFilterInput in{request, *patch, change ? &*change : nullptr, options_.change_tracker.get(), ws,
                         &result.evidence};
      for (const auto& f : options_.post_filters) {
        auto verdict = f->check(in, cancel);
        if (!verdict) {
          if (verdict.error().code == Errc::cancelled) return false;
          // Fail closed: a filter that could not check the fix rejects it.
          set(result, Status::rejected, "postfilter_failed",
              "post-filter " + std::string(f->name()) + " could not check the fix: " + verdict.error().to_string());
          return false;
        }
        if (*verdict) {
          set(result, (*verdict)->status, (*verdict)->reason, (*verdict)->message);
          return false;
        }
      }
    }
    out = Accepted{std::move(*cand), std::move(*patch), sname};
    return true;
  }
  set(result, Status::no_fix, last_failure_reason, last_failure_message);
  return false;
}

}  // namespace flowagent::detail
