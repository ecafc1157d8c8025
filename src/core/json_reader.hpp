// Internal: strict, field-path-aware reading of JSON objects into structs.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "flowagent/error.hpp"
#include "flowagent/json.hpp"

namespace flowagent::detail {

/// Reads members of one JSON object. The first problem is remembered with its field path
/// ("change.files[2].added: expected an integer"); later calls become no-ops. finish() also
/// reports members that were never read (unknown fields) when the reader is strict.
class ObjectReader {
 public:
  ObjectReader(const Json& value, std::string path, bool strict = true);

  ObjectReader& string(std::string_view key, std::string& out, bool required = false);
  ObjectReader& integer(std::string_view key, std::int64_t& out, bool required = false,
                        std::int64_t min = INT64_MIN, std::int64_t max = INT64_MAX);
  ObjectReader& number(std::string_view key, double& out, bool required = false, double min = -1e300,
                       double max = 1e300);
  ObjectReader& boolean(std::string_view key, bool& out, bool required = false);
  ObjectReader& strings(std::string_view key, std::vector<std::string>& out, bool required = false);
  /// Calls fn(reader-of-the-member-object) when present.
  ObjectReader& object(std::string_view key, const std::function<void(ObjectReader&)>& fn,
                       bool required = false);
  /// Calls fn(element-reader, index) for each object element of an array member.
  ObjectReader& objects(std::string_view key, const std::function<void(ObjectReader&, std::size_t)>& fn,
                        bool required = false);
  /// A string member that must be one of `allowed`; out receives the index.
  ObjectReader& choice(std::string_view key, const std::vector<std::string_view>& allowed, int& out,
                       bool required = false);
  /// Any JSON value (kept as is).
  ObjectReader& any(std::string_view key, Json& out);

  void set_error(std::string_view key, std::string message);
  bool ok() const { return error_.empty(); }
  /// The first error (with path), or the unknown-field error, or empty.
  std::string finish();
  std::string field_path(std::string_view key) const;

 private:
  const Json* take(std::string_view key, bool required);
  const Json& value_;
  std::string path_;
  bool strict_;
  std::set<std::string, std::less<>> seen_;
  std::string error_;
  std::vector<ObjectReader*> children_errors_;
};

/// Checks the "schema" member: Errc::schema when missing or foreign, Errc::unsupported for another
/// version of the same schema.
Expected<void> check_schema_name(const Json& doc, std::string_view expected_name);

/// The writing side of strings(): a JSON array of the strings, in order.
Json string_array(const std::vector<std::string>& v);

}  // namespace flowagent::detail
