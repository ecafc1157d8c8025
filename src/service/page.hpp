// Internal: the review page's static assets, embedded in the binary (no CDN, no build step).
#pragma once

#include <optional>
#include <string_view>

namespace flowagent::service {

struct Asset {
  std::string_view content_type;
  std::string_view body;
};

/// "/" is the page; "/assets/<name>" its script and style. nullopt for anything else.
std::optional<Asset> page_asset(std::string_view path);

}  // namespace flowagent::service
