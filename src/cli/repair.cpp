// flowagent repair: one change's failing tests, from a request document and/or options.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>

#include "cli/args.hpp"
#include "cli/common.hpp"
#include "cli/progress.hpp"
#include "flowagent/flowagent.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/repair.hpp"
#include "agent/defaults.hpp"
#include "workspace/repo_ops.hpp"

namespace flowagent::cli {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

int exit_code_for(Status s) {
  switch (s) {
    case Status::fixed: return kExitFixed;
    case Status::abstained: return kExitAbstained;
    case Status::error: return kExitError;
    default: return kExitNoFix;
  }
}

/// Fills what the options left out from the repository: full commit ids, the head made from
/// --patch, change id, description, author, changed files, failing tests from reports and logs.
int complete_from_repository(RepairRequest& req, const std::string& patch_file, const Output& out) {
  std::error_code ec;
  auto repo = std::filesystem::canonical(req.repository, ec);
  if (ec) return out.error(kExitUsage, "invalid_input", "repository " + req.repository + " does not exist");
  req.repository = repo.string();
  for (auto* rev : {&req.change.base_commit, &req.change.head_commit}) {
    if (rev->empty()) continue;
    auto sha = detail::resolve_commit(repo, *rev);
    if (!sha) return out.error(kExitUsage, "invalid_input", sha.error().message);
    *rev = *sha;
  }
  if (!patch_file.empty()) {
    const auto abs = std::filesystem::absolute(patch_file);
    auto head = detail::commit_patch(repo, req.change.base_commit, abs, "flowagent: change from " + abs.string());
    if (!head)
      return out.error(kExitUsage, "invalid_input",
                       "the patch does not apply to " + req.change.base_commit + ": " + head.error().message);
    req.change.head_commit = *head;
  }
  if (req.change.id.empty()) req.change.id = req.change.head_commit.substr(0, 12);
  if (req.change.description.empty() || req.change.author.name.empty())
    if (auto info = detail::commit_info(repo, req.change.head_commit)) {
      if (req.change.description.empty()) req.change.description = info->message;
      if (req.change.author.name.empty()) {
        req.change.author.name = info->author_name;
        req.change.author.email = info->author_email;
      }
    }
  if (req.change.files.empty())
    if (auto files = detail::changed_files(repo, req.change.base_commit, req.change.head_commit)) req.change.files = *files;
  if (req.failure.failing_tests.empty())
    for (const auto& list : {req.failure.reports, req.failure.logs})
      for (const auto& p : list) {
        auto rep = reports::parse_report_file(std::filesystem::absolute(p));
        for (const auto* t : rep.failures()) {
          if (auto ok = check_test_id(t->id, "a failing test read from " + p); !ok)
            return out.error(kExitUsage, "invalid_input", ok.error().message);
          req.failure.failing_tests.push_back(t->id);
        }
      }
  for (auto& p : req.failure.reports) p = std::filesystem::absolute(p).string();
  for (auto& p : req.failure.logs) p = std::filesystem::absolute(p).string();
  return -1;
}

}  // namespace

