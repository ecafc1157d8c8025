// Built by scripts/check-consumer.sh against an installed flowagent.
#include <flowagent/flowagent.h>

#include <cstdio>
#include <flowagent/flowagent.hpp>

int main() {
  auto req = flowagent::parse_repair_request(R"({"schema":"flowagent.repair_request/v1","repository":"/r",
    "change":{"id":"c","base_commit":"a","head_commit":"b"},"failure":{"failing_tests":["t"]}})");
  if (!req) {
    std::fprintf(stderr, "parse failed: %s\n", req.error().message.c_str());
    return 1;
  }
  std::printf("C++ API ok (%s), C API version %s\n", req->change.id.c_str(), fa_version_string());
  return fa_version_number() == FA_VERSION_NUMBER ? 0 : 1;
}
