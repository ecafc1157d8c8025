// A small blocking HTTP/1.1 client over loopback for the service tests, and raw socket helpers
// for slow clients and Server-Sent Events. Boost.Beast stays in http_client.cpp: compiled once,
// not in each of the seven service test files (about 20 s each in the sanitizer build).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace flowagent::testkit {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

/// One request on a new connection to 127.0.0.1:`port`; status 0 when nobody listens or the reply
/// cannot be read. A POST (or any request with a body) is sent as application/json.
HttpReply http_call(unsigned short port, const std::string& method, const std::string& target,
                    const std::string& token = "", const std::string& body = "",
                    std::vector<std::pair<std::string, std::string>> extra = {});

/// Sends raw bytes and reads until the server closes or `timeout` passes. `closed` says which.
std::string raw_exchange(unsigned short port, const std::string& bytes, std::chrono::milliseconds timeout,
                         bool* closed = nullptr, std::size_t stop_after_bytes = 0, const std::string& stop_marker = "");

/// The smallest valid POST /v1/repairs body for `change` (revision 1, repository "repo"): for
/// services whose runner does no repair work.
std::string minimal_repair_body(const std::string& change);

}  // namespace flowagent::testkit
