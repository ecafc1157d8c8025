// flowagent command-line tool: dispatches to one file per subcommand (repair.cpp, check_request.cpp,
// deliver.cpp, guard.cpp), all over one argument parser (args.hpp). Exit codes (docs/CLI.md):
//   0 fixed (or the command succeeded), 1 no fix / rejected / superseded, 2 abstained,
//   3 bad usage or bad input, 4 infrastructure error, 5 publish/apply of a result that is not fixed.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "flowagent/version.hpp"

using namespace flowagent;
using namespace flowagent::cli;

namespace {

void usage(std::ostream& os) {
  os << "usage: flowagent <command> [options]   (flowagent <command> --help for its options)\n"
        "commands:\n"
        "  repair          repair the failing tests of one change\n"
        "  check-request   FILE|-  validate a flowagent.repair_request/v1 document\n"
        "  publish         --format FORMAT   write a fix in a review tool's or IDE's format\n"
        "  apply           --repo DIR        apply a fix to a working tree (three-way if it moved)\n"
        "  guard           --repo DIR --head REV --patch FILE   check a patch for test cheating\n"
        "  version         print the version\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // --json decides how even a usage error is reported, so it is looked for before parsing.
  Output out(std::find(args.begin(), args.end(), "--json") != args.end());
  if (args.empty()) {
    usage(std::cerr);
    return out.error(kExitUsage, "usage", "no command given");
  }
  const std::string cmd = args.front();
  args.erase(args.begin());
  if (cmd == "version" || cmd == "--version") {
    std::cout << "flowagent " << kVersionString << "\n";
    return kExitFixed;
  }
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    usage(std::cout);
    return kExitFixed;
  }
  if (cmd == "check-request") return cmd_check_request(args, out);
  if (cmd == "repair") return cmd_repair(args, out);
  if (cmd == "publish") return cmd_publish(args, out);
  if (cmd == "apply") return cmd_apply(args, out);
  if (cmd == "guard") return cmd_guard(args, out);
  if (!out.json()) usage(std::cerr);
  return out.error(kExitUsage, "usage", "unknown command " + cmd);
}
