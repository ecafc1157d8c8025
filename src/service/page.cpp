#include "service/page.hpp"

namespace flowagent::service {

// Generated from src/service/assets/ by cmake/EmbedAssets.cmake (service_assets.cpp in the build tree).
extern const std::string_view kAsset_index_html;
extern const std::string_view kAsset_app_js;
extern const std::string_view kAsset_app_css;

std::optional<Asset> page_asset(std::string_view path) {
  if (path == "/" || path == "/index.html") return Asset{"text/html; charset=utf-8", kAsset_index_html};
  if (path == "/assets/app.js") return Asset{"text/javascript; charset=utf-8", kAsset_app_js};
  if (path == "/assets/app.css") return Asset{"text/css; charset=utf-8", kAsset_app_css};
  return std::nullopt;
}

}  // namespace flowagent::service
