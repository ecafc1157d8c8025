// flowagent/localize.hpp: fault localization (which code the failing tests execute and the passing
// ones do not) and code retrieval (which code the failure talks about), for the repair's first phase.
//
// Coverage localization (issue 13): the request's test command runs again, in a scratch copy of the
// workspace, under each ecosystem's own coverage tool (coverage.py contexts, NODE_V8_COVERAGE, gcc
// --coverage + gcov JSON, go -coverprofile, a JaCoCo agent); every statement gets a spectrum score (Ochiai by
// default) from how many failing and passing tests executed it, boosted when the change touched it,
// and statements are grouped into functions with tree-sitter. Retrieval: BM25 over tree-sitter
// function/class chunks with identifiers split into words, optionally re-ranked with embeddings.
//
// Every command a localization runs (the interpreter probe, the coverage build, the test runs,
// `coverage json`, gcov) is untrusted -- it executes the project's code -- and goes through
// run_sandboxed (flowagent/sandbox.hpp) with the job's SandboxOptions, in a private scratch copy
// of the workspace: nothing runs unsandboxed unless the host set allow_unsandboxed_commands.
//
// [Threading] every object made here is safe to share between jobs: caches are locked; a call
// keeps no state between calls other than those caches. [Lifetime] shared_ptr-held (ReactOptions,
// tools). [Errors] Errc::cancelled when the CancelToken fires; Errc::sandbox_unavailable when the
// sandbox cannot be set up (fail closed: the job ends like any other untrusted command's would); a
// localization that cannot run for any other reason (no test command, unknown ecosystem, tool
// missing, over budget) is a Localization with `note` set and `cut_off`/empty results, not an
// Error: the repair always goes on without it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/request.hpp"
#include "flowagent/sandbox.hpp"

