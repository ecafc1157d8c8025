// flowagent command-line tool. Exit codes (docs/CLI.md):
//   0 fixed (or the command succeeded), 1 no fix / rejected / superseded, 2 abstained,
//   3 bad usage or bad input, 4 infrastructure error.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "flowagent/delivery.hpp"
#include "flowagent/flowagent.hpp"
#include "flowagent/integrity.hpp"
#include "flowagent/model_client.hpp"
#include "flowagent/repair.hpp"
#include "workspace/git.hpp"
#include "workspace/git_patch.hpp"

using namespace flowagent;

namespace {

constexpr int kExitFixed = 0, kExitNoFix = 1, kExitAbstained = 2, kExitUsage = 3, kExitError = 4, kExitNotFixed = 5;

/// publish/apply: a result that is not fixed is refused with its own exit code.
int delivery_exit(const Error& e) {
  if (e.code == Errc::not_fixed) return kExitNotFixed;
  return e.code == Errc::conflict ? kExitNoFix : kExitUsage;
}

void usage(std::ostream& os) {
  os << "usage: flowagent <command> [options]\n"
        "commands:\n"
        "  repair          repair failing tests of a change (see below)\n"
        "  check-request   FILE|-  validate a flowagent.repair_request/v1 document\n"
        "  publish         --format diff|sarif|gerrit|github|rdjsonl|lsp [--result FILE|-] [--repo DIR]\n"
        "                  [--lsp-utf8] [--uri-base DIR]   write a fix in a review tool's or IDE's format\n"
        "  apply           --repo DIR [--result FILE|-]   apply a fix to a working tree (three-way if it moved)\n"
        "  guard           --repo DIR --head REV --patch FILE [--base REV] [--failing ID]...\n"
        "                  check a candidate patch for test cheating (and reverting base..head)\n"
        "  version         print the version\n"
        "repair options:\n"
        "  --request FILE|-        a flowagent.repair_request/v1 document (other options override it)\n"
        "  --repo DIR              the developer's repository (never modified)\n"
        "  --base REV --head REV   the change is base..head\n"
        "  --patch FILE            instead of --head: a patch applied onto --base (in a new commit object)\n"
        "  --test CMD              test command; {tests} / {tests|SEP} expand to the failing tests\n"
        "  --build CMD             build command\n"
        "  --wider CMD             wider test command run for regressions\n"
        "  --failing ID            a failing test (repeatable; default: the failures in --report/--log)\n"
        "  --report PATH, --log PATH   CI's reports and logs (repeatable)\n"
        "  --report-glob GLOB      report files the test command writes (repeatable)\n"
        "  --model SPEC            openai:<m>, anthropic:<m>, ollama:<m>, gemini:<m>, replay:<file>, builtin\n"
        "  --base-url URL          model endpoint override\n"
        "  --api-key-env VAR       environment variable holding the model key\n"
        "  --trust-model-origin URL  an endpoint a --request file may send the key to (repeatable;\n"
        "                          --base-url given here is trusted; docs/SECURITY.md)\n"
        "  --change-id ID --revision N --description TEXT --author NAME [--bot]\n"
        "  --max-tool-calls N --timeout-seconds N --context-tokens N\n"
        "  --candidates N          independent candidate loops sharing the job's budgets (1..16; default 1)\n"
        "  --candidate-concurrency N   candidates run at once (default 2)\n"
        "  --early-stop            stop the other candidates once one is validated and clean\n"
        "  --rubric-review         a second model call reviews the fix against the overfitting rubric\n"
        "                          (docs/INTEGRITY.md); an unusable review rejects the fix\n"
        "  --record FILE           append every model request/response to FILE (JSONL, keys redacted)\n"
        "  --trajectory-dir DIR    write the trajectory of the job as JSONL into DIR\n"
        "  --accept-exit-code-evidence  when no per-test result can be read, take exit 0 as evidence\n"
        "  --json                  print the flowagent.repair_result/v1 document instead of text\n"
        "  --quiet                 no progress on stderr\n"
        "sandbox options (untrusted commands run in bubblewrap; docs/SECURITY.md):\n"
        "  --allow-unsandboxed-commands   run commands unisolated when the sandbox is unavailable\n"
        "                                 (default: the job ends with sandbox_unavailable)\n"
        "  --bwrap PATH                   the bwrap executable (default /usr/bin/bwrap, then PATH)\n"
        "  --sandbox-ro PATH              extra host path mounted read-only (toolchains; repeatable)\n"
        "  --sandbox-tmp-bytes N          size of the private /tmp and /dev/shm (default 512 MiB)\n"
        "  --sandbox-max-growth-bytes N   bytes a command may add to the workspace (default 2 GiB)\n"
        "  --sandbox-max-processes N      processes per command (default 1024)\n"
        "  --sandbox-max-file-bytes N     largest file a command may write (default 1 GiB)\n"
        "  --sandbox-max-memory-bytes N   address space per process (default 16 GiB; 0 = unlimited)\n"
        "  --sandbox-max-cpu-seconds N    CPU time per process (default 3600)\n";
}

Expected<std::string> read_input(const std::string& path) {
  std::ostringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(Errc::io, "cannot open " + path);
  ss << in.rdbuf();
  return ss.str();
}

int exit_code_for(Status s) {
  switch (s) {
    case Status::fixed: return kExitFixed;
    case Status::abstained: return kExitAbstained;
    case Status::error: return kExitError;
    default: return kExitNoFix;
  }
}

/// Progress: one rewritten line on a terminal, one line per event otherwise.
class Progress final : public EventSink {
 public:
  Progress() : tty_(::isatty(2) != 0) {}
  std::string_view name() const override { return "cli"; }
  void on_event(const Event& e) override {
    std::lock_guard lock(mu_);
    char eta[32] = "";
    if (e.eta_ms >= 0) std::snprintf(eta, sizeof eta, "  ETA %llds", static_cast<long long>(e.eta_ms / 1000));
    std::string what = e.message;
    if (e.kind == EventKind::tool_call) what = "tool " + std::to_string(e.index) + "/" + std::to_string(e.max) + " " + what;
    if (what.size() > 70) what = what.substr(0, 67) + "...";
    char line[256];
    std::snprintf(line, sizeof line, "[%6.1fs] %-10s %s  tokens %lld%s", static_cast<double>(e.elapsed_ms) / 1000.0,
                  e.phase.c_str(), what.c_str(), static_cast<long long>(e.tokens), eta);
    if (tty_) std::fprintf(stderr, "\r\033[K%s%s", line, e.kind == EventKind::result ? "\n" : "");
    else std::fprintf(stderr, "%s\n", line);
  }
  void on_result(const RepairResult&) override {}

