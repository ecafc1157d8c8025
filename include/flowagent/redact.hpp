// flowagent/redact.hpp: keeping secrets out of everything the model and the host see.
//
// A Redactor replaces, with "[REDACTED]", every occurrence of the secret values it was given (the
// model client's key, keys found in the environment, secrets the host declares) and every string
// shaped like a common credential: OpenAI/Anthropic keys (sk-..., sk-ant-...), GitHub tokens
// (ghp_/gho_/ghu_/ghs_/ghr_, github_pat_), GitLab tokens (glpat-), AWS access key ids (AKIA...,
// ASIA...), Slack tokens (xox?-), Google API keys (AIza...), the token of `Bearer <token>`, and PEM
// private key blocks (also a block cut off before its END line).
//
// The pipeline applies one Redactor per job at its choke points: every model request (so tool
// results, log excerpts, the initial context and validator feedback), every event, the result
// document (trajectory, messages, summary, evidence, patch) and the trajectory file written from
// it. The C API, the Python bindings and the CLI's --json print that result.
//
// Limits: a secret is recognised as written; an encoded form (base64, hex, split across lines) or
// a prefix cut by truncation is not. Values shorter than 8 bytes are ignored (they would mask
// ordinary words). Keeping secrets out of commands' environments is the sandbox's job
// (docs/SECURITY.md).
//
// [Threading] add_secret() is not thread-safe; redact() and the const members may be called
// concurrently once the Redactor is set up. [Errors] none; never throws for any input.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flowagent/llm.hpp"
#include "flowagent/result.hpp"

namespace flowagent {

class Redactor {
 public:
  static constexpr std::string_view kMask = "[REDACTED]";
  static constexpr std::size_t kMinSecretSize = 8;

  /// A redactor for the built-in credential shapes and no values yet.
  Redactor();
  ~Redactor();
  Redactor(Redactor&&) noexcept;
  Redactor& operator=(Redactor&&) noexcept;
  Redactor(const Redactor&);
  Redactor& operator=(const Redactor&);

  /// Adds a value to mask (ignored when shorter than kMinSecretSize).
  void add_secret(std::string_view value);
  void add_secrets(const std::vector<std::string>& values);
  /// The text with every secret value and credential shape masked.
  std::string redact(std::string_view text) const;
  /// True when redact() would change the text.
  bool contains_secret(std::string_view text) const;

  void redact_in_place(std::string& text) const;
  void redact_in_place(ChatRequest& request) const;
  void redact_in_place(ChatMessage& message) const;
  void redact_in_place(Event& event) const;
  /// Every string of the result: message, reason, summary, patch, evidence, trajectory.
  void redact_in_place(RepairResult& result) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Values of the process environment whose variable names look like credentials (ending in KEY,
/// TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIALS or PAT; containing API_KEY, ACCESS_KEY, SECRET or
/// TOKEN), each at least Redactor::kMinSecretSize bytes long.
std::vector<std::string> environment_secrets();

/// True for environment names that look like credentials: KEY, TOKEN, SECRET, PASSWORD, PASSWD or
/// CREDENTIAL anywhere in the name, or a name ending in PAT (personal access token), any case. One
/// rule for both lines of defence: such variables never enter a sandboxed command's environment,
/// and their values are masked by environment_secrets()/the Redactor.
bool looks_like_credential_name(std::string_view name);

/// An LlmClient that passes every request through `redactor` before `inner` sees it, and masks
/// the reply too. name() and secrets() are the inner client's.
std::shared_ptr<LlmClient> make_redacting_client(std::shared_ptr<LlmClient> inner,
                                                 std::shared_ptr<const Redactor> redactor);

}  // namespace flowagent
