// Spectrum formulas, identifier words, test-path conventions and tree-sitter code chunks.
#include <tree_sitter/api.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>

#include "flowagent/localize.hpp"
#include "integrity/guard_internal.hpp"


namespace flowagent {
namespace tsnav = integrity::tsnav;

double suspiciousness(SpectrumFormula f, const SpectrumCounts& c) noexcept {
  const double ef = c.failed_covered, ep = c.passed_covered, F = c.total_failed, P = c.total_passed;
  if (ef <= 0 || F <= 0) return 0;
  switch (f) {
    case SpectrumFormula::ochiai: return ef / std::sqrt(F * (ef + ep));
    case SpectrumFormula::tarantula: {
      const double fr = ef / F, pr = P > 0 ? ep / P : 0;
      return fr / (fr + pr);
    }
    case SpectrumFormula::dstar: {
      const double nf = F - ef;
      const double denom = ep + nf;
      return denom > 0 ? ef * ef / denom : ef * ef * 2;
    }
  }
  return 0;
}

std::optional<SpectrumFormula> parse_spectrum_formula(std::string_view n) noexcept {
  if (n == "ochiai") return SpectrumFormula::ochiai;
  if (n == "tarantula") return SpectrumFormula::tarantula;
  if (n == "dstar") return SpectrumFormula::dstar;
  return std::nullopt;
}

std::string_view to_string(SpectrumFormula f) noexcept {
  switch (f) {
    case SpectrumFormula::ochiai: return "ochiai";
    case SpectrumFormula::tarantula: return "tarantula";
    case SpectrumFormula::dstar: return "dstar";
  }
  return "ochiai";
}

std::vector<std::string> split_identifier_words(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!cur.empty()) {
      const unsigned char p = static_cast<unsigned char>(text[i - 1]);
      const bool next_lower = i + 1 < text.size() && std::islower(static_cast<unsigned char>(text[i + 1]));
      // camelCase boundary, acronym end (HTTPHeader -> HTTP|Header), letter/digit boundary.
      if ((std::isupper(c) && std::islower(p)) || (std::isupper(c) && std::isupper(p) && next_lower) ||
          (std::isdigit(c) != 0) != (std::isdigit(p) != 0))
        flush();
    }
    cur.push_back(lower(static_cast<char>(c)));
  }
  flush();
  return out;
}

namespace {

// The grammar for a file name: the test-integrity guard's table (one list of extensions).
const TSLanguage* language_for(std::string_view path) { return integrity::ts_language(integrity::lang_of(path)); }

bool one_of(std::string_view t, std::initializer_list<std::string_view> xs) {
  return std::find(xs.begin(), xs.end(), t) != xs.end();
}

class Chunker {
 public:
  Chunker(std::string file, std::string_view src, bool cpp) : file_(std::move(file)), src_(src), cpp_(cpp) {}

  std::vector<CodeChunk> run(const TSLanguage* lang) {
    TSParser* parser = ts_parser_new();
    if (!ts_parser_set_language(parser, lang)) {
      ts_parser_delete(parser);
      return {};
    }
    TSTree* tree = ts_parser_parse_string(parser, nullptr, src_.data(), static_cast<uint32_t>(src_.size()));
    ts_parser_delete(parser);
    if (!tree) return {};
    const integrity::tsnav::OwnedTree owned(tree);
    visit(ts_tree_root_node(tree), "", 0);
    return std::move(out_);
  }

 private:
  std::string text(TSNode n) const {
    return std::string(src_.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n)));
  }
  TSNode field(TSNode n, const char* name) const {
    return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::strlen(name)));
  }
  // The name of a function/class node, per grammar.
  std::string name_of(TSNode n) const {
    std::string_view t = ts_node_type(n);
    TSNode name = field(n, "name");
    if (!ts_node_is_null(name)) return text(name);
    if (t == "function_definition" || t == "template_declaration") {  // C/C++: walk the declarator chain
      TSNode d = field(n, "declarator");
      for (int i = 0; i < 8 && !ts_node_is_null(d); ++i) {
        std::string_view dt = ts_node_type(d);
        if (dt == "identifier" || dt == "field_identifier" || dt == "qualified_identifier" || dt == "destructor_name" ||
            dt == "operator_name")
          return text(d);
        TSNode next = field(d, "declarator");
        d = next;
      }
      return {};
    }
    if (t == "variable_declarator" || t == "pair" || t == "assignment_expression") {
      TSNode k = field(n, t == "pair" ? "key" : (t == "assignment_expression" ? "left" : "name"));
      return ts_node_is_null(k) ? std::string() : text(k);
    }
    // Kotlin and others: the first identifier-like child.
    const uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; ++i) {
      TSNode c = tsnav::named_child(n, i);
      if (one_of(ts_node_type(c), {"simple_identifier", "type_identifier", "identifier"})) return text(c);
    }
    return {};
  }
  static bool is_function(std::string_view t) {
    return one_of(t, {"function_definition", "function_declaration", "method_definition", "method_declaration",
                      "constructor_declaration", "function_item", "generator_function_declaration",
                      "secondary_constructor"});
  }
  static bool is_class(std::string_view t) {
    return one_of(t, {"class_definition", "class_declaration", "class_specifier", "struct_specifier",
                      "interface_declaration", "enum_declaration", "impl_item", "struct_item", "trait_item",
                      "object_declaration", "namespace_definition"});
  }
  // `const f = () => ...`, `obj.f = function() {}`, `f: function() {}`.
  bool is_function_binding(TSNode n) const {
    std::string_view t = ts_node_type(n);
    if (!one_of(t, {"variable_declarator", "pair", "assignment_expression"})) return false;
    TSNode v = field(n, t == "pair" ? "value" : (t == "assignment_expression" ? "right" : "value"));
    return !ts_node_is_null(v) && one_of(ts_node_type(v), {"arrow_function", "function", "function_expression"});
  }

  void visit(TSNode n, const std::string& scope, int depth) {
    if (depth > 200) return;
    std::string_view t = ts_node_type(n);
    std::string inner = scope;
    const bool fn = is_function(t) || is_function_binding(n);
    const bool cls = !fn && is_class(t) && !ts_node_is_null(field(n, "body"));
    if (fn || cls) {
      std::string name = name_of(n);
      if (t == "impl_item") {
        TSNode ty = field(n, "type");
        if (!ts_node_is_null(ty)) name = text(ty);
      }
      if (!name.empty()) {
        const std::string sep = cpp_ ? "::" : ".";
        std::string sym = scope.empty() ? name : scope + sep + name;
        CodeChunk c{file_, sym, fn ? "function" : "class", static_cast<int>(ts_node_start_point(n).row) + 1,
                    static_cast<int>(ts_node_end_point(n).row) + 1};
        if (t != "namespace_definition") out_.push_back(c);
        inner = sym;
      }
    }
    const uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; ++i) visit(tsnav::named_child(n, i), inner, depth + 1);
  }

  std::string file_;
  std::string_view src_;
  bool cpp_;
  std::vector<CodeChunk> out_;
};

}  // namespace

bool has_code_grammar(std::string_view relative_path) { return language_for(relative_path) != nullptr; }

std::vector<CodeChunk> code_chunks(const std::string& relative_path, std::string_view source) {
  const TSLanguage* lang = language_for(relative_path);
  if (!lang || source.size() > (8u << 20)) return {};
  return Chunker(relative_path, source, integrity::lang_of(relative_path) == integrity::Lang::cpp).run(lang);
}

}  // namespace flowagent