 private:
  std::mutex mu_;
  bool tty_;
};

int cmd_check_request(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    usage(std::cerr);
    return kExitUsage;
  }
  auto text = read_input(args[0]);
  if (!text) {
    std::cerr << "flowagent: " << text.error().message << "\n";
    return kExitUsage;
  }
  auto req = parse_repair_request(*text);
  if (!req) {
    std::cerr << "flowagent: invalid request: " << req.error().message << "\n";
    return kExitUsage;
  }
  std::cout << "ok: change " << req->change.id << " revision " << req->change.revision << "\n";
  return 0;
}

/// Makes a commit object holding `patch` applied onto `base`, without touching the working tree or
/// the index of the repository (a temporary index file is used).
Expected<std::string> commit_patch(const std::string& repo, const std::string& base, const std::string& patch_file) {
  char tmpl[] = "/tmp/flowagent-index-XXXXXX";
  int fd = ::mkstemp(tmpl);
  if (fd < 0) return fail(Errc::io, "cannot create a temporary index");
  ::close(fd);
  std::string index = tmpl;
  auto run = [&](std::vector<std::string> args) -> Expected<std::string> {
    detail::GitRepo git_repo(repo);
    git_repo.env = {{"GIT_INDEX_FILE", index}, {"GIT_AUTHOR_NAME", "flowagent"}, {"GIT_AUTHOR_EMAIL", "flowagent@localhost"},
                    {"GIT_COMMITTER_NAME", "flowagent"}, {"GIT_COMMITTER_EMAIL", "flowagent@localhost"}};
    auto r = detail::git_result(git_repo, args);
    if (!r) return unexpected(r.error());
    if (r->exit_code != 0) return fail(Errc::conflict, "git " + args[0] + ": " + r->output);
    return detail::chomp(r->output);
  };
  auto cleanup = [&] { std::remove(index.c_str()); };
  auto steps = run({"read-tree", base});
  if (steps) steps = run({"apply", "--cached", "--whitespace=nowarn", patch_file});
  if (steps) steps = run({"write-tree"});
  if (!steps) {
    cleanup();
    return unexpected(steps.error());
  }
  auto commit = run({"commit-tree", *steps, "-p", base, "-m", "flowagent: change from " + patch_file});
  cleanup();
  return commit;
}

