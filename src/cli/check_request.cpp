// flowagent check-request: validates a request document without running anything.
#include <iostream>

#include "cli/args.hpp"
#include "cli/common.hpp"
#include "flowagent/request.hpp"

namespace flowagent::cli {

int cmd_check_request(const std::vector<std::string>& args, Output& out) {
  std::vector<std::string> files;
  bool json = false;
  ArgParser p("check-request", "FILE|-", "Validates a flowagent.repair_request/v1 document (docs/SCHEMA.md).");
  p.positional("FILE|-", "the document; - reads stdin", files, 1, 1)
      .flag("--json", "print {\"ok\":true,\"change\":...,\"revision\":...} or an error document", json);
  if (auto done = parse_or_exit(p, args, out)) return *done;
  out.set_json(json);
  auto text = read_input(files[0]);
  if (!text) return out.error(kExitUsage, text.error());
  auto req = parse_repair_request(*text);
  if (!req) return out.error(kExitUsage, req.error().code == Errc::invalid_json ? "invalid_json" : "schema",
                             "invalid request: " + req.error().message);
  if (json) out.document(Json::obj({{"ok", true}, {"change", req->change.id}, {"revision", req->change.revision}}));
  else std::cout << "ok: change " << req->change.id << " revision " << req->change.revision << "\n";
  return kExitFixed;
}

}  // namespace flowagent::cli
