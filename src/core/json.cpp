#include "flowagent/json.hpp"

#include <simdjson.h>

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace flowagent {

double Json::as_double() const {
  if (is_int()) return static_cast<double>(std::get<std::int64_t>(v_));
  return std::get<double>(v_);
}

const Json* Json::find(std::string_view key) const noexcept {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : std::get<Object>(v_))
    if (k == key) return &v;
  return nullptr;
}

Json* Json::find(std::string_view key) noexcept {
  return const_cast<Json*>(static_cast<const Json*>(this)->find(key));
}

Json& Json::operator[](std::string_view key) {
  if (is_null()) v_ = Object{};
  auto& obj = std::get<Object>(v_);
  for (auto& [k, v] : obj)
    if (k == key) return v;
  obj.emplace_back(std::string(key), Json());
  return obj.back().second;
}

void Json::push_back(Json value) {
  if (is_null()) v_ = Array{};
  std::get<Array>(v_).push_back(std::move(value));
}

std::size_t Json::size() const noexcept {
  if (is_array()) return std::get<Array>(v_).size();
  if (is_object()) return std::get<Object>(v_).size();
  return 0;
}

std::string Json::get_string(std::string_view key, std::string_view fallback) const {
  const Json* v = find(key);
  return v && v->is_string() ? v->as_string() : std::string(fallback);
}

std::int64_t Json::get_int(std::string_view key, std::int64_t fallback) const {
  const Json* v = find(key);
  return v && v->is_int() ? v->as_int() : fallback;
}

bool Json::get_bool(std::string_view key, bool fallback) const {
  const Json* v = find(key);
  return v && v->is_bool() ? v->as_bool() : fallback;
}

bool operator==(const Json& a, const Json& b) noexcept {
  if (a.is_number() && b.is_number() && a.type() != b.type()) return a.as_double() == b.as_double();
  return a.v_ == b.v_;
}

// ---- parsing -------------------------------------------------------------------------------

namespace {

Json convert(simdjson::dom::element el) {
  using T = simdjson::dom::element_type;
  switch (el.type()) {
    case T::ARRAY: {
      simdjson::dom::array in;  // held here: iterating a temporary simdjson_result would dangle
      if (el.get_array().get(in) != simdjson::SUCCESS) return Json();
      Json::Array arr;
      arr.reserve(in.size());
      for (auto child : in) arr.push_back(convert(child));
      return Json(std::move(arr));
    }
    case T::OBJECT: {
      simdjson::dom::object in;
      if (el.get_object().get(in) != simdjson::SUCCESS) return Json();
      Json::Object obj;
      for (auto field : in) obj.emplace_back(std::string(field.key), convert(field.value));
      return Json(std::move(obj));
    }
    case T::INT64: return Json(static_cast<long long>(el.get_int64().value_unsafe()));
    case T::UINT64: return Json(static_cast<double>(el.get_uint64().value_unsafe()));
    case T::DOUBLE: return Json(el.get_double().value_unsafe());
    case T::STRING: return Json(std::string(el.get_string().value_unsafe()));
    case T::BOOL: return Json(el.get_bool().value_unsafe());
    case T::NULL_VALUE: return Json(nullptr);
  }
  return Json();
}

}  // namespace

Expected<Json> parse_json(std::string_view text, std::size_t max_depth) {
  if (text.size() > simdjson::SIMDJSON_MAXSIZE_BYTES)
    return fail(Errc::invalid_json, "document too large");
  simdjson::dom::parser parser;
  if (auto err = parser.allocate(text.size() + 1, max_depth); err)
    return fail(Errc::invalid_json, simdjson::error_message(err));
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto err = parser.parse(padded).get(root); err) {
    std::string reason = simdjson::error_message(err);
    if (err == simdjson::UTF8_ERROR) reason = "invalid UTF-8 in the document";
    if (err == simdjson::DEPTH_ERROR) reason = "nesting deeper than " + std::to_string(max_depth);
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) reason = "empty document";
    return fail(Errc::invalid_json, "invalid JSON: " + reason);
  }
  return convert(root);
}

