// flowagent/filters.hpp: pre-execution filters (abstain early) and post-execution filters (drop a fix).
//
// [Threading] check() may be called concurrently for different jobs: implementations must be
// thread-safe (the built-ins are stateless or lock internally).
// [Errors] An Error means the filter could not decide. A pre-filter's error ends the job with status
// error ("filter_error"); a post-filter's error rejects the fix (status rejected, reason
// "postfilter_failed"): a filter that cannot do its job never lets a fix through. Post-filters
// fail closed themselves too: missing inputs they need (the change, the workspace) are a
// Rejection with reason "<filter>_unverifiable", never a pass.
// [Lifetime] Held by AgentOptions through shared_ptr; may outlive the Agent.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "flowagent/cancel.hpp"
#include "flowagent/error.hpp"
#include "flowagent/patch.hpp"
#include "flowagent/request.hpp"
#include "flowagent/result.hpp"

namespace flowagent {

class ChangeTracker;
class Workspace;

/// Why flowagent did not try. `reason` is a stable code ("build_failure", "change_too_large", ...).
struct Abstention {
  std::string reason;
  std::string message;
};

class PreFilter {
 public:
  virtual ~PreFilter() = default;
  virtual std::string_view name() const = 0;
  /// nullopt: go on; an Abstention: stop with status abstained.
  virtual Expected<std::optional<Abstention>> check(const RepairRequest& request,
                                                    const CancelToken& cancel) = 0;
};

/// What a post-filter looks at. Both patches were made by git with attributes, textconv and
/// external diff off (flowagent/patch.hpp); a filter reads them, it never re-parses text.
struct PostFilterInput {
  const RepairRequest& request;
  const Patch& patch;              ///< the candidate fix against the change head
  const Patch* change = nullptr;   ///< the developer's change (base..head); null: it could not be read
  ChangeTracker* tracker = nullptr;  ///< may be null (no tracker configured)
  Workspace* workspace = nullptr;    ///< the candidate's workspace (object store for file contents); may be null
  /// The validation's evidence; may be null. evidence->replacements maps each requested failing
  /// test that no longer exists to the tests that replaced it (for the integrity guard to compare).
  const Evidence* evidence = nullptr;
};

/// Why a fix was dropped. status is `rejected` (the fix is bad) or `superseded` (the change moved).
struct Rejection {
  std::string reason;
  std::string message;
  Status status = Status::rejected;
};

class PostFilter {
 public:
  virtual ~PostFilter() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<std::optional<Rejection>> check(const PostFilterInput& input,
                                                   const CancelToken& cancel) = 0;
};

}  // namespace flowagent

namespace flowagent {

/// Built-in pre-filters (thresholds come from RequestLimits; reason codes in docs/SCHEMA.md):
/// "build_failure": failure.kind is build (flowagent repairs failing tests, not broken builds).
std::shared_ptr<PreFilter> make_build_failure_filter();
/// "automated_author": author.kind is bot, or the name/e-mail looks like a bot account
/// ("[bot]", dependabot, renovate, ...).
std::shared_ptr<PreFilter> make_automated_author_filter();
/// "change_too_large": more than limits.max_files files or limits.max_changed_lines lines.
std::shared_ptr<PreFilter> make_change_size_filter();
/// "binary_files": a changed file is binary or an image.
std::shared_ptr<PreFilter> make_binary_files_filter();
/// "newer_revision" / "change_submitted": asks the tracker before any work is done.
std::shared_ptr<PreFilter> make_newer_revision_filter(std::shared_ptr<ChangeTracker> tracker);

/// Built-in post-filters: "empty_patch" (no file changed); and "change_updated" /
/// "change_submitted" (status superseded) through the ChangeTracker in PostFilterInput (skipped
/// when there is none: the host chose not to track changes).
std::shared_ptr<PostFilter> make_empty_patch_filter();
std::shared_ptr<PostFilter> make_change_moved_filter();

}  // namespace flowagent
