// The ReAct generate-and-validate loop.
#include <algorithm>
#include <chrono>
#include <map>
#include <optional>

#include "flowagent/repair.hpp"
#include "loop/context_manager.hpp"  // issue 14 hook
#include "loop/hypotheses.hpp"       // issue 14 hook
#include "loop/refinement.hpp"       // issue 14 hook

namespace flowagent {

namespace {

using Clock = std::chrono::steady_clock;

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

std::string clip_inline(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + "[...]"; }

class ReactStrategy final : public RepairStrategy {
 public:
  explicit ReactStrategy(ReactOptions o) : opt_(std::move(o)) {}
  std::string_view name() const override { return "react"; }

  Expected<Candidate> propose(RepairContext& ctx) override {
    if (!ctx.llm) return Candidate{false, false, "no model is configured", "no_model", false};
    std::string fault_text;
    if (opt_.localizer || opt_.retriever) {
      Event le;
      le.kind = EventKind::log;  // part of the repair stage, not a pipeline phase of its own
      le.phase = "repair";
      le.message = "localize: locating the fault (coverage, retrieval)";
      ctx.emit(le);
      const auto l0 = Clock::now();
      const std::int64_t tokens = ctx.request.limits.context_tokens > 0 ? ctx.request.limits.context_tokens
                                                                        : opt_.context.token_budget;
      FaultSectionInput fin;
      fin.localizer = opt_.localizer.get();
      fin.retriever = opt_.retriever.get();
      fin.root = ctx.workspace.root();
      fin.git_dir = ctx.workspace.git_dir();
      fin.sandbox = ctx.sandbox;  // the localizer's probes are untrusted commands like any other
      fin.max_chars = static_cast<std::size_t>(tokens) * opt_.context.chars_per_token / 5;
      fin.max_locations = opt_.max_locations;
      auto section = build_fault_section(fin, ctx.request, ctx.cancel);
      if (!section) return unexpected(section.error());  // cancelled
      fault_text = std::move(section->text);
      const auto lms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - l0).count();
      ctx.result.trajectory.push_back(TrajectoryStep{"note", "localization", {}, section->record, !fault_text.empty(), lms});
    }
    auto initial = build_initial_context(ctx.request, ctx.cancel, opt_.context, std::move(fault_text));
    if (!initial) return unexpected(initial.error());
    // The model sees workspace-relative paths only: host paths never reach it.
    const std::string root = ctx.workspace.root().string();
    auto scrub = [&](std::string s) {
      s = replace_all(std::move(s), root + "/", "");
      s = replace_all(std::move(s), root, ".");
      if (!ctx.request.repository.empty()) {
        s = replace_all(std::move(s), ctx.request.repository + "/", "");
      }
      return s;
    };
    ctx.result.trajectory.push_back(TrajectoryStep{"note", "context", {},
                                                   "initial context: ~" + std::to_string(initial->estimated_tokens) +
                                                       " tokens" + (initial->trimmed.empty() ? "" : ", trimmed"),
                                                   true, 0});
    std::vector<ChatMessage> messages;
    std::string system = react_system_prompt();
    if (!opt_.extra_instructions.empty()) system += "\n" + opt_.extra_instructions;
    messages.push_back(ChatMessage{Role::system, system, {}, {}, {}, false});
    messages.push_back(ChatMessage{Role::user, scrub(initial->text), {}, {}, {}, false});
    std::vector<ToolDefinition> defs;
    for (const auto& t : ctx.tools.list())
      defs.push_back(ToolDefinition{std::string(t->name()), std::string(t->description()), t->parameters()});
    // ---- issue 14 hook: hypothesis ledger and bounded context (src/loop/hypotheses.cpp, context_manager.cpp) ----
    detail::HypothesisLedger ledger;
    const bool ledger_on = opt_.hypotheses && std::none_of(defs.begin(), defs.end(), [](const ToolDefinition& d) {
                             return d.name == detail::kRecordHypothesis;
                           });
    if (ledger_on) defs.push_back(detail::HypothesisLedger::definition());
    detail::ContextBudget budget;
    budget.max_tokens = opt_.max_call_tokens;
    budget.working_tokens = opt_.working_context_tokens;
    budget.keep_recent = opt_.keep_recent_tool_outputs;
    int elided_shown = 0;
    // ---- end hook ----