// ---- UTF-8 ------------------------------------------------------------------------------------

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is invalid there.
std::size_t utf8_seq_len(std::string_view s, std::size_t i) noexcept {
  const auto c = static_cast<unsigned char>(s[i]);
  auto cont = [&](std::size_t k) {
    return i + k < s.size() && (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
  };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c == 0xED && c1 >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    const auto c1 = static_cast<unsigned char>(s[i + 1]);
    if (c == 0xF0 && c1 < 0x90) return 0;   // overlong
    if (c == 0xF4 && c1 >= 0x90) return 0;  // > U+10FFFF
    return 4;
  }
  return 0;
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
  return simdjson::validate_utf8(text.data(), text.size());
}

std::string sanitize_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t n = utf8_seq_len(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      while (i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

// ---- writing ----------------------------------------------------------------------------------

namespace {

struct Writer {
  DumpOptions opt;
  bool lossy;
  std::string out;
  std::string error;

  void newline(int depth) {
    if (opt.indent < 0) return;
    out += '\n';
    out.append(static_cast<std::size_t>(depth * opt.indent), ' ');
  }

  void string(std::string_view s) {
    if (!is_valid_utf8(s)) {
      if (!lossy) {
        if (error.empty()) error = "string is not valid UTF-8";
        return;
      }
      string(sanitize_utf8(s));
      return;
    }
    out += '"';
    for (char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '<': out += "\\u003c"; break;
        case '>': out += "\\u003e"; break;
        case '&': out += "\\u0026"; break;
        default:
          if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
          } else {
            out += ch;
          }
      }
    }
    out += '"';
  }

  void value(const Json& v, int depth) {
    switch (v.type()) {
      case Json::Type::null: out += "null"; break;
      case Json::Type::boolean: out += v.as_bool() ? "true" : "false"; break;
      case Json::Type::integer: out += std::to_string(v.as_int()); break;
      case Json::Type::number: {
        double d = v.as_double();
        if (!std::isfinite(d)) {
          if (!lossy && error.empty()) error = "number is not finite";
          out += "null";
          break;
        }
        char buf[32];
        auto res = std::to_chars(buf, buf + sizeof buf, d);
        std::string_view txt(buf, static_cast<std::size_t>(res.ptr - buf));
        out += txt;
        if (txt.find_first_of(".eE") == std::string_view::npos) out += ".0";
        break;
      }
      case Json::Type::string: string(v.as_string()); break;
      case Json::Type::array: {
        const auto& arr = v.as_array();
        out += '[';
        for (std::size_t i = 0; i < arr.size(); ++i) {
          if (i) out += ',';
          newline(depth + 1);
          value(arr[i], depth + 1);
        }
        if (!arr.empty()) newline(depth);
        out += ']';
        break;
      }
      case Json::Type::object: {
        const auto& obj = v.as_object();
        out += '{';
        for (std::size_t i = 0; i < obj.size(); ++i) {
          if (i) out += ',';
          newline(depth + 1);
          string(obj[i].first);
          out += opt.indent < 0 ? ":" : ": ";
          value(obj[i].second, depth + 1);
        }
        if (!obj.empty()) newline(depth);
        out += '}';
        break;
      }
    }
  }
};

}  // namespace

Expected<std::string> dump_json(const Json& value, DumpOptions options) {
  Writer w{options, false, {}, {}};
  w.value(value, 0);
  if (!w.error.empty()) return fail(Errc::invalid_json, "cannot write JSON: " + w.error);
  return std::move(w.out);
}

std::string dump_json_lossy(const Json& value, DumpOptions options) {
  Writer w{options, true, {}, {}};
  w.value(value, 0);
  return std::move(w.out);
}

}  // namespace flowagent