int cmd_repair(const std::vector<std::string>& args, Output& out) {
  RepairRequest req;
  bool json = false, quiet = false, accept_exit_code = false, bot = false, rubric_review = false, early_stop = false;
  // The model endpoint named on the command line is the host's choice; one from --request is not.
  std::vector<std::string> trusted_origins;
  std::string request_path, patch_file, record, trajectory_dir, bwrap;
  EmbeddingsConfig embeddings;  // the retrieval's semantic tier (make_semantic_retriever)
  std::int64_t embeddings_candidates = -1;
  std::string embeddings_weight;
  std::vector<std::string> failing, reports, logs, globs;
  SandboxOptions sandbox;
  // Options that override the request document are collected apart and applied after it is read.
  RepairRequest o;
  std::int64_t revision = -1, max_tool_calls = -1, timeout_seconds = -1, context_tokens = -1, candidates = -1,
               candidate_concurrency = -1;
  ArgParser p("repair", "[options]", "Repairs the failing tests of one change (docs/CLI.md).");
  p.text("--request", "FILE|-", "a flowagent.repair_request/v1 document (other options override it)", request_path)
      .text("--repo", "DIR", "the developer's repository (never modified)", o.repository)
      .text("--base", "REV", "the change is base..head", o.change.base_commit)
      .text("--head", "REV", "head of the change", o.change.head_commit)
      .text("--patch", "FILE", "instead of --head: a patch applied onto --base (in a new commit object)", patch_file)
      .text("--test", "CMD", "test command; {tests} / {tests|SEP} expand to the failing tests", o.commands.test)
      .text("--build", "CMD", "build command", o.commands.build)
      .text("--wider", "CMD", "wider test command run for regressions", o.commands.wider_test)
      .list("--failing", "ID", "a failing test (repeatable; default: the failures in --report/--log)", failing)
      .list("--report", "PATH", "a test report CI wrote (repeatable)", reports)
      .list("--log", "PATH", "a test log CI wrote (repeatable)", logs)
      .list("--report-glob", "GLOB", "report files the test command writes (repeatable)", globs)
      .text("--model", "SPEC", "openai:<m>, anthropic:<m>, ollama:<m>, gemini:<m>, replay:<file>, builtin", o.model.spec)
      .text("--base-url", "URL", "model endpoint override", o.model.base_url)
      .text("--api-key-env", "VAR", "environment variable holding the model key", o.model.api_key_env)
      .custom("--trust-model-origin", "URL",
              "an endpoint a --request document may send the key to (repeatable; --base-url given here is "
              "trusted; docs/SECURITY.md)",
              [&](const std::string& v) -> Expected<void> {
                if (url_origin(v).empty()) return fail(Errc::invalid_argument, "must be a URL such as https://host:port");
                trusted_origins.push_back(v);
                return {};
              })
      .text("--embeddings-model", "SPEC",
            "semantic retrieval tier: openai:<m>, ollama:<m>, vllm:<m>, llamacpp:<m>, gemini:<m>, "
            "openai-compatible:<m> (POST {base}/embeddings; re-ranks the lexical code search)",
            embeddings.model.spec)
      .text("--embeddings-base-url", "URL", "embeddings endpoint override", embeddings.model.base_url)
      .text("--embeddings-api-key-env", "VAR", "environment variable holding the embeddings key",
            embeddings.model.api_key_env)
      .integer("--embeddings-candidates", "N",
               "lexical hits the embeddings re-rank (default 50); 0: embed and search the whole index",
               embeddings_candidates, 0, static_cast<std::int64_t>(kMaxSemanticCandidates))
      .text("--embeddings-weight", "W", "the cosine's share of a hit's score, 0..1 (default 0.5)", embeddings_weight)
      .text("--change-id", "ID", "the host's change id (default: the head's id)", o.change.id)
      .integer("--revision", "N", "revision of the change", revision, 0, kMax)
      .text("--description", "TEXT", "change description (default: the commit message)", o.change.description)
      .text("--author", "NAME", "change author (default: the commit's)", o.change.author.name)
      .flag("--bot", "the author is an automated account", bot)
      .integer("--max-tool-calls", "N", "tool calls the model may make (default 100)", max_tool_calls, 0, kMax)
      .integer("--timeout-seconds", "N", "wall-clock cap of the job (default 1800)", timeout_seconds, 0, kMax)
      .integer("--context-tokens", "N", "token budget of the first prompt (default 16000)", context_tokens, 0, kMax)
      .integer("--candidates", "N", "independent candidate loops sharing the job's budgets (default 1)", candidates, 1, 16)
      .integer("--candidate-concurrency", "N", "candidates run at once (default 2)", candidate_concurrency, 1, 16)
      .flag("--early-stop", "stop the other candidates once one is validated and clean", early_stop)
      .flag("--rubric-review",
            "a second model call reviews the fix against the overfitting rubric (docs/INTEGRITY.md); an unusable "
            "review rejects the fix",
            rubric_review)
      .text("--record", "FILE", "append every model request/response to FILE (JSONL, keys redacted)", record)
      .text("--trajectory-dir", "DIR", "write the trajectory of the job as JSONL into DIR", trajectory_dir)
      .flag("--accept-exit-code-evidence", "when no per-test result can be read, take exit 0 as evidence", accept_exit_code)
      .flag("--json", "print the flowagent.repair_result/v1 document instead of text", json)
      .flag("--quiet", "no progress on stderr", quiet)
      .section("sandbox options (untrusted commands run in bubblewrap; docs/SECURITY.md)")
      .flag("--allow-unsandboxed-commands", "run commands unisolated when the sandbox is unavailable",
            sandbox.allow_unsandboxed_commands)
      .text("--bwrap", "PATH", "the bwrap executable (default /usr/bin/bwrap, then PATH)", bwrap)
      .custom("--sandbox-ro", "PATH", "extra host path mounted read-only (toolchains; repeatable)",
              [&](const std::string& v) -> Expected<void> {
                if (!std::filesystem::path(v).is_absolute()) return fail(Errc::invalid_argument, "must be an absolute path");
                sandbox.read_only_paths.emplace_back(v);
                return {};
              })
      .size("--sandbox-tmp-bytes", "N", "size of the private /tmp and /dev/shm (default 512 MiB)", sandbox.tmp_size)
      .size("--sandbox-max-growth-bytes", "N", "bytes a command may add to the workspace (default 2 GiB)",
            sandbox.max_workspace_growth)
      .size("--sandbox-max-inodes", "N", "entries (files, folders, links) a command may add to the workspace (default 1000000)",
            sandbox.max_workspace_inodes)
      .size("--sandbox-min-free-disk-bytes", "N",
            "stop a command that brings the workspace's file system below N free bytes while it writes (default 1 GiB; 0 = off)",
            sandbox.min_free_disk_bytes)
      .size("--sandbox-max-run-memory-bytes", "N",
            "memory of all of a command's processes together, tmpfs and memfd pages included (memory cgroup, as root; default 8 GiB)",
            sandbox.max_memory)
      .size("--sandbox-max-processes", "N", "processes per command (default 1024)", sandbox.max_processes)
      .size("--sandbox-max-file-bytes", "N", "largest file a command may write (default 1 GiB)", sandbox.max_file_size)
      .size("--sandbox-max-memory-bytes", "N", "address space per process (default 16 GiB; 0 = unlimited)",
            sandbox.max_address_space)
      .size("--sandbox-max-cpu-seconds", "N", "CPU time per process (default 3600)", sandbox.max_cpu_seconds);
  if (auto done = parse_or_exit(p, args, out)) return *done;
  out.set_json(json);
  if (!request_path.empty()) {
    auto text = read_input(request_path);
    if (!text) return out.error(kExitUsage, text.error());
    auto doc = parse_repair_request(*text);
    if (!doc) return out.error(kExitUsage, "invalid_input", "invalid request: " + doc.error().message);
    req = std::move(*doc);
  }
  auto over = [](std::string& dst, const std::string& v) {
    if (!v.empty()) dst = v;
  };
  over(req.repository, o.repository);
  over(req.change.base_commit, o.change.base_commit);
  over(req.change.head_commit, o.change.head_commit);
  over(req.commands.test, o.commands.test);
  over(req.commands.build, o.commands.build);
  over(req.commands.wider_test, o.commands.wider_test);
  over(req.model.spec, o.model.spec);
  over(req.model.base_url, o.model.base_url);
  over(req.model.api_key_env, o.model.api_key_env);
  over(req.change.id, o.change.id);
  over(req.change.description, o.change.description);
  over(req.change.author.name, o.change.author.name);
  if (bot) req.change.author.kind = AuthorKind::bot;
  if (revision >= 0) req.change.revision = revision;
  if (max_tool_calls >= 0) req.limits.max_tool_calls = max_tool_calls;
  if (timeout_seconds >= 0) req.limits.max_wall_seconds = timeout_seconds;
  if (context_tokens >= 0) req.limits.context_tokens = context_tokens;
  if (candidates >= 0) req.candidates.count = candidates;
  if (candidate_concurrency >= 0) req.candidates.concurrency = candidate_concurrency;
  if (early_stop) req.candidates.early_stop = true;
  if (!o.model.base_url.empty()) trusted_origins.push_back(o.model.base_url);
  if (!bwrap.empty()) sandbox.bwrap_path = bwrap;
  // Test ids are data, never options, whichever source they come from.
  for (const auto& t : failing)
    if (auto ok = check_test_id(t, "--failing"); !ok) return out.error(kExitUsage, "invalid_input", ok.error().message);
  for (const auto& [cmd, flag] : {std::pair{&req.commands.test, "--test"}, std::pair{&req.commands.wider_test, "--wider"}})
    if (auto ok = check_test_template(*cmd, flag); !ok) return out.error(kExitUsage, "invalid_input", ok.error().message);
  if (!failing.empty()) req.failure.failing_tests = failing;
  if (!reports.empty()) req.failure.reports = reports;
  if (!logs.empty()) req.failure.logs = logs;
  if (!globs.empty()) req.commands.report_globs = globs;
  if (req.repository.empty() || req.change.base_commit.empty() || (req.change.head_commit.empty() && patch_file.empty()))
    return out.usage_error("repair needs --repo, --base and --head (or --patch), or a --request", p.help());
  if (int rc = complete_from_repository(req, patch_file, out); rc >= 0) return rc;
  // The options are held to the same rules as a request document: one schema, one set of limits.
  if (auto checked = parse_repair_request(dump_json_lossy(to_json(req))); !checked)
    return out.error(kExitUsage, "invalid_input", "invalid request: " + checked.error().message);

  AgentOptions opts;
  opts.worker_threads = 1;
  opts.sandbox = sandbox;
  opts.trusted_model_origins = trusted_origins;
  opts.allow_replay_models = o.model.spec.rfind("replay:", 0) == 0;  // named here, by the host
  std::shared_ptr<CodeRetriever> retriever;
  if (!embeddings.model.spec.empty()) {
    if (embeddings_candidates >= 0) embeddings.candidates = static_cast<std::size_t>(embeddings_candidates);
    if (!embeddings_weight.empty()) {
      char* end = nullptr;
      const double w = std::strtod(embeddings_weight.c_str(), &end);
      if (end != embeddings_weight.c_str() + embeddings_weight.size() || !(w >= 0 && w <= 1))
        return out.usage_error("--embeddings-weight: expected a number in [0, 1], got \"" + embeddings_weight + "\"",
                               p.help());
      embeddings.weight = w;
    }
    auto made = make_semantic_retriever(embeddings);
    if (!made) return out.error(kExitUsage, "invalid_input", "--embeddings-model: " + made.error().message);
    retriever = std::move(*made);
  } else if (!embeddings.model.base_url.empty() || !embeddings.model.api_key_env.empty() || embeddings_candidates >= 0 ||
             !embeddings_weight.empty()) {
    return out.usage_error("--embeddings-base-url, --embeddings-api-key-env, --embeddings-candidates and "
                           "--embeddings-weight need --embeddings-model",
                           p.help());
  }
  if (rubric_review || retriever) detail::use_default_strategies(opts, std::move(retriever), rubric_review);
  if (!quiet) opts.event_sink = std::make_shared<Progress>();
  if (!trajectory_dir.empty()) opts.trajectory_dir = trajectory_dir;
  if (accept_exit_code) {
    ValidatorOptions v;
    v.accept_exit_code_evidence = true;
    opts.validator = make_command_validator(v);
  }
  if (!record.empty()) {
    opts.llm_factory = [record](const ModelConfig& m) -> Expected<std::shared_ptr<LlmClient>> {
      if (m.spec.empty() || m.spec == "builtin") return std::shared_ptr<LlmClient>();
      ModelClientOptions mo;
      mo.model = m;
      mo.record_path = record;
      return make_llm_client(std::move(mo));
    };
  }
  auto agent = Agent::create(std::move(opts));
  if (!agent) return out.error(kExitError, agent.error());
  RepairResult r = (*agent)->run(req);
  if (json) {
    out.document(to_json(r));
  } else {
    std::cout << "status: " << to_string(r.status) << " (" << r.reason << ")\n" << terminal_safe(r.message) << "\n";
    if (!r.summary.empty()) std::cout << "summary: " << terminal_safe(r.summary) << "\n";
    std::cout << "tool calls: " << r.metrics.tool_calls << ", model calls: " << r.metrics.model_calls
              << ", tokens: " << r.metrics.input_tokens + r.metrics.output_tokens << ", time: " << r.metrics.wall_ms
              << " ms\n";
    for (const auto& c : r.candidates)
      std::cout << "candidate " << c.index << ": " << c.outcome << (c.reason.empty() ? "" : " (" + c.reason + ")")
                << (c.chosen ? ", delivered" : "") << ", agreement " << c.agreement << ", " << c.changed_lines
                << " changed lines\n";
    if (!r.patch.empty()) std::cout << "\n" << r.patch;
  }
  return exit_code_for(r.status);
}

}  // namespace flowagent::cli
