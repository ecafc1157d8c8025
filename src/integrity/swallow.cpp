// Failures dropped outside a syntactic try (swallow.hpp): function values handed to threads,
// executors, promise chains and wrappers that do not propagate their failure; managers and
// decorators the file defines that drop it; the test's receiver reassigned.
#include "integrity/swallow.hpp"

#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>
#include "core/regex.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

namespace {

using std::string;
using std::string_view;

bool one_of(string_view t, std::initializer_list<string_view> xs) {
  return std::find(xs.begin(), xs.end(), t) != xs.end();
}

/// Is `t` a JavaScript string literal in quotes ('x', "x"; backticks too when `backtick`)?
bool js_quoted(string_view t, bool backtick = false) {
  return t.size() >= 2 && t.front() == t.back() && (t.front() == '\'' || t.front() == '"' || (backtick && t.front() == '`'));
}
/// The text inside a string literal's quotes (js_quoted), or `t` itself when it is not one.
string js_unquoted(string t, bool backtick = false) { return js_quoted(t, backtick) ? t.substr(1, t.size() - 2) : t; }

/// A node that makes a function value or a function definition.
bool is_function(string_view t) {
  return one_of(t, {"function_definition", "function_declaration", "arrow_function", "function_expression", "function",
                    "func_literal", "generator_function_declaration", "lambda_expression", "closure_expression", "lambda",
                    "method_declaration", "function_item", "method_definition", "lambda_literal", "anonymous_function"});
}

bool is_call(string_view t) {
  return one_of(t, {"call", "call_expression", "method_invocation", "object_creation_expression", "new_expression"});
}


/// The last name segment of a callee text: `concurrent.futures.ThreadPoolExecutor(...).submit` ->
/// `submit`, `std::thread::spawn` -> `spawn`, `Thread<T>` -> `Thread`.
string callee_last_segment(string t) {
  t = strip_spaces(std::move(t));
  if (auto lt = t.find('<'); lt != string::npos) t = t.substr(0, lt);
  // Drop a trailing argument list of the receiver chain only when the callee itself ends in a name.
  const auto cut = t.find_last_of(".:>");
  return cut == string::npos ? t : t.substr(cut + 1);
}

/// The callee text of a call-like node (what is called), and the node of its receiver, if any.
string callee_text(const Syntax& s, TSNode call) {
  const string_view t = Syntax::type(call);
  if (t == "method_invocation") {
    TSNode name = Syntax::field(call, "name");
    return ts_node_is_null(name) ? "" : s.text(name);
  }
  if (t == "object_creation_expression") {
    TSNode ty = Syntax::field(call, "type");
    return ts_node_is_null(ty) ? "" : s.text(ty);
  }
  if (t == "new_expression") {
    TSNode c = Syntax::field(call, "constructor");
    return ts_node_is_null(c) ? "" : s.text(c);
  }
  TSNode f = Syntax::field(call, "function");
  if (ts_node_is_null(f) && ts_node_named_child_count(call) > 0) f = tsnav::named_child(call, 0);
  return ts_node_is_null(f) ? "" : s.text(f);
}

string callee_name(const Syntax& s, TSNode call) { return callee_last_segment(callee_text(s, call)); }

/// The arguments node of a call.
TSNode arguments_of(TSNode call) {
  TSNode args = Syntax::field(call, "arguments");
  if (!ts_node_is_null(args)) return args;
  for (uint32_t i = 0; i < ts_node_named_child_count(call); ++i) {
    TSNode c = tsnav::named_child(call, i);
    if (one_of(Syntax::type(c), {"argument_list", "arguments", "value_arguments"})) return c;
  }
  return TSNode{};
}

std::vector<TSNode> argument_nodes(TSNode call) {
  std::vector<TSNode> out;
  TSNode args = arguments_of(call);
  if (ts_node_is_null(args)) return out;
  for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
    TSNode a = tsnav::named_child(args, i);
    if (!one_of(Syntax::type(a), {"comment", "line_comment", "block_comment"})) out.push_back(a);
  }
  return out;
}

/// Calls `fn` on every node of the subtree (pre-order); `fn` returns false to stop descending.
template <class Fn>
void walk(TSNode n, Fn&& fn) {
  if (!fn(n)) return;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) walk(tsnav::named_child(n, i), fn);
}

/// The nearest function node enclosing `n` (not `n` itself).
TSNode enclosing_function(TSNode n) {
  for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p))
    if (is_function(Syntax::type(p))) return p;
  return TSNode{};
}

TSNode js_function_named(const Syntax& s, TSNode callback);

/// The name an error handler (a handler function or a catch clause's body) binds the failure to:
/// the catch clause's parameter or the function's first parameter; "" when none or a pattern.
string js_error_name(const Syntax& s, TSNode h) {
  if (ts_node_is_null(h)) return "";
  TSNode p = tsnav::parent(h);
  if (!is_function(Syntax::type(h)) && !ts_node_is_null(p) && Syntax::type(p) == "catch_clause") {
    TSNode prm = Syntax::field(p, "parameter");
    return !ts_node_is_null(prm) && Syntax::type(prm) == "identifier" ? s.text(prm) : "";
  }
  if (!is_function(Syntax::type(h))) return "";
  TSNode param = Syntax::field(h, "parameter");
  if (!ts_node_is_null(param)) return Syntax::type(param) == "identifier" ? s.text(param) : "";
  TSNode params = Syntax::field(h, "parameters");
  if (ts_node_is_null(params) || ts_node_named_child_count(params) == 0) return "";
  TSNode first = tsnav::named_child(params, 0);
  if (Syntax::type(first) == "required_parameter") first = Syntax::field(first, "pattern");
  return !ts_node_is_null(first) && Syntax::type(first) == "identifier" ? s.text(first) : "";
}

/// The error handler enclosing `n`: the nearest catch clause's body or function.
TSNode js_handler_of(TSNode n) {
  for (TSNode p = tsnav::parent(n); !ts_node_is_null(p); p = tsnav::parent(p)) {
    if (is_function(Syntax::type(p))) return p;
    TSNode up = tsnav::parent(p);
    if (!ts_node_is_null(up) && Syntax::type(up) == "catch_clause" && ts_node_eq(Syntax::field(up, "body"), p)) return p;
  }
  return TSNode{};
}

/// Is the name `name` assigned in `scope` before the byte `before` (`e = null; if (e) throw e`)?
bool js_assigned_before(const Syntax& s, TSNode scope, const string& name, uint32_t before) {
  bool found = false;
  walk(scope, [&](TSNode n) {
    if (found || ts_node_start_byte(n) >= before) return false;
    if (one_of(Syntax::type(n), {"assignment_expression", "augmented_assignment_expression"})) {
      TSNode l = Syntax::field(n, "left");
      if (!ts_node_is_null(l) && s.text(l) == name) found = true;
    }
    return !found;
  });
  return found;
}

/// Predicates every error satisfies (`isError(e)`, `_.isObject(e)`): true of an assertion failure.
bool js_predicate_true_of_any_error(const string& name) {
  return one_of(name, {"isError", "isNativeError", "isObject", "isObjectLike", "isDefined", "isTruthy", "isErrorLike", "is",
                       "isAssertionError", "isAssertion", "exists", "Boolean", "isNotNull", "isNotNil", "isPresent",
                       "isExisty", "isSet", "defined", "truthy", "isInstanceOf", "isInstance", "isAnyError"});
}

/// Properties an assertion failure has (node:assert's AssertionError, chai's, jest's matcher
/// error): a condition on another property of the error compares `undefined`.
bool js_assertion_failure_property(const string& p) {
  return one_of(p, {"name", "code", "message", "actual", "expected", "operator", "generatedMessage", "matcherResult",
                    "constructor", "stack", "cause", "showDiff", "toString", "errors"});
}

/// JavaScript: the first property read from the error `err` in `n` (`e.status`, `e?.response.status`
/// -> `status`/`response`), "" when `n` is no property of `err`.
string js_error_property(const Syntax& s, TSNode n, const string& err, int depth = 0) {
  if (err.empty() || ts_node_is_null(n)) return "";
  // A name the handler binds from the error (`const { response } = err`, `const status =
  // err.response?.status`): the error's property it came from.
  if (Syntax::type(n) == "identifier" && s.text(n) != err && depth < 2) {
    const string name = s.text(n);
    TSNode h = js_handler_of(n);
    string found;
    if (!ts_node_is_null(h))
      walk(h, [&](TSNode d) {
        if (!found.empty() || ts_node_start_byte(d) >= ts_node_start_byte(n)) return false;
        if (Syntax::type(d) != "variable_declarator") return true;
        TSNode nm = Syntax::field(d, "name"), v = Syntax::field(d, "value");
        if (ts_node_is_null(nm) || ts_node_is_null(v)) return true;
        if (Syntax::type(nm) == "identifier" && s.text(nm) == name) found = js_error_property(s, v, err, depth + 1);
        if (Syntax::type(nm) == "object_pattern" && Syntax::type(v) == "identifier" && s.text(v) == err)
          for (uint32_t i = 0; i < ts_node_named_child_count(nm); ++i) {
            TSNode pp = tsnav::named_child(nm, i);
            if (Syntax::type(pp) == "shorthand_property_identifier_pattern" && s.text(pp) == name) found = name;
            if (Syntax::type(pp) == "pair_pattern" && s.text(Syntax::field(pp, "value")) == name) found = js_unquoted(s.text(Syntax::field(pp, "key")));
          }
        return true;
      });
    return found;
  }
  // `e && e.code`: the property, as a guard of the error itself is true.
  if (Syntax::type(n) == "binary_expression" && strip_spaces(s.text(Syntax::field(n, "operator"))) == "&&" &&
      strip_spaces(s.text(Syntax::field(n, "left"))) == err)
    return js_error_property(s, Syntax::field(n, "right"), err, depth);
  string prop;
  while (Syntax::type(n) == "member_expression" || Syntax::type(n) == "subscript_expression") {
    TSNode obj = Syntax::field(n, "object");
    // `(e || {}).code`: the error's own property.
    if (Syntax::type(obj) == "parenthesized_expression" && ts_node_named_child_count(obj) == 1) {
      TSNode in = tsnav::named_child(obj, 0);
      if (Syntax::type(in) == "binary_expression" && one_of(strip_spaces(s.text(Syntax::field(in, "operator"))), {"||", "??"}))
        obj = Syntax::field(in, "left");
    }
    if (Syntax::type(n) == "member_expression") prop = s.text(Syntax::field(n, "property"));
    else {
      string i = strip_spaces(s.text(Syntax::field(n, "index")));
      if (!js_quoted(i)) return "";
      prop = js_unquoted(i);
    }
    n = obj;
    if (ts_node_is_null(n)) return "";
  }
  if (Syntax::type(n) != "identifier") return "";
  if (s.text(n) == err) return prop;
  // Read off a name bound from the error (`response?.status` after `const { response } = err`).
  return depth < 2 ? js_error_property(s, n, err, depth + 1) : "";
}

/// Could an assertion failure's message hold (or equal) the literal `lit`? Yes when the file writes
/// it elsewhere too (the test's own assertion message), when it holds a word of the messages
/// node:assert, chai and jest write, or when it is too short to tell; else no (`'ECONNRESET'`,
/// `'timed out'`, `'aborted'`).
bool js_message_may_hold(const Syntax& s, string lit) {
  if (lit.size() < 3) return true;
  std::size_t count = 0;
  for (auto at = s.src.find(lit); at != string::npos && count < 2; at = s.src.find(lit, at + 1)) ++count;
  if (count >= 2) return true;
  std::transform(lit.begin(), lit.end(), lit.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* w : {"expect", "equal", "assert", "receiv", "should", "actual", "falsy", "truthy", "deep", "strict", "identical",
                        "match", "not ", "to be", "to have", "values", "===", "!==", "object.is", "evaluat", "missing", "unwanted",
                        "throw", "reject", "error"})
    if (contains(lit, w)) return true;
  return false;
}

/// The root of the tree that holds `n`.
TSNode tree_root(TSNode n) {
  while (!ts_node_is_null(tsnav::parent(n))) n = tsnav::parent(n);
  return n;
}

/// JavaScript: the value of the file's first declaration of `name` (`const name = value`); null
/// when there is none.
TSNode js_declared_value(const Syntax& s, TSNode in, const string& name) {
  TSNode value{};
  walk(tree_root(in), [&](TSNode d) {
    if (!ts_node_is_null(value)) return false;
    if (Syntax::type(d) == "variable_declarator" && s.text(Syntax::field(d, "name")) == name) value = Syntax::field(d, "value");
    return true;
  });
  return value;
}

/// The string members of an array or Set the condition names: written there (`['A', 'B']`,
/// `new Set(['A'])`) or bound to a `const` of the file; nullopt when not all are string literals.
std::optional<std::vector<string>> js_string_members(const Syntax& s, TSNode n, int depth = 0) {
  if (ts_node_is_null(n) || depth > 2) return std::nullopt;
  const string_view t = Syntax::type(n);
  if (t == "new_expression") {
    const auto args = argument_nodes(n);
    return args.size() == 1 ? js_string_members(s, args[0], depth + 1) : std::nullopt;
  }
  if (t == "identifier") return js_string_members(s, js_declared_value(s, n, s.text(n)), depth + 1);
  if (t != "array") return std::nullopt;
  std::vector<string> out;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode m = tsnav::named_child(n, i);
    if (Syntax::type(m) != "string") return std::nullopt;
    out.push_back(js_unquoted(s.text(m)));
  }
  return out;
}

