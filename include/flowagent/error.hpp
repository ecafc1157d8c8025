// flowagent/error.hpp: error codes and Expected<T>.
//
// Every fallible call in the C++ API returns Expected<T> (see expected.hpp) holding an Error with a
// stable code and a human-readable message that names what went wrong (for JSON input: the field
// path, e.g. "change.files[2].added: expected an integer"). No public call throws for bad input;
// std::bad_alloc is the only exception that may escape.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "flowagent/expected.hpp"

namespace flowagent {

/// Stable error codes. The numeric values are mirrored (negated) by the C API's fa_error_code.
enum class Errc : int {
  ok = 0,
  invalid_argument = 1,  ///< a caller passed something unusable (null, empty, out of range)
  invalid_json = 2,      ///< text is not JSON, or not valid UTF-8
  schema = 3,            ///< JSON is well-formed but does not match the schema (type, field, version)
  io = 4,                ///< file system or pipe failure
  process = 5,           ///< a child process could not be started or failed unexpectedly
  timeout = 6,           ///< a deadline passed
  cancelled = 7,         ///< the operation was cancelled
  budget_exceeded = 8,   ///< a token, cost, tool-call or time budget is spent
  not_found = 9,         ///< a file, test, tool or job does not exist
  sandbox = 10,          ///< a path or action would leave the workspace
  tool_failed = 11,      ///< a tool ran but reported failure
  model = 12,            ///< the model endpoint failed or answered unusably
  protocol = 13,         ///< a wire protocol was violated (HTTP, JSON shape)
  unsupported = 14,      ///< the feature or version is not supported here
  conflict = 15,         ///< a patch does not apply / the tree moved
  internal = 16,         ///< a bug in flowagent
  user = 17,             ///< a host callback reported failure
  sandbox_unavailable = 18,  ///< untrusted commands cannot be isolated here (bwrap missing, namespaces refused)
  not_fixed = 19,        ///< publish/apply got a result whose status is not fixed: nothing to deliver
};

/// Stable lowercase name of a code ("invalid_json", ...).
std::string_view errc_name(Errc code) noexcept;

/// An error: a code and a message. Messages are for people; match on `code`.
struct Error {
  Errc code = Errc::internal;
  std::string message;

  /// "<code name>: <message>"
  std::string to_string() const;
};

template <class T>
using Expected = expected<T, Error>;

/// Shorthand: `return fail(Errc::io, "cannot open " + path);`
inline unexpected<Error> fail(Errc code, std::string message) {
  return unexpected<Error>(Error{code, std::move(message)});
}

/// Prefixes the message of an error with a context, e.g. a field path.
inline Error with_context(Error e, std::string_view context) {
  e.message = std::string(context) + ": " + e.message;
  return e;
}

}  // namespace flowagent
