// What the subcommands share: exit codes, input files, and the one rule for reporting errors.
//
// Error rule (docs/CLI.md): every error goes to stderr as "flowagent: <message>". With --json,
// stdout carries exactly one JSON document whatever happens: the command's own document, or, for
// any error (usage errors included), a "flowagent.cli_error/v1" document
// {"schema","exit_code","error":{"code","message"}}.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"

#include "flowagent/error.hpp"
#include "flowagent/json.hpp"
#include "flowagent/result.hpp"

namespace flowagent::cli {

inline constexpr int kExitFixed = 0, kExitNoFix = 1, kExitAbstained = 2, kExitUsage = 3, kExitError = 4,
                     kExitNotFixed = 5;

class Output {
 public:
  explicit Output(bool json) : json_(json) {}
  bool json() const { return json_; }
  void set_json(bool json) { json_ = json; }
  /// Reports an error by the rule above and returns `exit_code`. `code` is a stable name
  /// ("usage", "invalid_input", an Errc name, ...).
  int error(int exit_code, const std::string& code, const std::string& message) const;
  int error(int exit_code, const Error& e) const;
  /// Prints a usage error; the subcommand's help goes to stderr unless --json.
  int usage_error(const std::string& message, const std::string& help) const;
  /// Prints `doc` on stdout (indented).
  void document(const Json& doc) const;

 private:
  bool json_;
};

/// Parses a subcommand's arguments. Returns the exit code when the command is over: --help printed
/// (0) or a usage error reported (3); nullopt when it should run.
std::optional<int> parse_or_exit(const ArgParser& parser, const std::vector<std::string>& args, const Output& out);

/// A file's content, or stdin's for "-".
Expected<std::string> read_input(const std::string& path);

/// A result document from a file or stdin.
Expected<RepairResult> load_result(const std::string& path);

int cmd_repair(const std::vector<std::string>& args, Output& out);
int cmd_check_request(const std::vector<std::string>& args, Output& out);
int cmd_publish(const std::vector<std::string>& args, Output& out);
int cmd_apply(const std::vector<std::string>& args, Output& out);
int cmd_guard(const std::vector<std::string>& args, Output& out);

}  // namespace flowagent::cli
