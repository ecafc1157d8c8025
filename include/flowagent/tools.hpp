// flowagent/tools.hpp: what the model can do, one Tool at a time, through a ToolRegistry.
//
// Each tool has a name, a description written for a model and a JSON schema of its arguments
// (a JSON Schema object: type/properties/required). The registry checks arguments against the
// schema's required fields and property types before invoke() sees them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/json.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"
#include "flowagent/workspace.hpp"

namespace flowagent {

/// Per-job state shared by the tools, the loop and the validator: what was edited and run, when.
/// Sequence numbers order edits and test runs, so "did the tests run after the last edit?" is exact.
struct ToolState {
  std::uint64_t seq = 0;             ///< bumped by every edit and every test run
  std::uint64_t last_edit_seq = 0;   ///< 0: nothing edited
  std::uint64_t last_test_seq = 0;   ///< 0: no tests run
  std::optional<TestRun> last_test_run;
  bool last_test_run_was_failing_set = false;  ///< it ran the request's failing tests
  std::string last_build_log;
  std::string last_test_log;
  std::vector<TestRun> runs;         ///< every test run of the job, in order

  void note_edit() { last_edit_seq = ++seq; }
  void note_test_run(TestRun run, bool failing_set) {
    last_test_seq = ++seq;
    last_test_run_was_failing_set = failing_set;
    runs.push_back(run);
    last_test_run = std::move(run);
  }
  bool tests_ran_after_last_edit() const { return last_test_seq != 0 && last_test_seq > last_edit_seq; }
};

struct SandboxOptions;

/// Everything a tool may use. References are valid for the duration of invoke().
struct ToolContext {
  Workspace& workspace;
  const RepairRequest& request;
  ToolState& state;
  const CancelToken& cancel;
  /// How untrusted commands (build, run_tests) are confined; the Agent's AgentOptions::sandbox.
  /// Null: the defaults of SandboxOptions (sandboxed, fail closed).
  const SandboxOptions* sandbox = nullptr;
};

/// What a tool returns. `content` is shown to the model as is; `ok=false` marks a tool-level
/// failure the model should see (a missing file, an ambiguous edit) as opposed to an Error, which
/// is reserved for infrastructure trouble and cancellation.
struct ToolOutput {
  bool ok = true;
  std::string content;
};

/// [Threading] invoke() may run concurrently for different jobs (different ToolContexts); a tool
/// keeps no per-job state of its own. [Lifetime] held by the registry via shared_ptr.
/// [Errors] Errc::cancelled, Errc::timeout, Errc::io, Errc::sandbox (path escapes the workspace).
class Tool {
 public:
  virtual ~Tool() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  /// JSON Schema of the arguments object.
  virtual const Json& parameters() const = 0;
  /// True when the tool can change files: ToolRegistry::invoke then records each successful call
  /// (ok output) as an edit (ToolState::note_edit); the tool does not note it itself.
  virtual bool mutates() const { return false; }
  virtual Expected<ToolOutput> invoke(const Json& arguments, ToolContext& context) = 0;
};

/// A set of tools by name. [Threading] add() and invoke() may be called from several threads.
class ToolRegistry {
 public:
  /// Fails with Errc::invalid_argument on an empty or duplicate name or a schema that is not an
  /// object schema.
  Expected<void> add(std::shared_ptr<Tool> tool);
  std::shared_ptr<Tool> find(std::string_view name) const;
  std::vector<std::shared_ptr<Tool>> list() const;
  /// Checks `arguments` against the tool's schema (object, required fields, primitive types,
  /// no unknown fields when additionalProperties is false) then invokes it. Unknown tool:
  /// Errc::not_found; bad arguments: Errc::schema with the field named.
  Expected<ToolOutput> invoke(std::string_view name, const Json& arguments, ToolContext& context) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Tool>, std::less<>> tools_;
};

/// Validates `value` against the subset of JSON Schema that tool schemas use
/// (type, properties, required, additionalProperties, enum, items, minimum, maximum).
Expected<void> check_against_schema(const Json& value, const Json& schema, std::string_view path = "");

}  // namespace flowagent
