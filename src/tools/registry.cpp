#include <algorithm>
#include <cctype>

#include "flowagent/tools.hpp"

namespace flowagent {

namespace {

bool type_matches(const Json& v, std::string_view type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_int() || (v.is_number() && v.as_double() == static_cast<double>(static_cast<std::int64_t>(v.as_double())));
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_bool();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  if (type == "null") return v.is_null();
  return true;  // unknown type keywords are not enforced
}

std::string join_path(std::string_view base, std::string_view key) {
  if (base.empty()) return std::string(key);
  return std::string(base) + "." + std::string(key);
}

}  // namespace

Expected<void> check_against_schema(const Json& value, const Json& schema, std::string_view path) {
  const std::string where = path.empty() ? std::string("arguments") : std::string(path);
  if (!schema.is_object()) return {};
  if (const Json* t = schema.find("type"); t && t->is_string() && !type_matches(value, t->as_string()))
    return fail(Errc::schema, where + ": expected " + t->as_string());
  if (const Json* e = schema.find("enum"); e && e->is_array()) {
    const auto& opts = e->as_array();
    if (std::find(opts.begin(), opts.end(), value) == opts.end()) {
      std::string list;
      for (const auto& o : opts) list += (list.empty() ? "" : ", ") + dump_json_lossy(o);
      return fail(Errc::schema, where + ": must be one of " + list);
    }
  }
  if (value.is_number()) {
    if (const Json* m = schema.find("minimum"); m && m->is_number() && value.as_double() < m->as_double())
      return fail(Errc::schema, where + ": must be >= " + dump_json_lossy(*m));
    if (const Json* m = schema.find("maximum"); m && m->is_number() && value.as_double() > m->as_double())
      return fail(Errc::schema, where + ": must be <= " + dump_json_lossy(*m));
  }
  if (value.is_array()) {
    if (const Json* items = schema.find("items")) {
      const auto& arr = value.as_array();
      for (std::size_t i = 0; i < arr.size(); ++i)
        if (auto r = check_against_schema(arr[i], *items, where + "[" + std::to_string(i) + "]"); !r) return r;
    }
  }
  if (value.is_object()) {
    const Json* props = schema.find("properties");
    if (const Json* req = schema.find("required"); req && req->is_array()) {
      for (const auto& r : req->as_array())
        if (r.is_string() && !value.find(r.as_string()))
          return fail(Errc::schema, join_path(path, r.as_string()) + ": required argument is missing");
    }
    const Json* addl = schema.find("additionalProperties");
    bool closed = addl && addl->is_bool() && !addl->as_bool();
    for (const auto& [k, v] : value.as_object()) {
      const Json* sub = props ? props->find(k) : nullptr;
      if (!sub) {
        if (closed) return fail(Errc::schema, join_path(path, k) + ": unknown argument");
        continue;
      }
      if (auto r = check_against_schema(v, *sub, join_path(path, k)); !r) return r;
    }
  }
  return {};
}

Expected<void> ToolRegistry::add(std::shared_ptr<Tool> tool) {
  if (!tool) return fail(Errc::invalid_argument, "tool is null");
  std::string name(tool->name());
  if (name.empty()) return fail(Errc::invalid_argument, "tool name is empty");
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      return fail(Errc::invalid_argument, "tool name \"" + name + "\" may only hold letters, digits, '_' and '-'");
  const Json& schema = tool->parameters();
  if (!schema.is_object() || schema.get_string("type") != "object")
    return fail(Errc::invalid_argument, "tool " + name + ": parameters must be a JSON schema of type object");
  std::lock_guard lock(mu_);
  if (tools_.contains(name)) return fail(Errc::invalid_argument, "tool " + name + " is already registered");
  tools_.emplace(std::move(name), std::move(tool));
  return {};
}

std::shared_ptr<Tool> ToolRegistry::find(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = tools_.find(name);
  return it == tools_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<Tool>> ToolRegistry::list() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<Tool>> out;
  for (const auto& [k, v] : tools_) out.push_back(v);
  return out;
}

Expected<ToolOutput> ToolRegistry::invoke(std::string_view name, const Json& arguments, ToolContext& context) const {
  auto tool = find(name);
  if (!tool) {
    std::string names;
    for (const auto& t : list()) names += (names.empty() ? "" : ", ") + std::string(t->name());
    return fail(Errc::not_found, "unknown tool \"" + std::string(name) + "\"; available: " + names);
  }
  if (auto ok = check_against_schema(arguments, tool->parameters()); !ok) return unexpected(ok.error());
  auto out = tool->invoke(arguments, context);
  // A successful call of a tool that changes files is an edit (validation and repeat detection
  // order edits and test runs by it); tools do not count themselves.
  if (out && out->ok && tool->mutates()) context.state.note_edit();
  return out;
}

}  // namespace flowagent