namespace flowagent {

class HttpTransport;

// ---- spectrum formulas ----------------------------------------------------------------------------

enum class SpectrumFormula { ochiai, tarantula, dstar };

/// How many failing/passing tests executed an element, and how many tests failed/passed in all.
struct SpectrumCounts {
  int failed_covered = 0;  ///< e_f
  int passed_covered = 0;  ///< e_p
  int total_failed = 0;    ///< F = e_f + n_f
  int total_passed = 0;    ///< P = e_p + n_p
};

/// Ochiai: e_f / sqrt(F * (e_f + e_p)); Tarantula: (e_f/F) / (e_f/F + e_p/P); DStar (star = 2):
/// e_f^2 / (e_p + n_f) (an element every failing test and no passing test executes scores
/// e_f^2 * 2, finite). 0 when no failing test executed the element.
double suspiciousness(SpectrumFormula formula, const SpectrumCounts& counts) noexcept;
std::optional<SpectrumFormula> parse_spectrum_formula(std::string_view name) noexcept;
std::string_view to_string(SpectrumFormula formula) noexcept;

// ---- code chunks (tree-sitter) --------------------------------------------------------------------

struct CodeChunk {
  std::string file;    ///< repository-relative
  std::string symbol;  ///< qualified where the grammar allows: "Class.method", "ns::f"
  std::string kind;    ///< "function" or "class"
  int start_line = 0;  ///< 1-based, inclusive
  int end_line = 0;
};

/// Functions and classes of one file parsed with the grammar its extension names (Python,
/// JavaScript/TypeScript, C/C++, Go, Java, Rust, Kotlin). Empty for other files.
std::vector<CodeChunk> code_chunks(const std::string& relative_path, std::string_view source);
/// True when code_chunks knows the language of a file with this name.
bool has_code_grammar(std::string_view relative_path);

/// Test code (tests/, test_*.py, *_test.go, ...) is left out of rankings: is_test_path (integrity.hpp).

/// Splits identifiers into lower-case words: "parseHTTPHeader" -> parse, http, header;
/// "max_line_len" -> max, line, len. Non-identifier characters separate words.
std::vector<std::string> split_identifier_words(std::string_view text);

// ---- localization -----------------------------------------------------------------------------------

/// One suspicious function (or a line range outside any function).
struct SuspiciousLocation {
  std::string file;
  std::string symbol;     ///< empty: statements outside any function
  int start_line = 0;
  int end_line = 0;
  double score = 0;       ///< after the change boost
  bool in_change = false; ///< the change touched it
  std::vector<int> top_lines;  ///< its most suspicious statements, best first
};

/// Per-test line coverage: file (repository-relative) -> executed lines.
struct TestCoverage {
  std::string test;
  bool failed = false;
  std::map<std::string, std::set<int>> lines;
};

struct Localization {
  std::string ecosystem;   ///< "python", "javascript", "cpp", "go", "java", "" when none applied
  std::string tool;        ///< "coverage.py", "NODE_V8_COVERAGE", "gcov", "go -coverprofile", "JaCoCo"
  SpectrumFormula formula = SpectrumFormula::ochiai;
  std::vector<SuspiciousLocation> functions;  ///< best first
  int failing_tests = 0;   ///< failing tests with coverage
  int passing_tests = 0;
  bool cut_off = false;    ///< the time budget ended it; results are partial or empty
  bool from_cache = false;
  std::string note;        ///< why it is empty or partial
  std::int64_t duration_ms = 0;
  std::int64_t budget_ms = 0;
  /// Runs of the test command started (each per-test run one; tape's passing neighbours one for
  /// all of them: they share a node process).
  int test_runs = 0;
};

/// Changed lines of the change, new-side line numbers, by repository-relative file.
using ChangedLines = std::map<std::string, std::set<int>>;

/// Reads `git diff -U0 base head` in `repository` (read-only).
Expected<ChangedLines> changed_lines(const std::filesystem::path& repository, const std::string& base,
                                     const std::string& head, const CancelToken& cancel = CancelToken());

struct RankOptions {
  SpectrumFormula formula = SpectrumFormula::ochiai;
  double change_boost = 0.25;  ///< a covered function the change touched scores * (1 + boost)
  std::size_t max_functions = 50;
};

/// Ranks functions from per-test coverage. Source files are read from `root` to find function
/// bounds; test code is left out. A function's score is its best statement's score.
std::vector<SuspiciousLocation> rank_functions(const std::vector<TestCoverage>& coverage,
                                               const ChangedLines& changed, const std::filesystem::path& root,
                                               const RankOptions& options = {});

/// [Threading] localize() may run concurrently for different jobs.
/// [Errors] Errc::cancelled and Errc::sandbox_unavailable; everything else is a Localization with a note.
/// [Lifetime] `root` must stay valid for the call; the localizer never writes to it (it works in a
/// scratch copy it removes before returning).
class Localizer {
 public:
  virtual ~Localizer() = default;
  virtual std::string_view name() const = 0;
  /// `root` holds the change's head state (the fresh workspace). `changed` comes from the change.
  /// Every command runs through run_sandboxed with `sandbox` (null: the SandboxOptions defaults,
  /// sandboxed and fail closed).
  virtual Expected<Localization> localize(const std::filesystem::path& root, const RepairRequest& request,
                                          const ChangedLines& changed, const CancelToken& cancel,
                                          const SandboxOptions* sandbox) = 0;
};

struct CoverageLocalizerOptions {
  RankOptions rank;
  /// The run's commands never run past request.limits.localization_budget x the first (reference)
  /// run of the tests (for C/C++ the coverage build included; timed from its command's start to
  /// its end, as one sandboxed run, while the scratch copy before it counts against the budget;
  /// reading the coverage files afterwards is not cut), clamped to
  /// [min_budget, max_budget]; the reference run itself is bounded by max_budget. A fixed `budget`
  /// (non-zero) replaces that rule. No floor by default: a floor would only buy passing
  /// neighbours past the multiple; every command's timeout is what the budget has left, to the
  /// millisecond. Spending: per-test contexts where the runner has them (coverage.py: one run of
  /// the failing files, then the whole suite if its estimated cost fits), else the failing tests
  /// and then their nearest passing neighbours, each with its own coverage slot: tape test files
  /// all in one node process (one V8 coverage window per file), other runners each alone but all
  /// in one sandboxed shell per batch; a cut-off keeps every test that finished.
  std::chrono::milliseconds min_budget{0};
  std::chrono::milliseconds max_budget{180'000};
  std::chrono::milliseconds budget{0};
  std::size_t max_tests = 16;  ///< per-test runs (failing first, then passing neighbours)
  /// Java: where Debian's libjacoco-java jars are (org.jacoco.agent.jar, org.jacoco.core.jar) with
  /// asm.jar, asm-commons.jar, asm-tree.jar. Upstream JaCoCo 0.8.6 supports class files up to
  /// Java 15; Debian's build (against asm 9.4) instrumented and read Java 17 class files in our
  /// check (javac 17 without --release). Every JVM the test command starts gets the agent through
  /// JAVA_TOOL_OPTIONS, one exec file per test.
  std::filesystem::path jacoco_dir = "/usr/share/java";
  bool cache = true;           ///< per (repository, head commit, failing tests, formula)
};

std::shared_ptr<Localizer> make_coverage_localizer(CoverageLocalizerOptions options = {});

// ---- retrieval ------------------------------------------------------------------------------------

struct RetrievalHit {
  std::string file;
  std::string symbol;
  std::string kind;
  int start_line = 0;
  int end_line = 0;
  double score = 0;
};

/// Computes embeddings. [Threading] embed() may run concurrently. [Errors] transport errors, Errc::model (HTTP status),
/// Errc::protocol (bad reply), Errc::cancelled.
class Embedder {
 public:
  virtual ~Embedder() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts,
                                                          const CancelToken& cancel) = 0;
};

struct EmbedderOptions {
  std::string protocol = "openai";  ///< "openai" (POST {base}/embeddings) or "ollama" (POST {base}/api/embed)
  std::string base_url;             ///< e.g. https://api.openai.com/v1 or http://localhost:11434
  std::string model;
  std::string api_key;              ///< sent as a bearer token when non-empty; never logged
  std::shared_ptr<HttpTransport> transport;  ///< default: make_beast_transport()
  std::size_t batch = 64;
};
Expected<std::shared_ptr<Embedder>> make_http_embedder(EmbedderOptions options);

/// The semantic tier named like the chat model (the CLI's --embeddings-model, the agent config's
/// "embeddings"): `config.spec` is PROVIDER:MODEL with --model's conventions (resolve_model_spec:
/// the provider's default base URL and key variable; `base_url` and `api_key_env` override them).
/// Every provider speaks POST {base}/embeddings (OpenAI's format; Ollama serves it under /v1).
/// The key is read from the variable once, here, and never logged. `transport` null: the built-in
/// one (then hosted providers need a key). [Errors] Errc::invalid_argument (bad spec, no key, a
/// provider without embeddings: anthropic, replay, builtin), Errc::unsupported (unknown provider).
Expected<std::shared_ptr<Embedder>> make_model_embedder(const ModelConfig& config,
                                                        std::shared_ptr<HttpTransport> transport = nullptr);

struct RetrieverOptions {
  double k1 = 1.2;
  double b = 0.75;
  std::size_t max_file_bytes = 1 << 20;
  std::size_t max_files = 20'000;
  std::shared_ptr<Embedder> embedder;  ///< optional semantic tier
  /// Lexical hits re-ranked by the embedder. 0: the whole index is embedded (vectors cached by
  /// content hash) and searched for the query's nearest chunks, exactly: a scan, or faiss's flat
  /// inner-product index from 50k vectors on when built with FLOWAGENT_WITH_FAISS (libfaiss-dev);
  /// those merge with the 50 best lexical hits.
  std::size_t semantic_candidates = 50;
  double semantic_weight = 0.5;         ///< final = (1-w) * bm25 (normalized) + w * cosine
};

/// The semantic tier as hosts name it without C++ (the CLI's --embeddings-model, -base-url,
/// -api-key-env, -candidates, -weight; the agent config's "embeddings": {"model", "base_url",
/// "api_key_env", "candidates", "weight"}; the C API's config_json and Python's Agent(config=...)).
struct EmbeddingsConfig {
  ModelConfig model;            ///< PROVIDER:MODEL, make_model_embedder's conventions
  std::size_t candidates = 50;  ///< RetrieverOptions::semantic_candidates; 0: the whole index
  double weight = 0.5;          ///< RetrieverOptions::semantic_weight, in [0, 1]
};
inline constexpr std::size_t kMaxSemanticCandidates = 100'000;  ///< what the CLI and the config accept

/// BM25 over the tree-sitter chunks of a source tree, built per (root, commit) and cached; an
/// optional semantic tier re-ranks with embeddings cached by content hash (exact cosine; faiss for
/// large whole-index searches, see semantic_candidates).
/// [Threading] search() may run concurrently; indexes and vectors are cached under a lock.
class CodeRetriever {
 public:
  explicit CodeRetriever(RetrieverOptions options = {});
  ~CodeRetriever();
  CodeRetriever(const CodeRetriever&) = delete;
  CodeRetriever& operator=(const CodeRetriever&) = delete;

