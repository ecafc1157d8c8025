// flowagent/json.hpp: a small JSON value type, a strict parser (simdjson) and a correct writer.
//
// Json is the exchange type of the public API: requests, results, tool arguments and tool schemas.
// Objects keep insertion order (so output is deterministic and readable); lookups are linear, which
// is right for the small objects exchanged here.
//
// [Threading] A Json value is a plain value type: const access from many threads is safe, mutation
// needs external synchronisation. parse_json and dump_json are reentrant.
// [Errors] parse_json returns Errc::invalid_json (syntax, invalid UTF-8, depth > max_depth) with
// simdjson's reason; dump_json returns Errc::invalid_json when a string holds invalid UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "flowagent/error.hpp"

namespace flowagent {

class Json {
 public:
  enum class Type { null, boolean, integer, number, string, array, object };
  using Array = std::vector<Json>;
  using Member = std::pair<std::string, Json>;
  using Object = std::vector<Member>;

  Json() noexcept = default;
  Json(std::nullptr_t) noexcept {}
  Json(bool b) noexcept : v_(b) {}
  Json(int i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(long long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned long long i) noexcept : v_(static_cast<std::int64_t>(i)) {}
  Json(double d) noexcept : v_(d) {}
  Json(std::string s) noexcept : v_(std::move(s)) {}
  Json(std::string_view s) : v_(std::string(s)) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(Array a) noexcept : v_(std::move(a)) {}
  Json(Object o) noexcept : v_(std::move(o)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }
  /// Builds an object from key/value pairs: Json::obj({{"a", 1}, {"b", "x"}}).
  static Json obj(std::initializer_list<Member> members) { return Json(Object(members)); }

  Type type() const noexcept { return static_cast<Type>(v_.index()); }
  bool is_null() const noexcept { return type() == Type::null; }
  bool is_bool() const noexcept { return type() == Type::boolean; }
  bool is_int() const noexcept { return type() == Type::integer; }
  /// True for integers and floating-point numbers.
  bool is_number() const noexcept { return type() == Type::integer || type() == Type::number; }
  bool is_string() const noexcept { return type() == Type::string; }
  bool is_array() const noexcept { return type() == Type::array; }
  bool is_object() const noexcept { return type() == Type::object; }

  // Accessors. Calling one on a value of another type is a programming error (asserted, then UB).
  bool as_bool() const { return std::get<bool>(v_); }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  /// Integers convert to double.
  double as_double() const;
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  /// Object member lookup; nullptr when absent or when this is not an object.
  const Json* find(std::string_view key) const noexcept;
  Json* find(std::string_view key) noexcept;
  /// Object member access that inserts null when absent; a null value becomes an empty object.
  Json& operator[](std::string_view key);
  /// Appends to an array; a null value becomes an empty array.
  void push_back(Json value);
  /// Number of array elements or object members; 0 otherwise.
  std::size_t size() const noexcept;

  /// Convenience getters with defaults for optional members of an object.
  std::string get_string(std::string_view key, std::string_view fallback = {}) const;
  std::int64_t get_int(std::string_view key, std::int64_t fallback = 0) const;
  bool get_bool(std::string_view key, bool fallback = false) const;

  friend bool operator==(const Json& a, const Json& b) noexcept;

 private:
  std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> v_;
};

/// Parses one JSON document. Rejects trailing content, invalid UTF-8 and nesting deeper than
/// max_depth. Integers that fit int64 become Type::integer; other numbers become Type::number.
Expected<Json> parse_json(std::string_view text, std::size_t max_depth = 256);

struct DumpOptions {
  int indent = -1;  ///< -1: compact, one line; >= 0: pretty-printed with this many spaces
};

/// Serializes a value. Fails with Errc::invalid_json if any string is not valid UTF-8, or a number is
/// NaN or infinite. Control characters, quotes and backslashes are escaped; '<', '>' and '&' are
/// escaped as \u003c... too, so the output is safe to embed in HTML script blocks.
Expected<std::string> dump_json(const Json& value, DumpOptions options = {});

/// Like dump_json but never fails: invalid UTF-8 becomes U+FFFD, non-finite numbers become null.
std::string dump_json_lossy(const Json& value, DumpOptions options = {});

/// True when `text` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

/// Returns `text` with each maximal invalid UTF-8 subsequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view text);

}  // namespace flowagent
