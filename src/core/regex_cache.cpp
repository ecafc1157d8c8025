#include "core/regex_cache.hpp"

#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace flowagent::detail {

namespace {

/// The most recently used patterns of the process (least recently used out). One cache for all
/// threads: the pipeline runs on a new deep-stack thread per job (core/deep_stack.hpp), where a
/// cache per thread would start cold every time.
class RegexCache {
 public:
  rx::regex get(const std::string& pattern, rx::regex_constants::syntax_option_type flags) {
    std::string key = std::to_string(static_cast<unsigned>(flags));
    key += '\n';
    key += pattern;
    {
      std::lock_guard lock(mu_);
      if (auto it = index_.find(key); it != index_.end()) {
        order_.splice(order_.begin(), order_, it->second);
        return it->second->second;
      }
    }
    rx::regex compiled(pattern, flags);  // (throws for a bad pattern: nothing is kept; compiled unlocked)
    std::lock_guard lock(mu_);
    if (auto it = index_.find(key); it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;  // (another thread compiled it meanwhile)
    }
    order_.emplace_front(key, compiled);
    index_.emplace(std::move(key), order_.begin());
    if (order_.size() > kMaxPatterns) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return compiled;
  }

 private:
  static constexpr std::size_t kMaxPatterns = 512;
  std::mutex mu_;
  std::list<std::pair<std::string, rx::regex>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, rx::regex>>::iterator> index_;
};

}  // namespace

rx::regex cached_regex(const std::string& pattern, rx::regex_constants::syntax_option_type flags) {
  static RegexCache* cache = new RegexCache;  // (never destroyed: threads may outlive static destruction)
  return cache->get(pattern, flags);
}

}  // namespace flowagent::detail