  /// `cache_key` names the tree's state (e.g. repository + head commit); "" disables caching.
  /// `git_dir`: the tree's git directory (a workspace's Workspace::git_dir(), or `root/.git`); the
  /// files indexed are its `git ls-files` (tracked and untracked, not ignored), addressed with an
  /// explicit --git-dir/--work-tree. Empty: the tree is walked (no git discovery: a `.git` planted
  /// in a workspace must never configure a git call); hidden folders and node_modules are skipped.
  /// Files are read without following symlinks.
  Expected<std::vector<RetrievalHit>> search(const std::filesystem::path& root, const std::string& cache_key,
                                             std::string_view query, std::size_t k,
                                             const CancelToken& cancel = CancelToken(),
                                             const std::filesystem::path& git_dir = {});
  /// Number of indexes built so far (cache misses); for tests and benchmarks.
  std::size_t indexes_built() const;
  /// Number of texts sent to the embedder so far (vector cache misses).
  std::size_t texts_embedded() const;
  /// What a search does, in words, for records (the fault section's trajectory note): "lexical
  /// (BM25)", "... + embeddings re-ranking the best N lexical hits" or "... + embeddings over the
  /// whole index (exact: ...)".
  std::string describe() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/// A retriever with the semantic tier of `config` (make_model_embedder + RetrieverOptions).
/// [Errors] make_model_embedder's; Errc::invalid_argument for candidates above
/// kMaxSemanticCandidates or a weight outside [0, 1].
Expected<std::shared_ptr<CodeRetriever>> make_semantic_retriever(const EmbeddingsConfig& config,
                                                                 std::shared_ptr<HttpTransport> transport = nullptr);

/// The `search_relevant_code` tool: natural-language or identifier query -> functions/classes with
/// file, symbol and lines, within a character budget.
class ToolRegistry;
Expected<void> register_retrieval_tool(ToolRegistry& registry, std::shared_ptr<CodeRetriever> retriever);

/// Combines coverage and retrieval: both normalized to [0, 1] by their best score, summed with
/// `coverage_weight` and 1 - coverage_weight, keyed by (file, symbol).
std::vector<SuspiciousLocation> combine_rankings(const std::vector<SuspiciousLocation>& coverage,
                                                 const std::vector<RetrievalHit>& retrieval,
                                                 double coverage_weight = 0.7);

}  // namespace flowagent

namespace flowagent {

// ---- the initial-context section -----------------------------------------------------------------

struct FaultSectionInput {
  Localizer* localizer = nullptr;      ///< optional
  CodeRetriever* retriever = nullptr;  ///< optional
  std::filesystem::path root;          ///< the workspace at the change's head
  std::filesystem::path git_dir;       ///< its git directory (CodeRetriever::search); empty: walk the tree
  const SandboxOptions* sandbox = nullptr;  ///< the localizer's commands (null: defaults, fail closed)
  std::size_t max_chars = 12'000;      ///< the section never exceeds this
  std::size_t max_locations = 5;
};

struct FaultSection {
  std::string text;                   ///< "# Where the failure most likely is" ..., "" when nothing was found
  std::vector<SuspiciousLocation> shown;  ///< what the text names, in order
  Localization localization;          ///< the coverage run's outcome (note, cut_off, timing)
  std::vector<RetrievalHit> retrieval;
  std::string record;                 ///< one-paragraph account for the trajectory
};

/// Runs the localizer (coverage) and the retriever (query: failing test names and the change's
/// description), and renders the best functions with scores and short excerpts. Coverage ranks
/// first; retrieval hits follow (or stand alone when coverage found nothing).
/// [Errors] Errc::cancelled and Errc::sandbox_unavailable only.
Expected<FaultSection> build_fault_section(const FaultSectionInput& input, const RepairRequest& request,
                                           const CancelToken& cancel);

}  // namespace flowagent