int cmd_repair(const std::vector<std::string>& args) {
  RepairRequest req;
  bool json = false, quiet = false, have_request = false, accept_exit_code = false, rubric_review = false;
  std::string patch_file, record, trajectory_dir;
  std::vector<std::string> failing, reports, logs, globs;
  SandboxOptions sandbox;
  // The model endpoint named on the command line is the host's choice; one from --request is not.
  std::vector<std::string> trusted_origins;
  bool allow_replay = false;
  auto need = [&](std::size_t& i) -> const std::string* {
    if (i + 1 >= args.size()) return nullptr;
    return &args[++i];
  };
  // --request first, so other options override it.
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--request" && i + 1 < args.size()) {
      auto text = read_input(args[i + 1]);
      if (!text) {
        std::cerr << "flowagent: " << text.error().message << "\n";
        return kExitUsage;
      }
      auto parsed = parse_repair_request(*text);
      if (!parsed) {
        std::cerr << "flowagent: invalid request: " << parsed.error().message << "\n";
        return kExitUsage;
      }
      req = std::move(*parsed);
      have_request = true;
    }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const std::string* v = nullptr;
    auto take = [&](std::string& dst) {
      v = need(i);
      if (v) dst = *v;
      return v != nullptr;
    };
    auto take_int = [&](std::int64_t& dst) {
      v = need(i);
      if (!v) return false;
      try {
        dst = std::stoll(*v);
      } catch (...) {
        return false;
      }
      return true;
    };
    auto take_size = [&](std::uint64_t& dst) {
      std::int64_t n = 0;
      if (!take_int(n) || n < 0) return false;
      dst = static_cast<std::uint64_t>(n);
      return true;
    };
    bool ok = true;
    if (a == "--request") ok = need(i) != nullptr;
    else if (a == "--allow-unsandboxed-commands") sandbox.allow_unsandboxed_commands = true;
    else if (a == "--bwrap") ok = (v = need(i)) && (sandbox.bwrap_path = *v, true);
    else if (a == "--sandbox-ro") ok = (v = need(i)) && std::filesystem::path(*v).is_absolute() &&
                                       (sandbox.read_only_paths.emplace_back(*v), true);
    else if (a == "--sandbox-tmp-bytes") ok = take_size(sandbox.tmp_size);
    else if (a == "--sandbox-max-growth-bytes") ok = take_size(sandbox.max_workspace_growth);
    else if (a == "--sandbox-max-processes") ok = take_size(sandbox.max_processes);
    else if (a == "--sandbox-max-file-bytes") ok = take_size(sandbox.max_file_size);
    else if (a == "--sandbox-max-memory-bytes") ok = take_size(sandbox.max_address_space);
    else if (a == "--sandbox-max-cpu-seconds") ok = take_size(sandbox.max_cpu_seconds);
    else if (a == "--repo") ok = take(req.repository);
    else if (a == "--base") ok = take(req.change.base_commit);
    else if (a == "--head") ok = take(req.change.head_commit);
    else if (a == "--patch") ok = take(patch_file);
    else if (a == "--test") ok = take(req.commands.test);
    else if (a == "--build") ok = take(req.commands.build);
    else if (a == "--wider") ok = take(req.commands.wider_test);
    else if (a == "--failing") ok = (v = need(i)) && (failing.push_back(*v), true);
    else if (a == "--report") ok = (v = need(i)) && (reports.push_back(*v), true);
    else if (a == "--log") ok = (v = need(i)) && (logs.push_back(*v), true);
    else if (a == "--report-glob") ok = (v = need(i)) && (globs.push_back(*v), true);
    else if (a == "--model") ok = take(req.model.spec) && (allow_replay = v->rfind("replay:", 0) == 0, true);
    else if (a == "--base-url") ok = take(req.model.base_url) && (trusted_origins.push_back(*v), true);
    else if (a == "--trust-model-origin") ok = (v = need(i)) && !url_origin(*v).empty() && (trusted_origins.push_back(*v), true);
    else if (a == "--api-key-env") ok = take(req.model.api_key_env);
    else if (a == "--change-id") ok = take(req.change.id);
    else if (a == "--revision") ok = take_int(req.change.revision);
    else if (a == "--description") ok = take(req.change.description);
    else if (a == "--author") ok = take(req.change.author.name);
    else if (a == "--bot") req.change.author.kind = AuthorKind::bot;
    else if (a == "--max-tool-calls") ok = take_int(req.limits.max_tool_calls);
    else if (a == "--timeout-seconds") ok = take_int(req.limits.max_wall_seconds);
    else if (a == "--context-tokens") ok = take_int(req.limits.context_tokens);
    else if (a == "--candidates") ok = take_int(req.candidates.count) && req.candidates.count >= 1 && req.candidates.count <= 16;
    else if (a == "--candidate-concurrency")
      ok = take_int(req.candidates.concurrency) && req.candidates.concurrency >= 1 && req.candidates.concurrency <= 16;
    else if (a == "--early-stop") req.candidates.early_stop = true;
    else if (a == "--rubric-review") rubric_review = true;
    else if (a == "--record") ok = take(record);
    else if (a == "--trajectory-dir") ok = take(trajectory_dir);
    else if (a == "--accept-exit-code-evidence") accept_exit_code = true;
    else if (a == "--json") json = true;
    else if (a == "--quiet") quiet = true;
    else {
      std::cerr << "flowagent: unknown option " << a << "\n";
      usage(std::cerr);
      return kExitUsage;
    }
    if (!ok) {
      std::cerr << "flowagent: " << a << " needs a valid value\n";
      return kExitUsage;
    }
  }
  // Test ids are data, never options, whichever source they come from.
  for (const auto& t : failing)
    if (auto ok = check_test_id(t, "--failing"); !ok) {
      std::cerr << "flowagent: " << ok.error().message << "\n";
      return kExitUsage;
    }
  for (const auto& [cmd, flag] : {std::pair{&req.commands.test, "--test"}, std::pair{&req.commands.wider_test, "--wider"}})
    if (auto ok = check_test_template(*cmd, flag); !ok) {
      std::cerr << "flowagent: " << ok.error().message << "\n";
      return kExitUsage;
    }
  if (!failing.empty()) req.failure.failing_tests = failing;
  if (!reports.empty()) req.failure.reports = reports;
  if (!logs.empty()) req.failure.logs = logs;
  if (!globs.empty()) req.commands.report_globs = globs;
  if (req.repository.empty() || req.change.base_commit.empty() || (req.change.head_commit.empty() && patch_file.empty())) {
    std::cerr << "flowagent: repair needs --repo, --base and --head (or --patch), or a --request\n";
    return kExitUsage;
  }
  std::error_code ec;
  auto repo = std::filesystem::canonical(req.repository, ec);
  if (ec) {
    std::cerr << "flowagent: repository " << req.repository << " does not exist\n";
    return kExitUsage;
  }
  req.repository = repo.string();
  for (auto* rev : {&req.change.base_commit, &req.change.head_commit}) {
    if (rev->empty()) continue;
    auto sha = detail::git(repo, {"rev-parse", "--verify", "--quiet", *rev + "^{commit}"});
    if (!sha) {
      std::cerr << "flowagent: " << *rev << " is not a commit of " << repo.string() << "\n";
      return kExitUsage;
    }
    *rev = detail::chomp(*sha);
  }
  if (!patch_file.empty()) {
    auto head = commit_patch(repo.string(), req.change.base_commit, std::filesystem::absolute(patch_file).string());
    if (!head) {
      std::cerr << "flowagent: the patch does not apply to " << req.change.base_commit << ": " << head.error().message << "\n";
      return kExitUsage;
    }
    req.change.head_commit = *head;
  }
  if (req.change.id.empty()) req.change.id = req.change.head_commit.substr(0, 12);
  if (req.change.description.empty())
    if (auto d = detail::git(repo, {"log", "-1", "--format=%B", req.change.head_commit})) req.change.description = detail::chomp(*d);
  if (req.change.author.name.empty())
    if (auto d = detail::git(repo, {"log", "-1", "--format=%an%x1f%ae", req.change.head_commit})) {
      auto s = detail::chomp(*d);
      auto sep = s.find('\x1f');
      req.change.author.name = s.substr(0, sep);
      if (sep != std::string::npos) req.change.author.email = s.substr(sep + 1);
    }
  if (req.change.files.empty())
    if (auto d = detail::git(repo, {"diff", "--no-ext-diff", "--no-textconv", "--numstat", req.change.base_commit, req.change.head_commit})) {
      std::istringstream in(*d);
      std::string line;
      while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string added, removed, path;
        ls >> added >> removed;
        std::getline(ls, path);
        if (!path.empty() && path.front() == '\t') path.erase(0, 1);
        ChangedFile f;
        f.path = path;
        f.binary = added == "-";
        if (!f.binary) {
          f.added = std::stoll(added);
          f.removed = std::stoll(removed);
        }
        req.change.files.push_back(std::move(f));
      }
    }
  if (req.failure.failing_tests.empty()) {
    for (const auto& list : {req.failure.reports, req.failure.logs})
      for (const auto& p : list) {
        auto rep = reports::parse_report_file(std::filesystem::absolute(p));
        for (const auto* t : rep.failures()) {
          if (auto ok = check_test_id(t->id, "a failing test read from " + p); !ok) {
            std::cerr << "flowagent: " << ok.error().message << "\n";
            return kExitUsage;
          }
          req.failure.failing_tests.push_back(t->id);
        }
      }
  }
  for (auto& p : req.failure.reports) p = std::filesystem::absolute(p).string();
  for (auto& p : req.failure.logs) p = std::filesystem::absolute(p).string();
  (void)have_request;

  AgentOptions opts;
  opts.worker_threads = 1;
  opts.sandbox = sandbox;
  opts.trusted_model_origins = trusted_origins;
  opts.allow_replay_models = allow_replay;
  if (!quiet) opts.event_sink = std::make_shared<Progress>();
  if (!trajectory_dir.empty()) opts.trajectory_dir = trajectory_dir;
  if (accept_exit_code) {
    ValidatorOptions v;
    v.accept_exit_code_evidence = true;
    opts.validator = make_command_validator(v);
  }
  if (rubric_review) {
    ReactOptions ro;
    ro.reviewer = make_rubric_reviewer();
    opts.strategies = {make_expectation_update_strategy(), make_react_strategy(ro)};
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
  if (!agent) {
    std::cerr << "flowagent: " << agent.error().to_string() << "\n";
    return kExitError;
  }
  RepairResult r = (*agent)->run(req);
  if (json) {
    std::cout << dump_json_lossy(to_json(r), {2}) << "\n";
  } else {
    std::cout << "status: " << to_string(r.status) << " (" << r.reason << ")\n" << r.message << "\n";
    if (!r.summary.empty()) std::cout << "summary: " << r.summary << "\n";
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

Expected<RepairResult> load_result(const std::string& path) {
  auto text = read_input(path);
  if (!text) return unexpected(text.error());
  return parse_repair_result(*text);
}

int cmd_publish(const std::vector<std::string>& args) {
  std::string format, result_path = "-", repo;
  PublishOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--format" && i + 1 < args.size()) format = args[++i];
    else if (args[i] == "--result" && i + 1 < args.size()) result_path = args[++i];
    else if (args[i] == "--repo" && i + 1 < args.size()) repo = args[++i];
    else if (args[i] == "--uri-base" && i + 1 < args.size()) o.uri_base = args[++i];
    else if (args[i] == "--lsp-utf8") o.lsp_utf8 = true;
    else {
      std::cerr << "flowagent: unknown option " << args[i] << "\n";
      return kExitUsage;
    }
  }
  if (format.empty()) {
    std::cerr << "flowagent: publish needs --format\n";
    return kExitUsage;
  }
  auto result = load_result(result_path);
  if (!result) {
    std::cerr << "flowagent: invalid result: " << result.error().message << "\n";
    return kExitUsage;
  }
  if (!repo.empty()) {
    if (o.uri_base.empty()) o.uri_base = std::filesystem::absolute(repo).string();
    if (!result->base_commit.empty() && !result->head_commit.empty())
      if (auto d = detail::git_patch(repo, {result->base_commit, result->head_commit}, false)) o.change_diff = d->text;
  }
  auto out = publish(*result, format, o);
  if (!out) {
    std::cerr << "flowagent: refusing to publish: " << out.error().message << "\n";
    return delivery_exit(out.error());
  }
  std::cout << *out;
  if (!out->empty() && out->back() != '\n') std::cout << "\n";
  return 0;
}

int cmd_apply(const std::vector<std::string>& args) {
  std::string result_path = "-", repo;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--result" && i + 1 < args.size()) result_path = args[++i];
    else if (args[i] == "--repo" && i + 1 < args.size()) repo = args[++i];
    else {
      std::cerr << "flowagent: unknown option " << args[i] << "\n";
      return kExitUsage;
    }
  }
  if (repo.empty()) {
    std::cerr << "flowagent: apply needs --repo\n";
    return kExitUsage;
  }
  auto result = load_result(result_path);
  if (!result) {
    std::cerr << "flowagent: invalid result: " << result.error().message << "\n";
    return kExitUsage;
  }
  auto r = apply_fix(repo, *result);
  if (!r) {
    std::cerr << "flowagent: " << (r.error().code == Errc::conflict ? "" : "refusing to apply: ") << r.error().message << "\n";
    return delivery_exit(r.error());
  }
  std::cout << r->message << ":";
  for (const auto& f : r->files) std::cout << " " << f;
  std::cout << "\n";
  return 0;
}