/// Are the file's assertion failures named "Error": 1 when it asserts only with jest's `expect`
/// (its JestAssertionError sets no name), 0 when it asserts only with node:assert, chai or
/// vitest (AssertionError), -1 when it mixes them or the rule cannot tell.
int js_failures_named_error(const Syntax& s) {
  const string src = s.src.substr(0, 262144);
  static const rx::regex expect_call(R"(\bexpect\s*\()");
  // An `expect` that is not jest's: chai's, vitest's (also in globals mode, seen by `vi.`), ...
  static const rx::regex other_expect(
      R"((?:from\s*|require\s*\(\s*)['"](?:chai|vitest|expect\.js|unexpected|should)(?:/[\w/]*)?['"]|\bvi\.\w+\s*\()");
  static const rx::regex assert_call(R"(\bassert(?:\.\w+)?\s*\()");
  const bool expects = rx::regex_search(src, expect_call), others = rx::regex_search(src, other_expect),
             asserts = rx::regex_search(src, assert_call);
  if (asserts) return expects && !others ? -1 : 0;
  if (expects) return others ? 0 : 1;
  return -1;
}

/// Does an assertion failure's `name` or `code` equal `lit`: 1 yes (`AssertionError`,
/// `ERR_ASSERTION`), 0 no (`TypeError`, `ENOENT`), -1 not known. `Error` depends on the file:
/// jest's matcher errors are named so, node's and chai's are not (js_failures_named_error). The one reading for
/// `e.name === lit` and `[lits].includes(e.name)`.
int js_assertion_failure_has(const Syntax& s, const string& prop, const string& lit) {
  if (prop == "code") return lit == "ERR_ASSERTION" ? 1 : 0;
  if (lit == "Error") return js_failures_named_error(s);
  return one_of(lit, {"AssertionError", "JestAssertionError", "AssertionFailedError"}) ? 1 : 0;
}

/// A retry loop's last attempt: what `cond` (`i === tries - 1`, `i < tries - 1`, `attempt >= max`)
/// says on the last pass of the `for` loop around it whose condition is `i < N` or `i <= N`: 1
/// true, 0 false, -1 not known (read by offsets from N: on the last pass `i` is N - 1 or N).
int js_on_last_attempt(const Syntax& s, TSNode cond) {
  if (Syntax::type(cond) != "binary_expression") return -1;
  const string op = strip_spaces(s.text(Syntax::field(cond, "operator")));
  if (!one_of(op, {"===", "==", "!==", "!=", ">=", ">", "<=", "<"})) return -1;
  const string l = strip_spaces(s.text(Syntax::field(cond, "left"))), r = strip_spaces(s.text(Syntax::field(cond, "right")));
  for (TSNode p = tsnav::parent(cond); !ts_node_is_null(p); p = tsnav::parent(p)) {
    if (is_function(Syntax::type(p))) return -1;
    if (Syntax::type(p) != "for_statement") continue;
    TSNode c = Syntax::field(p, "condition");
    if (!ts_node_is_null(c) && Syntax::type(c) == "expression_statement" && ts_node_named_child_count(c) == 1) c = tsnav::named_child(c, 0);
    if (ts_node_is_null(c) || Syntax::type(c) != "binary_expression") return -1;
    const string lop = strip_spaces(s.text(Syntax::field(c, "operator")));
    const string i = strip_spaces(s.text(Syntax::field(c, "left"))), n = strip_spaces(s.text(Syntax::field(c, "right")));
    if (lop != "<" && lop != "<=") return -1;
    const long last = lop == "<" ? -1 : 0;  // i on the last pass, as an offset from N
    // A side as an offset from N: `i`, `i + 1`, `N - 1`, `N`; nullopt when it is neither.
    auto offset = [&](const string& x) -> std::optional<long> {
      static const rx::regex form(R"(^([A-Za-z_$][\w$.]*)(?:([+-])([0-9]+))?$)");
      rx::smatch m;
      if (!rx::regex_match(x, m, form)) return std::nullopt;
      const long k = m[2].matched ? (m[2].str() == "+" ? 1 : -1) * std::stol(m[3].str()) : 0;
      if (m[1].str() == i) return last + k;
      if (m[1].str() == n) return k;
      return std::nullopt;
    };
    const auto a = offset(l), b = offset(r);
    if (!a || !b || (l.rfind(i, 0) != 0 && r.rfind(i, 0) != 0)) return -1;
    const bool v = op == "===" || op == "==" ? *a == *b : op == "!==" || op == "!=" ? *a != *b : op == ">=" ? *a >= *b
                 : op == ">" ? *a > *b : op == "<=" ? *a <= *b : *a < *b;
    return v ? 1 : 0;
  }
  return -1;
}

/// Is the catch clause whose body is `h` a retry inside a loop that only ends by returning or
/// throwing (`while (true)`, `for (;;)`), with no `break` or `return` of its own? There a rethrow
/// under any condition is reached in the end: a failure that persists either meets it or loops
/// until the test times out.
bool js_in_endless_retry(const Syntax& s, TSNode h) {
  TSNode clause = tsnav::parent(h);
  if (ts_node_is_null(clause) || Syntax::type(clause) != "catch_clause") return false;
  bool leaves = false;
  walk(h, [&](TSNode n) {
    if (one_of(Syntax::type(n), {"break_statement", "return_statement"})) leaves = true;
    return !leaves && !is_function(Syntax::type(n));
  });
  if (leaves) return false;
  for (TSNode p = tsnav::parent(clause); !ts_node_is_null(p); p = tsnav::parent(p)) {
    const string_view pt = Syntax::type(p);
    if (is_function(pt)) return false;
    if (pt == "for_statement") {
      TSNode c = Syntax::field(p, "condition");
      const string ct = ts_node_is_null(c) ? "" : strip_spaces(s.text(c));
      return ct.empty() || ct == ";" || ct == "true;";
    }
    if (pt == "while_statement" || pt == "do_statement") return strip_spaces(s.text(Syntax::field(p, "condition"))) == "(true)";
  }
  return false;
}

int js_true_of_assertion_failure(const Syntax& s, TSNode cond);

/// What a predicate function `def` of the error says of an assertion failure (1 true, 0 false, -1
/// not known): its returned condition, after declarations only (`const code = e && e.code; return
/// code === 'X'`: the names are read as the error's properties).
int js_predicate_verdict(const Syntax& s, TSNode def) {
  TSNode body = Syntax::field(def, "body");
  if (!ts_node_is_null(body) && Syntax::type(body) == "statement_block" && ts_node_named_child_count(body) >= 1) {
    const uint32_t k = ts_node_named_child_count(body);
    TSNode last = tsnav::named_child(body, k - 1);
    bool declarations = true;
    for (uint32_t i = 0; i + 1 < k; ++i)
      declarations = declarations && one_of(Syntax::type(tsnav::named_child(body, i)), {"lexical_declaration", "variable_declaration", "comment"});
    if (declarations && Syntax::type(last) == "return_statement" && ts_node_named_child_count(last) == 1)
      body = tsnav::named_child(last, 0);
  }
  return ts_node_is_null(body) || Syntax::type(body) == "statement_block" ? -1 : js_true_of_assertion_failure(s, body);
}

/// What a condition in a JavaScript error handler says of an assertion failure (node:assert's and
/// chai's AssertionError, jest's matcher error): 1 true, 0 false, -1 not known. `e instanceof
/// TypeError`, `e.name === 'RangeError'` and `e.code === 'ENOENT'` are false of it; `e instanceof
/// AssertionError` and `e.code === 'ERR_ASSERTION'` true.
int js_true_of_assertion_failure(const Syntax& s, TSNode cond) {
  if (ts_node_is_null(cond)) return -1;
  const string_view t = Syntax::type(cond);
  if (t == "parenthesized_expression" && ts_node_named_child_count(cond) == 1)
    return js_true_of_assertion_failure(s, tsnav::named_child(cond, 0));
  if (t == "unary_expression") {
    if (strip_spaces(s.text(Syntax::field(cond, "operator"))) != "!") return -1;
    const int v = js_true_of_assertion_failure(s, Syntax::field(cond, "argument"));
    return v < 0 ? -1 : 1 - v;
  }
  TSNode h = js_handler_of(cond);
  const string err = js_error_name(s, h);
  if (t == "identifier")  // `if (e)`: an error is an object, so true, unless reassigned (`e = null`); a flag is not known
    return s.text(cond) == err && !js_assigned_before(s, h, err, ts_node_start_byte(cond)) ? 1 : -1;
  if (t == "call_expression") {
    const string callee = strip_spaces(callee_text(s, cond));
    const auto args = argument_nodes(cond);
    // `['ENOENT', 'EEXIST'].includes(e.code)`, `TRANSIENT.includes(e.code)`, `IGNORED.has(e.code)`:
    // a comparison with each member.
    TSNode f = Syntax::field(cond, "function");
    TSNode object = !ts_node_is_null(f) && Syntax::type(f) == "member_expression" ? Syntax::field(f, "object") : TSNode{};
    const string method = callee_last_segment(callee);
    // The message tested for a literal (`e.message.includes('ECONNRESET')`, `/timed out/i.test(e.message)`).
    if (one_of(method, {"includes", "startsWith", "endsWith", "test", "match"}) && args.size() == 1 && !ts_node_is_null(object)) {
      TSNode subject = method == "test" ? args[0] : object;
      TSNode pattern = method == "test" ? object : args[0];
      if (js_error_property(s, subject, err) == "message") {
        string lit = s.text(pattern);
        if (Syntax::type(pattern) == "regex") lit = s.text(Syntax::field(pattern, "pattern"));
        else if (Syntax::type(pattern) == "string") lit = js_unquoted(lit);
        else return -1;
        return js_message_may_hold(s, lit) ? -1 : 0;
      }
    }
    if (one_of(method, {"includes", "has"}) && args.size() == 1 && !ts_node_is_null(object))
      if (const auto members = js_string_members(s, object)) {
      // Any member equal: 1 when one is, 0 when none can be, else not known.
      const string p = js_error_property(s, args[0], err);
      int any = 0;
      for (const string& lit : *members) {
        const int eq = p == "code" || p == "name" ? js_assertion_failure_has(s, p, lit)
                       : !p.empty() && !js_assertion_failure_property(p) ? 0 : -1;
        if (eq == 1) return 1;
        if (eq < 0) any = -1;
      }
      return any;
      }
    // A predicate the file defines (`const isNotFound = (e) => e.code === 'ENOENT'`): its returned condition.
    if (!ts_node_is_null(f) && Syntax::type(f) == "identifier") {
      TSNode def = js_function_named(s, f);
      if (!ts_node_is_null(def)) return js_predicate_verdict(s, def);
    }
    // One a helper module of the project defines (`isErrorWithMessage(e)`, `errors.isTransient(e)`),
    // read there the same way.
    if (s.imported_predicates && !ts_node_is_null(f) && one_of(Syntax::type(f), {"identifier", "member_expression"}))
      if (auto d = s.imported_predicates->find(callee_last_segment(callee)); d != s.imported_predicates->end()) return d->second;
    // A predicate of the error from a library (`axios.isCancel(e)`, `isNotFound(e)`): false of an
    // assertion failure unless every error satisfies it (`isError(e)`).
    const string name = callee_last_segment(callee);
    bool given = false;
    for (TSNode a : args) given = given || (Syntax::type(a) == "identifier" && s.text(a) == err);
    if (!given) return -1;
    if (js_predicate_true_of_any_error(name)) return 1;
    // `_.isMatch(e, { code: 'ERR_ASSERTION' })`, `Object.hasOwn(e, 'actual')`: about what an
    // assertion failure has.
    for (TSNode a : args) {
      const string at = s.text(a);
      if (contains(at, "ERR_ASSERTION") || contains(at, "Assertion")) return -1;
      if (Syntax::type(a) == "string" && js_assertion_failure_property(js_unquoted(at))) return -1;
    }
    static const rx::regex predicate(R"(^(is|has)[A-Z]\w*$)");
    return rx::regex_match(name, predicate) ? 0 : -1;
  }
  if (t != "binary_expression") return -1;
  if (const int last = js_on_last_attempt(s, cond); last >= 0) return last;
  TSNode l = Syntax::field(cond, "left"), r = Syntax::field(cond, "right");
  const string op = strip_spaces(s.text(Syntax::field(cond, "operator")));
  if (op == "&&" || op == "||") {
    const int a = js_true_of_assertion_failure(s, l), b = js_true_of_assertion_failure(s, r);
    if (op == "&&") return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1;
    return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
  }
  // Is an assertion failure of this type: its own class or a base class (1), or another (0)?
  auto of_type = [&](TSNode ty) {
    if (ts_node_is_null(ty) || (Syntax::type(ty) != "identifier" && Syntax::type(ty) != "member_expression")) return -1;
    const string tt = strip_spaces(s.text(ty));
    if (!err.empty() && starts_with(tt, err + ".")) return -1;  // `e instanceof e.constructor`
    if (one_of(callee_last_segment(tt), {"AssertionError", "Error", "Object", "JestAssertionError", "AssertionFailedError"})) return 1;
    // A name the file binds to one (`const { AssertionError: AE } = require('assert')`, `const AE = assert.AssertionError`).
    if (Syntax::type(ty) == "identifier") {
      const rx::regex alias = detail::cached_regex("(?:AssertionError\\s*:\\s*" + tt + "\\b|\\b" + tt + "\\s*=\\s*[\\w$.]*(?:AssertionError|\\bError)\\b)");
      if (rx::regex_search(s.src.substr(0, 262144), alias)) return 1;
    }
    return 0;
  };
  if (op == "instanceof") return of_type(r);
  // `e.statusCode >= 400`, `status < 500`: a property an assertion failure lacks is undefined, and
  // undefined compares false with a number.
  if (one_of(op, {"<", ">", "<=", ">="})) {
    for (auto [x, y] : {std::pair{l, r}, std::pair{r, l}}) {
      const string p = js_error_property(s, x, err);
      if (!p.empty() && !js_assertion_failure_property(p) && Syntax::type(y) == "number") return 0;
    }
    return -1;
  }
  if (op != "===" && op != "==" && op != "!==" && op != "!=") return -1;
  // `typeof e.status === 'number'`: such a property is 'undefined'.
  for (auto [x, y] : {std::pair{l, r}, std::pair{r, l}}) {
    if (Syntax::type(x) != "unary_expression" || strip_spaces(s.text(Syntax::field(x, "operator"))) != "typeof" || Syntax::type(y) != "string")
      continue;
    TSNode arg = Syntax::field(x, "argument");
    const string want = js_unquoted(s.text(y));
    int eq = -1;
    if (!err.empty() && strip_spaces(s.text(arg)) == err) {
      eq = want == "object" ? 1 : 0;  // `typeof e === 'object'`: every error is an object
    } else {
      const string p = js_error_property(s, arg, err);
      if (p.empty()) return -1;
      if (!js_assertion_failure_property(p)) eq = want == "undefined" ? 1 : 0;
      else if (one_of(p, {"message", "stack", "name"})) eq = want == "string" ? 1 : 0;  // every failure has them
      else return -1;
    }
    return op[0] == '!' ? 1 - eq : eq;
  }
  // `e !== null`, `e != undefined`: an error is neither.
  for (auto [x, y] : {std::pair{l, r}, std::pair{r, l}})
    if (!err.empty() && strip_spaces(s.text(x)) == err && one_of(Syntax::type(y), {"null", "undefined"}))
      return op[0] == '!' ? 1 : 0;
  // `e.name === 'TypeError'`, `e['code'] !== 'ENOENT'`, a destructured `code === 'ENOENT'`,
  // `e.constructor === TypeError` (either side).
  auto property_of = [&](TSNode n) -> string {
    if (ts_node_is_null(n)) return "";
    const string_view nt = Syntax::type(n);
    if (nt == "member_expression") return s.text(Syntax::field(n, "property"));
    if (nt == "subscript_expression") {
      string i = strip_spaces(s.text(Syntax::field(n, "index")));
      return js_quoted(i) ? js_unquoted(i) : "";
    }
    if (nt == "identifier" && one_of(s.text(n), {"name", "code", "constructor"})) return s.text(n);
    if (nt == "identifier" && s.text(n) != err && !js_error_property(s, n, err).empty()) return s.text(n);
    return "";
  };
  if (property_of(l).empty()) std::swap(l, r);
  const string prop = property_of(l);
  if (prop.empty() || ts_node_is_null(r)) return -1;
  // Another property of the error than an assertion failure has (`e.status === 404`,
  // `e.response.status`), or its message, against a written-out value: not equal.
  const string eprop = js_error_property(s, l, err);
  const string_view rt = Syntax::type(r);
  const bool written = rt == "number" || rt == "true" || ((rt == "string" || rt == "template_string") && !contains(s.text(r), "${"));
  if (written && !eprop.empty() && eprop == "message" && js_message_may_hold(s, js_unquoted(s.text(r), true))) return -1;
  if (written && !eprop.empty() && (eprop == "message" || !js_assertion_failure_property(eprop)))
    return op[0] == '!' ? 1 : 0;
  int eq = -1;
  if (Syntax::type(r) == "string" || Syntax::type(r) == "template_string") {
    string lit = s.text(r);
    if (lit.size() < 2 || contains(lit, "${")) return -1;
    lit = lit.substr(1, lit.size() - 2);
    if (prop == "name" || prop == "code") eq = js_assertion_failure_has(s, prop, lit);
  } else if (prop == "constructor") {
    eq = of_type(r);
  }
  if (eq < 0) return -1;
  return op[0] == '!' ? 1 - eq : eq;
}

/// Does the statement leave its block without failing (`return;`, `break;`, `continue;`, or a
/// block ending in one)?
bool js_exits(TSNode st) {
  if (ts_node_is_null(st)) return false;
  if (one_of(Syntax::type(st), {"return_statement", "break_statement", "continue_statement"})) return true;
  if (Syntax::type(st) != "statement_block") return false;
  const uint32_t n = ts_node_named_child_count(st);
  return n > 0 && js_exits(tsnav::named_child(st, n - 1));
}

/// Can an assertion failure handed to the handler `h` (a function or a catch body) reach `n`, a
/// throw or a failing call inside it? Not under an `if`/`?:` branch whose condition is false of
/// it (`if (e instanceof TypeError) throw e;`), nor after a plain `return` or an `if (c) return;`
/// whose condition is true of it. Conditions the rule cannot read count as reached.
bool reached_by_assertion_failure(const Syntax& s, TSNode n, TSNode h) {
  // Failing by throwing: a throw, or a call that fails by throwing (`assert.ifError(e)`, `fail(e)`),
  // not one that reports without throwing (`reject(e)`, `done(e)`, `t.error(e)`).
  const bool throws = one_of(Syntax::type(n), {"throw_statement", "throw_expression", "raise_statement"}) ||
                      (is_call(Syntax::type(n)) &&
                       !one_of(callee_name(s, n), {"reject", "done", "cb", "callback", "next", "end", "error", "threw", "Error", "Errorf", "Fail"}));
  for (TSNode x = n; !ts_node_eq(x, h);) {
    TSNode p = tsnav::parent(x);
    if (ts_node_is_null(p)) break;
    const string_view pt = Syntax::type(p);
    // A throw inside a try of the handler's own is caught there (`try { throw e } catch {}`):
    // that catch clause decides.
    if (throws && pt == "try_statement" && ts_node_eq(Syntax::field(p, "body"), x) && !ts_node_is_null(Syntax::field(p, "handler")))
      return false;
    // Strict, as for a catch clause: a branch counts only when its condition is known to hold
    // for an assertion failure.
    if (pt == "if_statement" || pt == "ternary_expression") {
      int v = js_true_of_assertion_failure(s, Syntax::field(p, "condition"));
      if (v < 0 && js_in_endless_retry(s, h)) v = 1;  // `while (true) { ... if (++attempt >= max) throw e; }`
      if (ts_node_eq(x, Syntax::field(p, "consequence")) && v != 1) return false;
      if (ts_node_eq(x, Syntax::field(p, "alternative")) && v != 0) return false;
    }
    if (pt == "switch_case") return false;  // `case 'ENOENT': throw e;`
    if (pt == "binary_expression" && ts_node_eq(x, Syntax::field(p, "right"))) {  // `c && fail(e)`, `c || fail(e)`
      const string op = strip_spaces(s.text(Syntax::field(p, "operator")));
      const int v = js_true_of_assertion_failure(s, Syntax::field(p, "left"));
      if ((op == "&&" && v != 1) || (op == "||" && v != 0)) return false;
    }
    if (pt == "statement_block" || pt == "switch_default")
      for (uint32_t i = 0; i < ts_node_named_child_count(p); ++i) {
        TSNode st = tsnav::named_child(p, i);
        if (ts_node_eq(st, x)) break;
        if (js_exits(st)) return false;
        if (Syntax::type(st) == "if_statement") {  // `if (c) return;`, `if (c) {...} else { return; }`
          const int v = js_true_of_assertion_failure(s, Syntax::field(st, "condition"));
          if (js_exits(Syntax::field(st, "consequence")) && v != 0) return false;
          TSNode alt = Syntax::field(st, "alternative");
          if (!ts_node_is_null(alt) && Syntax::type(alt) == "else_clause" && ts_node_named_child_count(alt) > 0) alt = tsnav::named_child(alt, 0);
          if (!ts_node_is_null(alt) && js_exits(alt) && v != 1) return false;
        }
      }
    x = p;
  }
  return true;
}

/// Does code that receives a failure (a handler function, a catch clause's body) fail on it: a
/// throw/raise or a failing call (`done(err)`, `reject(e)`, `fail`) that an assertion failure
/// reaches? Nested functions are not followed.
bool fails_on_assertion_failure(const Syntax& s, TSNode h, int depth = 0);

/// What a helper module the file imports says of the function `callee` (`fail`, `handleError`,
/// `support.fail`) when handed an assertion failure: fails the test with it (true), drops it
/// (false), or not a helper module's function (nullopt). Methods of the test's context or of an
/// assertion library (`t.fail`, `assert.fail`) are theirs, not a helper's of the same name.
std::optional<bool> imported_reporter(const Syntax& s, TSNode callee) {
  if (!s.imported_reporters || ts_node_is_null(callee)) return std::nullopt;
  const string_view t = Syntax::type(callee);
  if (t == "member_expression") {
    TSNode obj = Syntax::field(callee, "object");
    if (ts_node_is_null(obj) || Syntax::type(obj) != "identifier" ||
        one_of(s.text(obj), {"t", "st", "tt", "tap", "test", "assert", "expect", "chai", "should", "ctx", "context", "done",
                             "sinon", "jest", "vi", "node", "Promise", "console", "process"}))
      return std::nullopt;
  } else if (t != "identifier") {
    return std::nullopt;
  }
  const auto r = s.imported_reporters->find(callee_last_segment(s.text(callee)));
  if (r == s.imported_reporters->end()) return std::nullopt;
  return r->second;
}

/// JavaScript: `callee` is a parameter of a named function the file defines (`function
/// guarded(fn, fail) { ... catch (e) { fail(e) } }`): what the file's calls of that function hand
/// it decides, not its name. False when some call hands a function that drops the failure
/// (`guarded(verify, () => {})`); true when every call hands one that fails, a name not known to
/// drop (`done`, `t.fail`) or nothing (calling `undefined` throws); nullopt when `callee` is no
/// such parameter or the file never calls the function (a promise executor's `reject`).
std::optional<bool> js_parameter_reporter(const Syntax& s, TSNode callee, int depth) {
  if (ts_node_is_null(callee) || Syntax::type(callee) != "identifier" || depth >= 4) return std::nullopt;
  const string name = s.text(callee);
  TSNode fn{}, fallback{};  // the function, and the parameter's default value (`fail = () => {}`)
  std::size_t index = 0;
  for (TSNode p = tsnav::parent(callee); !ts_node_is_null(p) && ts_node_is_null(fn); p = tsnav::parent(p)) {
    if (!is_function(Syntax::type(p))) continue;
    TSNode params = Syntax::field(p, "parameters");
    if (TSNode one = Syntax::field(p, "parameter"); !ts_node_is_null(one)) {
      if (s.text(one) == name) fn = p;
      continue;
    }
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i) {
      TSNode prm = tsnav::named_child(params, i);
      if (one_of(Syntax::type(prm), {"required_parameter", "optional_parameter"})) prm = Syntax::field(prm, "pattern");
      TSNode dflt{};
      if (!ts_node_is_null(prm) && Syntax::type(prm) == "assignment_pattern") {
        dflt = Syntax::field(prm, "right");
        prm = Syntax::field(prm, "left");
      }
      if (!ts_node_is_null(prm) && Syntax::type(prm) == "identifier" && s.text(prm) == name) {
        fn = p;
        index = i;
        fallback = dflt;
        break;
      }
    }
  }
  if (ts_node_is_null(fn)) return std::nullopt;
  TSNode fname = Syntax::field(fn, "name");
  if (TSNode up = tsnav::parent(fn); ts_node_is_null(fname) && !ts_node_is_null(up) && Syntax::type(up) == "variable_declarator")
    fname = Syntax::field(up, "name");
  if (ts_node_is_null(fname) || Syntax::type(fname) != "identifier") return std::nullopt;
  const string wrapper = s.text(fname);
  std::optional<bool> verdict;
  walk(tree_root(fn), [&](TSNode n) {
    if (verdict == false) return false;
    if (Syntax::type(n) != "call_expression") return true;
    TSNode f = Syntax::field(n, "function");
    if (ts_node_is_null(f) || Syntax::type(f) != "identifier" || s.text(f) != wrapper) return true;
    const auto args = argument_nodes(n);
    // What is handed (or the default when nothing is): nothing at all throws when called.
    TSNode a = index < args.size() ? args[index] : fallback;
    bool fails = true;
    if (!ts_node_is_null(a)) {
      const string text = strip_spaces(s.text(a));
      if (TSNode def = js_function_named(s, a); !ts_node_is_null(def))
        fails = ts_node_eq(def, fn) || fails_on_assertion_failure(s, def, depth + 1);
      else if (Syntax::type(a) == "identifier")
        fails = imported_reporter(s, a).value_or(js_parameter_reporter(s, a, depth + 1).value_or(true));
      else if (starts_with(text, "console.") || starts_with(text, "process.stdout.") || starts_with(text, "process.stderr."))
        fails = false;  // `guarded(verify, console.error)`, `console.log.bind(console)`: only logs
    }
    verdict = fails;
    return true;
  });
  return verdict;
}

