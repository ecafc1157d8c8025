#include "core/json_reader.hpp"

#include <cmath>

namespace flowagent::detail {

ObjectReader::ObjectReader(const Json& value, std::string path, bool strict)
    : value_(value), path_(std::move(path)), strict_(strict) {
  if (!value_.is_object()) error_ = (path_.empty() ? std::string("document") : path_) + ": expected an object";
}

std::string ObjectReader::field_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

void ObjectReader::set_error(std::string_view key, std::string message) {
  if (error_.empty()) error_ = field_path(key) + ": " + message;
}

const Json* ObjectReader::take(std::string_view key, bool required) {
  if (!error_.empty()) return nullptr;
  seen_.emplace(key);
  const Json* v = value_.find(key);
  if ((!v || v->is_null()) && required) {
    set_error(key, "required field is missing");
    return nullptr;
  }
  if (v && v->is_null()) return nullptr;  // null means "absent" for optional fields
  return v;
}

ObjectReader& ObjectReader::string(std::string_view key, std::string& out, bool required) {
  if (const Json* v = take(key, required)) {
    if (!v->is_string()) set_error(key, "expected a string");
    else if (required && v->as_string().empty()) set_error(key, "must not be empty");
    else out = v->as_string();
  }
  return *this;
}

ObjectReader& ObjectReader::integer(std::string_view key, std::int64_t& out, bool required, std::int64_t min,
                                    std::int64_t max) {
  if (const Json* v = take(key, required)) {
    if (!v->is_int()) {
      set_error(key, "expected an integer");
    } else if (v->as_int() < min || v->as_int() > max) {
      set_error(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         std::to_string(v->as_int()));
    } else {
      out = v->as_int();
    }
  }
  return *this;
}

ObjectReader& ObjectReader::number(std::string_view key, double& out, bool required, double min, double max) {
  if (const Json* v = take(key, required)) {
    if (!v->is_number()) set_error(key, "expected a number");
    else if (!(v->as_double() >= min && v->as_double() <= max))
      set_error(key, "out of range");
    else out = v->as_double();
  }
  return *this;
}

ObjectReader& ObjectReader::boolean(std::string_view key, bool& out, bool required) {
  if (const Json* v = take(key, required)) {
    if (!v->is_bool()) set_error(key, "expected true or false");
    else out = v->as_bool();
  }
  return *this;
}

ObjectReader& ObjectReader::strings(std::string_view key, std::vector<std::string>& out, bool required) {
  if (const Json* v = take(key, required)) {
    if (!v->is_array()) {
      set_error(key, "expected an array of strings");
      return *this;
    }
    std::vector<std::string> tmp;
    const auto& arr = v->as_array();
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (!arr[i].is_string()) {
        set_error(std::string(key) + "[" + std::to_string(i) + "]", "expected a string");
        return *this;
      }
      tmp.push_back(arr[i].as_string());
    }
    out = std::move(tmp);
  }
  return *this;
}

ObjectReader& ObjectReader::object(std::string_view key, const std::function<void(ObjectReader&)>& fn,
                                   bool required) {
  if (const Json* v = take(key, required)) {
    ObjectReader child(*v, field_path(key), strict_);
    if (child.ok()) fn(child);
    if (auto e = child.finish(); !e.empty() && error_.empty()) error_ = e;
  }
  return *this;
}

ObjectReader& ObjectReader::objects(std::string_view key,
                                    const std::function<void(ObjectReader&, std::size_t)>& fn, bool required) {
  if (const Json* v = take(key, required)) {
    if (!v->is_array()) {
      set_error(key, "expected an array of objects");
      return *this;
    }
    const auto& arr = v->as_array();
    for (std::size_t i = 0; i < arr.size() && error_.empty(); ++i) {
      ObjectReader child(arr[i], field_path(key) + "[" + std::to_string(i) + "]", strict_);
      if (child.ok()) fn(child, i);
      if (auto e = child.finish(); !e.empty()) error_ = e;
    }
  }
  return *this;
}

ObjectReader& ObjectReader::choice(std::string_view key, const std::vector<std::string_view>& allowed, int& out,
                                   bool required) {
  if (const Json* v = take(key, required)) {
    if (!v->is_string()) {
      set_error(key, "expected a string");
      return *this;
    }
    for (std::size_t i = 0; i < allowed.size(); ++i) {
      if (allowed[i] == v->as_string()) {
        out = static_cast<int>(i);
        return *this;
      }
    }
    std::string list;
    for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    set_error(key, "unknown value \"" + v->as_string() + "\" (expected one of: " + list + ")");
  }
  return *this;
}

ObjectReader& ObjectReader::any(std::string_view key, Json& out) {
  if (const Json* v = take(key, false)) out = *v;
  return *this;
}

std::string ObjectReader::finish() {
  if (!error_.empty() || !strict_ || !value_.is_object()) return error_;
  for (const auto& [k, v] : value_.as_object()) {
    if (!seen_.contains(k)) return field_path(k) + ": unknown field";
  }
  return {};
}

Expected<void> check_schema_name(const Json& doc, std::string_view expected_name) {
  if (!doc.is_object()) return fail(Errc::schema, "document: expected an object");
  const Json* s = doc.find("schema");
  if (!s) return fail(Errc::schema, "schema: required field is missing (expected \"" + std::string(expected_name) + "\")");
  if (!s->is_string()) return fail(Errc::schema, "schema: expected a string");
  if (s->as_string() != expected_name) {
    const auto& got = s->as_string();
    auto slash = expected_name.rfind('/');
    if (got.compare(0, slash + 1, expected_name.substr(0, slash + 1)) == 0)
      return fail(Errc::unsupported, "schema: unsupported version \"" + got + "\" (this build reads \"" +
                                         std::string(expected_name) + "\")");
    return fail(Errc::schema, "schema: expected \"" + std::string(expected_name) + "\", got \"" + got + "\"");
  }
  return {};
}

Json string_array(const std::vector<std::string>& v) {
  Json a = Json::array();
  for (const auto& x : v) a.push_back(x);
  return a;
}

}  // namespace flowagent::detail