    ToolContext tctx{ctx.workspace, ctx.request, ctx.state, ctx.cancel, ctx.sandbox};
    const auto& limits = ctx.request.limits;
    std::map<std::string, std::uint64_t> seen_at;  // call key -> ToolState::seq right after it ran
    int repeats = 0, empties = 0, validations = 0;
    int refinements = 0;  // issue 14 hook: overfitting refinement rounds used
    // ---- issue 14 hook: the optional rubric review of a finished candidate (src/loop/refinement.cpp).
    // The candidate to return, or nullopt when its findings went back to the model. ----
    auto reviewed = [&](Candidate done, const std::string& diff) -> std::optional<Expected<Candidate>> {
      auto fb = detail::review_feedback(ctx, opt_.reviewer.get(), diff, refinements, opt_.max_refinement_rounds, done);
      if (!fb) return Expected<Candidate>(unexpected(fb.error()));
      if (!*fb) return Expected<Candidate>(std::move(done));
      messages.push_back(ChatMessage{Role::user, scrub(**fb), {}, {}, {}, false});
      return std::nullopt;
    };
    auto stop = [&](std::string reason, std::string explanation) -> Expected<Candidate> {
      auto diff = ctx.workspace.diff();
      if (!diff) return unexpected(diff.error());
      return Candidate{!diff->empty(), false, std::move(explanation), std::move(reason), false};
    };