/// The function a method call's receiver, an object the file builds, gives the method (`const
/// logger = { warn() {} }` for `logger.warn(e)`); `built` says whether the receiver is such a
/// local object at all (an array, a `new` object, a literal without the method: nothing reports).
TSNode js_local_method(const Syntax& s, TSNode member, bool& built) {
  built = false;
  if (ts_node_is_null(member) || Syntax::type(member) != "member_expression") return TSNode{};
  TSNode obj = Syntax::field(member, "object");
  if (ts_node_is_null(obj) || Syntax::type(obj) != "identifier") return TSNode{};
  const string name = s.text(obj), method = s.text(Syntax::field(member, "property"));
  const TSNode root = tree_root(member);
  const TSNode value = js_declared_value(s, member, name);
  if (ts_node_is_null(value) || !one_of(Syntax::type(value), {"object", "array", "new_expression"})) return TSNode{};
  // The method assigned later (`deferred.reject = reject` in a promise executor): not known.
  if (contains(strip_spaces(s.src.substr(0, 262144)), name + "." + method + "=")) return TSNode{};
  if (Syntax::type(value) == "new_expression") {
    // An instance of a class the file defines: its method; of another class: not known.
    const string cls = callee_last_segment(callee_text(s, value));
    TSNode found{};
    walk(root, [&](TSNode d) {
      if (!ts_node_is_null(found)) return false;
      if (one_of(Syntax::type(d), {"class_declaration", "class"}) && s.text(Syntax::field(d, "name")) == cls) {
        TSNode body = Syntax::field(d, "body");
        for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
          TSNode m = tsnav::named_child(body, i);
          if (Syntax::type(m) == "method_definition" && s.text(Syntax::field(m, "name")) == method) found = m;
        }
        if (ts_node_is_null(found)) found = d;  // the class, without that method
      }
      return true;
    });
    if (ts_node_is_null(found)) return TSNode{};
    built = true;
    return Syntax::type(found) == "method_definition" ? found : TSNode{};
  }
  built = true;
  if (Syntax::type(value) != "object") return TSNode{};
  for (uint32_t i = 0; i < ts_node_named_child_count(value); ++i) {
    TSNode m = tsnav::named_child(value, i);
    if (Syntax::type(m) == "method_definition" && s.text(Syntax::field(m, "name")) == method) return m;
    if (Syntax::type(m) == "pair" && js_unquoted(s.text(Syntax::field(m, "key"))) == method) {
      TSNode v = Syntax::field(m, "value");
      if (!ts_node_is_null(v) && is_function(Syntax::type(v))) return v;
    }
  }
  return TSNode{};
}

/// Does the call `n` in an error handler hand the failure on (fail the test with it)? Known
/// reporters: `fail`, `reject`, `t.fail`, `t.error`, `t.threw`, `assert.ifError`, `Promise.reject`,
/// Go's `Fatal`/`panic`; `done`, `cb`, `callback`, `next` and `end` only when given something (without
/// an argument they report success). A function the file defines, or a method of an object it
/// builds (`const logger = { warn() {} }`), is judged by its definition; calls that only convert,
/// log or store a value (`String(e)`, `Promise.resolve(e)`, `errors.push(e)`, `console.error(e)`)
/// do not report. With `given`, any other call handed the error `err` counts (a reporter the rule
/// cannot read).
bool call_reports(const Syntax& s, TSNode n, const string& err, bool given, int depth) {
  const string callee = strip_spaces(callee_text(s, n));
  const string name = callee_last_segment(callee);
  if (starts_with(callee, "console.") || starts_with(callee, "process.stdout.") || starts_with(callee, "process.stderr.")) return false;
  TSNode f = Syntax::field(n, "function");
  if (!ts_node_is_null(f) && Syntax::type(f) == "identifier") {
    if (TSNode def = js_function_named(s, f); !ts_node_is_null(def)) return depth < 4 && fails_on_assertion_failure(s, def, depth + 1);
  }
  bool built = false;
  if (TSNode m = js_local_method(s, f, built); !ts_node_is_null(m)) return depth < 4 && fails_on_assertion_failure(s, m, depth + 1);
  if (built) return false;
  if (const auto r = imported_reporter(s, f)) return *r;
  if (const auto r = js_parameter_reporter(s, f, depth)) return *r;
  const auto args = argument_nodes(n);
  if (one_of(name, {"fail", "reject", "ifError", "threw", "Fatal", "Fatalf", "FailNow", "panic", "Error", "Errorf", "Fail"})) return true;
  if (one_of(name, {"done", "cb", "callback", "next", "end"})) {
    const string a = args.empty() ? "" : strip_spaces(s.text(args[0]));
    return !a.empty() && a[0] != '!' && !one_of(a, {"null", "undefined", "false", "None", "nil", "void0"});
  }
  string object = callee.substr(0, callee.size() - std::min(callee.size(), name.size()));
  if (!object.empty()) object.pop_back();
  // The test's context (`t.error(e)` in tape, `t.fail`): only its failing methods report.
  const bool context = one_of(object, {"t", "st", "tt", "tap", "test", "assert", "ctx", "context"});
  if (name == "error") return context;
  // A check of the error that every error passes (`assert.ok(e)`, `expect(e).toBeDefined()`):
  // it reports nothing. (`expect(e)` alone is the matcher's subject.)
  const bool on_error = !args.empty() && Syntax::type(args[0]) == "identifier" && s.text(args[0]) == err;
  if (callee == "expect" || callee == "assert") return callee == "assert" && !args.empty() && strip_spaces(s.text(args[0])) == "false";
  if (starts_with(callee, "expect(")) {
    const string subject = callee.substr(7, closing_paren(callee, 6) - 7);
    if (subject != err) return true;  // a check of what the error says (`expect(e.message).toBe(...)`)
    const bool negated = contains(callee, ").not.");
    const bool fails = one_of(name, {"toBeUndefined", "toBeNull", "toBeFalsy", "toBe", "toEqual", "toStrictEqual", "toMatchObject"});
    return negated ? !fails : fails;
  }
  if (context) return on_error && one_of(name, {"notOk", "isNotOk", "isUndefined", "isNull", "isFalse", "equal", "strictEqual", "deepEqual",
                                                 "deepStrictEqual", "same", "is", "equals"});
  // Rethrown on a later tick (`process.nextTick(() => { throw e })`, `setTimeout(() => { throw e })`):
  // an uncaught exception while the test runs, which the runner reports as the test's failure.
  if (one_of(name, {"nextTick", "setTimeout", "setImmediate", "queueMicrotask"}) && !args.empty() && is_function(Syntax::type(args[0])) &&
      !err.empty() && (name != "setTimeout" || args.size() == 1 || strip_spaces(s.text(args[1])) == "0") &&
      // (A file that cancels timers may cancel this one: `clearTimeout(t)` before it fires.)
      s.src.find("clearTimeout") == string::npos && s.src.find("clearImmediate") == string::npos) {
    bool rethrows = false;
    walk(args[0], [&](TSNode x) {
      if (Syntax::type(x) == "throw_statement" && ts_node_named_child_count(x) > 0 && s.text(tsnav::named_child(x, 0)) == err &&
          reached_by_assertion_failure(s, x, args[0]))
        rethrows = true;
      return !rethrows && (ts_node_eq(x, args[0]) || !is_function(Syntax::type(x)));
    });
    if (rethrows) return true;
  }
  if (!given || err.empty()) return false;
  // Calls that convert, log or store what they are given.
  if (one_of(callee, {"String", "Number", "Boolean", "Symbol", "BigInt", "Promise.resolve", "Promise.allSettled", "util.inspect",
                      "util.format", "setTimeout", "setImmediate", "queueMicrotask"}) ||
      one_of(object, {"Object", "Array", "JSON", "Math", "Reflect", "util", "console", "logger", "log", "winston", "pino", "debug"}) ||
      one_of(name, {"push", "unshift", "add", "set", "concat", "log", "info", "warn", "debug", "trace", "toString", "includes",
                    "indexOf", "assign", "append", "write", "map", "forEach", "filter", "resolve"}))
    return false;
  for (TSNode a : args)
    if (Syntax::type(a) == "identifier" && s.text(a) == err) return true;
  return false;
}

