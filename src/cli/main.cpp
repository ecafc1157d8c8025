// flowagent command-line tool. Exit codes (docs/CLI.md):
//   0 fixed (or command succeeded), 1 no fix / rejected / superseded, 2 abstained,
//   3 bad usage or bad input, 4 infrastructure error.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "flowagent/flowagent.hpp"

using namespace flowagent;

namespace {

constexpr int kExitFixed = 0, kExitNoFix = 1, kExitAbstained = 2, kExitUsage = 3, kExitError = 4;

void usage(std::ostream& os) {
  os << "usage: flowagent <command> [options]\n"
        "commands:\n"
        "  version                         print the version\n"
        "  check-request FILE|-            validate a flowagent.repair_request/v1 document\n"
        "  repair --request FILE|- [--json] run one repair and print the result\n"
        "  help                            this text\n";
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

class StderrProgress final : public EventSink {
 public:
  std::string_view name() const override { return "stderr"; }
  void on_event(const Event& e) override {
    std::fprintf(stderr, "[%6.1fs] %-10s %s\n", static_cast<double>(e.elapsed_ms) / 1000.0, e.phase.c_str(),
                 e.message.c_str());
  }
  void on_result(const RepairResult&) override {}
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

int cmd_repair(const std::vector<std::string>& args) {
  std::string request_path;
  bool json = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--request" && i + 1 < args.size()) request_path = args[++i];
    else if (args[i] == "--json") json = true;
    else {
      std::cerr << "flowagent: unknown option " << args[i] << "\n";
      usage(std::cerr);
      return kExitUsage;
    }
  }
  if (request_path.empty()) {
    usage(std::cerr);
    return kExitUsage;
  }
  auto text = read_input(request_path);
  if (!text) {
    std::cerr << "flowagent: " << text.error().message << "\n";
    return kExitUsage;
  }
  auto req = parse_repair_request(*text);
  if (!req) {
    std::cerr << "flowagent: invalid request: " << req.error().message << "\n";
    return kExitUsage;
  }
  AgentOptions opts;
  opts.worker_threads = 1;
  if (!json) opts.event_sink = std::make_shared<StderrProgress>();
  auto agent = Agent::create(std::move(opts));
  if (!agent) {
    std::cerr << "flowagent: " << agent.error().to_string() << "\n";
    return kExitError;
  }
  RepairResult r = (*agent)->run(*req);
  if (json) {
    std::cout << dump_json_lossy(to_json(r), {2}) << "\n";
  } else {
    std::cout << "status: " << to_string(r.status) << " (" << r.reason << ")\n" << r.message << "\n";
    if (!r.summary.empty()) std::cout << "summary: " << r.summary << "\n";
    if (!r.patch.empty()) std::cout << r.patch;
  }
  return exit_code_for(r.status);
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
  std::cerr << "flowagent: unknown command " << cmd << "\n";
  usage(std::cerr);
  return kExitUsage;
}
