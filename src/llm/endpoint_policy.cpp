// Where a request may send the model key (flowagent/model_client.hpp, docs/SECURITY.md).
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "flowagent/model_client.hpp"

namespace flowagent {

std::string url_origin(std::string_view url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos || scheme_end == 0) return {};
  std::string scheme(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);  // no userinfo
  std::string host(rest);
  auto lower = [](std::string& s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  };
  lower(scheme);
  lower(host);
  if ((scheme == "https" && host.ends_with(":443")) || (scheme == "http" && host.ends_with(":80")))
    host.erase(host.rfind(':'));
  return scheme + "://" + host;
}

Expected<void> check_model_destination(const ModelConfig& config, const std::vector<std::string>& trusted_origins,
                                       bool allow_replay) {
  if (config.spec.rfind("replay:", 0) == 0) {
    if (allow_replay) return {};
    return fail(Errc::invalid_argument,
                "model.spec: a replay recording is a file on this machine; it is read only when the host allows it "
                "(AgentOptions::allow_replay_models; the CLI's --model flag)");
  }
  auto ep = resolve_model_spec(config);
  if (!ep) return {};  // the client factory reports it
  if (ep->key_env.empty()) return {};
  const char* key = std::getenv(ep->key_env.c_str());
  if (!key || !*key) return {};  // no key would be sent
  const std::string origin = url_origin(ep->base_url);
  for (const auto& t : trusted_origins)
    if (!origin.empty() && url_origin(t) == origin) return {};
  ModelConfig defaults = config;
  defaults.base_url.clear();
  defaults.api_key_env.clear();
  auto def = resolve_model_spec(defaults);
  const bool provider_default = def && !def->base_url.empty() && url_origin(def->base_url) == origin &&
                                def->key_env == ep->key_env;
  if (provider_default) return {};
  return fail(Errc::invalid_argument,
              std::string(config.base_url.empty() ? "model.api_key_env" : "model.base_url") + ": the key in $" +
                  ep->key_env + " would be sent to " + (origin.empty() ? ep->base_url : origin) +
                  ", which the host has not trusted; a request may only send a key to its provider's own endpoint "
                  "(with the provider's variable) or to an origin the host lists "
                  "(AgentOptions::trusted_model_origins; the CLI's --base-url/--trust-model-origin)");
}

}  // namespace flowagent
