#include "flowagent/result.hpp"

#include "core/json_reader.hpp"

namespace flowagent {

namespace {
constexpr std::string_view kStatusNames[] = {"fixed", "no_fix", "abstained", "rejected", "superseded", "error"};
constexpr std::string_view kEventNames[] = {"phase", "tool_call", "model_call", "result", "log"};

using detail::string_array;
}  // namespace

std::string_view to_string(Status status) noexcept { return kStatusNames[static_cast<int>(status)]; }
std::string_view to_string(EventKind kind) noexcept { return kEventNames[static_cast<int>(kind)]; }

Json to_json(const RepairResult& r) {
  Json runs = Json::array();
  for (const auto& t : r.evidence.runs)
    runs.push_back(Json::obj({{"command", t.command},
                              {"purpose", t.purpose},
                              {"exit_code", t.exit_code},
                              {"timed_out", t.timed_out},
                              {"duration_ms", t.duration_ms},
                              {"passed", string_array(t.passed)},
                              {"failed", string_array(t.failed)},
                              {"report_format", t.report_format},
                              {"stopped_by", t.stopped_by}}));
  Json verdicts = Json::array();
  for (const auto& v : r.evidence.tests)
    verdicts.push_back(Json::obj({{"id", v.id}, {"outcome", v.outcome}, {"seen_as", string_array(v.seen_as)}}));
  Json replacements = Json::array();
  for (const auto& x : r.evidence.replacements)
    replacements.push_back(Json::obj({{"old_id", x.old_id}, {"new_ids", string_array(x.new_ids)}, {"scope", x.scope}}));
  Json phases = Json::object();
  for (const auto& [k, v] : r.metrics.phase_ms) phases[k] = v;
  Json steps = Json::array();
  for (const auto& s : r.trajectory) {
    Json step = Json::obj({{"kind", s.kind}, {"name", s.name}, {"input", s.input}, {"output", s.output},
                           {"ok", s.ok}, {"ms", s.ms}});
    if (s.candidate) step["candidate"] = s.candidate;
    steps.push_back(std::move(step));
  }
  Json cands = Json::array();
  for (const auto& c : r.candidates)
    cands.push_back(Json::obj({{"index", c.index}, {"temperature", c.temperature}, {"strategies", c.strategies},
                               {"outcome", c.outcome}, {"reason", c.reason}, {"message", c.message},
                               {"patch_digest", c.patch_digest}, {"equivalence", c.equivalence},
                               {"changed_lines", c.changed_lines}, {"agreement", c.agreement},
                               {"tool_calls", c.tool_calls}, {"tokens", c.tokens}, {"chosen", c.chosen}}));
  Json hyps = Json::array();
  for (const auto& h : r.hypotheses)
    hyps.push_back(Json::obj({{"id", h.id}, {"statement", h.statement}, {"evidence", h.evidence}, {"status", h.status},
                              {"tool_call", h.tool_call}}));
  Json doc = Json::obj({
      {"schema", kResultSchema},
      {"status", to_string(r.status)},
      {"reason", r.reason},
      {"message", r.message},
      {"change_id", r.change_id},
      {"revision", r.revision},
      {"base_commit", r.base_commit},
      {"head_commit", r.head_commit},
      {"patch", r.status == Status::fixed ? r.patch : std::string()},  // only a fixed result carries a patch
      {"summary", r.summary},
      {"evidence", Json::obj({{"build_ok", r.evidence.build_ok},
                              {"failing_tests_pass", r.evidence.failing_tests_pass},
                              {"wider_tests_pass", r.evidence.wider_tests_pass},
                              {"loop_evidence_used", r.evidence.loop_evidence_used},
                              {"kind", r.evidence.kind},
                              {"fresh_checkout", r.evidence.fresh_checkout},
                              {"tests", verdicts},
                              {"replacements", replacements},
                              {"runs", runs},
                              {"preexisting_failures", string_array(r.evidence.preexisting_failures)},
                              {"sandboxed", r.evidence.sandboxed},
                              {"isolation", r.evidence.isolation},
                              {"assertion_check", r.evidence.assertion_check}})},
      {"metrics", Json::obj({{"tool_calls", r.metrics.tool_calls},
                             {"model_calls", r.metrics.model_calls},
                             {"input_tokens", r.metrics.input_tokens},
                             {"output_tokens", r.metrics.output_tokens},
                             {"cached_tokens", r.metrics.cached_tokens},
                             {"cost_usd", r.metrics.cost_usd},
                             {"wall_ms", r.metrics.wall_ms},
                             {"phase_ms", phases}})},
      {"trajectory", steps},
      {"hypotheses", hyps},
  });
  if (!r.candidates.empty()) {
    doc["candidates"] = std::move(cands);
    doc["chosen_candidate"] = r.chosen_candidate;
  }
  return doc;
}

Expected<RepairResult> repair_result_from_json(const Json& doc) {
  if (auto ok = detail::check_schema_name(doc, kResultSchema); !ok) return unexpected(ok.error());
  RepairResult r;
  detail::ObjectReader root(doc, "");
  std::string schema;
  int status = 0;
  root.string("schema", schema, true);
  root.choice("status", {std::begin(kStatusNames), std::end(kStatusNames)}, status, true);
  r.status = static_cast<Status>(status);
  root.string("reason", r.reason).string("message", r.message).string("change_id", r.change_id);
  root.integer("revision", r.revision).string("patch", r.patch).string("summary", r.summary);
  root.string("base_commit", r.base_commit).string("head_commit", r.head_commit);
  root.object("evidence", [&](detail::ObjectReader& e) {
    e.boolean("build_ok", r.evidence.build_ok)
        .boolean("failing_tests_pass", r.evidence.failing_tests_pass)
        .boolean("wider_tests_pass", r.evidence.wider_tests_pass)
        .boolean("loop_evidence_used", r.evidence.loop_evidence_used)
        .boolean("sandboxed", r.evidence.sandboxed)
        .string("isolation", r.evidence.isolation)
        .string("assertion_check", r.evidence.assertion_check)
        .string("kind", r.evidence.kind)
        .boolean("fresh_checkout", r.evidence.fresh_checkout)
        .strings("preexisting_failures", r.evidence.preexisting_failures);
    e.objects("tests", [&](detail::ObjectReader& t, std::size_t) {
      TestVerdict v;
      t.string("id", v.id).string("outcome", v.outcome).strings("seen_as", v.seen_as);
      r.evidence.tests.push_back(std::move(v));
    });
    e.objects("replacements", [&](detail::ObjectReader& t, std::size_t) {
      TestReplacement x;
      t.string("old_id", x.old_id).strings("new_ids", x.new_ids).string("scope", x.scope);
      r.evidence.replacements.push_back(std::move(x));
    });
    e.objects("runs", [&](detail::ObjectReader& t, std::size_t) {
      TestRun run;
      std::int64_t code = -1;
      t.string("command", run.command).string("purpose", run.purpose).integer("exit_code", code, false, INT32_MIN, INT32_MAX);
      t.boolean("timed_out", run.timed_out).integer("duration_ms", run.duration_ms);
      t.strings("passed", run.passed).strings("failed", run.failed).string("report_format", run.report_format);
      t.string("stopped_by", run.stopped_by);
      run.exit_code = static_cast<int>(code);
      r.evidence.runs.push_back(std::move(run));
    });
  });
  root.object("metrics", [&](detail::ObjectReader& m) {
    m.integer("tool_calls", r.metrics.tool_calls)
        .integer("model_calls", r.metrics.model_calls)
        .integer("input_tokens", r.metrics.input_tokens)
        .integer("output_tokens", r.metrics.output_tokens)
        .integer("cached_tokens", r.metrics.cached_tokens)
        .number("cost_usd", r.metrics.cost_usd)
        .integer("wall_ms", r.metrics.wall_ms);
    Json phases;
    m.any("phase_ms", phases);
    if (phases.is_object()) {
      for (const auto& [k, v] : phases.as_object()) {
        if (!v.is_int()) {
          m.set_error("phase_ms." + k, "expected an integer");
          break;
        }
        r.metrics.phase_ms[k] = v.as_int();
      }
    } else if (!phases.is_null()) {
      m.set_error("phase_ms", "expected an object");
    }
  });
  root.objects("trajectory", [&](detail::ObjectReader& s, std::size_t) {
    TrajectoryStep step;
    s.string("kind", step.kind, true).string("name", step.name).string("input", step.input);
    s.string("output", step.output).boolean("ok", step.ok).integer("ms", step.ms);
    s.integer("candidate", step.candidate, false, 0, 16);
    r.trajectory.push_back(std::move(step));
  });
  root.objects("hypotheses", [&](detail::ObjectReader& h, std::size_t) {
    Hypothesis hyp;
    h.integer("id", hyp.id).string("statement", hyp.statement).string("evidence", hyp.evidence);
    h.string("status", hyp.status).integer("tool_call", hyp.tool_call);
    r.hypotheses.push_back(std::move(hyp));
  });
  root.objects("candidates", [&](detail::ObjectReader& c, std::size_t) {
    CandidateReport x;
    c.integer("index", x.index, true, 1, 16).number("temperature", x.temperature).string("strategies", x.strategies);
    c.string("outcome", x.outcome).string("reason", x.reason).string("message", x.message);
    c.string("patch_digest", x.patch_digest).string("equivalence", x.equivalence);
    c.integer("changed_lines", x.changed_lines).integer("agreement", x.agreement);
    c.integer("tool_calls", x.tool_calls).integer("tokens", x.tokens).boolean("chosen", x.chosen);
    r.candidates.push_back(std::move(x));
  });
  root.integer("chosen_candidate", r.chosen_candidate, false, 0, 16);
  if (auto e = root.finish(); !e.empty()) return fail(Errc::schema, e);
  // Only a fixed result carries a patch: a patch beside any other status is dropped, so nothing
  // downstream (publish, apply, a host) can take a rejected fix for a deliverable one.
  if (r.status != Status::fixed) r.patch.clear();
  return r;
}

Expected<RepairResult> parse_repair_result(std::string_view json_text) {
  auto doc = parse_json(json_text);
  if (!doc) return unexpected(doc.error());
  return repair_result_from_json(*doc);
}

Json to_json(const Event& e) {
  Json doc = Json::obj({{"schema", kEventSchema},
                    {"kind", to_string(e.kind)},
                    {"change_id", e.change_id},
                    {"revision", e.revision},
                    {"phase", e.phase},
                    {"message", e.message},
                    {"index", e.index},
                    {"max", e.max},
                    {"tokens", e.tokens},
                    {"eta_ms", e.eta_ms},
                    {"elapsed_ms", e.elapsed_ms},
                    {"job_id", static_cast<std::int64_t>(e.job_id)}});
  if (e.candidate) doc["candidate"] = e.candidate;
  return doc;
}

}  // namespace flowagent
