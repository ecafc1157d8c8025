#include "service/page.hpp"

namespace flowagent::service {

namespace {
constexpr std::string_view kIndex = R"HTML(<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>flowagent review</title></head>
<body><h1>flowagent</h1></body></html>
)HTML";
}  // namespace

std::optional<Asset> page_asset(std::string_view path) {
  if (path == "/") return Asset{"text/html; charset=utf-8", kIndex};
  return std::nullopt;
}

}  // namespace flowagent::service
