#include "flowagent/request.hpp"

#include "core/json_reader.hpp"

namespace flowagent {

std::string_view to_string(AuthorKind kind) noexcept { return kind == AuthorKind::bot ? "bot" : "person"; }
std::string_view to_string(FailureKind kind) noexcept { return kind == FailureKind::build ? "build" : "test"; }

namespace {
/// "candidates": an integer (the count) or {count, concurrency, early_stop}.
void read_candidates(const Json& doc, detail::ObjectReader& root, CandidateConfig& out) {
  const Json* c = doc.find("candidates");
  if (c && c->is_int()) {
    root.integer("candidates", out.count, false, 1, 16);
    return;
  }
  root.object("candidates", [&](detail::ObjectReader& o) {
    o.integer("count", out.count, false, 1, 16)
        .integer("concurrency", out.concurrency, false, 1, 16)
        .boolean("early_stop", out.early_stop);
  });
}
}  // namespace

Expected<RepairRequest> repair_request_from_json(const Json& doc) {
  if (auto ok = detail::check_schema_name(doc, kRequestSchema); !ok) return unexpected(ok.error());
  RepairRequest r;
  detail::ObjectReader root(doc, "");
  std::string schema;
  root.string("schema", schema, true);
  root.string("repository", r.repository, true);
  root.object(
      "change",
      [&](detail::ObjectReader& c) {
        c.string("id", r.change.id, true)
            .integer("revision", r.change.revision, false, 0)
            .string("base_commit", r.change.base_commit, true)
            .string("head_commit", r.change.head_commit, true)
            .string("description", r.change.description);
        c.object("author", [&](detail::ObjectReader& a) {
          int kind = 0;
          a.string("name", r.change.author.name).string("email", r.change.author.email);
          a.choice("kind", {"person", "bot"}, kind);
          r.change.author.kind = static_cast<AuthorKind>(kind);
        });
        c.objects("files", [&](detail::ObjectReader& f, std::size_t) {
          ChangedFile file;
          f.string("path", file.path, true)
              .integer("added", file.added, false, 0)
              .integer("removed", file.removed, false, 0)
              .boolean("binary", file.binary);
          r.change.files.push_back(std::move(file));
        });
      },
      true);
  root.object(
      "failure",
      [&](detail::ObjectReader& f) {
        int kind = 0;
        f.choice("kind", {"test", "build"}, kind);
        r.failure.kind = static_cast<FailureKind>(kind);
        f.strings("failing_tests", r.failure.failing_tests)
            .strings("reports", r.failure.reports)
            .strings("logs", r.failure.logs);
      },
      true);
  root.object("commands", [&](detail::ObjectReader& c) {
    c.string("build", r.commands.build)
        .string("test", r.commands.test)
        .string("wider_test", r.commands.wider_test)
        .strings("report_globs", r.commands.report_globs)
        .integer("timeout_seconds", r.commands.timeout_seconds, false, 1, 86400);
  });
  root.object("limits", [&](detail::ObjectReader& l) {
    l.integer("max_tool_calls", r.limits.max_tool_calls, false, 0, 100000)
        .integer("max_wall_seconds", r.limits.max_wall_seconds, false, 1, 7 * 86400)
        .integer("max_tokens", r.limits.max_tokens, false, 0)
        .number("max_cost_usd", r.limits.max_cost_usd, false, 0, 1e9)
        .integer("max_files", r.limits.max_files, false, 0)
        .integer("max_changed_lines", r.limits.max_changed_lines, false, 0)
        .integer("context_tokens", r.limits.context_tokens, false, 256, 10'000'000)
        .number("localization_budget", r.limits.localization_budget, false, 0, 100);
  });
  root.object("model", [&](detail::ObjectReader& m) {
    m.string("spec", r.model.spec)
        .string("base_url", r.model.base_url)
        .string("api_key_env", r.model.api_key_env)
        .number("temperature", r.model.temperature, false, 0, 2)
        .number("top_p", r.model.top_p, false, 0, 1)
        .integer("max_output_tokens", r.model.max_output_tokens, false, 1, 1'000'000);
  });
  read_candidates(doc, root, r.candidates);
  if (auto e = root.finish(); !e.empty()) return fail(Errc::schema, e);
  if (r.commands.test.empty() && r.failure.kind == FailureKind::test && !r.commands.wider_test.empty())
    return fail(Errc::schema, "commands.test: required when commands.wider_test is set");
  if (auto ok = check_request_commands(r); !ok) return unexpected(ok.error());
  return r;
}

namespace {

/// The id as it can be shown in an error message: printable ASCII kept, everything else escaped.
std::string printable(std::string_view s) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (char ch : s.substr(0, 200)) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == '"') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += ch;
    }
  }
  if (s.size() > 200) out += "...";
  return out;
}

}  // namespace