/// A catch clause's body `h` that stores the error (`lastErr = e`, `failed = e`) rethrown after the
/// try (`throw lastErr` after a retry loop, `if (failed) throw failed` after a `finally`).
bool js_stored_and_rethrown(const Syntax& s, TSNode h, const string& err) {
  TSNode clause = tsnav::parent(h);
  if (err.empty() || ts_node_is_null(clause) || Syntax::type(clause) != "catch_clause") return false;
  std::set<string> stored;
  walk(h, [&](TSNode n) {
    if (Syntax::type(n) == "assignment_expression") {
      TSNode l = Syntax::field(n, "left"), r = Syntax::field(n, "right");
      if (!ts_node_is_null(l) && !ts_node_is_null(r) && Syntax::type(l) == "identifier" && Syntax::type(r) == "identifier" &&
          s.text(r) == err && reached_by_assertion_failure(s, n, h))
        stored.insert(s.text(l));
    }
    return !is_function(Syntax::type(n));
  });
  if (stored.empty()) return false;
  TSNode tries = tsnav::parent(clause);
  TSNode fn = enclosing_function(tries);
  if (ts_node_is_null(fn)) {
    fn = tries;
    while (!ts_node_is_null(tsnav::parent(fn))) fn = tsnav::parent(fn);
  }
  bool rethrown = false;
  walk(fn, [&](TSNode n) {
    if (rethrown) return false;
    if (!ts_node_eq(n, fn) && is_function(Syntax::type(n))) return false;
    if (Syntax::type(n) != "throw_statement" || ts_node_start_byte(n) < ts_node_end_byte(tries)) return true;
    TSNode arg = ts_node_named_child_count(n) > 0 ? tsnav::named_child(n, 0) : TSNode{};
    if (ts_node_is_null(arg) || Syntax::type(arg) != "identifier" || !stored.count(s.text(arg))) return true;
    const string v = s.text(arg);
    // Unconditional, or under `if (v)` / `if (v !== undefined)` only.
    bool plain = true;
    for (TSNode x = n, p = tsnav::parent(n); plain && !ts_node_is_null(p) && !ts_node_eq(x, fn); x = p, p = tsnav::parent(p)) {
      if (Syntax::type(p) == "if_statement") {
        const string c = strip_spaces(s.text(Syntax::field(p, "condition")));
        plain = ts_node_eq(x, Syntax::field(p, "consequence")) &&
                one_of(c, {"(" + v + ")", "(" + v + "!==undefined)", "(" + v + "!=null)", "(" + v + "!==null)", "(" + v + "!=undefined)"});
      }
      if (one_of(Syntax::type(p), {"ternary_expression", "switch_case", "catch_clause"})) plain = false;
    }
    rethrown = plain;
    return true;
  });
  return rethrown;
}

bool fails_on_assertion_failure(const Syntax& s, TSNode h, int depth) {
  const string err = js_error_name(s, h);
  bool fails = false;
  walk(h, [&](TSNode n) {
    const string_view nt = Syntax::type(n);
    if ((one_of(nt, {"throw_statement", "throw_expression", "raise_statement"}) ||
         (is_call(nt) && nt != "new_expression" && call_reports(s, n, err, false, depth))) &&
        reached_by_assertion_failure(s, n, h))
      fails = true;
    return !fails && (ts_node_eq(n, h) || !is_function(nt));
  });
  return fails || js_stored_and_rethrown(s, h, err);
}

/// Does a rejection/exception handler (`.catch(h)`, `.then(_, h)`, `exceptionally(h)`) fail on
/// the failure it receives: a throw/raise or a failing call (`done(err)`, `reject(e)`, `fail`)
/// that an assertion failure reaches (a handler that rethrows only a TypeError drops it)?
bool handler_rethrows(const Syntax& s, TSNode h, const LocalDefs& defs, int depth = 0) {
  const string_view t = Syntax::type(h);
  if (t == "identifier" || t == "member_expression") {
    const string name = callee_last_segment(s.text(h));
    // The file's own function by that name decides (a local no-op `reject` reports nothing).
    if (auto d = defs.functions.find(name); d != defs.functions.end() && Syntax::type(h) == "identifier")
      return depth < 3 && handler_rethrows(s, d->second, defs, depth + 1);
    bool built = false;
    if (TSNode m = js_local_method(s, h, built); !ts_node_is_null(m)) return fails_on_assertion_failure(s, m);
    if (built) return false;
    if (const auto r = imported_reporter(s, h)) return *r;
    if (const auto r = js_parameter_reporter(s, h, depth)) return *r;
    if (one_of(name, {"done", "reject", "fail", "end", "cb", "callback", "next"})) return true;
    return false;
  }
  if (!is_function(t)) return true;  // something computed: not known to drop the failure
  return fails_on_assertion_failure(s, h);
}

/// JavaScript: the try statement (within `n`'s function) whose block holds `n` and whose catch
/// clause drops an assertion failure: no throw or failing call that one reaches. Null otherwise.
TSNode js_try_dropping(const Syntax& s, TSNode n) {
  for (TSNode x = n, p = tsnav::parent(n); !ts_node_is_null(p) && !is_function(Syntax::type(p)); x = p, p = tsnav::parent(p)) {
    if (Syntax::type(p) != "try_statement" || !ts_node_eq(Syntax::field(p, "body"), x)) continue;
    // A `return` (or `break`/`continue`) in `finally` discards the failure whatever the catch does.
    bool finally_exits = false;
    if (TSNode fin = Syntax::field(p, "finalizer"); !ts_node_is_null(fin))
      walk(fin, [&](TSNode f) {
        if (one_of(Syntax::type(f), {"return_statement", "break_statement", "continue_statement"})) finally_exits = true;
        return !finally_exits && !is_function(Syntax::type(f));
      });
    if (finally_exits) return p;
    TSNode handler = Syntax::field(p, "handler");
    if (ts_node_is_null(handler)) continue;  // try/finally: the failure goes on
    TSNode body = Syntax::field(handler, "body");
    if (!ts_node_is_null(body) && !fails_on_assertion_failure(s, body)) return p;
  }
  return TSNode{};
}

/// Does the body of a function the file defines (a wrapper, a decorator, a context manager)
/// drop failures: a try whose handler swallows, a promise rejection handler that does not fail,
/// `contextlib.suppress(AssertionError | Exception)`? Returns the line of the dropping code, 0 when none.
int drops_failures_in(const Syntax& s, TSNode def, const LocalDefs& defs, const TrySwallows& try_swallows) {
  int at = 0;
  walk(def, [&](TSNode n) {
    if (at) return false;
    const string_view t = Syntax::type(n);
    if (one_of(t, {"try_statement", "try_expression"}) && try_swallows(n)) at = Syntax::line(n);
    if (t == "call_expression") {
      TSNode f = Syntax::field(n, "function");
      if (!ts_node_is_null(f) && Syntax::type(f) == "member_expression") {
        TSNode prop = Syntax::field(f, "property");
        const string m = ts_node_is_null(prop) ? "" : s.text(prop);
        const auto args = argument_nodes(n);
        if ((m == "catch" && !args.empty() && !handler_rethrows(s, args[0], defs)) ||
            (m == "then" && args.size() >= 2 && !handler_rethrows(s, args[1], defs)))
          at = Syntax::line(n);
      }
    }
    if (t == "with_statement") {
      const string head = strip_spaces(s.text(n).substr(0, s.text(n).find(':')));
      if (contains(head, "suppress(") &&
          (has_word(head, "AssertionError") || has_word(head, "Exception") || has_word(head, "BaseException")))
        at = Syntax::line(n);
    }
    return at == 0;
  });
  return at;
}

/// The call that receives `fn` (a function value) as an argument, directly or as a keyword
/// argument (`target=check`); null when `fn` is not an argument.
TSNode receiving_call(TSNode fn) {
  TSNode p = tsnav::parent(fn);
  // Kotlin's trailing lambda: call_expression > call_suffix > annotated_lambda > lambda_literal.
  if (!ts_node_is_null(p) && Syntax::type(p) == "annotated_lambda") {
    TSNode suffix = tsnav::parent(p);
    TSNode c = ts_node_is_null(suffix) ? TSNode{} : tsnav::parent(suffix);
    return !ts_node_is_null(c) && Syntax::type(suffix) == "call_suffix" && Syntax::type(c) == "call_expression" ? c : TSNode{};
  }
  while (!ts_node_is_null(p) && Syntax::type(p) == "parenthesized_expression") p = tsnav::parent(p);
  if (!ts_node_is_null(p) && Syntax::type(p) == "keyword_argument") p = tsnav::parent(p);
  if (ts_node_is_null(p) || !one_of(Syntax::type(p), {"argument_list", "arguments", "value_arguments"})) return TSNode{};
  TSNode c = tsnav::parent(p);
  return !ts_node_is_null(c) && is_call(Syntax::type(c)) ? c : TSNode{};
}

/// The node a value is stored into: `x = v`, `let x = v`, `T x = v`, `const x = v` (null when `v`
/// is not the value of a binding).
TSNode binding_target(TSNode value) {
  TSNode up = tsnav::parent(value);
  while (!ts_node_is_null(up) && Syntax::type(up) == "parenthesized_expression") up = tsnav::parent(up);
  if (ts_node_is_null(up)) return TSNode{};
  const string_view ut = Syntax::type(up);
  if (ut == "variable_declarator") return Syntax::field(up, "name");
  if (ut == "assignment" || ut == "assignment_expression") return Syntax::field(up, "left");
  if (ut == "let_declaration") return Syntax::field(up, "pattern");
  return TSNode{};
}

/// The name a function value is bound to: `def check`, `const check = () =>`, `let check = || ...`,
/// `Runnable check = () -> ...`; "" when anonymous.
string bound_name(const Syntax& s, TSNode fn) {
  TSNode nm = Syntax::field(fn, "name");
  if (!ts_node_is_null(nm)) return s.text(nm);
  TSNode left = binding_target(fn);
  return ts_node_is_null(left) || Syntax::type(left) != "identifier" ? "" : s.text(left);
}

/// The unit's text without whitespace (for looking up how a handle or future is used later).
string compact(const Syntax& s, TSNode n) { return strip_spaces(s.text(n)); }

/// The name a call's value is stored in (`h = spawn(...)`, `let h = ...`, `Future<?> f = ...`).
string stored_in(const Syntax& s, TSNode call) {
  TSNode left = binding_target(call);
  return ts_node_is_null(left) ? "" : strip_spaces(s.text(left));
}

bool bare_statement(TSNode n) {
  TSNode up = tsnav::parent(n);
  return !ts_node_is_null(up) && Syntax::type(up) == "expression_statement";
}

/// Python asyncio: a coroutine of the test's handed to a task or to gather. Its failure reaches
/// the test only when the task is awaited (or its result read) and when gather, told to return
/// exceptions as values, has its results read.
string py_async_handoff(const Syntax& s, TSNode call, TSNode unit, const string& name) {
  const string body = s.text(unit);
  // Lines of the unit after the call's line.
  auto lines_after = [&](TSNode n) {
    std::vector<string> out;
    const int from = Syntax::line(n) - Syntax::line(unit);
    int k = 0;
    for (std::size_t p = 0; p <= body.size(); ++k) {
      const auto e = std::min(body.find('\n', p), body.size());
      if (k > from) out.push_back(body.substr(p, e - p));
      p = e + 1;
    }
    return out;
  };
  auto word_at = [&](const string& text, const string& var, std::size_t p) {
    return (p == 0 || !ident_char(text[p - 1])) && (p + var.size() >= text.size() || !ident_char(text[p + var.size()]));
  };
  // A result (a gather list, a task, a done set) is read when a later line raises or inspects what
  // it holds: `raise r`, `isinstance(r, BaseException)`, `.result()`, `.exception()`, or an assert on
  // it beyond its length.
  auto read_later = [&](TSNode n, const string& var) {
    for (const auto& l : lines_after(n)) {
      if (var.empty()) {
        if (contains(l, ".result(") || contains(l, ".exception(")) return true;
        continue;
      }
      bool mentions = false;
      for (auto p = l.find(var); p != string::npos; p = l.find(var, p + 1))
        if (word_at(l, var, p)) mentions = true;
      if (!mentions) continue;
      const string c = strip_spaces(l);
      if (contains(c, "raise") || contains(c, "isinstance(") || contains(c, ".result(") || contains(c, ".exception(") ||
          contains(c, "await" + var))
        return true;
      if (starts_with(c, "assert") && !contains(c, "len(" + var + ")")) return true;
      if (starts_with(c, "return")) return true;  // handed back: read there
      if (starts_with(c, "for")) {
        // Iterated: read when the loop body raises, asserts or inspects what it holds.
        const auto all = lines_after(n);
        const auto at = std::find(all.begin(), all.end(), l);
        const auto indent = l.find_first_not_of(" \t");
        for (auto it = at == all.end() ? all.end() : at + 1; it != all.end(); ++it) {
          const auto ind = it->find_first_not_of(" \t");
          if (ind == string::npos) continue;
          if (ind <= indent) break;
          const string b = strip_spaces(*it);
          if (starts_with(b, "raise") || starts_with(b, "assert") || contains(b, "isinstance(") || contains(b, ".result(") ||
              contains(b, ".exception(") || starts_with(b, "self.assert") || starts_with(b, "pytest.fail("))
            return true;
        }
        continue;
      }
    }
    return false;
  };
  auto awaited_value = [&](TSNode n) {
    TSNode v = tsnav::parent(n);
    if (!ts_node_is_null(v) && Syntax::type(v) == "await") v = tsnav::parent(v);
    return v;
  };
  if (name == "gather" || name == "wait") {
    TSNode up = tsnav::parent(call);
    const bool awaited = !ts_node_is_null(up) && Syntax::type(up) == "await";
    const string args = strip_spaces(s.text(arguments_of(call)));
    if (!awaited && bare_statement(call))
      return "runs in asyncio." + name + "(...) that the test never awaits: its failure stays in the tasks";
    const bool returns_values = name == "wait" || (contains(args, "return_exceptions") && contains(args, "True"));
    if (!returns_values) return "";
    TSNode value = awaited_value(call);
    string var;
    if (!ts_node_is_null(value) && Syntax::type(value) == "assignment") var = strip_spaces(s.text(Syntax::field(value, "left")));
    if (name == "wait") {
      // `done, pending = await asyncio.wait(...)`: the done tasks' results must be read.
      return read_later(call, "") ? ""
                                  : "runs in asyncio.wait(...), which never raises, and the test never reads its tasks' "
                                    "result(): its failure stays in the task";
    }
    if (var.empty() || var == "_" || !read_later(call, var))
      return "runs in asyncio.gather(..., return_exceptions=True) whose results the test never reads: its failure comes "
             "back as a value";
    return "";
  }
  if (!one_of(name, {"create_task", "ensure_future"})) return "";
  // A task group awaits its tasks and re-raises (`async with asyncio.TaskGroup() as tg`).
  const string callee = strip_spaces(callee_text(s, call));
  if (const auto dot = callee.rfind('.'); dot != string::npos) {
    const string owner = callee.substr(0, dot);
    if (contains(strip_spaces(body), "TaskGroup()as" + owner + ":")) return "";
  }
  if (bare_statement(call)) return "runs in an asyncio task the test never awaits: its failure stays in the task";
  const string var = stored_in(s, call);
  if (var.empty()) {
    // Handed on: to gather/wait (judged as those), or somewhere that awaits it.
    for (TSNode p = tsnav::parent(call); !ts_node_is_null(p) && !ts_node_eq(p, unit); p = tsnav::parent(p))
      if (Syntax::type(p) == "call") {
        const string outer = callee_name(s, p);
        if (one_of(outer, {"gather", "wait"})) return py_async_handoff(s, p, unit, outer);
        break;
      }
    return "";
  }
  // The task itself must be awaited or its result read (a done-callback or a cancel is not).
  for (const auto& l : lines_after(call)) {
    for (auto p = l.find(var); p != string::npos; p = l.find(var, p + 1)) {
      if (!word_at(l, var, p)) continue;
      const string rest = strip_spaces(l.substr(p + var.size(), 24));
      if (starts_with(rest, ".add_done_callback(") || starts_with(rest, ".cancel(") || starts_with(rest, ".set_name(") ||
          starts_with(rest, ".get_name(") || starts_with(rest, ".done("))
        continue;
      // Kept in a collection (`background.add(task)`): awaited only if the collection is.
      const string before = strip_spaces(l.substr(0, p));
      if (ends_with(before, ".add(") || ends_with(before, ".append(") || ends_with(before, ".discard(")) {
        const string coll = before.substr(0, before.rfind('.'));
        const string whole = compact(s, unit);
        if (!contains(whole, "gather(*" + coll) && !contains(whole, "wait(" + coll) && !contains(whole, "in" + coll + ":"))
          continue;
      }
      return "";
    }
  }
  return "runs in an asyncio task `" + var + "` the test never awaits: its failure stays in the task";
}

