// The one argument parser of the flowagent command line: each subcommand declares its options
// (name, value, help, destination) once; parsing, value checks, usage errors and --help text all
// come from that declaration.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "flowagent/error.hpp"

namespace flowagent::cli {

class ArgParser {
 public:
  /// `command` is the subcommand's name, `synopsis` the line under "usage:", `about` one sentence.
  ArgParser(std::string command, std::string synopsis, std::string about);

  /// Starts a titled group of options in --help.
  ArgParser& section(std::string title);
  /// --name (no value) sets `dst` to true.
  ArgParser& flag(std::string name, std::string help, bool& dst);
  /// --name VALUE (or --name=VALUE); the last one wins.
  ArgParser& text(std::string name, std::string meta, std::string help, std::string& dst);
  /// Repeatable --name VALUE, appended in order.
  ArgParser& list(std::string name, std::string meta, std::string help, std::vector<std::string>& dst);
  /// An integer in [min, max]; anything else (text, a sign where none is allowed) is a usage error.
  ArgParser& integer(std::string name, std::string meta, std::string help, std::int64_t& dst, std::int64_t min,
                     std::int64_t max);
  /// A non-negative integer.
  ArgParser& size(std::string name, std::string meta, std::string help, std::uint64_t& dst);
  /// --name VALUE handled by `apply`, which returns an error message for a bad value.
  ArgParser& custom(std::string name, std::string meta, std::string help,
                    std::function<Expected<void>(const std::string&)> apply);
  /// Positional arguments: between `min` and `max` of them.
  ArgParser& positional(std::string meta, std::string help, std::vector<std::string>& dst, std::size_t min,
                        std::size_t max);

  enum class Outcome { run, help };
  /// Parses `args` (after the subcommand). Outcome::help when --help or -h was given (nothing else
  /// is checked then). [Errors] Errc::invalid_argument with a message naming the option.
  Expected<Outcome> parse(const std::vector<std::string>& args) const;

  /// The --help text.
  std::string help() const;
  const std::string& command() const { return command_; }

 private:
  struct Option {
    std::string name, meta, help, section;
    bool takes_value = false;
    std::function<Expected<void>(const std::string&)> apply;
  };
  ArgParser& add(Option o);

  std::string command_, synopsis_, about_, section_;
  std::vector<Option> options_;
  std::string positional_meta_, positional_help_;
  std::vector<std::string>* positional_ = nullptr;
  std::size_t positional_min_ = 0, positional_max_ = 0;
};

/// Parses a whole decimal integer in [min, max] ("12", "-3"; not "1e3", "12abc", " 1").
Expected<std::int64_t> parse_integer(const std::string& text, std::int64_t min, std::int64_t max);

}  // namespace flowagent::cli