int cmd_guard(const std::vector<std::string>& args) {
  std::string repo, head, base, patch_file;
  IntegrityOptions o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--repo" && i + 1 < args.size()) repo = args[++i];
    else if (args[i] == "--head" && i + 1 < args.size()) head = args[++i];
    else if (args[i] == "--base" && i + 1 < args.size()) base = args[++i];
    else if (args[i] == "--patch" && i + 1 < args.size()) patch_file = args[++i];
    else if (args[i] == "--failing" && i + 1 < args.size()) o.failing_tests.push_back(args[++i]);
    else {
      std::cerr << "flowagent: unknown option " << args[i] << "\n";
      return kExitUsage;
    }
  }
  if (repo.empty() || head.empty() || patch_file.empty()) {
    std::cerr << "flowagent: guard needs --repo, --head and --patch\n";
    return kExitUsage;
  }
  auto patch = read_input(patch_file);
  if (!patch) {
    std::cerr << "flowagent: " << patch.error().message << "\n";
    return kExitUsage;
  }
  auto fixed = commit_patch(repo, head, std::filesystem::absolute(patch_file).string());
  if (!fixed) {
    std::cerr << "flowagent: the patch does not apply to " << head << ": " << fixed.error().message << "\n";
    return kExitUsage;
  }
  auto parsed = parse_patch(*patch);
  if (!parsed) {
    std::cerr << "flowagent: " << parsed.error().message << "\n";
    return kExitUsage;
  }
  std::vector<FileVersions> files;
  for (const auto& f : parsed->files) {
    FileVersions v;
    v.path = f.path();
    if (f.status != PatchStatus::added) {
      auto b = detail::git(repo, {"show", head + ":" + f.old_path});
      if (!b) {
        std::cerr << "flowagent: " << f.old_path << " at " << head << ": " << b.error().message << "\n";
        return kExitUsage;
      }
      v.before = *b;
    }
    if (f.status != PatchStatus::deleted) {
      auto a = detail::git(repo, {"show", *fixed + ":" + f.new_path});
      if (!a) {
        std::cerr << "flowagent: " << f.new_path << " after the patch: " << a.error().message << "\n";
        return kExitUsage;
      }
      v.after = *a;
    }
    files.push_back(std::move(v));
  }
  // A hand-written patch may leave modes out; everything else that delivery refuses is reported.
  bool unsafe = false;
  for (const auto& p : check_patch(*parsed)) {
    if (p.reason == "patch_mode_unstated") continue;
    std::cout << p.path << ": [" << p.reason << "] " << p.message << "\n";
    unsafe = true;
  }
  auto findings = check_test_integrity(files, o);
  for (const auto& f : findings) std::cout << f.path << ":" << f.line << ": [" << f.rule << "] " << f.message << "\n";
  bool reverted = false;
  if (!base.empty()) {
    auto d = detail::git_patch(repo, {base, head}, false);
    if (!d) {
      std::cerr << "flowagent: the change " << base << ".." << head << ": " << d.error().message << "\n";
      return kExitUsage;
    }
    {
      auto r = measure_revert(*d, *parsed);
      if (r.changed_lines && r.share > 0.5) {
        reverted = true;
        std::cout << "[reverts_change] the patch undoes " << r.reverted_lines << " of " << r.changed_lines
                  << " changed lines\n";
        for (const auto& h : r.hunks) std::cout << "  " << h << "\n";
      }
    }
  }
  if (findings.empty() && !reverted && !unsafe) std::cout << "ok: no cheating found\n";
  return findings.empty() && !reverted && !unsafe ? 0 : kExitNoFix;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    usage(std::cerr);
    return kExitUsage;
  }
  const std::string cmd = args.front();
  args.erase(args.begin());
  if (cmd == "version" || cmd == "--version") {
    std::cout << "flowagent " << kVersionString << "\n";
    return 0;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    usage(std::cout);
    return 0;
  }
  if (cmd == "check-request") return cmd_check_request(args);
  if (cmd == "repair") return cmd_repair(args);
  if (cmd == "publish") return cmd_publish(args);
  if (cmd == "apply") return cmd_apply(args);
  if (cmd == "guard") return cmd_guard(args);
  std::cerr << "flowagent: unknown command " << cmd << "\n";
  usage(std::cerr);
  return kExitUsage;
}