string py_handoff(const Syntax& s, TSNode call, TSNode unit, const string& name) {
  if (string why = py_async_handoff(s, call, unit, name); !why.empty()) return why;
  if (one_of(name, {"call_soon", "call_later", "call_at", "call_soon_threadsafe"}))
    return "is scheduled on the event loop (`" + quote(callee_text(s, call)) +
           "`): its failure goes to the loop's exception handler, never to the test";
  if (one_of(name, {"Thread", "Timer", "Process", "start_new_thread", "start_new"}))
    return "runs in a thread or process (`" + quote(callee_text(s, call)) +
           "`): its assertion failure is printed there and never reaches the test";
  if (name == "run_in_executor") {
    // A future: its exception surfaces only where it is awaited.
    TSNode up = tsnav::parent(call);
    if (!ts_node_is_null(up) && Syntax::type(up) == "await") return "";
    const string var = stored_in(s, call);
    if (!var.empty() && contains(compact(s, unit), "await" + var)) return "";
    if (var.empty() && !bare_statement(call)) return "";  // handed on (gather, wait_for): judged there
    return "runs in loop.run_in_executor(...) whose future the test never awaits: its failure stays in the future";
  }
  if (!one_of(name, {"submit", "apply_async", "map_async"})) return "";
  const string read = name == "submit" ? ".result(" : ".get(";
  TSNode up = tsnav::parent(call);
  if (!ts_node_is_null(up) && Syntax::type(up) == "attribute") {
    TSNode attr = Syntax::field(up, "attribute");
    if (!ts_node_is_null(attr) && ("." + s.text(attr) + "(") == read) return "";
  }
  // The future itself must be read: `fut = ex.submit(f)` then `fut.result()`; a future handed on
  // (a list, as_completed) counts when some result() of the test is read.
  if (!bare_statement(call)) {
    const string body = compact(s, unit), var = stored_in(s, call);
    if (var.empty() ? contains(body, read) : contains(body, var + read)) return "";
  }
  return "is submitted to an executor (`" + quote(callee_text(s, call)) + "`) whose " + read.substr(1) +
         ") the test never reads: its failure stays in the future";
}

string js_handoff(const Syntax& s, TSNode call, const LocalDefs& defs, const string& name) {
  if (!one_of(name, {"then", "catch", "finally"})) return "";
  // Handlers later in the chain catch what this callback throws.
  for (TSNode cur = call;;) {
    TSNode member = tsnav::parent(cur);
    if (ts_node_is_null(member) || Syntax::type(member) != "member_expression") break;
    TSNode obj = Syntax::field(member, "object");
    TSNode outer = tsnav::parent(member);
    if (ts_node_is_null(obj) || !ts_node_eq(obj, cur) || ts_node_is_null(outer) || Syntax::type(outer) != "call_expression") break;
    TSNode prop = Syntax::field(member, "property");
    const string m = ts_node_is_null(prop) ? "" : s.text(prop);
    const auto args = argument_nodes(outer);
    if ((m == "catch" && !args.empty() && !handler_rethrows(s, args[0], defs)) ||
        (m == "then" && args.size() >= 2 && !handler_rethrows(s, args[1], defs)))
      return "runs in a promise chain whose rejection handler (line " + std::to_string(Syntax::line(outer)) +
             ") drops its failure";
    cur = outer;
  }
  return "";
}

/// JavaScript callees that call a function and ignore the promise it returns.
bool js_ignores_returned_promise(const string& callee) {
  return one_of(callee_last_segment(callee), {"forEach", "setTimeout", "setImmediate", "setInterval", "nextTick", "queueMicrotask",
                                       "on", "once", "addListener", "addEventListener", "prependListener"});
}

/// Where a function's returned value goes: "" when the test receives it (the function is the test
/// itself, or one handed to anything else), or why it is lost (handed to a callee that ignores it).
string js_function_result_lost(const Syntax& s, TSNode fn, TSNode unit) {
  if (ts_node_eq(fn, unit)) return "";
  TSNode c = receiving_call(fn);
  if (ts_node_is_null(c)) return "";
  const string callee = strip_spaces(callee_text(s, c));
  if (js_ignores_returned_promise(callee))
    return "runs in a promise returned to `" + quote(callee) + "` (line " + std::to_string(Syntax::line(c)) +
           "), which ignores it: its rejection never fails the test";
  return "";
}

}  // namespace

bool js_catch_fails(const Syntax& s, TSNode catch_body) { return fails_on_assertion_failure(s, catch_body); }

bool js_handler_fails(const Syntax& s, TSNode def) { return fails_on_assertion_failure(s, def); }

int js_predicate_of_assertion_failure(const Syntax& s, TSNode def) {
  TSNode params = Syntax::field(def, "parameters");
  if (ts_node_is_null(params)) params = Syntax::field(def, "parameter");
  if (ts_node_is_null(params)) return -1;
  return js_predicate_verdict(s, def);
}

bool js_settled_outcomes_checked(const Syntax& s, TSNode call, TSNode unit) {
  TSNode up = tsnav::parent(call);
  while (!ts_node_is_null(up) && (Syntax::type(up) == "await_expression" || Syntax::type(up) == "parenthesized_expression"))
    up = tsnav::parent(up);
  if (ts_node_is_null(up) || Syntax::type(up) != "variable_declarator") return false;
  const std::string var = s.text(Syntax::field(up, "name"));
  if (var.empty()) return false;
  // What the unit does after the declaration, compacted.
  const std::string all = s.text(unit);
  const auto from = static_cast<std::size_t>(ts_node_end_byte(up) - ts_node_start_byte(unit));
  const std::string rest = all.substr(std::min(from, all.size()));
  if (!has_word(rest, var)) return false;
  const std::string after = strip_spaces(rest);
  static const rx::regex rethrown(R"(throw[\w$.\[\]]*\.reason\b)");
  static const rx::regex asserted(
      R"((?:expect\([^;]*\.status\)\.(?:toBe|toEqual|toStrictEqual)\(['"]fulfilled['"]\)|assert\w*(?:\.\w+)*\([^;]*\.status,['"]fulfilled['"]\)))");
  // The rethrow must be taken for the rejected ones: under `status === 'rejected'` / `!== 'fulfilled'`.
  static const rx::regex on_rejected(R"(\.status(?:===?['"]rejected['"]|!==?['"]fulfilled['"]))");
  return (rx::regex_search(after, rethrown) && rx::regex_search(after, on_rejected)) || rx::regex_search(after, asserted);
}