Expected<void> check_test_id(std::string_view id, std::string_view source) {
  auto refuse = [&](std::string why) {
    return fail(Errc::schema, std::string(source) + ": test id \"" + printable(id) + "\" " + why +
                                  "; test ids are passed to the test command as data, never as options");
  };
  if (id.empty()) return refuse("is empty");
  if (id.size() > 4096) return refuse("is longer than 4096 bytes");
  if (id.front() == '-') return refuse("starts with '-', so a test runner would read it as an option");
  // argparse-based runners (pytest >= 8.2) read "@file" as a file of arguments, even after "--";
  // "+" is an option prefix for some tools.
  if (id.front() == '@') return refuse("starts with '@', so a test runner could read it as a file of options");
  if (id.front() == '+') return refuse("starts with '+', which some runners read as an option");
  for (char ch : id) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) return refuse("holds a control character");
  }
  // NAME=value is a variable assignment to make, a property to several build tools.
  const auto eq = id.find('=');
  if (eq != std::string_view::npos && eq > 0 && !std::isdigit(static_cast<unsigned char>(id.front())) &&
      std::all_of(id.begin(), id.begin() + static_cast<std::ptrdiff_t>(eq), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
      }))
    return refuse("has the form NAME=value, which make and build tools read as an assignment");
  return {};
}

Expected<void> check_test_template(std::string_view cmd, std::string_view field) {
  enum class Q { none, single, dollar_single, dbl } q = Q::none;
  for (std::size_t i = 0; i < cmd.size(); ++i) {
    const char c = cmd[i];
    if (cmd.compare(i, 6, "{tests") == 0 && i + 6 < cmd.size() && (cmd[i + 6] == '}' || cmd[i + 6] == '|') &&
        q != Q::none) {
      return fail(Errc::schema,
                  std::string(field) + ": the {tests} placeholder sits inside " +
                      (q == Q::dbl ? "double quotes" : "single quotes") +
                      "; flowagent shell-quotes each test id itself, and inside quotes an id could end the quoting "
                      "or run $(...): write {tests} without quotes around it");
    }
    switch (q) {
      case Q::none:
        if (c == '\\') ++i;
        else if (c == '\'') q = (i > 0 && cmd[i - 1] == '$') ? Q::dollar_single : Q::single;
        else if (c == '"') q = Q::dbl;
        break;
      case Q::single:
        if (c == '\'') q = Q::none;
        break;
      case Q::dollar_single:
        if (c == '\\') ++i;
        else if (c == '\'') q = Q::none;
        break;
      case Q::dbl:
        if (c == '\\') ++i;
        else if (c == '"') q = Q::none;
        break;
    }
  }
  return {};
}

Expected<void> check_request_commands(const RepairRequest& r) {
  for (std::size_t i = 0; i < r.failure.failing_tests.size(); ++i)
    if (auto ok = check_test_id(r.failure.failing_tests[i], "failure.failing_tests[" + std::to_string(i) + "]"); !ok)
      return ok;
  if (auto ok = check_test_template(r.commands.test, "commands.test"); !ok) return ok;
  return check_test_template(r.commands.wider_test, "commands.wider_test");
}

Expected<RepairRequest> parse_repair_request(std::string_view json_text) {
  auto doc = parse_json(json_text);
  if (!doc) return unexpected(doc.error());
  return repair_request_from_json(*doc);
}

using detail::string_array;

Json to_json(const RepairRequest& r) {
  Json files = Json::array();
  for (const auto& f : r.change.files)
    files.push_back(Json::obj({{"path", f.path}, {"added", f.added}, {"removed", f.removed}, {"binary", f.binary}}));
  return Json::obj({
      {"schema", kRequestSchema},
      {"repository", r.repository},
      {"change", Json::obj({{"id", r.change.id},
                            {"revision", r.change.revision},
                            {"base_commit", r.change.base_commit},
                            {"head_commit", r.change.head_commit},
                            {"description", r.change.description},
                            {"author", Json::obj({{"name", r.change.author.name},
                                                  {"email", r.change.author.email},
                                                  {"kind", to_string(r.change.author.kind)}})},
                            {"files", files}})},
      {"failure", Json::obj({{"kind", to_string(r.failure.kind)},
                             {"failing_tests", string_array(r.failure.failing_tests)},
                             {"reports", string_array(r.failure.reports)},
                             {"logs", string_array(r.failure.logs)}})},
      {"commands", Json::obj({{"build", r.commands.build},
                              {"test", r.commands.test},
                              {"wider_test", r.commands.wider_test},
                              {"report_globs", string_array(r.commands.report_globs)},
                              {"timeout_seconds", r.commands.timeout_seconds}})},
      {"limits", Json::obj({{"max_tool_calls", r.limits.max_tool_calls},
                            {"max_wall_seconds", r.limits.max_wall_seconds},
                            {"max_tokens", r.limits.max_tokens},
                            {"max_cost_usd", r.limits.max_cost_usd},
                            {"max_files", r.limits.max_files},
                            {"max_changed_lines", r.limits.max_changed_lines},
                            {"context_tokens", r.limits.context_tokens},
                            {"localization_budget", r.limits.localization_budget}})},
      {"model", Json::obj({{"spec", r.model.spec},
                           {"base_url", r.model.base_url},
                           {"api_key_env", r.model.api_key_env},
                           {"temperature", r.model.temperature},
                           {"top_p", r.model.top_p},
                           {"max_output_tokens", r.model.max_output_tokens}})},
      {"candidates", Json::obj({{"count", r.candidates.count},
                                {"concurrency", r.candidates.concurrency},
                                {"early_stop", r.candidates.early_stop}})},
  });
}

}  // namespace flowagent
