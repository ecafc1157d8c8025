// What a test file's names refer to: the functions it defines itself and where its imported names
// come from. An assertion is read by its name (`assert_equal`, `slices.Equal`, a matcher called
// `equalTo`) only when that name comes from a known assertion or comparison library: a function
// the file (or the project) defines under such a name can do anything, so its name proves nothing
// (`def assert_equal(a, b): pass`).
#include "core/regex.hpp"

#include "integrity/guard_internal.hpp"

namespace flowagent::integrity {

namespace {

/// Libraries whose comparison and assertion functions do what their names say. Python and JS by
/// module root, Go by import path, JVM by package prefix.
bool library_module(std::string_view module) {
  static const std::set<std::string, std::less<>> kRoots = {
      // Python
      "numpy", "pandas", "torch", "tensorflow", "jax", "xarray", "polars", "scipy", "unittest", "hamcrest",
      "assertpy", "absl", "pytest", "math", "cmath", "pyarrow", "dask", "sklearn", "django", "operator",
      // JavaScript / TypeScript
      "assert", "node:assert", "node:assert/strict", "assert/strict", "chai", "expect", "vitest", "@jest/globals",
      "uvu", "power-assert", "tap", "tape", "node:test", "should", "jest-extended", "lodash", "underscore", "ramda",
      "node:util", "util", "fast-deep-equal", "deep-equal", "dequal",
      // Go (import paths)
      "slices", "bytes", "maps", "reflect", "strings", "errors", "testing", "cmp", "github.com/google/go-cmp/cmp",
      "google.golang.org/protobuf/proto", "github.com/golang/protobuf/proto", "github.com/stretchr/testify/assert",
      "github.com/stretchr/testify/require", "gotest.tools/v3/assert", "github.com/matryer/is",
      "github.com/frankban/quicktest", "github.com/google/go-cmp/cmp/cmpopts"};
  if (kRoots.count(module)) return true;
  std::string_view root = module.substr(0, module.find_first_of("./"));
  if (starts_with(module, "@")) root = module.substr(0, module.find('/', module.find('/') + 1));
  if (kRoots.count(root) && !starts_with(module, ".")) return true;
  // JVM packages
  for (std::string_view p : {"org.junit", "org.hamcrest", "org.assertj", "com.google.common.truth", "java.util",
                             "java.lang", "org.apache.commons", "kotlin.test", "io.kotest", "org.testng"})
    if (starts_with(module, p)) return true;
  return false;
}

void add_import(FileNames& out, std::string name, std::string module, bool module_binding = false) {
  name = trim(name);
  std::string member = name;
  if (auto as = name.find(" as "); as != std::string::npos) {
    member = trim(std::string_view(name).substr(0, as));
    name = trim(std::string_view(name).substr(as + 4));
  }
  if (auto colon = name.find(':'); colon != std::string::npos) {  // { a: b }
    member = trim(std::string_view(name).substr(0, colon));
    name = trim(std::string_view(name).substr(colon + 1));
  }
  if (name.empty() || name == "*") return;
  out.imported[name] = std::move(module);
  if (module_binding) {
    out.module_bindings.insert(name);
    out.member_names.erase(name);
  } else {
    out.module_bindings.erase(name);
    out.member_names[name] = member;
  }
}

}  // namespace

bool FileNames::library_name(std::string_view callee) const {
  std::string c = strip_spaces(std::string(callee));
  if (starts_with(c, "::")) c = c.substr(2);
  const auto cut = c.find_first_of(".:");
  const std::string root = c.substr(0, cut);
  if (root.empty() || defined.count(root)) return false;
  if (auto it = imported.find(root); it != imported.end()) return library_module(it->second);
  if (cut == std::string::npos) {
    // A bare name no import names: a Java static import on demand (`import static org.junit...*`).
    for (const auto& m : star_imports)
      if (library_module(m)) return true;
    return false;
  }
  // Qualified by a module imported under its own name (`import numpy` then `numpy.array_equal`).
  return library_module(root) && imported.count(root);
}

std::string FileNames::canonical(std::string_view chain) const {
  const std::string c = strip_spaces(std::string(chain));
  const auto cut = c.find('.');
  const std::string head = c.substr(0, cut), rest = cut == std::string::npos ? "" : c.substr(cut);
  const auto it = imported.find(head);
  if (defined.count(head)) return "";
  if (it == imported.end()) return cut == std::string::npos ? "" : c;  // `calc.add`, `calc::add`: as written
  if (module_bindings.count(head)) return it->second + rest;
  const auto member = member_names.find(head);
  return it->second + "." + (member == member_names.end() ? head : member->second) + rest;
}

FileNames file_names(Lang lang, const std::string& src) {
  FileNames out;
  static const rx::regex py_def(R"(^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*))");
  static const rx::regex py_assign(R"(^([A-Za-z_]\w*)[ \t]*=[ \t]*lambda\b)");
  static const rx::regex py_from(R"(^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(.+))");
  static const rx::regex py_import(R"(^[ \t]*import[ \t]+([\w.]+)(?:[ \t]+as[ \t]+(\w+))?)");
  static const rx::regex js_def(
      R"(\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)|\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>))");
  static const rx::regex js_named(R"(\bimport\s+(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"])");
  static const rx::regex js_default(R"(\bimport\s+(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)\s*(?:,\s*\{[^}]*\})?\s*from\s*['"]([^'"]+)['"])");
  static const rx::regex js_require_named(R"(\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\))");
  static const rx::regex js_require(R"(\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\))");
  static const rx::regex go_def(R"(^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^\s*(?:var\s+)?([A-Za-z_]\w*)\s*:?=\s*func\b)");
  static const rx::regex go_import(R"re(^\s*(?:import\s+)?(?:([A-Za-z_]\w*|\.)\s+)?"([\w./\-]+)"\s*$)re");
  static const rx::regex jvm_def(R"(\b([A-Za-z_]\w*)\s*\([^;]*\)\s*(?:throws\s+[\w., ]+)?\{)");
  static const rx::regex jvm_import(R"(^\s*import\s+(static\s+)?([\w.]+)\.(\w+|\*)\s*;?)");
  static const rx::regex cpp_def(R"(\b(?:MATCHER(?:_P\d*)?|ACTION(?:_P\d*)?)\s*\(\s*([A-Za-z_]\w*)|\b([A-Za-z_]\w*)\s*\([^;{)]*\)\s*(?:const\s*)?\{|#\s*define\s+([A-Za-z_]\w*))");
  auto define = [&](const rx::smatch& m) {
    for (std::size_t i = 1; i < m.size(); ++i)
      if (m[i].matched) out.defined.insert(m[i].str());
  };
  auto all = [&](const std::string& line, const rx::regex& re, auto fn) {
    for (auto it = rx::sregex_iterator(line.begin(), line.end(), re); it != rx::sregex_iterator(); ++it) fn(*it);
  };
  if (src.size() > kImportBytesBudget) return out;  // no names: nothing is read as a library's
  std::string open_from;  // a parenthesised `from x import (` still open: its module
  for_each_capped_line(src, [&](int, const std::string& line) {
    rx::smatch m;
    switch (lang) {
      case Lang::python: {
        if (!open_from.empty()) {
          std::string list = line.substr(0, line.find_first_of(")#"));
          for (const auto& n : split_top(list, {","})) add_import(out, n, open_from);
          if (line.find(')') != std::string::npos) open_from.clear();
          return;
        }
        all(line, py_def, define);
        if (rx::regex_search(line, m, py_assign)) define(m);
        if (rx::regex_search(line, m, py_from)) {
          std::string list = m[2].str();
          if (auto hash = list.find('#'); hash != std::string::npos) list.resize(hash);
          list = trim(list);
          if (!list.empty() && list.front() == '(') {
            list = list.substr(1);
            if (list.find(')') == std::string::npos) open_from = m[1].str();
            list = list.substr(0, list.find(')'));
          }
          for (const auto& n : split_top(list, {","})) {
            if (trim(n) == "*") out.star_imports.push_back(m[1].str());  // `from calc import *`
            else add_import(out, n, m[1].str());
          }
        } else if (rx::regex_search(line, m, py_import)) {
          const std::string module = m[1].str();
          if (m[2].matched) add_import(out, m[2].str(), module, true);
          else add_import(out, module.substr(0, module.find('.')), module.substr(0, module.find('.')), true);
        }
        break;
      }
      case Lang::javascript:
      case Lang::typescript:
      case Lang::tsx:
        all(line, js_def, define);
        for (const auto* re : {&js_named, &js_require_named})
          all(line, *re, [&](const rx::smatch& x) {
            for (const auto& n : split_top(x[1].str(), {","})) add_import(out, n, x[2].str());
          });
        for (const auto* re : {&js_default, &js_require}) all(line, *re, [&](const rx::smatch& x) { add_import(out, x[1].str(), x[2].str(), true); });
        // `const { add } = calc;` with `calc` a module the file required: add is that module's.
        {
          static const rx::regex js_destructured(R"(\b(?:const|let|var)\s*\{([^}]*)\}\s*=\s*([A-Za-z_$][\w$]*)\s*;?\s*$)");
          if (rx::regex_search(line, m, js_destructured) && out.module_bindings.count(m[2].str())) {
            const std::string module = out.imported[m[2].str()];
            for (const auto& n : split_top(m[1].str(), {","})) add_import(out, n, module);
          }
        }
        break;
      case Lang::go:
        if (rx::regex_search(line, m, go_def)) define(m);
        if (rx::regex_search(line, m, go_import)) {
          const std::string path = m[2].str();
          const std::string alias = m[1].matched ? m[1].str() : path.substr(path.rfind('/') + 1);
          if (alias == ".") out.star_imports.push_back(path);
          else if (alias != "_") add_import(out, alias, path, true);
        }
        break;
      case Lang::java:
      case Lang::kotlin:
        if (rx::regex_search(line, m, jvm_import)) {
          if (m[3].str() == "*") out.star_imports.push_back(m[2].str());
          else add_import(out, m[3].str(), m[2].str());
        } else {
          all(line, jvm_def, define);
        }
        break;
      case Lang::cpp: {
        all(line, cpp_def, define);
        // `using calc::add;`: `add` is calc's member (`calc.add`, as the operand chains spell it).
        static const rx::regex cpp_using(R"(^\s*using\s+((?:\w+::)*\w+)::(\w+)\s*;)");
        if (rx::regex_search(line, m, cpp_using)) {
          std::string ns = m[1].str();
          for (std::size_t p = ns.find("::"); p != std::string::npos; p = ns.find("::")) ns.replace(p, 2, ".");
          add_import(out, m[2].str(), ns);
        }
        break;
      }
      default:
        break;
    }
  });
  // `const assert = require('assert')` is an import, not a local definition.
  for (const auto& [name, module] : out.imported) out.defined.erase(name);
  return out;
}

}  // namespace flowagent::integrity