namespace {

string js_promise_dropped(const Syntax& s, TSNode p, TSNode unit, int depth = 0);
string js_field_dropped(const Syntax& s, TSNode obj, const string& field, TSNode unit, int depth);
std::optional<string> js_handler_drops(const Syntax& s, TSNode handler, TSNode at);

/// JavaScript: the function a callback argument names: itself when written inline, or the file's
/// definition of the name (`function swallow(p) {...}`, `const swallow = (p) => ...`); null otherwise.
TSNode js_function_named(const Syntax& s, TSNode callback) {
  const string_view t = Syntax::type(callback);
  if (one_of(t, {"arrow_function", "function_expression", "function"})) return callback;
  if (t != "identifier") return TSNode{};
  const string name = s.text(callback);
  const TSNode root = tree_root(callback);
  TSNode found{};
  walk(root, [&](TSNode n) {
    if (!ts_node_is_null(found)) return false;
    const string_view nt = Syntax::type(n);
    if (nt == "function_declaration" && s.text(Syntax::field(n, "name")) == name) found = n;
    if (nt == "variable_declarator" && s.text(Syntax::field(n, "name")) == name) {
      TSNode v = Syntax::field(n, "value");
      if (!ts_node_is_null(v) && one_of(Syntax::type(v), {"arrow_function", "function_expression", "function"})) found = v;
    }
    return true;
  });
  return found;
}

/// JavaScript: why a callback that receives a promise as its parameter `index` (`ps.map((p) =>
/// ...)`, a helper `settle(p)`) drops it: a use that drops its rejection (`p.catch(() => {})`, in
/// any branch), or no use at all. "" when every use keeps it (returned, awaited, handed on).
/// `at` is the call that hands the promise over (for the line in the message). With `field`, the
/// parameter is an object whose `field` holds the promise (`[{ p: check() }].map((o) => o.p...)`).
string js_callback_drops(const Syntax& s, TSNode callback, uint32_t index, TSNode at, TSNode unit, int depth,
                         const string& field = "") {
  if (depth > 8) return "";
  TSNode fn = js_function_named(s, callback);
  if (ts_node_is_null(fn)) return "";
  // The names the parameter binds: `p`, or each name of a pattern (`({ p }) =>`, `([p]) =>`).
  TSNode param{};
  if (index == 0) param = Syntax::field(fn, "parameter");
  if (ts_node_is_null(param)) {
    TSNode params = Syntax::field(fn, "parameters");
    if (ts_node_is_null(params) || ts_node_named_child_count(params) <= index) return "";
    param = tsnav::named_child(params, index);
    if (Syntax::type(param) == "required_parameter") param = Syntax::field(param, "pattern");
  }
  if (ts_node_is_null(param)) return "";
  std::set<string> names;
  if (Syntax::type(param) == "identifier") names.insert(s.text(param));
  else if (!field.empty()) {
    // Only the name the pattern binds to the field: `({ p }) =>`, `({ p: q }) =>`.
    if (Syntax::type(param) != "object_pattern") return "";
    walk(param, [&](TSNode n) {
      const string_view nt = Syntax::type(n);
      if (nt == "shorthand_property_identifier_pattern" && s.text(n) == field) names.insert(s.text(n));
      if (nt == "object_assignment_pattern") {  // `({ p = x }) =>`
        TSNode l = Syntax::field(n, "left");
        if (!ts_node_is_null(l) && s.text(l) == field) names.insert(field);
        return false;
      }
      if (nt == "pair_pattern") {
        TSNode k = Syntax::field(n, "key"), v = Syntax::field(n, "value");
        string kt = ts_node_is_null(k) ? "" : s.text(k);
        kt = js_unquoted(kt);
        if (kt == field && !ts_node_is_null(v) && Syntax::type(v) == "identifier") names.insert(s.text(v));
        return false;
      }
      return ts_node_eq(n, param);
    });
    if (names.empty()) return "runs in a promise handed to a callback (line " + std::to_string(Syntax::line(at)) +
                              ") that never uses it: its rejection never fails the test";
  } else
    walk(param, [&](TSNode n) {
      const string_view nt = Syntax::type(n);
      if (nt == "shorthand_property_identifier_pattern" || nt == "identifier") names.insert(s.text(n));
      if (nt == "pair_pattern") {  // `{ p: q }` binds q
        TSNode v = Syntax::field(n, "value");
        if (!ts_node_is_null(v) && Syntax::type(v) == "identifier") names.insert(s.text(v));
        return false;
      }
      return true;
    });
  if (names.empty()) return "";
  TSNode body = Syntax::field(fn, "body");
  // Stricter than a stored promise: a use that drops it in any branch drops it (`c ? p.catch(()
  // => {}) : p`).
  string first;
  bool used = false;
  if (!ts_node_is_null(body))
    walk(body, [&](TSNode n) {
      if (!first.empty()) return false;
      if (Syntax::type(n) != "identifier" || !names.count(s.text(n))) return true;
      TSNode parent = tsnav::parent(n);
      if (!ts_node_is_null(parent) && Syntax::type(parent) == "member_expression" && ts_node_eq(Syntax::field(parent, "property"), n))
        return true;  // `x.p` is another value
      if (!field.empty() && Syntax::type(param) == "identifier") {
        // The object: its `field` (`o.p`, `o['p']`) is the promise, another field is not; the whole
        // object handed on is not known to drop it.
        string member;
        if (!ts_node_is_null(parent) && Syntax::type(parent) == "member_expression" && ts_node_eq(Syntax::field(parent, "object"), n))
          member = s.text(Syntax::field(parent, "property"));
        else if (!ts_node_is_null(parent) && Syntax::type(parent) == "subscript_expression" && ts_node_eq(Syntax::field(parent, "object"), n)) {
          member = strip_spaces(s.text(Syntax::field(parent, "index")));
          member = js_quoted(member) ? js_unquoted(member) : "\n";  // "\n": computed, not known
        } else {
          used = true;
          return true;
        }
        if (member == "\n") used = true;
        if (member != field) return true;
        used = true;
        first = js_promise_dropped(s, parent, unit, depth + 1);
        return true;
      }
      used = true;
      if (ts_node_eq(n, body)) return true;  // the concise body `(p) => p` hands it on
      // Handed to a function of the file (`(p) => settle(p)`): judged by what that function does.
      if (!ts_node_is_null(parent) && Syntax::type(parent) == "arguments") {
        TSNode call = tsnav::parent(parent);
        TSNode callee = ts_node_is_null(call) ? call : Syntax::field(call, "function");
        if (!ts_node_is_null(callee) && Syntax::type(callee) == "identifier") {
          uint32_t k = 0;
          for (; k < ts_node_named_child_count(parent); ++k)
            if (ts_node_eq(tsnav::named_child(parent, k), n)) break;
          if (!ts_node_is_null(js_function_named(s, callee))) {
            first = js_callback_drops(s, callee, k, call, unit, depth + 1);
            return true;
          }
        }
      }
      first = js_promise_dropped(s, n, unit, depth + 1);
      return true;
    });
  if (!first.empty()) return first;
  if (!used)
    return "runs in a promise handed to a callback (line " + std::to_string(Syntax::line(at)) +
           ") that never uses it: its rejection never fails the test";
  return "";
}

/// JavaScript: the uses of the local `var` in `unit` after its binding `decl`, each judged by
/// `judge`: why that use drops the value, "" when it keeps it, nullopt when it is no use of it.
/// One use that keeps the value keeps it. Nullopt when there is no use; else "" or the first reason.
std::optional<string> js_uses_judged(const Syntax& s, const string& var, TSNode decl, TSNode unit,
                                     const std::function<std::optional<string>(TSNode)>& judge) {
  std::optional<string> first;
  bool consumed = false;
  walk(unit, [&](TSNode n) {
    if (consumed) return false;
    if (Syntax::type(n) != "identifier" || s.text(n) != var || ts_node_start_byte(n) < ts_node_end_byte(decl)) return true;
    const auto why = judge(n);
    if (!why) return true;
    if (why->empty()) consumed = true;
    else if (!first) first = why;
    return true;
  });
  if (consumed) return string();
  return first;
}

/// JavaScript: why a promise held in the field `field` of the object literal `obj` can no longer
/// fail the test, by what is done with the object: a member of an array mapped through a
/// callback, or stored and its field read. "" when the object goes anywhere else.
string js_field_dropped(const Syntax& s, TSNode obj, const string& field, TSNode unit, int depth) {
  if (depth > 8) return "";
  TSNode up = tsnav::parent(obj);
  while (!ts_node_is_null(up) && Syntax::type(up) == "parenthesized_expression") up = tsnav::parent(up);
  if (ts_node_is_null(up)) return "";
  if (Syntax::type(up) == "array") {
    TSNode mem = tsnav::parent(up);
    if (ts_node_is_null(mem) || Syntax::type(mem) != "member_expression" || !ts_node_eq(Syntax::field(mem, "object"), up)) return "";
    TSNode outer = tsnav::parent(mem);
    const string m = s.text(Syntax::field(mem, "property"));
    if (ts_node_is_null(outer) || Syntax::type(outer) != "call_expression") return "";
    const auto args = argument_nodes(outer);
    if (one_of(m, {"map", "flatMap", "forEach"}) && !args.empty()) {
      if (const string why = js_callback_drops(s, args[0], 0, outer, unit, depth, field); !why.empty()) return why;
      return m == "forEach" ? "" : js_promise_dropped(s, outer, unit, depth + 1);
    }
    return "";
  }
  if (Syntax::type(up) != "variable_declarator") return "";
  TSNode nm = Syntax::field(up, "name");
  if (ts_node_is_null(nm) || Syntax::type(nm) != "identifier") return "";
  const string var = s.text(nm);
  // As for a stored promise: one use that keeps it (or hands the whole object on) keeps it.
  const auto why = js_uses_judged(s, var, up, unit, [&](TSNode n) -> std::optional<string> {
    TSNode parent = tsnav::parent(n);
    if (ts_node_is_null(parent) || Syntax::type(parent) != "member_expression" || !ts_node_eq(Syntax::field(parent, "object"), n))
      return string();  // the whole object handed on: not known to drop it
    if (s.text(Syntax::field(parent, "property")) != field) return std::nullopt;
    return js_promise_dropped(s, parent, unit, depth + 1);
  });
  if (!why) return "runs in a promise in the field `" + field + "` of `" + var + "`, which the test never reads: its rejection never fails the test";
  return *why;
}

/// JavaScript: what a rejection handler (`.catch(h)`, `.then(_, h)`) does with an assertion
/// failure: why it drops it, "" when it hands it on (`done(err)`, `reject(e)`, `t.fail`, any
/// call given the error on a path the failure takes, so the chain's end no longer matters), or
/// nullopt when it rethrows it (the chain's end then decides). A handler by name is judged by the
/// file's definition of it; a console call only logs the failure. `at` is the chained call.
std::optional<string> js_handler_drops(const Syntax& s, TSNode handler, TSNode at) {
  const string line = std::to_string(Syntax::line(at));
  if (Syntax::type(handler) == "identifier" || Syntax::type(handler) == "member_expression") {
    if (starts_with(strip_spaces(s.text(handler)), "console."))
      return "runs in a promise whose rejection handler (`" + quote(s.text(handler)) + "`, line " + line + ") only logs its failure";
    bool built = false;
    TSNode def = Syntax::type(handler) == "identifier" ? js_function_named(s, handler) : js_local_method(s, handler, built);
    if (built && ts_node_is_null(def))
      return "runs in a promise whose rejection handler (`" + quote(s.text(handler)) + "`, line " + line + ") drops its failure";
    // A helper module's function is judged by its body there (a `handleError` that only logs); a
    // parameter of a wrapper by what the file's calls of the wrapper hand it.
    if (ts_node_is_null(def)) {
      if (const auto r = imported_reporter(s, handler)) {
        if (*r) return std::nullopt;
        return "runs in a promise whose rejection handler (`" + quote(s.text(handler)) + "`, a helper module's function, line " + line +
               ") drops its failure";
      }
      if (const auto r = js_parameter_reporter(s, handler, 0); r == false)
        return "runs in a promise whose rejection handler (`" + quote(s.text(handler)) + "`, line " + line +
               ") is a parameter some call hands a function that drops its failure";
    }
    // A library's no-op (`_.noop`, `noop` from lodash, `identity`): drops it.
    if (ts_node_is_null(def) && one_of(callee_last_segment(s.text(handler)), {"noop", "identity", "ignore", "stubTrue", "stubFalse",
                                                                         "stubUndefined", "constant", "swallow", "nothing", "F", "T"}))
      return "runs in a promise whose rejection handler (`" + quote(s.text(handler)) + "`, line " + line + ") does nothing with its failure";
    if (ts_node_is_null(def)) return string();  // `done`, `reject`, `t.fail`, a parameter: reports it
    handler = def;
  }
  if (!is_function(Syntax::type(handler))) return string();  // computed: not known to drop it
  TSNode params = Syntax::field(handler, "parameters");
  TSNode param = Syntax::field(handler, "parameter");
  string e = !ts_node_is_null(param) ? s.text(param) : ts_node_is_null(params) ? "" : strip_spaces(s.text(params));
  if (!e.empty() && e.front() == '(') e = e.substr(1, e.find_first_of(",)") - 1);
  bool reported = false;
  walk(handler, [&](TSNode n) {
    if (reported) return false;
    if (Syntax::type(n) == "call_expression" && call_reports(s, n, e, true, 0) && reached_by_assertion_failure(s, n, handler))
      reported = true;
    return ts_node_eq(n, handler) || !is_function(Syntax::type(n));
  });
  if (reported) return string();
  if (fails_on_assertion_failure(s, handler)) return std::nullopt;
  return "runs in a promise whose rejection handler (line " + line + ") drops its failure";
}

/// JavaScript: why the promise `p` (an async function's call) can no longer fail the test: nothing
/// awaits or returns it, or it only reaches Promise.race/any (the first to settle, or the first to
/// fulfil, wins). "" when it is awaited, returned, asserted on (`expect(p).rejects`), handed to
/// Promise.all that is itself consumed, to Promise.allSettled whose outcomes the test checks, or to anything
/// not known to drop it.
string js_promise_dropped(const Syntax& s, TSNode p, TSNode unit, int depth) {
  if (depth > 8) return "";
  TSNode up = tsnav::parent(p);
  while (!ts_node_is_null(up) && Syntax::type(up) == "parenthesized_expression") {
    p = up;
    up = tsnav::parent(up);
  }
  if (ts_node_is_null(up)) return "";
  const string_view ut = Syntax::type(up);
  if (ut == "await_expression" || ut == "yield_expression") {
    // Awaited inside a try whose catch drops the failure (`try { await p } catch {}`).
    if (TSNode t = js_try_dropping(s, up); !ts_node_is_null(t))
      return "runs in a promise awaited inside a try whose catch (line " + std::to_string(Syntax::line(Syntax::field(t, "handler"))) +
             ") drops its failure";
    return "";
  }
  if (ut == "arrow_function") return js_function_result_lost(s, up, unit);  // the concise body: returned
  if (ut == "return_statement") {
    for (TSNode f = tsnav::parent(up); !ts_node_is_null(f); f = tsnav::parent(f))
      if (one_of(Syntax::type(f), {"arrow_function", "function_expression", "function", "function_declaration", "method_definition"}))
        return js_function_result_lost(s, f, unit);
    return "";
  }
  if (ut == "expression_statement")
    return "runs in a promise the test neither awaits nor returns: its rejection never fails the test";
  if (ut == "sequence_expression" || ut == "unary_expression") {
    // `void check()`, `(check(), 0)`: the value is thrown away.
    if (ut == "unary_expression" && !starts_with(strip_spaces(s.text(up)), "void")) return "";
    return "runs in a promise the test throws away (`" + quote(s.text(up).substr(0, 40)) + "`): its rejection never fails the test";
  }
  // A field of an object (`{ p: check() }`): judged by what is done with that field of the object.
  if (ut == "pair" && ts_node_eq(Syntax::field(up, "value"), p)) {
    TSNode key = Syntax::field(up, "key");
    string k = ts_node_is_null(key) ? "" : s.text(key);
    k = js_unquoted(k);
    TSNode obj = tsnav::parent(up);
    return k.empty() || ts_node_is_null(obj) ? "" : js_field_dropped(s, obj, k, unit, depth + 1);
  }
  // `[check()].map(...)`: the array of promises is the receiver of a collection method, or is
  // stored (`const ps = [check()]`) and judged by the uses of its name.
  if (ut == "array") {
    TSNode mem = tsnav::parent(up);
    if (!ts_node_is_null(mem) && Syntax::type(mem) == "member_expression" && ts_node_eq(Syntax::field(mem, "object"), up)) {
      p = up;
      up = mem;
    } else if (!ts_node_is_null(mem) && one_of(Syntax::type(mem), {"variable_declarator", "assignment_expression"})) {
      return js_promise_dropped(s, up, unit, depth + 1);
    }
  }
  const bool subscripted = Syntax::type(up) == "subscript_expression" && ts_node_eq(Syntax::field(up, "object"), p);
  if (Syntax::type(up) == "member_expression" || subscripted) {
    // A chain: `p.then(...)`, `p.catch(...)`, `p['catch'](...)`, `p.finally(...)`: a rejection
    // handler decides (one that hands the error on, `done`, `reject`, or rethrows, reports it; one
    // that drops it loses it), else the chain's end.
    TSNode outer = tsnav::parent(up);
    if (ts_node_is_null(outer) || Syntax::type(outer) != "call_expression") return "";
    TSNode prop = Syntax::field(up, subscripted ? "index" : "property");
    string m = ts_node_is_null(prop) ? "" : s.text(prop);
    if (subscripted) m = js_unquoted(m, true);
    const auto args = argument_nodes(outer);
    // A collection of promises mapped through a callback (`ps.map((p) => p.catch(() => {}))`):
    // each member is what the callback does with its parameter; the mapped collection then goes
    // where the call's value goes.
    if (one_of(m, {"map", "flatMap"}) && !args.empty()) {
      if (const string why = js_callback_drops(s, args[0], 0, outer, unit, depth); !why.empty()) return why;
      return js_promise_dropped(s, outer, unit, depth + 1);
    }
    TSNode handler{};
    if (m == "catch" && !args.empty()) handler = args[0];
    if (m == "then" && args.size() >= 2) handler = args[1];
    if (!ts_node_is_null(handler)) {
      if (const auto why = js_handler_drops(s, handler, outer)) return *why;
    }
    return js_promise_dropped(s, outer, unit, depth + 1);
  }
  TSNode holder = up;
  if (ut == "array") holder = tsnav::parent(up);  // Promise.race([a, b])
  if (!ts_node_is_null(holder) && Syntax::type(holder) == "arguments") {
    TSNode call = tsnav::parent(holder);
    if (ts_node_is_null(call)) return "";
    const string callee = strip_spaces(callee_text(s, call));
    if (callee == "Promise.race") {
      // A race against timeouts that reject is how tests bound a wait; a racer that fulfils
      // (`Promise.resolve()`, a plain delay or sleep) may win and drop the rejection.
      bool fulfils = false;
      if (ut == "array")
        for (uint32_t i = 0; i < ts_node_named_child_count(up); ++i) {
          TSNode other = tsnav::named_child(up, i);
          if (ts_node_eq(other, p)) continue;
          string t = strip_spaces(s.text(other));
          // A call of a function the file defines: judged by its definition (`timeout(ms)` that rejects).
          if (Syntax::type(other) == "call_expression") {
            const string fn = callee_text(s, other);
            if (is_plain_name(fn))
              for (const string& head : {"function " + fn + "(", "function " + fn + " (", "const " + fn + " =", "let " + fn + " ="})
                if (auto at = s.src.find(head); at != string::npos) {
                  t = strip_spaces(s.src.substr(at, 600));
                  break;
                }
          }
          if (starts_with(t, "Promise.resolve(") || (!contains(t, "throw") && !contains(t, "reject") && !contains(t, ".then(")))
            fulfils = true;
        }
      if (!fulfils) return js_promise_dropped(s, call, unit, depth + 1);
      return "runs in a promise handed to Promise.race (line " + std::to_string(Syntax::line(call)) +
             ") with a racer that fulfils: it may settle first, and the rejection is then dropped";
    }
    if (callee == "Promise.any")
      return "runs in a promise handed to Promise.any (line " + std::to_string(Syntax::line(call)) +
             "): any other promise that fulfils drops its rejection";
    // allSettled settles a rejection as a value: dropped unless the test fails on the outcomes.
    if (callee == "Promise.allSettled" && !js_settled_outcomes_checked(s, call, unit))
      return "runs in a promise handed to Promise.allSettled (line " + std::to_string(Syntax::line(call)) +
             "), which settles its rejection as a value the test never checks";
    if (callee == "Promise.all" || callee == "Promise.allSettled") return js_promise_dropped(s, call, unit, depth + 1);
    // `Promise.prototype.catch.call(p, h)`, `.then.call(p, ok, h)`, `.apply(p, [...])`: a chain on p.
    if (ut != "array" && (ends_with(callee, ".catch.call") || ends_with(callee, ".then.call")) && ts_node_eq(tsnav::named_child(holder, 0), p)) {
      const auto call_args = argument_nodes(call);
      const std::size_t h = ends_with(callee, ".catch.call") ? 1 : 2;
      if (call_args.size() > h)
        if (const auto why = js_handler_drops(s, call_args[h], call)) return *why;
      return js_promise_dropped(s, call, unit, depth + 1);
    }
    // Logged: `console.log(p)` neither awaits it nor hands its failure on.
    if (starts_with(callee, "console."))
      return "runs in a promise only handed to `" + quote(callee) + "` (line " + std::to_string(Syntax::line(call)) +
             "), which never awaits it: its rejection never fails the test";
    // `Promise.resolve(p)` is p; `Array.from([p], mapper)` maps like `.map`.
    if (callee == "Promise.resolve" && ut != "array") return js_promise_dropped(s, call, unit, depth + 1);
    if (callee == "Array.from") {
      const auto from_args = argument_nodes(call);
      if (from_args.size() >= 2)
        if (const string why = js_callback_drops(s, from_args[1], 0, call, unit, depth); !why.empty()) return why;
      return js_promise_dropped(s, call, unit, depth + 1);
    }
    // Collected: `pending.push(check())`: the collection must reach an await, a return or Promise.all.
    if (ends_with(callee, ".push") || ends_with(callee, ".add") || ends_with(callee, ".unshift")) {
      const string owner = callee.substr(0, callee.rfind('.'));
      const string rest = strip_spaces(s.text(unit).substr(ts_node_end_byte(call) - ts_node_start_byte(unit)));
      for (const string& use : {"await" + owner, "return" + owner, "(" + owner + ")", "[..." + owner, "(" + owner + ","})
        if (contains(rest, use)) return "";
      return "runs in a promise collected in `" + owner + "` that the test never awaits: its rejection never fails the test";
    }
    // Handed to a function of the file (`settle(check())`): judged by what it does with its parameter.
    TSNode fn = Syntax::field(call, "function");
    if (ut != "array" && !ts_node_is_null(fn) && Syntax::type(fn) == "identifier" && !ts_node_is_null(js_function_named(s, fn))) {
      uint32_t k = 0;
      for (; k < ts_node_named_child_count(holder); ++k)
        if (ts_node_eq(tsnav::named_child(holder, k), p)) break;
      return js_callback_drops(s, fn, k, call, unit, depth + 1);
    }
    // Handed to a helper module's function that drops failures (`await quietly(check())` with
    // `exports.quietly = (p) => p.catch(() => {})` in test-utils.js).
    if (ut != "array" && s.imported_droppers && !ts_node_is_null(fn) && one_of(Syntax::type(fn), {"identifier", "member_expression"}))
      if (auto d = s.imported_droppers->find(callee_last_segment(s.text(fn))); d != s.imported_droppers->end())
        return "runs in a promise handed to " + d->second;
    return "";  // expect(p).rejects, t.rejects(p), assert.rejects(p), a helper: not known to drop it
  }
  // Stored: `const p = check();` then what the test does with `p`.
  string var;
  if (ut == "variable_declarator") {
    TSNode nm = Syntax::field(up, "name");
    if (!ts_node_is_null(nm) && Syntax::type(nm) == "identifier") var = s.text(nm);
  } else if (ut == "assignment_expression") {
    TSNode left = Syntax::field(up, "left");
    if (!ts_node_is_null(left) && Syntax::type(left) == "identifier") var = s.text(left);
  }
  if (var.empty()) return "";
  const auto why = js_uses_judged(s, var, up, unit, [&](TSNode n) -> std::optional<string> {
    TSNode parent = tsnav::parent(n);
    // Another assignment to the name is not a use of this promise.
    if (!ts_node_is_null(parent) && Syntax::type(parent) == "assignment_expression" && ts_node_eq(Syntax::field(parent, "left"), n))
      return std::nullopt;
    return js_promise_dropped(s, n, unit, depth + 1);
  });
  if (!why) return "runs in a promise `" + var + "` the test never awaits: its rejection never fails the test";
  return *why;
}

string rust_handoff(const Syntax& s, TSNode call, TSNode unit, const string& name) {
  if (name != "spawn") return "";
  // Scoped threads (`thread::scope(|s| s.spawn(...))`) re-raise a panic when the scope ends.
  for (TSNode p = tsnav::parent(call); !ts_node_is_null(p) && !ts_node_eq(p, unit); p = tsnav::parent(p))
    if (is_call(Syntax::type(p)) && callee_name(s, p) == "scope") return "";
  const string why = "runs in a spawned thread whose join() result the test drops";
  // How a join result is used: unwrapped (a panic re-raised) or asserted on.
  auto checked = [](const string& use) {
    return starts_with(use, ".unwrap(") || starts_with(use, ".expect(") || starts_with(use, ".unwrap_err(") ||
           starts_with(use, "?");
  };
  // `r` at `at` in the compact body, followed by a check: `r.unwrap()`, `assert!(r.is_ok())`.
  auto checked_at = [&](const string& body, std::size_t at, std::size_t len) {
    const string use = body.substr(at + len, 16);
    if (checked(use)) return true;
    const string before = body.substr(at >= 9 ? at - 9 : 0, at >= 9 ? 9 : at);
    return (starts_with(use, ".is_ok(") || starts_with(use, ".is_err(")) &&
           (ends_with(before, "assert!(") || ends_with(before, "assert!(!"));
  };
  TSNode up = tsnav::parent(call);
  if (!ts_node_is_null(up) && Syntax::type(up) == "field_expression") {
    TSNode field = Syntax::field(up, "field");
    TSNode join = tsnav::parent(up);
    if (ts_node_is_null(field) || s.text(field) != "join" || ts_node_is_null(join)) return "";
    TSNode use = tsnav::parent(join);
    if (ts_node_is_null(use)) return why;
    const string_view ut = Syntax::type(use);
    if (ut == "try_expression") return "";
    if (ut == "field_expression") {
      TSNode f = Syntax::field(use, "field");
      return !ts_node_is_null(f) && checked("." + s.text(f) + "(") ? "" : why;
    }
    if (ut == "expression_statement") return why;
    if (ut == "let_declaration") {
      const string var = stored_in(s, join);
      if (var.empty() || var == "_" || starts_with(var, "_")) return why;
      const string body = compact(s, unit);
      for (auto p = body.find(var); p != string::npos; p = body.find(var, p + 1))
        if ((p == 0 || !ident_char(body[p - 1])) && checked_at(body, p, var.size())) return "";
      return why;
    }
    return "";  // handed on (`assert!(h.join().is_ok())` is a field use above)
  }
  // A stored handle (`let h = spawn(..)`) must itself be joined and checked; one handed on (a
  // vector of handles) counts when some join() of the test is checked.
  const string body = compact(s, unit), var = stored_in(s, call);
  const string join = (var.empty() || var == "_" ? "" : var) + ".join()";
  for (auto p = body.find(join); p != string::npos; p = body.find(join, p + 1))
    if (var.empty() || p == 0 || !ident_char(body[p - 1])) {
      if (checked_at(body, p, join.size())) return "";
      // `let r = h.join();` then `r.unwrap()` / `assert!(r.is_ok())`.
      const auto let = body.rfind("let", p);
      const auto eq = body.rfind('=', p);
      if (!var.empty() && let != string::npos && eq != string::npos && eq + 1 == p && let < eq) {
        string r = body.substr(let + 3, eq - let - 3);
        if (starts_with(r, "mut")) r = r.substr(3);
        for (auto q = body.find(r, p); !r.empty() && r != "_" && q != string::npos; q = body.find(r, q + 1))
          if (!ident_char(body[q - 1]) && checked_at(body, q, r.size())) return "";
      }
    }
  return "runs in a spawned thread that the test never joins and checks";
}

/// Java: a task list handed to `invokeAll`/`invokeAny`: the lambda's call is a collection factory
/// (`List.of(() -> ...)`, `Arrays.asList(...)`), the executor call holds that.
TSNode through_collection_factory(const Syntax& s, TSNode call) {
  if (!one_of(callee_name(s, call), {"of", "asList", "listOf", "mutableListOf", "copyOf", "singletonList"})) return call;
  TSNode outer = receiving_call(call);
  return ts_node_is_null(outer) ? call : outer;
}

/// The test reads a value computed by `call`: a chained call on it, or the variable it is stored
/// in used again (`fs = ex.invokeAll(..)` then `fs.get(0).get()`, `for (Future<?> f : fs) f.get()`).
bool jvm_result_read(const Syntax& s, TSNode call, TSNode unit) {
  if (bare_statement(call)) return false;
  const string name = stored_in(s, call);
  if (name.empty()) return true;  // handed on: chained, iterated, an argument
  const string body = s.text(unit);
  int uses = 0;
  for (auto p = body.find(name); p != string::npos; p = body.find(name, p + 1))
    if ((p == 0 || !ident_char(body[p - 1])) && (p + name.size() >= body.size() || !ident_char(body[p + name.size()]))) ++uses;
  return uses > 1 && contains(body, ".get(");
}

/// Kotlin: `thread { }` (kotlin.concurrent) and a coroutine launched outside the test's structured
/// scope (`GlobalScope.launch { }`, `CoroutineScope(...).launch { }`): the failure goes to an
/// uncaught-exception handler, never to the test. `launch` inside runBlocking/runTest propagates.
string kotlin_handoff(const Syntax& s, TSNode call, const string& name) {
  if (name == "thread") return "runs in a thread started by kotlin.concurrent.thread: its failure goes to the thread's handler, never to the test";
  if (name == "execute") return "is handed to an executor's execute(): its failure goes to the worker thread, never to the test";
  if (!one_of(name, {"launch", "async"})) return "";
  const string callee = strip_spaces(callee_text(s, call));
  if (!starts_with(callee, "GlobalScope.") && !starts_with(callee, "CoroutineScope(") && !contains(callee, "MainScope()")) return "";
  if (name == "async") {
    TSNode up = tsnav::parent(call);
    if (!ts_node_is_null(up) && Syntax::type(up) != "statements" && Syntax::type(up) != "source_file") return "";  // awaited or stored
  }
  return "runs in a coroutine launched outside the test's scope (`" + quote(callee) +
         "`): its failure goes to the scope's exception handler, never to the test";
}

string jvm_handoff(const Syntax& s, TSNode call, TSNode unit, const LocalDefs& defs, const string& name) {
  if (one_of(name, {"of", "asList", "listOf", "mutableListOf", "copyOf", "singletonList"})) {
    TSNode outer = through_collection_factory(s, call);
    if (!ts_node_eq(outer, call) && callee_name(s, outer) == "invokeAll" && !jvm_result_read(s, outer, unit))
      return "is handed to invokeAll() whose futures the test never reads (no get()): its failure stays in the future";
    return "";
  }
  if (Syntax::type(call) == "object_creation_expression" && name == "Thread")
    return "runs in a new Thread: its failure goes to the thread's uncaught-exception handler, never to the test";
  if (name == "execute")
    return "is handed to an executor's execute(): its failure goes to the worker thread, never to the test";
  if (!one_of(name, {"runAsync", "supplyAsync", "submit", "thenRun", "thenAccept", "thenApply", "thenCompose",
                     "thenRunAsync", "thenAcceptAsync", "thenApplyAsync", "schedule"}))
    return "";
  TSNode cur = call;
  for (;;) {
    TSNode outer = tsnav::parent(cur);
    if (ts_node_is_null(outer) || Syntax::type(outer) != "method_invocation") break;
    TSNode obj = Syntax::field(outer, "object");
    if (ts_node_is_null(obj) || !ts_node_eq(obj, cur)) break;
    const string m = callee_text(s, outer);
    const auto args = argument_nodes(outer);
    if (one_of(m, {"exceptionally", "handle", "exceptionallyCompose", "exceptionallyAsync", "handleAsync"}) &&
        (args.empty() || !handler_rethrows(s, args.back(), defs)))
      return "runs in a future whose ." + m + "(...) (line " + std::to_string(Syntax::line(outer)) +
             ") turns its failure into a value";
    if (m == "join" || m == "get") return "";
    cur = outer;
  }
  if (bare_statement(cur)) return "runs in a future the test never joins (no get()/join())";
  const string var = stored_in(s, cur);
  if (var.empty()) return "";  // handed on: allOf(a, b).join(), a list of futures...
  const string body = compact(s, unit);
  if (contains(body, var + ".get(") || contains(body, var + ".join(")) return "";
  return "runs in a future `" + var + "` the test never joins (no get()/join())";
}

/// Why handing the function to `call` drops its failure ("" when not known to).
string call_swallows(const Syntax& s, Lang lang, TSNode call, TSNode unit, const LocalDefs& defs,
                     const TrySwallows& try_swallows) {
  const string text = strip_spaces(callee_text(s, call));
  const string name = callee_last_segment(text);
  // A wrapper the file defines, called by its plain name.
  if (auto d = defs.functions.find(name);
      d != defs.functions.end() && (text == name || text == "self." + name || text == "this." + name))
    if (const int at = drops_failures_in(s, d->second, defs, try_swallows))
      return "is passed through `" + name + "` (defined at line " + std::to_string(Syntax::line(d->second)) +
             "), whose handler at line " + std::to_string(at) + " drops failures";
  // One of a helper module the file imports (`quietly(fn)`, `helpers.quietly(fn)`).
  if (auto d = defs.imported_droppers.find(name); d != defs.imported_droppers.end() && !defs.functions.count(name))
    return "is passed through " + d->second;
  switch (lang) {
    case Lang::python: return py_handoff(s, call, unit, name);
    case Lang::javascript: case Lang::typescript: case Lang::tsx: return js_handoff(s, call, defs, name);
    case Lang::rust: return rust_handoff(s, call, unit, name);
    case Lang::java: return jvm_handoff(s, call, unit, defs, name);
    case Lang::kotlin: return kotlin_handoff(s, call, name);
    default: return "";
  }
}

}  // namespace