    for (;;) {
      if (ctx.cancel.cancelled()) return fail(Errc::cancelled, "cancelled");
      auto& m = ctx.result.metrics;
      if (limits.max_tokens > 0 && m.input_tokens + m.output_tokens >= limits.max_tokens)
        return stop("token_limit", "the token budget of " + std::to_string(limits.max_tokens) + " is spent");
      if (limits.max_cost_usd > 0 && m.cost_usd >= limits.max_cost_usd)
        return stop("cost_limit", "the cost budget is spent");

      ChatRequest req;
      // ---- issue 14 hook: bounded context ----
      detail::ContextCut cut;
      req.messages = detail::bound_context(messages, budget, ledger.render(), &cut);
      if (cut.elided != elided_shown) {
        elided_shown = cut.elided;
        ctx.result.trajectory.push_back(TrajectoryStep{
            "note", "context", {},
            "context manager: " + std::to_string(cut.elided) + " older tool output(s) elided (budget " +
                std::to_string(cut.budget) + "), ~" +
                std::to_string(cut.tokens_before) + " -> ~" + std::to_string(cut.tokens_after) + " tokens",
            true, 0});
      }
      // ---- end hook ----
      req.tools = defs;
      req.temperature = ctx.request.model.temperature;
      req.top_p = ctx.request.model.top_p;
      req.max_output_tokens = ctx.request.model.max_output_tokens;
      Event me;
      me.kind = EventKind::model_call;
      me.phase = "repair";
      me.message = "asking the model (call " + std::to_string(m.model_calls + 1) + ")";
      me.index = m.tool_calls;
      me.max = limits.max_tool_calls;
      ctx.emit(me);
      const auto t0 = Clock::now();
      auto resp = ctx.llm->complete(req, ctx.cancel);
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      if (!resp) {
        ctx.result.trajectory.push_back(TrajectoryStep{"model", std::string(ctx.llm->name()), {}, resp.error().to_string(), false, ms});
        if (resp.error().code == Errc::budget_exceeded) return stop("budget_exceeded", resp.error().message);
        return unexpected(resp.error());
      }
      m.model_calls++;
      m.input_tokens += resp->usage.input_tokens;
      m.output_tokens += resp->usage.output_tokens;
      m.cached_tokens += resp->usage.cached_tokens;
      m.cost_usd += resp->cost_usd;
      std::string summary = resp->message.content;
      for (const auto& c : resp->message.tool_calls) summary += "\n-> " + c.name + " " + clip_inline(c.raw_arguments, 300);
      ctx.result.trajectory.push_back(TrajectoryStep{"model", std::string(ctx.llm->name()), {}, clip_inline(summary, 4000), true, ms});
      messages.push_back(resp->message);

      if (resp->message.tool_calls.empty()) {
        if (resp->stop == StopReason::max_tokens) {
          messages.push_back(ChatMessage{Role::user, "Your reply was cut off at the output limit. Be shorter: make one tool call at a time.", {}, {}, {}, false});
          continue;
        }
        auto diff = ctx.workspace.diff();
        if (!diff) return unexpected(diff.error());
        if (diff->empty()) {
          if (++empties > 2) return Candidate{false, false, resp->message.content, "no_edit", false};
          messages.push_back(ChatMessage{Role::user,
                                         resp->message.content.empty()
                                             ? "Your reply was empty. Use the tools to investigate and fix the failing tests."
                                             : "You have not changed any file yet. Use the tools to make the fix, run the tests, then answer.",
                                         {}, {}, {}, false});
          continue;
        }
        // ---- issue 14 hook: overfitting refinement (src/loop/refinement.cpp) ----
        if (auto fb = detail::overfitting_feedback(ctx, *diff, refinements, opt_.max_refinement_rounds); !fb) {
          return unexpected(fb.error());
        } else if (*fb) {
          messages.push_back(ChatMessage{Role::user, scrub(**fb), {}, {}, {}, false});
          continue;
        }
        // ---- end hook ----
        // The model says it is done: a quick check in this tree for feedback (the pipeline's
        // validation stage decides), and the verdict shown to the model if it fails.
        if (opt_.validate_before_stopping && ctx.validator && validations < opt_.max_validation_rounds) {
          ++validations;
          Event ve;
          ve.kind = EventKind::log;
          ve.phase = "repair";
          ve.message = "checking the model's fix (round " + std::to_string(validations) + ")";
          ctx.emit(ve);
          auto rep = ctx.validator->check(ctx);
          if (!rep) return unexpected(rep.error());
          if (rep->passed) {
            if (auto done = reviewed(Candidate{true, true, resp->message.content, {}, true}, *diff)) return std::move(*done);
            continue;  // issue 14 hook: the rubric review's findings went back to the model
          }
          std::string verdict = "Validation failed (" + rep->reason + "): " + rep->message + "\n";
          for (const auto& run : rep->evidence.runs)
            for (const auto& f : run.failed) verdict += "still failing: " + f + "\n";
          verdict += "Keep working: fix the cause, run the tests, then answer again.";
          ctx.result.trajectory.push_back(TrajectoryStep{"note", "validator", {}, clip_inline(verdict, 2000), false, 0});
          messages.push_back(ChatMessage{Role::user, scrub(verdict), {}, {}, {}, false});
          continue;
        }
        if (auto done = reviewed(Candidate{true, ctx.state.tests_ran_after_last_edit(), resp->message.content, {}, false}, *diff))
          return std::move(*done);
        continue;  // issue 14 hook: the rubric review's findings went back to the model
      }

      bool progressed = false;
      for (std::size_t i = 0; i < resp->message.tool_calls.size(); ++i) {
        const auto& call = resp->message.tool_calls[i];
        ChatMessage out{Role::tool, {}, {}, call.id, call.name, false};
        // issue 14 hook: several candidates share the job's tool-call budget (RepairContext::take_tool_call)
        if (m.tool_calls >= limits.max_tool_calls || (ctx.take_tool_call && !ctx.take_tool_call())) {
          // Every call must still be answered (Anthropic requires it) before stopping.
          for (std::size_t k = i; k < resp->message.tool_calls.size(); ++k)
            messages.push_back(ChatMessage{Role::tool, "not executed: the tool-call limit is reached", {},
                                           resp->message.tool_calls[k].id, resp->message.tool_calls[k].name, true});
          return stop("tool_call_limit", "the limit of " + std::to_string(limits.max_tool_calls) + " tool calls is reached");
        }
        m.tool_calls++;
        Event te;
        te.kind = EventKind::tool_call;
        te.phase = "repair";
        te.index = m.tool_calls;
        te.max = limits.max_tool_calls;
        te.message = call.name + " " + clip_inline(call.raw_arguments, 120);
        ctx.emit(te);
        const auto c0 = Clock::now();
        if (!call.error.empty()) {
          out.is_error = true;
          out.content = "Your call could not be used: " + call.error + ". Send the arguments as one valid JSON object.";
        } else {
          const std::string key = call.name + "\x1f" + dump_json_lossy(call.arguments);
          auto it = seen_at.find(key);
          if (it != seen_at.end() && it->second == ctx.state.seq) {
            out.is_error = true;
            out.content = "You already made this exact call and nothing changed since, so the result is the same. "
                          "Try something different.";
            if (++repeats >= opt_.max_repeats) {
              messages.push_back(out);
              ctx.result.trajectory.push_back(TrajectoryStep{"tool", call.name, clip_inline(call.raw_arguments, 2000), out.content, false, 0});
              return stop("loop_stalled", "the model repeated the same call " + std::to_string(repeats) + " times without effect");
            }
          } else if (ledger_on && call.name == detail::kRecordHypothesis) {
            // ---- issue 14 hook: the hypothesis ledger answers its own tool ----
            bool warned = false;
            auto r = ledger.record(call.arguments, m.tool_calls, &warned);
            out.is_error = !r.ok;
            out.content = std::move(r.content);
            ctx.result.hypotheses = ledger.entries();
            ctx.result.trajectory.push_back(TrajectoryStep{"note", "hypothesis", {},
                                                           warned ? out.content : ledger.render(), !warned, 0});
            seen_at[key] = ctx.state.seq;
            // ---- end hook ----
          } else {
            auto r = ctx.tools.invoke(call.name, call.arguments, tctx);
            if (!r) {
              if (r.error().code == Errc::cancelled || r.error().code == Errc::sandbox_unavailable)
                return unexpected(r.error());
              out.is_error = true;
              out.content = r.error().message;
            } else {
              out.is_error = !r->ok;
              out.content = scrub(std::move(r->content));
            }
            seen_at[key] = ctx.state.seq;
            progressed = true;
          }
        }
        const auto cms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - c0).count();
        ctx.result.trajectory.push_back(TrajectoryStep{"tool", call.name, clip_inline(call.raw_arguments, 2000), clip_inline(out.content, 4000), !out.is_error, cms});
        messages.push_back(std::move(out));
      }
      if (progressed) repeats = 0;
    }
  }

 private:
  ReactOptions opt_;  // immutable: one strategy serves concurrent jobs
};

}  // namespace

std::string react_system_prompt() {
  return "You are flowagent, an engineer who repairs a code change whose pre-submit tests fail. You work in a "
         "private copy of the repository through tools; paths are relative to its root.\n"
         "How to work:\n"
         "1. Read the failures and the change. Find the root cause: usually the change broke the code under test, "
         "sometimes the change intentionally changed behaviour and a test expectation must follow.\n"
         "2. Make the smallest edit that fixes the root cause while keeping the developer's intent. Do not revert "
         "the developer's change wholesale.\n"
         "3. Never make tests pass by cheating: do not skip, disable, delete or comment out tests, do not weaken "
         "assertions (== to >, exact to approximate, specific to generic), do not wrap assertions in try/catch, "
         "and do not make production code detect that it runs under test.\n"
         "4. Run the failing tests with run_tests after your last edit.\n"
         "5. When they pass, reply without tool calls: one or two sentences naming the root cause and the fix.";
}

std::shared_ptr<RepairStrategy> make_react_strategy(ReactOptions options) {
  return std::make_shared<ReactStrategy>(std::move(options));
}

}  // namespace flowagent
