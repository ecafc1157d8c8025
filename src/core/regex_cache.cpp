#include "core/regex_cache.hpp"

#include <list>
#include <unordered_map>
#include <utility>

namespace flowagent::detail {

namespace {

/// The most recently used patterns of one thread (least recently used out).
class RegexCache {
 public:
  std::regex get(const std::string& pattern, std::regex_constants::syntax_option_type flags) {
    std::string key = std::to_string(static_cast<unsigned>(flags));
    key += '\n';
    key += pattern;
    if (auto it = index_.find(key); it != index_.end()) {
      order_.splice(order_.begin(), order_, it->second);
      return it->second->second;
    }
    std::regex compiled(pattern, flags);  // (throws for a bad pattern: nothing is kept)
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
  std::list<std::pair<std::string, std::regex>> order_;
  std::unordered_map<std::string, std::list<std::pair<std::string, std::regex>>::iterator> index_;
};

}  // namespace

std::regex cached_regex(const std::string& pattern, std::regex_constants::syntax_option_type flags) {
  thread_local RegexCache cache;
  return cache.get(pattern, flags);
}

}  // namespace flowagent::detail