int drops_failures(const Syntax& s, TSNode def, const LocalDefs& defs, const TrySwallows& try_swallows) {
  return drops_failures_in(s, def, defs, try_swallows);
}

std::string exit_returns_true(const Syntax& s, TSNode cls) {
  string value;
  walk(cls, [&](TSNode m) {
    if (!value.empty()) return false;
    if (Syntax::type(m) != "function_definition") return true;
    TSNode nm = Syntax::field(m, "name");
    if (ts_node_is_null(nm) || (s.text(nm) != "__exit__" && s.text(nm) != "__aexit__")) return false;
    walk(m, [&](TSNode r) {
      if (!value.empty()) return false;
      if (Syntax::type(r) != "return_statement") return true;
      const string v = strip_spaces(s.text(r).substr(6));
      static const std::set<string, std::less<>> kNoSwallow = {"", "None", "False", "0"};
      if (!kNoSwallow.count(v) && !ends_with(v, "isNone")) value = v;  // `return exc_type is None`: never on a failure
      return false;
    });
    return false;
  });
  return value;
}

LocalDefs collect_local_defs(const Syntax& s, Lang lang, TSNode root) {
  LocalDefs d;
  walk(root, [&](TSNode n) {
    const string_view t = Syntax::type(n);
    auto add = [&](TSNode name, TSNode def) {
      if (!ts_node_is_null(name)) d.functions.emplace(s.text(name), def);
    };
    if (lang == Lang::python) {
      if (t == "function_definition") add(Syntax::field(n, "name"), n);
      if (t == "class_definition") {
        TSNode nm = Syntax::field(n, "name");
        if (!ts_node_is_null(nm)) d.classes.emplace(s.text(nm), n);
      }
    } else if (is_js(lang)) {
      if (t == "function_declaration" || t == "generator_function_declaration" || t == "method_definition")
        add(Syntax::field(n, "name"), n);
      if (t == "variable_declarator") {
        TSNode v = Syntax::field(n, "value");
        if (!ts_node_is_null(v) && one_of(Syntax::type(v), {"arrow_function", "function_expression", "function"}))
          add(Syntax::field(n, "name"), v);
      }
      // CommonJS exports: `exports.quietly = (p) => ...`, `module.exports.quietly = function ...`,
      // `module.exports = { quietly: (p) => ..., fail: quiet }`. What a module exports under a
      // name is what its importers call by that name: the export wins over a local function of
      // the same name (`function fail() { throw ... }` exported as `{ fail: quiet }`).
      if (t == "assignment_expression") {
        TSNode l = Syntax::field(n, "left"), v = Syntax::field(n, "right");
        const string lt = ts_node_is_null(l) ? "" : strip_spaces(s.text(l));
        auto exported = [&](TSNode name, TSNode value) {
          if (ts_node_is_null(name) || ts_node_is_null(value)) return;
          if (one_of(Syntax::type(value), {"arrow_function", "function_expression", "function"}))
            d.functions.insert_or_assign(s.text(name), value);
          else if (Syntax::type(value) == "identifier")
            if (auto f = d.functions.find(s.text(value)); f != d.functions.end()) d.functions.insert_or_assign(s.text(name), f->second);
        };
        if (!ts_node_is_null(v) && Syntax::type(l) == "member_expression" &&
            (starts_with(lt, "exports.") || starts_with(lt, "module.exports.")))
          exported(Syntax::field(l, "property"), v);
        if (!ts_node_is_null(v) && lt == "module.exports" && Syntax::type(v) == "object")
          for (uint32_t i = 0; i < ts_node_named_child_count(v); ++i) {
            TSNode pair = tsnav::named_child(v, i);
            if (Syntax::type(pair) == "pair") exported(Syntax::field(pair, "key"), Syntax::field(pair, "value"));
          }
      }
    } else if (lang == Lang::go) {
      if (t == "function_declaration") add(Syntax::field(n, "name"), n);
      if (t == "import_spec") {
        TSNode alias = Syntax::field(n, "name"), path = Syntax::field(n, "path");
        if (!ts_node_is_null(alias)) d.go_packages.insert(s.text(alias));
        else if (!ts_node_is_null(path)) {
          string p = s.text(path);
          p.erase(std::remove(p.begin(), p.end(), '"'), p.end());
          p.erase(std::remove(p.begin(), p.end(), '`'), p.end());
          d.go_packages.insert(p.substr(p.rfind('/') == string::npos ? 0 : p.rfind('/') + 1));
        }
      }
    } else if (lang == Lang::java || lang == Lang::kotlin) {
      if (t == "method_declaration") add(Syntax::field(n, "name"), n);
    } else if (lang == Lang::rust) {
      if (t == "function_item") add(Syntax::field(n, "name"), n);
    } else if (lang == Lang::cpp && t == "function_definition") {
      // A free function or a method (a fixture's `void ExpectEmit(const std::string& expected)`),
      // not a test macro's body (`TEST(Suite, Name) {...}` parses as a function named TEST).
      TSNode d1 = Syntax::field(n, "declarator");
      while (!ts_node_is_null(d1) && one_of(Syntax::type(d1), {"pointer_declarator", "reference_declarator"}))
        d1 = Syntax::field(d1, "declarator");
      if (!ts_node_is_null(d1) && Syntax::type(d1) == "function_declarator") {
        TSNode nm = Syntax::field(d1, "declarator");
        if (!ts_node_is_null(nm) && one_of(Syntax::type(nm), {"identifier", "field_identifier"}) &&
            !one_of(s.text(nm), {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"}))
          add(nm, n);
      }
    }
    return true;
  });
  return d;
}

std::string handoff_swallows(const Syntax& s, Lang lang, TSNode fn, TSNode unit, const LocalDefs& defs,
                             const TrySwallows& try_swallows) {
  const bool js_async = is_js(lang) && starts_with(s.text(fn), "async");
  if (TSNode c = receiving_call(fn); !ts_node_is_null(c)) {
    if (js_async) {
      // An async callback: its promise goes wherever the callee puts it.
      if (string why = js_function_result_lost(s, fn, unit); !why.empty()) return why;
      if (one_of(callee_name(s, c), {"map", "flatMap"}))
        if (string why = js_promise_dropped(s, c, unit); !why.empty()) return why;
    }
    return call_swallows(s, lang, c, unit, defs, try_swallows);
  }
  if (js_async) {
    // An async function called on the spot: `(async () => { ... })()`.
    TSNode callee = fn, up = tsnav::parent(fn);
    while (!ts_node_is_null(up) && Syntax::type(up) == "parenthesized_expression") {
      callee = up;
      up = tsnav::parent(up);
    }
    if (!ts_node_is_null(up) && Syntax::type(up) == "call_expression" && ts_node_eq(Syntax::field(up, "function"), callee))
      return js_promise_dropped(s, up, unit);
  }
  const string name = bound_name(s, fn);
  if (name.empty()) return "";
  if (js_async) {
    // A named async function: every promise it makes must reach the test.
    string first;
    bool consumed = false, called = false;
    walk(unit, [&](TSNode n) {
      if (consumed) return false;
      if (Syntax::type(n) != "call_expression") return true;
      TSNode f = Syntax::field(n, "function");
      if (ts_node_is_null(f) || Syntax::type(f) != "identifier" || s.text(f) != name) return true;
      called = true;
      const string why = js_promise_dropped(s, n, unit);
      if (why.empty()) consumed = true;
      else if (first.empty()) first = why;
      return true;
    });
    if (called && !consumed) return first;
  }
  // A named function: wherever the unit hands it on by name.
  string why;
  walk(unit, [&](TSNode n) {
    if (!why.empty()) return false;
    if (Syntax::type(n) == "identifier" && s.text(n) == name && !(ts_node_start_byte(n) >= ts_node_start_byte(fn) &&
                                                                   ts_node_end_byte(n) <= ts_node_end_byte(fn))) {
      if (TSNode c = receiving_call(n); !ts_node_is_null(c)) why = call_swallows(s, lang, c, unit, defs, try_swallows);
      // Python: the coroutine it makes handed on (`asyncio.create_task(check())`, `gather(check(), ...)`).
      TSNode made = tsnav::parent(n);
      if (why.empty() && lang == Lang::python && !ts_node_is_null(made) && Syntax::type(made) == "call" &&
          ts_node_eq(Syntax::field(made, "function"), n) && starts_with(s.text(fn), "async"))
        if (TSNode c = receiving_call(made); !ts_node_is_null(c)) why = py_async_handoff(s, c, unit, callee_name(s, c));
    }
    return true;
  });
  return why;
}

std::set<std::string> functions_passed(const Syntax& s, TSNode unit, const LocalDefs& defs) {
  std::set<std::string> out;
  walk(unit, [&](TSNode n) {
    if (Syntax::type(n) == "identifier" && defs.functions.count(s.text(n)) && !ts_node_is_null(receiving_call(n)))
      out.insert(s.text(n));
    return true;
  });
  return out;
}

namespace {

/// JavaScript: does the function `value` (an async function, or one whose returns hand on such a
/// promise: `function run() { return check(); }`, `() => check().then(...)`, `new Promise(...)`)
/// return a promise? Followed through the file's functions, at most 6 levels.
bool js_returns_promise(const Syntax& s, TSNode value, const LocalDefs& defs, int depth = 0) {
  if (ts_node_is_null(value) || depth > 6) return false;
  if (starts_with(s.text(value), "async")) return true;
  // A returned expression: a call of a promise-returning function of the file, through .then/.catch/.finally.
  TSNode fn_body = Syntax::field(value, "body");
  std::function<bool(TSNode, int)> promise_value = [&](TSNode e, int hops) -> bool {
    while (!ts_node_is_null(e) && Syntax::type(e) == "parenthesized_expression") e = tsnav::named_child(e, 0);
    if (ts_node_is_null(e)) return false;
    // `const p = check(); return p;`: the local's value.
    if (Syntax::type(e) == "identifier" && hops < 4 && !ts_node_is_null(fn_body)) {
      const string name = s.text(e);
      bool found = false;
      // Declared with it or assigned later (`let p; p = check(); return p;`): any value it is given.
      walk(fn_body, [&](TSNode d) {
        if (found) return false;
        if (Syntax::type(d) == "variable_declarator" && s.text(Syntax::field(d, "name")) == name) {
          if (promise_value(Syntax::field(d, "value"), hops + 1)) found = true;
        } else if (Syntax::type(d) == "assignment_expression" && strip_spaces(s.text(Syntax::field(d, "left"))) == name) {
          if (promise_value(Syntax::field(d, "right"), hops + 1)) found = true;
        }
        return !found;
      });
      return found;
    }
    if (Syntax::type(e) == "new_expression") return strip_spaces(s.text(Syntax::field(e, "constructor"))) == "Promise";
    // A promise inside the returned value (`[check()][0]`, `check() ?? null`, `ok ? check() : null`,
    // `(log(), check())`): whatever part the expression yields may be it. Awaited parts are consumed.
    if (one_of(Syntax::type(e), {"array", "subscript_expression", "binary_expression", "ternary_expression", "sequence_expression",
                                 "object", "pair", "spread_element", "member_expression"}) && hops < 8) {
      for (uint32_t i = 0; i < ts_node_named_child_count(e); ++i) {
        TSNode c = tsnav::named_child(e, i);
        if (one_of(Syntax::type(c), {"await_expression", "arrow_function", "function_expression", "function"})) continue;
        if (promise_value(c, hops + 1)) return true;
      }
      return false;
    }
    if (Syntax::type(e) == "call_expression") {
      TSNode f = Syntax::field(e, "function");
      if (ts_node_is_null(f)) return false;
      if (Syntax::type(f) == "identifier") {
        auto it = defs.functions.find(s.text(f));
        if (it == defs.functions.end()) return false;
        TSNode v = it->second;
        if (Syntax::type(v) == "variable_declarator") v = Syntax::field(v, "value");
        return !ts_node_eq(v, value) && js_returns_promise(s, v, defs, depth + 1);
      }
      if (Syntax::type(f) != "member_expression") return false;
      const string obj = strip_spaces(s.text(Syntax::field(f, "object")));
      const string prop = s.text(Syntax::field(f, "property"));
      if (obj == "Promise" && one_of(prop, {"resolve", "reject", "all", "allSettled", "race", "any"})) return true;
      // `.then(...)` / `.catch(...)` / `.finally(...)` give a promise whatever they are called on
      // (an imported async function's result included).
      return one_of(prop, {"then", "catch", "finally"});
    }
    return false;
  };
  TSNode body = fn_body;
  if (ts_node_is_null(body)) return false;
  if (Syntax::type(body) != "statement_block") return promise_value(body, 0);  // a concise arrow body
  bool found = false;
  walk(body, [&](TSNode n) {
    if (found) return false;
    const string_view t = Syntax::type(n);
    if (one_of(t, {"arrow_function", "function_expression", "function", "function_declaration", "method_definition"})) return false;
    if (t == "return_statement" && ts_node_named_child_count(n) > 0 && promise_value(tsnav::named_child(n, 0), 0)) found = true;
    return !found;
  });
  return found;
}

}  // namespace

std::string helper_handed_off(const Syntax& s, Lang lang, TSNode unit, const std::string& name, TSNode def,
                              const LocalDefs& defs, const TrySwallows& try_swallows) {
  // The helper's own definition and nested definitions of the same name are not references.
  if (ts_node_start_byte(def) >= ts_node_start_byte(unit) && ts_node_end_byte(def) <= ts_node_end_byte(unit)) return "";
  const bool coroutine = lang == Lang::python && starts_with(s.text(def), "async");
  // JavaScript: `async function check()`, `const check = async () => ...` (the value node).
  TSNode value = def;
  if (Syntax::type(value) == "variable_declarator") value = Syntax::field(def, "value");
  const bool js_async = is_js(lang) && !ts_node_is_null(value) && js_returns_promise(s, value, defs);
  string first;
  bool direct = false, any = false;
  walk(unit, [&](TSNode n) {
    if (direct) return false;
    if (Syntax::type(n) != "identifier" || s.text(n) != name) return true;
    TSNode up = tsnav::parent(n);
    // `self.name` / `obj.name`: an attribute of something else, unless the helper is a method.
    if (!ts_node_is_null(up) && Syntax::type(up) == "attribute" && ts_node_eq(Syntax::field(up, "attribute"), n)) return false;
    // In a branch that never runs (`if False:`, `if 0:`): not a reference at all.
    for (TSNode a = up; !ts_node_is_null(a) && !ts_node_eq(a, unit); a = tsnav::parent(a))
      if (one_of(Syntax::type(a), {"if_statement", "while_statement"})) {
        TSNode cond = Syntax::field(a, "condition");
        const string c = ts_node_is_null(cond) ? "" : strip_spaces(s.text(cond));
        if (one_of(c, {"False", "0", "None", "false", "(false)", "(0)"})) return false;
      }
    any = true;
    string why;
    // Inside a lambda or nested function of the test: it runs only when that function does.
    for (TSNode a = up; !ts_node_is_null(a) && !ts_node_eq(a, unit); a = tsnav::parent(a))
      if (one_of(Syntax::type(a), {"lambda", "function_definition", "arrow_function", "function_expression"})) {
        why = handoff_swallows(s, lang, a, unit, defs, try_swallows);
        if (!why.empty()) {
          if (first.empty()) first = why;
          return false;
        }
        break;
      }
    if (js_async && !ts_node_is_null(up) && Syntax::type(up) == "call_expression" && ts_node_eq(Syntax::field(up, "function"), n)) {
      why = js_promise_dropped(s, up, unit);
    } else if (TSNode rc = js_async ? receiving_call(n) : TSNode{}; !ts_node_is_null(rc) &&
                                                                     js_ignores_returned_promise(strip_spaces(callee_text(s, rc)))) {
      why = "is handed to `" + quote(strip_spaces(callee_text(s, rc))) + "`, which ignores the promise it returns: its rejection never fails the test";
    } else if (!ts_node_is_null(up) && Syntax::type(up) == "call" && ts_node_eq(Syntax::field(up, "function"), n)) {
      if (!coroutine) {
        direct = true;  // called: its checks run here
        return false;
      }
      // A coroutine: it runs only when awaited, or where it is handed on.
      TSNode outer = tsnav::parent(up);
      while (!ts_node_is_null(outer) && Syntax::type(outer) == "parenthesized_expression") outer = tsnav::parent(outer);
      if (!ts_node_is_null(outer) && Syntax::type(outer) == "await") {
        direct = true;
        return false;
      }
      if (TSNode c = receiving_call(up); !ts_node_is_null(c)) {
        why = call_swallows(s, lang, c, unit, defs, try_swallows);
      } else if (bare_statement(up)) {
        why = "makes a coroutine the test never awaits: it never runs";
      }
    } else if (TSNode c = receiving_call(n); !ts_node_is_null(c)) {
      // `functools.partial(check, ...)`: the partial goes where the helper would.
      if (callee_name(s, c) == "partial")
        if (TSNode outer = receiving_call(c); !ts_node_is_null(outer)) c = outer;
      why = call_swallows(s, lang, c, unit, defs, try_swallows);
    }
    if (why.empty()) {
      direct = true;  // used some other way: assume its checks reach the test
      return false;
    }
    if (first.empty()) first = why;
    return false;
  });
  return direct || !any ? "" : first;
}

std::string with_swallows(const Syntax& s, TSNode with_stmt, const LocalDefs& defs, const TrySwallows& try_swallows) {
  TSNode body = Syntax::field(with_stmt, "body");
  string why;
  walk(with_stmt, [&](TSNode n) {
    if (!why.empty() || (!ts_node_is_null(body) && ts_node_eq(n, body))) return false;
    const bool plain = Syntax::type(n) == "identifier" && Syntax::type(tsnav::parent(n)) != "call" &&
                       Syntax::type(tsnav::parent(n)) != "attribute";
    if (Syntax::type(n) != "call" && !plain) return true;
    const string name = Syntax::type(n) == "call" ? callee_name(s, n) : s.text(n);
    if (auto c = defs.classes.find(name); c != defs.classes.end()) {
      if (const string v = exit_returns_true(s, c->second); !v.empty())
        why = "runs under `" + name + "`, whose __exit__ returns `" + quote(v) + "`: a true value drops the block's failure";
    } else if (auto f = defs.functions.find(name); f != defs.functions.end()) {
      // A @contextmanager generator whose `yield` sits in a handler that swallows.
      if (const int at = drops_failures_in(s, f->second, defs, try_swallows))
        why = "runs under `" + name + "` (defined at line " + std::to_string(Syntax::line(f->second)) +
              "), whose handler at line " + std::to_string(at) + " drops failures";
    } else if (auto imp = defs.imported_droppers.find(name); imp != defs.imported_droppers.end()) {
      why = "runs under " + imp->second;
    }
    return false;
  });
  return why;
}

std::string decorator_swallows(const Syntax& s, Lang lang, const std::string& decorator, const LocalDefs& defs,
                               const TrySwallows& try_swallows) {
  if (lang != Lang::python) return "";
  string d = strip_spaces(decorator);
  if (starts_with(d, "@")) d = d.substr(1);
  d = d.substr(0, d.find('('));
  const string name = callee_last_segment(d);
  // A function, or a class whose __call__/__init__ wraps the test.
  TSNode def{};
  if (auto f = defs.functions.find(name); f != defs.functions.end()) def = f->second;
  else if (auto c = defs.classes.find(name); c != defs.classes.end()) def = c->second;
  if (ts_node_is_null(def)) {
    auto imp = defs.imported_droppers.find(name);
    return imp == defs.imported_droppers.end() ? "" : "runs under the decorator " + imp->second;
  }
  const int at = drops_failures_in(s, def, defs, try_swallows);
  if (!at) return "";
  return "runs under the decorator `@" + name + "` (defined at line " + std::to_string(Syntax::line(def)) +
         "), whose handler at line " + std::to_string(at) + " drops failures";
}

std::string receiver_reassigned(const Syntax& s, Lang lang, TSNode check, TSNode unit) {
  // The receiver of the check: t in t.Errorf, self in self.assertEqual.
  TSNode recv{};
  const string_view ct = Syntax::type(check);
  if (ct == "method_invocation") {
    recv = Syntax::field(check, "object");
  } else if (ct == "call" || ct == "call_expression") {
    TSNode f = Syntax::field(check, "function");
    if (!ts_node_is_null(f)) {
      const string_view ft = Syntax::type(f);
      if (ft == "attribute" || ft == "member_expression") recv = Syntax::field(f, "object");
      else if (ft == "selector_expression") recv = Syntax::field(f, "operand");
      else if (ft == "field_expression") recv = Syntax::field(f, "value");
    }
  }
  if (ts_node_is_null(recv) || Syntax::type(recv) != "identifier") return "";
  const string r = s.text(recv);
  // The function whose parameter it is.
  TSNode binder{};
  for (TSNode p = tsnav::parent(check); !ts_node_is_null(p); p = tsnav::parent(p)) {
    if (is_function(Syntax::type(p))) {
      TSNode params = Syntax::field(p, "parameters");
      if (ts_node_is_null(params)) params = Syntax::field(p, "parameter");
      if (!ts_node_is_null(params) && has_word(s.text(params), r)) {
        binder = p;
        break;
      }
    }
    if (ts_node_eq(p, unit)) break;
  }
  if (ts_node_is_null(binder)) return "";
  TSNode params = Syntax::field(binder, "parameters");
  if (ts_node_is_null(params)) params = Syntax::field(binder, "parameter");
  string why;
  walk(binder, [&](TSNode n) {
    if (!why.empty() || ts_node_start_byte(n) >= ts_node_start_byte(check)) return false;
    if (!ts_node_is_null(params) && ts_node_eq(n, params)) return false;
    const string_view t = Syntax::type(n);
    TSNode left{};
    if (one_of(t, {"assignment", "assignment_expression", "assignment_statement", "short_var_declaration"}))
      left = Syntax::field(n, "left");
    else if (t == "variable_declarator") left = Syntax::field(n, "name");
    else if (t == "let_declaration") left = Syntax::field(n, "pattern");
    else if (t == "var_spec") left = Syntax::field(n, "name");
    if (!ts_node_is_null(left) && strip_spaces(s.text(left)) == r) {
      TSNode owner = enclosing_function(n);
      if (!ts_node_is_null(owner) && ts_node_eq(owner, binder))
        why = "reports through `" + r + "`, which the test replaced at line " + std::to_string(Syntax::line(n)) + " (`" +
              quote(s.text(n).substr(0, s.text(n).find('\n'))) + "`): its failures go to an object no runner reads";
    }
    return why.empty();
  });
  (void)lang;
  return why;
}

void fresh_tester_rules(const RuleContext& c, Findings& out) {
  if (c.lang != Lang::go || !c.test_file || !c.file.after) return;
  static const rx::regex fresh(R"((?:&\s*testing\.(?:T|B|F)\s*\{|new\s*\(\s*testing\.(?:T|B|F)\s*\)|[^*\w.]testing\.(?:T|B|F)\s*\{\s*\}))");
  for (const auto& [n, line] : added_lines(c.file.before, c.file.after)) {
    const string code = line.substr(0, line.find("//"));
    if (rx::regex_search(code, fresh))
      out.push_back({"assertion_swallowed", c.file.path, n,
                     "test code makes a testing.T of its own (" + quote(trim(line)) +
                         "): what fails through it goes to an object no runner reads"});
  }
}

}  // namespace flowagent::integrity
