#include "cli/common.hpp"

#include <fstream>
#include <iostream>
#include <sstream>

namespace flowagent::cli {

int Output::error(int exit_code, const std::string& code, const std::string& message) const {
  std::cerr << "flowagent: " << message << "\n";
  if (json_)
    document(Json::obj({{"schema", "flowagent.cli_error/v1"},
                        {"exit_code", exit_code},
                        {"error", Json::obj({{"code", code}, {"message", message}})}}));
  return exit_code;
}

int Output::error(int exit_code, const Error& e) const { return error(exit_code, std::string(errc_name(e.code)), e.message); }

int Output::usage_error(const std::string& message, const std::string& help) const {
  if (!json_) std::cerr << help;
  return error(kExitUsage, "usage", message);
}

void Output::document(const Json& doc) const { std::cout << dump_json_lossy(doc, {2}) << "\n" << std::flush; }

std::optional<int> parse_or_exit(const ArgParser& parser, const std::vector<std::string>& args, const Output& out) {
  auto parsed = parser.parse(args);
  if (!parsed) return out.usage_error(parsed.error().message, parser.help());
  if (*parsed == ArgParser::Outcome::help) {
    std::cout << parser.help();
    return kExitFixed;
  }
  return std::nullopt;
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

Expected<RepairResult> load_result(const std::string& path) {
  auto text = read_input(path);
  if (!text) return unexpected(text.error());
  return parse_repair_result(*text);
}


}  // namespace flowagent::cli
