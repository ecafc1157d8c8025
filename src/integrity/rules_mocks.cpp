// mocked_code_under_test: test-side code the patch adds that replaces production code the failing
// tests exercise with a stand-in (monkeypatch.setattr, mock.patch / patch.object / mocker.patch,
// an autouse fixture doing so in conftest.py, jest.mock / vi.mock of a project module,
// jest.spyOn(...).mockReturnValue, a Go function-variable swap, a gmock subclass of the class
// under test, Mockito mock/spy of it). A target is production code when
//   (1) its name is defined in a production file of the developer's change or of the patch, or
//   (2) it lives in a project module (a file of the project, not a third-party or standard module)
//       and the test file itself uses that name (the test exercises it), or the whole project
//       module the test imports is mocked.
// Mocks of external dependencies (network, time, randomness, environment, third-party and standard
// modules, globals such as Date or Math) are accepted, and so are project modules the test does not
// exercise directly (a service's test may mock the project's own database wrapper).
#include <algorithm>
#include <map>
#include <memory>
#include <span>
#include <set>
#include <utility>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/regex_cache.hpp"

namespace flowagent::integrity {

bool external_looking(std::string_view name) {
  std::string l;
  for (char ch : name) l += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // (and the terminal and machine the code runs on: faking a tty is how tests reach the interactive paths)
  static constexpr std::string_view kWords[] = {"now", "time", "clock", "sleep", "rand", "uuid", "http", "request", "fetch",
                                                "net", "dial", "socket", "url", "env", "getenv", "date", "today", "timer",
                                                "isatty", "tty", "terminal", "getuser", "hostname", "cpu_count", "getpid"};
  return std::any_of(std::begin(kWords), std::end(kWords), [&](auto w) { return contains(l, w); });
}

namespace {

/// The words of an identifier (`_mail_backend` -> mail, backend; `httpClient` -> http, client), lower case.
std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> out;
  std::string w;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '_' || !std::isalnum(static_cast<unsigned char>(c))) {
      if (!w.empty()) out.push_back(std::exchange(w, {}));
      continue;
    }
    if (std::isupper(static_cast<unsigned char>(c)) && !w.empty() && std::islower(static_cast<unsigned char>(name[i - 1])))
      out.push_back(std::exchange(w, {}));
    w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

/// An attribute that holds a collaborator rather than a value the code computes with: a logger, a
/// backend, a client or session, a connection, a mailer (`patch.object(Mailer, "backend", Echo())`,
/// `patch.object(Calc, "log")`): the code under test still runs; replacing one is dependency
/// injection, as with an external module.
bool dependency_looking(std::string_view name) {
  static constexpr std::string_view kWords[] = {"log",     "logger",  "logging",    "backend", "client", "session", "transport",
                                                "mailer",  "smtp",    "connection", "conn",    "db",     "database", "storage",
                                                "notifier", "gateway", "emitter",   "publisher", "bus",   "queue",   "executor"};
  // The last word names what it is (`mail_backend`, `httpClient`; not `client_fee`).
  const auto words = name_words(name);
  return !words.empty() && std::find(std::begin(kWords), std::end(kWords), words.back()) != std::end(kWords);
}

/// The line empties a container: `calc._CACHE.clear()`, `patch.object(Registry, "_cache", {})`,
/// `monkeypatch.setattr(calc, "_registry", {})`, `calc._seen = set()`.
bool emptied(const std::string& line) {
  // The code, not a comment (`calc._cache[k] = 4  # then calc._cache.clear()`).
  const std::string code = python_without_comment(line);
  // One statement: `calc._cache[k] = 4; calc._cache.clear()` seeds as well as empties.
  if (code.find(';') != std::string::npos) return false;
  const std::string flat = strip_spaces(code);
  static const rx::regex empty(
      R"(\.clear\(\)$|(?:,|=)(?:\{\}|\[\]|dict\(\)|set\(\)|list\(\)|(?:collections\.)?OrderedDict\(\)|(?:weakref\.)?Weak(?:Value|Key)Dictionary\(\)|(?:collections\.)?(?:Counter|deque)\(\))\)*(?:as\w+)?:?$)");
  return rx::regex_search(flat, empty);
}

/// A pacing call's argument that is the delay itself, scaled or bounded (`RETRY_DELAY`,
/// `RETRY_DELAY * 2 ** n`, `min(RETRY_DELAY * 2**n, MAX)`), not a value computed from it by
/// another call (`fee(x, RATE)`).
bool pacing_argument(const std::string& arg, const std::string& name) {
  if (!has_word(arg, name)) return false;
  static const rx::regex call(R"(([A-Za-z_][\w.]*)\s*\()");
  static const std::set<std::string, std::less<>> kBounds = {"min", "max", "float", "int", "abs", "Duration", "time.Duration"};
  for (rx::sregex_iterator it(arg.begin(), arg.end(), call), e; it != e; ++it)
    if (!kBounds.count((*it)[1].str())) return false;
  return true;
}

/// A line that reads `name` only to pace the code: an argument of a sleep, a timer or a wait
/// (`time.sleep(RETRY_DELAY)`, `setTimeout(f, POLL_MS)`, `event.wait(timeout=TIMEOUT)`).
bool paces(const std::string& line, const std::string& name) {
  static const rx::regex call(
      R"(\b(?:sleep|Sleep|wait|wait_for|waitFor|setTimeout|setInterval|delay|timeout|Timeout|After|NewTimer|NewTicker)\s*\()"
      R"(|\btimeout\s*=)");
  // Logging the delay changes nothing either (`log.info("retrying in %s s", RETRY_DELAY)`).
  static const rx::regex logging(R"(^\s*(?:(?:log|logger|logging|LOG|LOGGER|console|self\.log|self\.logger)\s*\.\s*\w+|print|warnings\s*\.\s*warn)\s*\()");
  if (rx::regex_search(line, logging)) return true;
  // The name is the pacing argument itself (or a plain product with it: `RETRY_DELAY * 2 ** n`),
  // not something computed from it by a call (`wait_for(fee(x, RATE), timeout=5)`), and no
  // other mention of it sits outside that argument.
  std::size_t inside = 0;
  for (rx::sregex_iterator it(line.begin(), line.end(), call), e; it != e; ++it) {
    std::size_t i = static_cast<std::size_t>(it->position() + it->length());
    int depth = 0;
    std::string arg;
    for (; i < line.size(); ++i) {
      const char ch = line[i];
      if (ch == '(' || ch == '[') ++depth;
      if ((ch == ')' || ch == ']') && depth-- == 0) break;
      if (ch == ',' && depth == 0) break;
      arg += ch;
    }
    if (!has_word(arg, name)) continue;
    if (!pacing_argument(arg, name)) return false;
    for (auto at = arg.find(name); at != std::string::npos; at = arg.find(name, at + 1)) ++inside;
  }
  std::size_t all = 0;
  for (auto at = line.find(name); at != std::string::npos; at = line.find(name, at + 1)) ++all;
  return inside > 0 && inside == all;
}

/// Python: the replacement value is a temporary location of the test and nothing else
/// (`monkeypatch.setattr(Config, "DB_PATH", str(tmp_path / "t.db"))`, `tmpdir.join("x")`): the test
/// redirects where the code keeps its files, which changes no result it checks.
bool temp_location_value(const std::string& line, const std::string& name) {
  if (name.empty()) return false;
  auto at = line.find("\"" + name + "\"");
  if (at == std::string::npos) at = line.find("'" + name + "'");
  if (at == std::string::npos) return false;
  std::string value = line.substr(at + name.size() + 2);
  // An f-string's fields are code (`f"{tmp_path}/t.db"`); the rest of a string is text.
  static const rx::regex fstring(R"(\b[fF]("[^"]*"|'[^']*'))");
  static const rx::regex field(R"(\{([^{}]*)\})");
  std::string unfolded;
  std::size_t pos = 0;
  for (rx::sregex_iterator it(value.begin(), value.end(), fstring), e; it != e; ++it) {
    unfolded += value.substr(pos, static_cast<std::size_t>(it->position()) - pos) + " ";
    const std::string body = (*it)[1].str();
    for (rx::sregex_iterator fi(body.begin(), body.end(), field), fe; fi != fe; ++fi) unfolded += " " + (*fi)[1].str() + " ";
    pos = static_cast<std::size_t>(it->position() + it->length());
  }
  value = unfolded + value.substr(pos);
  static const rx::regex strings(R"("[^"]*"|'[^']*')");
  value = rx::regex_replace(value, strings, " ");
  // Only a path built from the temporary folder: no numbers, indexing or arithmetic that could
  // compute something else from it (`(tmp_path, 0)[1]`).
  if (value.find_first_of("0123456789[]+-*%{}") != std::string::npos) return false;
  static const std::set<std::string, std::less<>> kAllowed = {
      "str", "os", "path", "join", "fspath", "Path", "pathlib", "tmp_path", "tmpdir", "tmp_path_factory", "mktemp",
      "getbasetemp", "tempfile", "mkdtemp", "gettempdir", "strpath", "as_posix", "resolve", "value", "raising", "new", "True", "False"};
  static const rx::regex word(R"([A-Za-z_]\w*)");
  bool temp = false;
  for (rx::sregex_iterator it(value.begin(), value.end(), word), e; it != e; ++it) {
    const std::string w = it->str();
    if (!kAllowed.count(w)) return false;
    temp = temp || w == "tmp_path" || w == "tmpdir" || w == "tmp_path_factory" || w == "tempfile";
  }
  return temp;
}

struct Production {
  std::set<std::string> defined;  ///< names defined in production files of the change and the patch
  std::set<std::string> modules;  ///< module paths of project files without extension ("calc", "src/sum", "pkg/mod")
  /// Module-level constants (`LOG_LEVEL = "info"`) that no production file of the change or the
  /// patch reads beyond defining them, in files with no computed name lookups (`globals()`,
  /// `getattr`): replacing one in a test changes nothing the test exercises.
  std::set<std::string> unread_constants;
  /// Python module-level variables of any case (`_cache = {"offset": 1}`, `settings = {...}`): a
  /// container the test changes in place is production state.
  std::set<std::string> module_vars;
  /// Python class attributes of any case (`class Calc: offset = 1`, or of its bases) that production
  /// code reads (`self.offset`, `Calc.offset`): state the code under test reads.
  std::shared_ptr<struct PyClasses> classes;
  /// Properties with a setter (Python `@name.setter`, JavaScript `set name(`): assigning one on an
  /// object runs the production code's own setter, which is using the API, not replacing it.
  std::set<std::string> setters;
};

/// Python classes of the production files of the change and the patch: the attributes their bodies
/// assign (`offset = 1`, `offset, scale = 1, 1`) and their bases.
struct PyClasses {
  std::map<std::string, std::set<std::string>> attributes;
  std::map<std::string, std::vector<std::string>> bases;
  std::vector<const std::string*> texts;

  void add(const std::string& text) {
    texts.push_back(&text);
    static const rx::regex cls(R"(^(\s*)class\s+(\w+)\s*(?:\(([^)]*)\))?)");
    static const rx::regex assign(R"(^(\s*)([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*,?\s*(?::[^=]+)?=[^=])");
    std::string name;
    std::size_t class_indent = 0, body_indent = std::string::npos;
    for_each_capped_line(text, [&](int, const std::string& l) {
      const auto first = l.find_first_not_of(" \t");
      if (first == std::string::npos || l[first] == '#') return;
      rx::smatch m;
      if (rx::regex_search(l, m, cls)) {
        name = m[2].str();
        class_indent = m[1].length();
        body_indent = std::string::npos;
        for (const auto& b : split_top(m[3].str(), {","})) {
          std::string base = strip_spaces(b);
          if (base.find('=') != std::string::npos || base.empty()) continue;  // metaclass=...
          bases[name].push_back(base.substr(base.rfind('.') == std::string::npos ? 0 : base.rfind('.') + 1));
        }
        return;
      }
      if (name.empty()) return;
      if (first <= class_indent) {
        name.clear();
        return;
      }
      if (body_indent == std::string::npos) body_indent = first;
      if (first == body_indent && rx::regex_search(l, m, assign))
        for (const auto& part : split_top(m[2].str(), {","})) attributes[name].insert(strip_spaces(part));
    });
  }

  /// Is `attr` assigned in the body of `cls` or of one of its bases (5 levels), and read by
  /// production code (`self.attr`, `cls.attr`, `type(self).attr`, `Class.attr` of that chain)?
  bool read_attribute(const std::string& cls, const std::string& attr) const {
    std::vector<std::string> chain{cls};
    bool defined = false;
    for (std::size_t i = 0; i < chain.size() && i < 16; ++i) {
      if (auto it = attributes.find(chain[i]); it != attributes.end() && it->second.count(attr)) defined = true;
      if (auto it = bases.find(chain[i]); it != bases.end())
        for (const auto& b : it->second)
          if (std::find(chain.begin(), chain.end(), b) == chain.end()) chain.push_back(b);
    }
    if (!defined) return false;
    std::string owners = "self|cls|type\\s*\\(\\s*self\\s*\\)|self\\s*\\.\\s*__class__";
    for (const auto& c : chain) owners += "|" + c;
    const rx::regex read = detail::cached_regex("\\b(?:" + owners + ")\\s*\\.\\s*" + attr + "\\b");
    return std::any_of(texts.begin(), texts.end(), [&](const std::string* t) { return rx::regex_search(*t, read); });
  }

  /// Is `attr` a class attribute of any production class that production code reads? (For a write
  /// whose owner expression cannot be resolved to a class: `type(c).__mro__[0].offset = 0`.)
  bool read_attribute_any(const std::string& attr) const {
    for (const auto& [cls, attrs] : attributes)
      if (attrs.count(attr) && read_attribute(cls, attr)) return true;
    return false;
  }
};

std::string without_ext(std::string_view p) {
  auto slash = p.rfind('/');
  auto dot = p.rfind('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return std::string(p);
  return std::string(p.substr(0, dot));
}

void add_definitions(const std::string& text, std::set<std::string>& out) {
  static const rx::regex defs(
      R"(^[ \t]*(?:(?:export|default|async|public|private|protected|internal|static|final|abstract|open|data|sealed|pub)\s+)*)"
      R"((?:def|class|object|function|func|fn|struct|interface|enum|const|let|var|val)\s+(?:\([^)]*\)\s*)?(\w+))"
      R"(|^[ \t]*exports\.(\w+)\s*=|module\.exports\s*=\s*\{([^}]*)\})"
      R"(|^[\w:<>,\s\*&]*\b(\w+)\s*\([^;{)]*\)\s*(?:const\s*)?\{)"
      // Constants (`OFFSET = 1`, `MAX_RETRIES: int = 3`), at module level or in a class body
      // (`class Calc: OFFSET = 1`, patched with patch.object(Calc, "OFFSET", 0)): state the code
      // under test reads.
      R"(|^[ \t]*(?:(?:static|readonly|public|private|protected)\s+)*(_*[A-Z][A-Z0-9_]+)\s*(?::[^=]+)?=[^=])");
  static const rx::regex word(R"(\w+)");
  for_each_capped_line(text, [&](int, const std::string& line) {
    rx::smatch m;
    if (!rx::regex_search(line, m, defs)) return;
    for (int g : {1, 2, 4, 5})
      if (m[g].matched) out.insert(m[g].str());
    if (m[3].matched) {
      const std::string names = m[3].str();
      for (rx::sregex_iterator w(names.begin(), names.end(), word), end; w != end; ++w) out.insert(w->str());
    }
  });
}

Production production(const std::vector<FileVersions>& files, const IntegrityOptions& o) {
  Production p;
  p.classes = std::make_shared<PyClasses>();
  auto take = [&](const FileVersions& f) {
    if (is_test_path(f.path) || lang_of(f.path) == Lang::none) return;
    p.modules.insert(without_ext(f.path));
    if (f.after) add_definitions(*f.after, p.defined);
    if (f.after) {
      static const rx::regex setter(R"((?:^|\n)[ \t]*(?:@(\w+)\.setter\b|(?:static\s+)?set\s+(\w+)\s*\())");
      for (rx::sregex_iterator it(f.after->begin(), f.after->end(), setter), e; it != e; ++it)
        p.setters.insert((*it)[1].matched ? (*it)[1].str() : (*it)[2].str());
    }
    if (f.after && lang_of(f.path) == Lang::python) {
      p.classes->add(*f.after);
      static const rx::regex module_var(R"((?:^|\n)([A-Za-z_]\w*)\s*(?::[^=\n]+)?=[^=])");
      for (rx::sregex_iterator it(f.after->begin(), f.after->end(), module_var), e; it != e; ++it) p.module_vars.insert((*it)[1].str());
    }
  };
  for (const auto& f : files) take(f);
  for (const auto& f : o.change_files) take(f);
  for (const auto& f : o.project_files)
    if (!is_test_path(f) && lang_of(f) != Lang::none) p.modules.insert(without_ext(f));
  static constexpr std::string_view kKeywords[] = {"if", "for", "while", "switch", "return", "catch", "main", "TEST", "TEST_F"};
  for (auto k : kKeywords) p.defined.erase(std::string(k));
  // Constants and how often production code mentions them outside their definitions.
  static const rx::regex constant(R"(^[ \t]*(?:(?:static|readonly|public|private|protected)\s+)*(_*[A-Z][A-Z0-9_]+)\s*(?::[^=]+)?=[^=])");
  static const rx::regex computed(
      R"(\b(?:globals|vars|locals|getattr|eval|exec|attrgetter)\s*\(|__dict__|__getattribute__|\bimport\s*\(|\[\s*[A-Za-z_]\w*\s*\])");
  std::map<std::string, int> uses;
  bool dynamic = false;
  // Like has_word, but `$` ends a name here (as it did when this exemption was measured).
  auto mentions = [](const std::string& text, const std::string& w) {
    for (auto at = text.find(w); at != std::string::npos; at = text.find(w, at + 1)) {
      const bool left = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
      const std::size_t end = at + w.size();
      const bool right = end >= text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_');
      if (left && right) return true;
    }
    return false;
  };
  auto scan = [&](const FileVersions& f) {
    if (is_test_path(f.path) || lang_of(f.path) == Lang::none || !f.after) return;
    for_each_capped_line(*f.after, [&](int, const std::string& line) {
      rx::smatch m;
      if (rx::regex_search(line, m, constant)) {
        uses.emplace(m[1].str(), 0);
        const std::string rest = m.suffix().str();
        if (rx::regex_search(rest, computed)) dynamic = true;
        for (auto& [name, count] : uses)
          if (mentions(rest, name)) ++count;
        return;
      }
      if (rx::regex_search(line, computed)) dynamic = true;
      for (auto& [name, count] : uses)
        if (mentions(line, name)) ++count;
    });
  };
  // Two passes: a constant read above its definition (in a function) counts too.
  for (int pass = 0; pass < 2; ++pass) {
    for (auto& u : uses) u.second = 0;
    for (const auto& f : files) scan(f);
    for (const auto& f : o.change_files) scan(f);
  }
  if (!dynamic)
    for (const auto& [name, count] : uses)
      if (count == 0) p.unread_constants.insert(name);
  return p;
}

/// Does the Python dotted module name a project module ("calc", "app.models" -> app/models.py, a
/// package's __init__, or the same under src/)?
bool python_project_module(const Production& p, const std::string& dotted) {
  std::string path = dotted;
  std::replace(path.begin(), path.end(), '.', '/');
  for (const std::string& c : {path, path + "/__init__", "src/" + path, "src/" + path + "/__init__", "lib/" + path})
    if (p.modules.count(c)) return true;
  return false;
}

/// A JS module specifier as a project path (relative to the test file), or "" for a package.
std::string js_project_module(const std::string& test_path, const std::string& spec) {
  if (spec.empty() || spec[0] != '.') return {};
  std::vector<std::string> parts;
  auto dir = test_path.substr(0, test_path.rfind('/') == std::string::npos ? 0 : test_path.rfind('/'));
  std::string joined = dir.empty() ? spec : dir + "/" + spec;
  std::size_t p = 0;
  while (p <= joined.size()) {
    auto e = joined.find('/', p);
    std::string seg = joined.substr(p, (e == std::string::npos ? joined.size() : e) - p);
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!seg.empty() && seg != ".") {
      parts.push_back(seg);
    }
    if (e == std::string::npos) break;
    p = e + 1;
  }
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : "/") + s;
  return without_ext(out);
}

/// Where a local name of a test file comes from: Python `import x`, `from m import x`, `import m as
/// x`; JS `const x = require('m')`, `const { x } = require('m')`, `import x from 'm'`,
/// `import { x } from 'm'`, `import * as x from 'm'`. name -> module.
std::map<std::string, std::string> imports(const std::string& text, Lang lang) {
  std::map<std::string, std::string> out;
  static const rx::regex py_from(R"(^\s*from\s+([\w.]+)\s+import\s+\(?([\w\s,]+)\)?)");
  static const rx::regex py_import(R"(^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?)");
  static const rx::regex js_req(R"((?:const|let|var)\s+(\{[^}]*\}|\w+)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\))");
  static const rx::regex js_imp(R"(import\s+(?:\*\s+as\s+)?(\{[^}]*\}|\w+)(?:\s*,\s*(\{[^}]*\}))?\s+from\s+['"]([^'"]+)['"])");
  static const rx::regex word(R"(\w+)");
  auto names = [&](const std::string& list, const std::string& module) {
    // "{ a, b as c }" -> a, c; "x" -> x
    std::string l = list;
    for (rx::sregex_iterator w(l.begin(), l.end(), word), e; w != e; ++w) {
      if (w->str() == "as") continue;
      out[w->str()] = module;
    }
  };
  for_each_capped_line(text, [&](int, const std::string& line) {
    rx::smatch m;
    if (lang == Lang::python) {
      if (rx::regex_search(line, m, py_from)) {
        const std::string module = m[1].str(), list = m[2].str();
        for (const auto& item : split_top(list, {","})) {
          std::vector<std::string> words;
          for (rx::sregex_iterator w(item.begin(), item.end(), word), end; w != end; ++w) words.push_back(w->str());
          if (words.size() == 3 && words[1] == "as") out[words[2]] = module + "." + words[0];  // `add as real_add`
          else if (words.size() == 1) out[words[0]] = module + "." + words[0];
        }
      } else if (rx::regex_search(line, m, py_import)) {
        out[m[2].matched ? m[2].str() : m[1].str()] = m[1].str();
      } else {
        // `mod = importlib.import_module("calc")`, `mod = __import__("calc")`: mod is the module.
        static const rx::regex py_dynamic(R"(^\s*(\w+)\s*=\s*(?:importlib\s*\.\s*)?(?:import_module|__import__)\s*\(\s*['"]([\w.]+)['"])");
        if (rx::regex_search(line, m, py_dynamic)) out[m[1].str()] = m[2].str();
      }
    } else if (is_js(lang)) {
      if (rx::regex_search(line, m, js_req)) names(m[1].str(), m[2].str());
      if (rx::regex_search(line, m, js_imp)) {
        names(m[1].str(), m[3].str());
        if (m[2].matched) names(m[2].str(), m[3].str());
      }
    }
  });
  return out;
}

/// The file calls `name` (`name(`, `obj.name(`) outside the line at `skip` and outside its
/// definition: the test exercises it. Using the mock object a patch returns (`connect.return_value`)
/// is not a call of the replaced function.
bool called_elsewhere(const std::string& text, const std::string& name, int skip) {
  const rx::regex call = detail::cached_regex("\\b" + name + "\\s*\\(");
  const rx::regex def = detail::cached_regex("\\b(def|function|func)\\s+" + name + "\\b");
  bool found = false;
  for_each_capped_line(text, [&](int n, const std::string& l) {
    if (n != skip && rx::regex_search(l, call) && !rx::regex_search(l, def)) found = true;
  });
  return found;
}

/// A Python line's indentation (-1 for a line of blanks).
int py_indent(const std::string& l) { return static_cast<int>(l.find_first_not_of(" \t")); }
/// A Python line with nothing but blanks or a comment.
bool py_blank(const std::string& l) {
  const auto p = l.find_first_not_of(" \t");
  return p == std::string::npos || l[p] == '#';
}

/// Python: a `def name` / `name = ...` at `line` nested in a function or class body shadows the
/// imported `name` only inside that scope. In a class body it binds an attribute (the tests reach
/// it through self), never the module name; in a function it matters only when the function calls
/// the bare name and never the real one through its module (`def add(a, b): return a + b` as a
/// reference next to `calc.add(...)`). True when the local binding replaces nothing the tests run.
bool python_local_binding_harmless(const std::string& text, int line, const std::string& name, const std::string& real_module,
                                   const std::map<std::string, std::string>& imported) {
  std::vector<std::string> lines;
  for_each_capped_line(text, [&](int, const std::string& l) { lines.push_back(l); });
  if (line < 1 || line > static_cast<int>(lines.size())) return false;
  const int own = py_indent(lines[static_cast<std::size_t>(line - 1)]);
  if (own <= 0) return false;  // module level: the name is rebound for the whole file
  int header = -1;
  for (int i = line - 2; i >= 0; --i) {
    const std::string& l = lines[static_cast<std::size_t>(i)];
    if (py_blank(l) || py_indent(l) >= own) continue;
    const std::string h = trim(l);
    if (starts_with(h, "def ") || starts_with(h, "async def ") || starts_with(h, "class ")) header = i;
    break;  // an `if`/`with`/`try` block: treated as module level unless a def/class encloses it
  }
  if (header < 0) return false;
  const std::string head = trim(lines[static_cast<std::size_t>(header)]);
  if (starts_with(head, "class ")) return true;
  const int hi = py_indent(lines[static_cast<std::size_t>(header)]);
  const rx::regex bare = detail::cached_regex("(^|[^\\w.])" + name + "\\s*\\(");
  const rx::regex qualified = detail::cached_regex("\\b([A-Za-z_][\\w.]*)\\." + name + "\\s*\\(");
  // Other local names of the same function (`from calc import add as real_add`).
  std::vector<rx::regex> aliases;
  for (const auto& [alias, full] : imported)
    if (alias != name && full == real_module + "." + name) aliases.emplace_back("(^|[^\\w.])" + alias + "\\s*\\(");
  bool calls_bare = false, calls_real = false;
  for (std::size_t i = static_cast<std::size_t>(header) + 1; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (!py_blank(l) && py_indent(l) <= hi) break;
    if (static_cast<int>(i) + 1 == line) continue;
    const std::string c = l.substr(0, kRegexLineChars);
    if (rx::regex_search(c, bare) && !contains(c, "def " + name)) calls_bare = true;
    for (const auto& a : aliases)
      if (rx::regex_search(c, a)) calls_real = true;
    for (rx::sregex_iterator it(c.begin(), c.end(), qualified), e; it != e; ++it) {
      const std::string chain = (*it)[1].str();
      const std::string h = chain.substr(0, chain.find('.'));
      const auto im = imported.find(h);
      if (im != imported.end() && im->second + chain.substr(h.size()) == real_module) calls_real = true;
    }
  }
  return !calls_bare || calls_real;
}

/// Python: the replacement a mocking call at `line` installs for `full` (`monkeypatch.setattr(X,
/// "write", spy)`, `patch.object(X, "write", spy)`, `monkeypatch.setattr("pkg.X.write", spy)`) is
/// a spy: a function defined once in the same scope before it, undecorated, that hands its own
/// parameters, unchanged and in order (or by keyword), once to the original saved once in that
/// scope before the patch (`real_write = X.write`), returning what that returns on every return
/// (directly or through a name bound once to it), or, returning nothing, calling it
/// unconditionally; besides, it only reads (`writes.append(text)`, `log.append(self.name)`): no
/// handler, no `with`, no writes through its parameters, no setattr/vars/exec. It records calls and
/// replaces nothing (click bc32a92cd2).
bool python_spy_forwards(const std::string& text, int line, const std::string& full) {
  std::vector<std::string> lines;
  for_each_capped_line(text, [&](int, const std::string& l) { lines.push_back(l); });
  if (line < 1 || line > static_cast<int>(lines.size())) return false;
  // The mocking call's target and value (the statement may span lines).
  std::string call;
  for (std::size_t i = static_cast<std::size_t>(line - 1); i < lines.size() && call.size() < kRegexLineChars; ++i) {
    call += lines[i] + "\n";
    const auto open = call.find('(');
    if (open != std::string::npos && closing_paren(call, open) < call.size()) break;
  }
  static const rx::regex mocking(R"(\b(?:monkeypatch\s*\.\s*setattr|(?:mock\s*\.\s*)?patch\s*\.\s*object|setattr)\s*\()");
  rx::smatch m;
  if (!rx::regex_search(call, m, mocking)) return false;
  const std::size_t open = static_cast<std::size_t>(m.position() + m.length()) - 1;
  const std::size_t close = closing_paren(call, open);
  if (close == std::string::npos || close >= call.size()) return false;
  const auto args = split_top(call.substr(open + 1, close - open - 1), {","});
  std::string object, attr, spy;
  const auto unquote = [](std::string x) -> std::optional<std::string> {
    x = strip_spaces(x);
    if (x.size() < 2 || (x.front() != '"' && x.front() != '\'') || x.back() != x.front()) return std::nullopt;
    return x.substr(1, x.size() - 2);
  };
  if (args.size() == 3) {
    object = strip_spaces(args[0]);
    const auto a1 = unquote(args[1]);
    if (!a1) return false;
    attr = *a1;
    spy = trim(args[2]);
  } else if (args.size() == 2) {  // `monkeypatch.setattr("pkg.mod.Cls.write", spy)`
    const auto target = unquote(args[0]);
    if (!target || target->rfind('.') == std::string::npos) return false;
    object = target->substr(0, target->rfind('.'));
    attr = target->substr(target->rfind('.') + 1);
    spy = trim(args[1]);
  } else {
    return false;
  }
  if (!ends_with(strip_spaces(full), "." + attr) && strip_spaces(full) != attr) return false;
  static const rx::regex ident(R"(^[A-Za-z_]\w*$)");
  if (!rx::regex_match(spy, ident)) return false;
  const int own = py_indent(lines[static_cast<std::size_t>(line - 1)]);
  // The scope: the function the patch sits in (its header's line and end), or the module.
  int scope_begin = 0, scope_end = static_cast<int>(lines.size());
  for (int i = line - 2; i >= 0 && own > 0; --i) {
    const std::string& l = lines[static_cast<std::size_t>(i)];
    if (py_blank(l) || py_indent(l) >= own) continue;
    const std::string h = trim(l);
    if (starts_with(h, "def ") || starts_with(h, "async def ")) {
      scope_begin = i;
      for (int j = i + 1; j < static_cast<int>(lines.size()); ++j)
        if (!py_blank(lines[static_cast<std::size_t>(j)]) && py_indent(lines[static_cast<std::size_t>(j)]) <= py_indent(l)) {
          scope_end = j;
          break;
        }
    }
    break;
  }
  // Every way a name is bound (assignment, annotated, augmented, walrus, tuple, for, with/except/import
  // `as`, def/class, global): `binds(l, n)`.
  const auto binds = [](const std::string& l, const std::string& n) {
    const std::string w = "\\b" + n + "\\b";
    return rx::regex_search(l, detail::cached_regex("^\\s*" + n + R"(\s*(?::[^=]+)?(?:[-+*/%|&^@]|//|\*\*|>>|<<)?=[^=])")) ||
           rx::regex_search(l, detail::cached_regex(w + R"(\s*:=)")) ||
           rx::regex_search(l, detail::cached_regex("^\\s*(?:[\\w\\s\\[\\]()*]*,\\s*)?\\(?\\*?" + n + R"(\s*,[^=]*=[^=])")) ||
           rx::regex_search(l, detail::cached_regex(R"(^\s*(?:\w[\w\s\[\]()*]*,\s*)+\*?)" + n + R"(\s*\)?\s*=[^=])")) ||
           rx::regex_search(l, detail::cached_regex(R"(\bfor\b[^:]*)" + w + R"([^:]*\bin\b)")) ||
           rx::regex_search(l, detail::cached_regex(R"(\bas\s+)" + n + "\\b")) ||
           rx::regex_search(l, detail::cached_regex(R"(\b(?:def|class)\s+)" + n + "\\b")) ||
           rx::regex_search(l, detail::cached_regex(R"(\b(?:global|nonlocal)\b.*)" + w)) ||
           rx::regex_search(l, detail::cached_regex(R"(\bimport\s+(?:[\w.]+\s*,\s*)*)" + n + R"(\s*(?:,|$))"));
  };
  const auto bindings = [&](const std::string& n, int from, int to) {
    int count = 0;
    for (int i = from; i < to; ++i) count += binds(lines[static_cast<std::size_t>(i)].substr(0, kRegexLineChars), n) ? 1 : 0;
    return count;
  };
  // The saved originals: in the scope before the patch (else at module level), bound there once.
  const std::string last = object.substr(object.rfind('.') == std::string::npos ? 0 : object.rfind('.') + 1);
  const auto is_original = [&](const std::string& v) {
    if (v == object + "." + attr || v == "getattr(" + object + ",\"" + attr + "\")" || v == "getattr(" + object + ",'" + attr + "')") return true;
    // (A string target names the class by its module path; the test reads it through an import.)
    return args.size() == 2 && (v == last + "." + attr || ends_with(v, "." + last + "." + attr));
  };
  std::set<std::string> saved;
  static const rx::regex assign(R"(^\s*([A-Za-z_]\w*)\s*(?::[^=]+)?=\s*([^=].*)$)");
  for (int pass = 0; pass < 2 && saved.empty(); ++pass) {
    const int from = pass == 0 ? scope_begin + 1 : 0, to = pass == 0 ? line - 1 : static_cast<int>(lines.size());
    if (pass == 0 && scope_begin == 0 && own == 0) continue;
    for (int i = from; i < to && i < static_cast<int>(lines.size()); ++i) {
      const std::string& l = lines[static_cast<std::size_t>(i)];
      if (pass == 1 && py_indent(l) != 0) continue;
      rx::smatch a;
      const std::string lc = l.substr(0, kRegexLineChars);
      if (pass == 1 && i + 1 >= line) break;
      if (rx::regex_match(lc, a, assign) && is_original(strip_spaces(a[2].str()))) saved.insert(a[1].str());
    }
    for (auto it = saved.begin(); it != saved.end();) {
      const int n = pass == 0 ? bindings(*it, scope_begin + 1, scope_end) : bindings(*it, 0, static_cast<int>(lines.size()));
      it = n == 1 ? std::next(it) : saved.erase(it);
    }
  }
  if (saved.empty()) return false;
  // The spy: `def spy(...)` above the line at its indentation, undecorated, bound once in the scope.
  int def = -1;
  for (int i = line - 2; i > scope_begin || (i >= 0 && scope_begin == 0 && own == 0); --i) {
    const std::string& l = lines[static_cast<std::size_t>(i)];
    if (py_blank(l)) continue;
    if (py_indent(l) < own) break;
    if (py_indent(l) == own && rx::regex_search(l, detail::cached_regex("^\\s*def\\s+" + spy + "\\s*\\("))) {
      def = i;
      break;
    }
  }
  if (def < 0) return false;
  for (int i = def - 1; i >= 0; --i) {
    if (py_blank(lines[static_cast<std::size_t>(i)])) continue;
    if (starts_with(trim(lines[static_cast<std::size_t>(i)]), "@")) return false;
    break;
  }
  if (bindings(spy, own == 0 ? 0 : scope_begin + 1, own == 0 ? static_cast<int>(lines.size()) : scope_end) != 1) return false;
  // Its header, over several lines if need be.
  std::string head;
  int body_from = def + 1;
  for (int i = def; i < static_cast<int>(lines.size()) && i < def + 8; ++i) {
    head += lines[static_cast<std::size_t>(i)] + " ";
    if (rx::regex_search(lines[static_cast<std::size_t>(i)], detail::cached_regex(R"(\)\s*(?:->[^:]+)?:\s*(?:#.*)?$)"))) {
      body_from = i + 1;
      break;
    }
  }
  rx::smatch d;
  if (!rx::regex_search(head, d, detail::cached_regex(R"(def\s+\w+\s*\(([^)]*)\)\s*(?:->[^:]+)?:)"))) return false;
  std::vector<std::string> params;
  for (const auto& p : split_top(d[1].str(), {","})) {
    // (A default of its own, `upper=False`, is a value it hands the original that the caller did not.)
    if (p.find('=') != std::string::npos) return false;
    std::string q = strip_spaces(p.substr(0, p.find(':')));
    if (!q.empty() && q != "/" && q != "*") params.push_back(q);
  }
  std::vector<std::string> body;
  int body_indent = -1;
  for (std::size_t i = static_cast<std::size_t>(body_from); i < lines.size(); ++i) {
    const std::string& l = lines[i];
    if (py_blank(l)) continue;
    if (py_indent(l) <= own) break;
    if (body_indent < 0) body_indent = py_indent(l);
    body.push_back(l);
  }
  if (body.empty()) return false;
  // A forwarding call: `real(self, text)`, `real(self, text=text)`, `real(*args, **kwargs)`.
  const auto forwards = [&](const std::string& e) {
    const std::string x = strip_spaces(e);
    for (const auto& n : saved) {
      if (!starts_with(x, n + "(") || x.back() != ')' || closing_paren(x, n.size()) != x.size() - 1) continue;
      const auto got = split_top(x.substr(n.size() + 1, x.size() - n.size() - 2), {","});
      if (got.size() != params.size()) continue;
      bool same = true;
      for (std::size_t i = 0; i < got.size() && same; ++i) {
        const std::string bare = params[i].substr(params[i].find_first_not_of('*'));
        same = got[i] == params[i] || got[i] == bare + "=" + bare;
      }
      if (same) return true;
    }
    return false;
  };
  std::size_t calls_of_original = 0;
  for (const auto& l : body)
    for (const auto& n : saved) {
      const rx::regex& call_re = detail::cached_regex("\\b" + n + "\\s*\\(");
      for (rx::sregex_iterator it(l.begin(), l.end(), call_re), end; it != end; ++it) ++calls_of_original;
    }
  if (calls_of_original != 1) return false;
  bool any_return = false, top_call = false;
  std::string held;  // `result = real(self, text)` ... `return result`
  for (const auto& l : body) {
    const std::string t = trim(l);
    // (`nonlocal calls` / `global` to count calls in the test's own names is fine.)
    static const rx::regex banned(R"(^(?:try|except|finally|with|async\s+with|yield|raise|del)\b|\b(?:setattr|delattr|vars|exec|eval|__dict__|__class__|object\.__setattr__)\b)");
    if (rx::regex_search(t, banned)) return false;
    if (rx::smatch hm; py_indent(l) == body_indent && rx::regex_match(t, hm, detail::cached_regex(R"(^([A-Za-z_]\w*)\s*=\s*(.+)$)")) &&
                        forwards(hm[2].str())) {
      held = hm[1].str();
      continue;
    }
    const bool forward_statement = forwards(t);
    if (starts_with(t, "return") && (t.size() == 6 || !std::isalnum(static_cast<unsigned char>(t[6])))) {
      any_return = true;
      const std::string r = trim(t.substr(6));
      if (!forwards(r) && (held.empty() || r != held)) return false;
      continue;
    }
    if (py_indent(l) == body_indent && forward_statement) {
      top_call = true;
      continue;
    }
    // Reads only: no parameter rebound, written through, or called into (`self._closed = False`,
    // `text.clear()`); a plain attribute read (`log.append(self.name)`) is fine. Nor the held result.
    for (std::string p : params) {
      p = p.substr(p.find_first_not_of('*'));
      if (!held.empty() && binds(t, held)) return false;
      if (binds(t, p) || rx::regex_search(t, detail::cached_regex("\\b" + p + R"(\s*(?:\[[^\]]*\]\s*)?(?:\.\s*\w+\s*)*(?:[-+*/%|&^@]|//|\*\*)?=[^=])")) ||
          rx::regex_search(t, detail::cached_regex("\\b" + p + R"((?:\s*\.\s*\w+)*\s*\.\s*\w+\s*\()")))
        return false;
    }
  }
  return any_return || top_call || !held.empty();
}

struct Target {
  std::string module;  ///< a module path or dotted name ("" unknown)
  std::string name;    ///< the attribute, function or class replaced ("" the whole module)
  std::string object;  ///< the local object the attribute is looked up on ("" none)
  /// Without a mocking API (an assignment, a local redefinition, sys.modules): only a target the
  /// test file imports from the project counts (a local object's attribute is the test's own).
  bool plain = false;
  /// Go `add := func(...)`, a C++ local lambda `auto add = [...]`: a local binding that shadows the
  /// function of the same name for the rest of its scope (a wrapper that calls the real one is not).
  bool local_closure = false;
  /// C++ `using ns::add;`: `ns` (a stand-in only when the test file defines that namespace).
  std::string cpp_namespace = "";
  /// A function literal's parameter (Go `func(Add func(int, int) int) {...}(fake)`): what the
  /// caller passes is what the body calls.
  bool param = false;
  /// Python: the object changed in place (`SETTINGS["offset"] = 0` after `from calc import
  /// SETTINGS`), not a name rebound: it is the production object whatever the test binds.
  bool mutation = false;
};

/// The value bound from `line` on (a closure or lambda with its braces balanced, or the rest of the
/// statement) reaches the real `name`: Go's `add := func(a, b int) int { return add(a, b) }` (the new
/// binding is not in scope in its own value), `Add := calc.Add`, a method `c.add(...)`; C++
/// `[](int a, int b) { return ::add(a, b); }`, `calc::add`, `c.add(...)`. Comments do not count.
bool local_value_calls_real(const std::string& text, int line, const std::string& name, Lang lang) {
  std::string body;
  int depth = 0;
  bool opened = false;
  for_each_capped_line(text, [&](int n, const std::string& l) {
    if (n < line || (n > line && (!opened || depth <= 0))) return;
    std::string code = l;
    if (auto c = code.find("//"); c != std::string::npos) code.resize(c);
    for (char ch : code) {
      if (ch == '{') {
        ++depth;
        opened = true;
      } else if (ch == '}') {
        --depth;
      }
    }
    body += code + "\n";
  });
  // Block comments and the binding's own name on its left side.
  for (auto b = body.find("/*"); b != std::string::npos; b = body.find("/*", b)) {
    const auto e = body.find("*/", b + 2);
    body.erase(b, e == std::string::npos ? std::string::npos : e + 2 - b);
  }
  const auto eq = body.find_first_of(lang == Lang::go ? "=" : "={");
  if (eq == std::string::npos) return false;
  const std::string value = body.substr(eq + 1, kRegexLineChars * 8);
  const rx::regex qualified = detail::cached_regex("(::|\\.|->)\\s*" + name + "\\b");
  const rx::regex bare = detail::cached_regex("(^|[^\\w.])" + name + "\\s*\\(");
  auto reaches = [&](const std::string& code) {
    return rx::regex_search(code, qualified) || (lang == Lang::go && rx::regex_search(code, bare));
  };
  // Names bound to the real function before the binding (`realAdd := Add`, `auto real = &::add;`,
  // `int (*real)(int, int) = ::add;`): calls through them reach it too.
  // Inside the binding's own value the bare name is the binding itself (C++), so only a qualified
  // name is the real function there.
  auto alias_pattern = [&](bool qualified_only) {
    return detail::cached_regex("(\\w+)\\s*\\)?\\s*(?:\\([^)]*\\))?\\s*:?=\\s*&?\\s*(?:::|\\w+(?:\\.|::))" +
                      std::string(qualified_only ? "" : "?") + name + "\\s*;?\\s*$");
  };
  std::set<std::string> aliases;
  {
    const rx::regex alias_def = alias_pattern(false);
    for_each_capped_line(text, [&](int n, const std::string& l) {
      rx::smatch am;
      if (n < line && rx::regex_search(l, am, alias_def) && am[1].str() != name) aliases.insert(am[1].str());
    });
  }
  const auto start = value.find_first_not_of(" \t\n");
  const bool literal = start != std::string::npos &&
                       (lang == Lang::go ? value.compare(start, 4, "func") == 0 : value[start] == '[');
  if (!literal) {
    std::string v = value.substr(start == std::string::npos ? 0 : start);
    v = v.substr(0, v.find_first_of(";\n"));
    while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
    return reaches(value) || aliases.count(v) > 0;
  }
  // A function literal: what it returns must be the real function's value, on every return
  // (`return Add(a, b)`, `return c.add(a, b)`, `return real(a, b)` through an alias, or a variable
  // set once from such a call); `return Add(a, b) - 1`, a ternary, a comma or a variable
  // overwritten later is a stand-in. A literal that returns nothing must call it at all, live (not
  // in `if false {...}`, `if (0) {...}`, `#if 0`).
  std::string code = value.substr(value.find('{') == std::string::npos ? value.size() : value.find('{') + 1);
  static const rx::regex dead_if(R"(\bif\s*(?:constexpr\s*)?\(?\s*(?:false|0|!\s*true|nil\s*!=\s*nil)\s*\)?\s*\{)");
  for (rx::smatch d; rx::regex_search(code, d, dead_if);) {
    const std::size_t open = static_cast<std::size_t>(d.position()) + d.length() - 1;
    int level = 0;
    std::size_t close = open;
    for (; close < code.size(); ++close) {
      if (code[close] == '{') ++level;
      else if (code[close] == '}' && --level == 0) break;
    }
    code.erase(static_cast<std::size_t>(d.position()), std::min(close, code.size() - 1) + 1 - static_cast<std::size_t>(d.position()));
  }
  for (auto b = code.find("#if 0"); b != std::string::npos; b = code.find("#if 0", b)) {
    const auto e = code.find("#endif", b);
    code.erase(b, e == std::string::npos ? std::string::npos : e + 6 - b);
  }
  std::vector<std::string> statements;
  for (std::size_t p = 0; p <= code.size();) {
    const auto e = std::min(code.find_first_of(";\n{}", p), code.size());
    std::string st = code.substr(p, e - p);
    st.erase(0, std::min(st.find_first_not_of(" \t"), st.size()));
    while (!st.empty() && std::isspace(static_cast<unsigned char>(st.back()))) st.pop_back();
    if (!st.empty()) statements.push_back(st);
    p = e + 1;
  }
  {
    const rx::regex alias_def = alias_pattern(true);
    for (const auto& st : statements)
      if (rx::smatch am; rx::regex_search(st, am, alias_def) && am[1].str() != name) aliases.insert(am[1].str());
  }
  // `Add(a, b)`, `::add(a, b)`, `calc.Add(a, b)`, `c->add(a, b)`, `real(a, b)`: one call, the whole expression.
  auto real_call = [&](const std::string& e) {
    static const rx::regex callee(R"(^((?:::)?(?:[A-Za-z_]\w*\s*(?:\.|::|->)\s*)*)([A-Za-z_]\w*)\s*\()");
    rx::smatch m;
    if (!rx::regex_search(e, m, callee)) return false;
    const std::string fn = m[2].str();
    const bool qualified_call = !m[1].str().empty();
    if (!(fn == name && (qualified_call || lang == Lang::go)) && !(aliases.count(fn) && !qualified_call)) return false;
    const std::size_t open = static_cast<std::size_t>(m.length()) - 1;
    return closing_paren(e, open) + 1 == e.size();
  };
  static const rx::regex returns_value(R"(^(?:return|co_return)\s+(.+)$)");
  static const rx::regex assigned(R"(^(?:(?:const\s+)?(?:auto|int|long|double|float|bool|var|std::\w+)\s*&?\s*)?(\w+)\s*:?=\s*(.+)$)");
  std::map<std::string, int> writes;
  std::set<std::string> from_real;
  for (const auto& st : statements) {
    rx::smatch a;
    if (rx::regex_match(st, a, assigned)) {
      ++writes[a[1].str()];
      if (real_call(a[2].str())) from_real.insert(a[1].str());
    }
    static const rx::regex bump(R"(^(\w+)\s*(?:[-+*/%|&^]=|\+\+|--))");
    if (rx::smatch b; rx::regex_search(st, b, bump)) ++writes[b[1].str()];
  }
  bool any_return = false;
  for (const auto& st : statements) {
    rx::smatch r;
    if (!rx::regex_match(st, r, returns_value)) continue;
    any_return = true;
    const std::string e = r[1].str();
    if (real_call(e)) continue;
    if (from_real.count(e) && writes[e] == 1) continue;
    return false;
  }
  if (any_return) return true;
  return std::any_of(statements.begin(), statements.end(), [&](const std::string& st) { return reaches(st); });
}

/// The test file's old version called the bare name (`Add(2, 2)`, `add(2, 2)`): a new local binding
/// of that name now takes those calls. A new file has no old calls to take.
bool called_bare_before(const std::optional<std::string>& before, const std::string& name) {
  if (!before) return false;
  const rx::regex call = detail::cached_regex("(^|[^\\w.:>])" + name + "\\s*\\(");
  static const rx::regex word_before(R"(([A-Za-z_]\w*)[\s\*&]*$)");
  static const std::set<std::string, std::less<>> kBeforeACall = {"return", "co_return", "co_await", "throw", "else", "case",
                                                                 "do", "in", "go", "defer", "await", "not", "and", "or"};
  bool found = false;
  for_each_capped_line(*before, [&](int, const std::string& l) {
    if (found || contains(l, "func " + name) || contains(l, "def " + name)) return;
    for (rx::sregex_iterator it(l.begin(), l.end(), call), e; it != e && !found; ++it) {
      // `Node node("x")`, `auto node(...)`: a declaration of a variable of that name, not a call.
      const std::string head = l.substr(0, static_cast<std::size_t>(it->position()) + (*it)[1].length());
      rx::smatch w;
      if (rx::regex_search(head, w, word_before) && !kBeforeACall.count(w[1].str())) continue;
      found = true;
    }
  });
  return found;
}

/// The arguments the calls of `fn` on `line` pass at `positions`, whitespace removed
/// (`_zero(calc.SETTINGS)`, position 0 -> calc.SETTINGS); `helpers._zero(...)` counts, `x_zero(...)` not.
std::vector<std::string> arguments_at(const std::string& line, const std::string& fn, const std::set<std::size_t>& positions) {
  std::vector<std::string> out;
  const std::string call = fn + "(";
  for (auto at = line.find(call); at != std::string::npos; at = line.find(call, at + 1)) {
    if (at > 0 && ident_char(line[at - 1])) continue;
    const std::size_t open = at + fn.size();
    const std::size_t close = closing_paren(line, open);
    if (close >= line.size()) continue;
    const auto args = split_top(std::string_view(line).substr(open + 1, close - open - 1), {","});
    for (std::size_t pos : positions)
      if (pos < args.size()) out.push_back(strip_spaces(args[pos]));
  }
  return out;
}

/// Python: `getattr(X, "Y")` (two arguments, X a dotted name) read as `X.Y`.
std::string python_getattr_as_attribute(const std::string& line) {
  std::string out = line;
  if (out.find("getattr") != std::string::npos) {
    static const rx::regex two(R"(\bgetattr\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*['"](\w+)['"]\s*\))");
    out = rx::regex_replace(out, two, "$1.$2");
  }
  // A namespace read by key is the attribute: `calc.__dict__["SETTINGS"]`, `vars(calc).get("SETTINGS")`.
  if (out.find("__dict__") != std::string::npos || out.find("vars") != std::string::npos) {
    static const rx::regex keyed(
        R"((?:\bvars\s*\(\s*([A-Za-z_][\w.]*)\s*\)|\b([A-Za-z_][\w.]*?)\s*\.\s*__dict__)\s*(?:\[\s*['"](\w+)['"]\s*\]|\.\s*get\s*\(\s*['"](\w+)['"]\s*\)))");
    std::string rewritten;
    std::size_t from = 0;
    for (rx::sregex_iterator it(out.begin(), out.end(), keyed), e; it != e; ++it) {
      const auto& m = *it;
      rewritten += out.substr(from, static_cast<std::size_t>(m.position()) - from) + (m[1].matched ? m[1].str() : m[2].str()) + "." +
                   (m[3].matched ? m[3].str() : m[4].str());
      from = static_cast<std::size_t>(m.position() + m.length());
    }
    if (from > 0) out = rewritten + out.substr(from);
  }
  // A module looked up by name, then read into, is the module (`sys.modules["calc"].SETTINGS`,
  // `importlib.import_module("calc").OFFSET`; replacing the entry itself is judged elsewhere);
  // a walrus in a target is what it binds (`(s := calc.SETTINGS)["offset"] = 0`); the class of a
  // value, as a write's owner, is where the value's attributes come from (`type(calc.config).offset = ...`).
  if (out.find("modules") != std::string::npos || out.find("import_module") != std::string::npos) {
    static const rx::regex by_name(
        R"((?:\bsys\s*\.\s*modules\s*(?:\[\s*['"]([\w.]+)['"]\s*\]|\.\s*get\s*\(\s*['"]([\w.]+)['"]\s*\))|\b(?:importlib\s*\.\s*)?import_module\s*\(\s*['"]([\w.]+)['"]\s*\))(?=\s*\.))");
    std::string rewritten;
    std::size_t from = 0;
    for (rx::sregex_iterator it(out.begin(), out.end(), by_name), e; it != e; ++it) {
      const auto& m = *it;
      rewritten += out.substr(from, static_cast<std::size_t>(m.position()) - from) + (m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str());
      from = static_cast<std::size_t>(m.position() + m.length());
    }
    if (from > 0) out = rewritten + out.substr(from);
  }
  if (out.find(":=") != std::string::npos) {
    static const rx::regex walrus_target(R"(^(\s*)\(\s*\w+\s*:=\s*([A-Za-z_][\w.]*)\s*\))");
    out = rx::regex_replace(out, walrus_target, "$1$2");
  }
  if (out.find("type") != std::string::npos) {
    static const rx::regex class_owner(R"(^(\s*)type\s*\(\s*([A-Za-z_][\w.]*\.[\w.]+)\s*\)(\s*\.\s*\w+\s*=[^=]))");
    out = rx::regex_replace(out, class_owner, "$1$2$3");
  }
  // The unbound setter is setattr: `object.__setattr__(calc.config, "offset", 0)`, `type.__setattr__(C, ...)`,
  // `calc.config.__setattr__("offset", 0)`.
  if (out.find("__setattr__") != std::string::npos) {
    static const rx::regex unbound(R"(\b(?:object|type|builtins\.object)\s*\.\s*__setattr__\s*\()");
    out = rx::regex_replace(out, unbound, "setattr(");
    static const rx::regex bound(R"(\b([A-Za-z_][\w.]*?)\s*\.\s*__setattr__\s*\()");
    out = rx::regex_replace(out, bound, "setattr($1, ");
  }
  return out;
}

/// Python: the name a write sets when its owner is no plain dotted name (`x.__globals__["OFFSET"] = 0`,
/// `inspect.getmodule(f).OFFSET = 0`, `mods["c"].OFFSET = 0`, `type(c).__mro__[0].offset = 0`,
/// `c.add.__self__.__class__.offset = 0`), or "".
std::string opaque_write(const std::string& line) {
  if (line.find('=') == std::string::npos && line.find("del ") == std::string::npos) return "";
  static const rx::regex write(
      R"(^\s*(.+?)(?:\.\s*(\w+)|\[\s*['"](\w+)['"]\s*\])\s*(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]))");
  static const rx::regex deleted(R"(^\s*del\s+(.+?)(?:\.\s*(\w+)|\[\s*['"](\w+)['"]\s*\])\s*$)");
  rx::smatch m;
  if (!rx::regex_search(line, m, deleted) && !rx::regex_search(line, m, write)) return "";
  const std::string owner = strip_spaces(m[1].str());
  if (owner.find('=') != std::string::npos) return "";
  static const rx::regex plain(R"(^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$)");
  static const rx::regex dunder(R"(__\w+__)");
  const bool resolvable = rx::regex_match(owner, plain) && !rx::regex_search(owner, dunder);
  if (resolvable || starts_with(owner, "self.") || starts_with(owner, "self[") || owner == "self") return "";
  // A subscript write needs an introspected owner (`x.__globals__["OFFSET"]`); `results["OFFSET"] = 1`
  // on a local is the test's own data.
  if (m[3].matched && !rx::regex_search(owner, dunder) && owner.find("getmodule") == std::string::npos &&
      owner.find("sys.modules") == std::string::npos && owner.find("globals()") == std::string::npos && owner.find("vars(") == std::string::npos)
    return "";
  return m[2].matched ? m[2].str() : m[3].str();
}

/// Mock targets on one added line, per language.
std::vector<Target> targets(const std::string& raw, Lang lang, bool gmock) {
  std::vector<Target> out;
  rx::smatch m;
  std::string line = raw;
  if (lang == Lang::python) {
    // The class of an instance is the class: setattr(type(Calc()), ...), Calc().__class__.
    static const rx::regex type_of(R"(\btype\s*\(\s*([A-Za-z_][\w.]*)\s*\([^()]*\)\s*\)|\b([A-Za-z_][\w.]*)\s*\([^()]*\)\s*\.\s*__class__\b)");
    if (rx::regex_search(line, m, type_of)) line = rx::regex_replace(line, type_of, "$1$2");
    static const rx::regex dotted(R"((?:monkeypatch\.setattr|patch|mocker\.patch)\(\s*['"]([\w.]+)\.(\w+)['"])");
    static const rx::regex object(R"((?:monkeypatch\.setattr|patch\.object|mocker\.patch\.object)\(\s*([\w.]+)\s*,\s*['"](\w+)['"])");
    // Without a mocking API: `calc.add = lambda ...`, setattr(calc, 'add', ...), sys.modules['calc'] = ...,
    // and a local `def add` / `add = ...` that shadows an imported `add` (resolved by the caller).
    static const rx::regex attr(R"(^\s*([A-Za-z_]\w*(?:\.\w+)*)\.(\w+)\s*=[^=])");
    static const rx::regex set_attr(R"((?:\bsetattr|__setattr__)\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*['"](\w+)['"])");
    // setattr(calc, name, ...) with a computed name: any attribute of the object may be replaced.
    static const rx::regex set_attr_computed(R"((?:\bsetattr|__setattr__)\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*[A-Za-z_])");
    // sys.modules["calc"].add = ...: the module's attribute through the module table.
    static const rx::regex sys_modules_attr(R"(\bsys\s*\.\s*modules\s*\[\s*['"]([\w.]+)['"]\s*\]\s*\.\s*(\w+)\s*=[^=])");
    static const rx::regex sys_modules(R"(\bsys\s*\.\s*modules\s*\[\s*['"]([\w.]+)['"]\s*\]\s*=[^=]|\bsys\s*\.\s*modules\s*\.\s*(?:update|setdefault)\s*\(\s*\{?\s*['"]([\w.]+)['"])");
    static const rx::regex local_def(R"(^\s*(?:async\s+)?(?:def|class)\s+(\w+)\b)");
    static const rx::regex local_assign(R"(^\s*(\w+)\s*(?::[^=]+)?=[^=])");
    // The module's namespace written directly: vars(calc).update(add=...), calc.__dict__['add'] = ...
    static const rx::regex ns_update(
        R"(\b(?:vars\s*\(\s*([A-Za-z_][\w.]*)\s*\)|([A-Za-z_][\w.]*)\s*\.\s*__dict__)\s*(\.\s*(?:update|setdefault|__setitem__)\s*\(|\[[^\]]*\]\s*=[^=]))");
    if (rx::regex_search(line, m, ns_update)) {
      const std::string owner = m[1].matched ? m[1].str() : m[2].str();
      static const rx::regex key(R"((?:^|[(,{\[]\s*)(\w+)\s*=[^=]|['"](\w+)['"]\s*[\]:,])");
      const std::string rest = m[3].str().substr(m[3].str().find_first_of("([")) + m.suffix().str();
      for (rx::sregex_iterator k(rest.begin(), rest.end(), key), e; k != e; ++k)
        out.push_back({"", (*k)[1].matched ? (*k)[1].str() : (*k)[2].str(), owner, true});
      if (!out.empty()) return out;
    }
    // monkeypatch.setitem(calc.__dict__, "add", ...), setitem(vars(calc), "add", ...): the namespace itself.
    static const rx::regex set_item(
        R"(\bsetitem\s*\(\s*(?:vars\s*\(\s*([A-Za-z_][\w.]*)\s*\)|([A-Za-z_][\w.]*)\s*\.\s*__dict__)\s*,\s*['"](\w+)['"])");
    if (rx::regex_search(line, m, set_item)) {
      out.push_back({"", m[3].str(), m[1].matched ? m[1].str() : m[2].str(), true});
      return out;
    }
    // patch.multiple(Calc, OFFSET=0, add=...) / patch.multiple("calc", ...): each keyword is a target.
    static const rx::regex multiple(R"((?:\bpatch|mocker\s*\.\s*patch)\s*\.\s*multiple\s*\(\s*(?:['"]([\w.]+)['"]|([\w.]+))\s*,(.*))");
    // The keyword forms: monkeypatch.setattr(target=Calc, name="OFFSET", value=0), patch.object(target=..., attribute=...).
    static const rx::regex keywords(
        R"((?:monkeypatch\.setattr|patch\.object|mocker\.patch\.object)\s*\((?=[^)]*\btarget\s*=\s*([\w.]+))(?=[^)]*\b(?:name|attribute)\s*=\s*['"](\w+)['"]))");
    if (rx::regex_search(line, m, multiple)) {
      static const rx::regex key(R"((?:^|,)\s*(\w+)\s*=[^=])");
      const std::string rest = m[3].str();
      for (rx::sregex_iterator k(rest.begin(), rest.end(), key), e; k != e; ++k)
        out.push_back(m[1].matched ? Target{m[1].str(), (*k)[1].str(), ""} : Target{"", (*k)[1].str(), m[2].str()});
      if (!out.empty()) return out;
    }
    if (rx::regex_search(line, m, keywords)) {
      out.push_back({"", m[2].str(), m[1].str()});
      return out;
    }
    // A production container changed in place: `calc.SETTINGS["offset"] = 0`, `calc.SETTINGS.update(...)`,
    // `del calc.RULES[0]`, monkeypatch.setitem(calc.SETTINGS, ...), patch.dict(calc.SETTINGS, ...) or
    // patch.dict("calc.SETTINGS", ...); and `SETTINGS["offset"] = 0` on a name imported from the project.
    static const rx::regex mutated(
        R"(^\s*(?:del\s+)?([A-Za-z_][\w.]*)\.(\w+)\s*(?:(?:\[[^\]]*\]\s*)+(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]|$)|(?:[-+*/|&^%]|//|<<|>>|\*\*)=|\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__|__ior__)\s*\())");
    static const rx::regex item_api(
        R"(\b(?:setitem|delitem|patch\s*\.\s*dict|(?:dict|list|set|OrderedDict|collections\s*\.\s*OrderedDict)\s*\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__))\s*\(\s*([A-Za-z_][\w.]*)\.(\w+)\s*[,)])");
    static const rx::regex item_dotted(R"(\bpatch\s*\.\s*dict\s*\(\s*['"]([\w.]+)\.(\w+)['"])");
    static const rx::regex bare_mutated(
        R"(^\s*(?:del\s+)?([A-Za-z_]\w*)\s*(?:(?:\[[^\]]*\]\s*)+(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]|$)|\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__)\s*\())");
    if (rx::regex_search(line, m, item_dotted)) {
      out.push_back({m[1].str(), m[2].str(), ""});
      return out;
    }
    // A write, not a read (`calc.SETTINGS["missing"]` alone under pytest.raises is a read).
    static const rx::regex writes(R"([^=!<>]=[^=]|^\s*del\s|\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__|__ior__)\s*\()");
    const bool write = rx::regex_search(line, writes);
    if (rx::regex_search(line, m, item_api) ||
        (write && rx::regex_search(line, m, mutated) && m[1].str() != "self" && m[1].str() != "cls" &&
         !(m[1].str() == "sys" && m[2].str() == "modules"))) {
      Target t{"", m[2].str(), m[1].str(), true};
      t.mutation = true;
      out.push_back(t);
      return out;
    }
    if (write && rx::regex_search(line, m, bare_mutated) && m[1].str() != "self" && m[1].str() != "cls") {
      Target t{"", m[1].str(), m[1].str(), true};
      t.mutation = true;
      out.push_back(t);
      return out;
    }
    if (rx::regex_search(line, m, dotted)) out.push_back({m[1].str(), m[2].str(), ""});
    else if (rx::regex_search(line, m, object)) out.push_back({"", m[2].str(), m[1].str()});
    else if (rx::regex_search(line, m, sys_modules_attr)) out.push_back({m[1].str(), m[2].str(), ""});
    else if (rx::regex_search(line, m, sys_modules)) out.push_back({m[1].matched ? m[1].str() : m[2].str(), "", "", true});
    else if (rx::regex_search(line, m, set_attr) && m[1].str() != "self") out.push_back({"", m[2].str(), m[1].str(), true});
    else if (rx::regex_search(line, m, set_attr_computed) && m[1].str() != "self" && m[1].str() != "cls")
      out.push_back({"", "", m[1].str(), true});
    else if (rx::regex_search(line, m, attr) && m[1].str() != "self" && m[1].str() != "cls") {
      // `calc.add.__code__ = ...`, `calc.Calc.add.__defaults__ = ...`: a function's internals
      // replaced is the function replaced.
      std::string owner = m[1].str(), name = m[2].str();
      if (starts_with(name, "__") && ends_with(name, "__") && owner.find('.') != std::string::npos) {
        name = owner.substr(owner.rfind('.') + 1);
        owner.resize(owner.rfind('.'));
      } else if (starts_with(name, "__") && ends_with(name, "__") && name != "__dict__") {
        // `add.__code__ = ...` on a function imported by name: the function itself.
        name = owner;
      }
      if (owner != "self" && owner != "cls") out.push_back({"", name, owner, true});
    }
    else if (rx::regex_search(line, m, local_def) || rx::regex_search(line, m, local_assign)) out.push_back({"", m[1].str(), m[1].str(), true});
  } else if (is_js(lang)) {
    static const rx::regex mod(R"(\b(?:jest|vi)\.(?:mock|doMock|unstable_mockModule)\(\s*['"]([^'"]+)['"])");
    static const rx::regex spy(R"(\b(?:jest|vi)\.spyOn\(\s*([\w.]+)\s*,\s*['"](\w+)['"]\s*\)\s*\.\s*mock)");
    static const rx::regex assign(R"(^\s*([\w]+)\.(\w+)\s*=\s*(?:jest|vi)\.fn\()");
    // Without a mocking API: `calc.add = () => 4` on an imported module, Object.defineProperty /
    // Object.assign on it, and a local function or binding that shadows an imported name.
    // Also through the prototype (`Calc.prototype.add = ...`) and by a computed key (`calc['add'] = ...`),
    // and a project module's cache entry replaced (`require.cache[require.resolve('../calc')] = ...`).
    static const rx::regex plain_assign(R"(^\s*([\w$]+)(?:\s*\.\s*prototype)?(?:\.([\w$]+)|\[\s*['"`]([\w$]+)['"`]\s*\])\s*=[^=])");
    static const rx::regex cache(R"(\brequire\s*\.\s*cache\s*\[\s*require\s*\.\s*resolve\s*\(\s*['"]([^'"]+)['"])");
    if (rx::regex_search(line, m, cache)) out.push_back({m[1].str(), "", ""});
    static const rx::regex define(R"(\bObject\s*\.\s*(?:defineProperty|assign)\s*\(\s*([\w$]+)\s*,\s*(?:['"]([\w$]+)['"])?)");
    static const rx::regex local_fn(R"(^\s*(?:async\s+)?function\s*\*?\s*([\w$]+)\s*\(|^\s*(?:const|let|var)\s+([\w$]+)\s*=(?!\s*(?:await\s+)?(?:require|import)\s*\())");
    if (rx::regex_search(line, m, mod)) out.push_back({m[1].str(), "", ""});
    if (rx::regex_search(line, m, spy)) out.push_back({"", m[2].str(), m[1].str()});
    if (rx::regex_search(line, m, assign)) out.push_back({"", m[2].str(), m[1].str()});
    else if (rx::regex_search(line, m, plain_assign) && m[1].str() != "this" && m[1].str() != "module" && m[1].str() != "exports")
      out.push_back({"", m[2].matched ? m[2].str() : m[3].str(), m[1].str(), true});
    else if (rx::regex_search(line, m, define)) out.push_back({"", m[2].matched ? m[2].str() : "", m[1].str(), true});
    else if (rx::regex_search(line, m, local_fn)) {
      const std::string name = m[1].matched ? m[1].str() : m[2].str();
      out.push_back({"", name, name, true});
    }
  } else if (lang == Lang::go) {
    static const rx::regex swap(R"(^\s*(\w+)\s*=\s*func\s*\()");
    // Local bindings: `Add := ...`, `Add, _ := ...`, `var Add = ...`, `var Add func(int, int) int = ...`,
    // and a function literal's parameter (`func(Add func(int, int) int) { ... }(fake)`).
    static const rx::regex declared(R"(^\s*(?:var\s+([\w\s,]+?)(?:\s+[\w.\[\]\*]+(?:\([^)]*\)[\w\s]*)?)?\s*=[^=]|([\w\s,]+?)\s*:=))");
    static const rx::regex word(R"(\w+)");
    if (rx::regex_search(line, m, swap)) {
      out.push_back({"", m[1].str(), ""});
    } else if (rx::regex_search(line, m, declared)) {
      const std::string names = m[1].matched ? m[1].str() : m[2].str();
      for (rx::sregex_iterator w(names.begin(), names.end(), word), e; w != e; ++w)
        if (w->str() != "_") out.push_back({"", w->str(), "", false, true});
    }
    // Function literals (`func(` right after a non-identifier): their parameters, brackets balanced.
    for (std::size_t at = line.find("func"); at != std::string::npos; at = line.find("func", at + 4)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_')) continue;
      std::size_t open = at + 4;
      while (open < line.size() && line[open] == ' ') ++open;
      if (open >= line.size() || line[open] != '(') continue;
      const std::size_t close = closing_paren(line, open);
      for (const auto& p : split_top(line.substr(open + 1, close - open - 1), {","})) {
        const std::string item = trim(p);
        const std::string pn = item.substr(0, item.find_first_of(" \t"));
        if (!pn.empty() && pn.find_first_of("()*[]") == std::string::npos && item.find_first_of(" \t") != std::string::npos) {
          Target t{"", pn, "", false, true};
          t.param = true;
          out.push_back(t);
        }
      }
    }
  } else if (lang == Lang::cpp) {
    // A local declaration named like the code under test (a lambda, `std::function`, a function
    // pointer, a functor object, brace-initialised or not) or a using-declaration from a namespace
    // of the test's own: the unqualified calls after it reach the stand-in.
    static const rx::regex declared(
        R"(^\s*(?:(?:static|constexpr|const|inline|volatile|thread_local)\s+)*(?:auto|[A-Za-z_][\w:]*(?:<[^;]*>)?)(?:\s*[\*&]+\s*|\s+)(\w+)\s*(?:=[^=]|\{|;|\((?!\s*\)\s*[;{])))");
    static const rx::regex fn_pointer(R"(\(\s*\*\s*(\w+)\s*\)\s*\()");
    static const rx::regex using_decl(R"(^\s*using\s+((?:\w+::)*\w+)::(\w+)\s*;)");
    static const std::set<std::string, std::less<>> kNotTypes = {"return", "co_return", "throw", "delete", "new", "case", "goto",
                                                                 "else", "do", "using", "typedef", "namespace", "class", "struct",
                                                                 "enum", "template", "friend", "operator", "public", "private"};
    static const rx::regex anonymous_object(R"(^\s*(?:struct|class)\b.*\}\s*(\w+)\s*;\s*$)");
    if (rx::regex_search(line, m, anonymous_object)) {
      out.push_back({"", m[1].str(), "", false, true});
    } else if (rx::regex_search(line, m, using_decl)) {
      out.push_back({"", m[2].str(), "", false, false, m[1].str()});
    } else if (rx::regex_search(line, m, fn_pointer)) {
      out.push_back({"", m[1].str(), "", false, true});
    } else if (rx::regex_search(line, m, declared)) {
      const std::string first = trim(line).substr(0, trim(line).find_first_of(" \t*&<("));
      if (!kNotTypes.count(first)) out.push_back({"", m[1].str(), "", false, true});
    }
    static const rx::regex sub(R"(\b(?:class|struct)\s+\w+\s*(?:final\s*)?:\s*(?:public|private|protected)?\s*([\w:]+))");
    if (gmock && rx::regex_search(line, m, sub)) {
      std::string base = m[1].str();
      if (auto p = base.rfind("::"); p != std::string::npos) base = base.substr(p + 2);
      out.push_back({"", base, ""});
    }
  } else if (lang == Lang::java || lang == Lang::kotlin) {
    static const rx::regex mock(R"(\b(?:mock|spy|mockStatic)\(\s*(\w+)(?:::class(?:\.java)?|\.class)\s*[,)])");
    static const rx::regex annotated(R"(@(?:Mock|Spy|MockBean|SpyBean)\b[^;\n]*?\b(?:private\s+|lateinit\s+var\s+|var\s+|val\s+)?(\w+)\s+\w+\s*[;=])");
    static const rx::regex kotlin_annotated(R"(@(?:Mock|Spy|MockK|SpyK)\b.*:\s*(\w+))");
    if (rx::regex_search(line, m, mock)) out.push_back({"", m[1].str(), ""});
    else if (rx::regex_search(line, m, annotated)) out.push_back({"", m[1].str(), ""});
    else if (rx::regex_search(line, m, kotlin_annotated)) out.push_back({"", m[1].str(), ""});
  }
  return out;
}

/// Python: the parameters of the definition starting at `line` (over several lines too), without
/// annotations: `def test_x(monkeypatch, tmp_path: Path, n=3)` -> monkeypatch, tmp_path, "n=3".
std::vector<std::string> python_parameters(const std::vector<std::string>& lines, int line) {
  std::string sig;
  for (int k = line; k < static_cast<int>(lines.size()) && k < line + 30; ++k) {
    sig += lines[static_cast<std::size_t>(k)] + " ";
    const auto open = sig.find('(');
    if (open != std::string::npos && closing_paren(sig, open) < sig.size()) break;
  }
  const auto open = sig.find('(');
  if (open == std::string::npos) return {};
  const auto close = closing_paren(sig, open);
  if (close >= sig.size()) return {};
  std::vector<std::string> out;
  for (auto p : split_top(std::string_view(sig).substr(open + 1, close - open - 1), {","})) {
    p = strip_spaces(p);
    if (const auto colon = p.find(':'); colon != std::string::npos && p.find('=') == std::string::npos) p = p.substr(0, colon);
    if (!p.empty()) out.push_back(p);
  }
  return out;
}

/// Python: a stand-in that a *new* test installs for its own run and undoes itself cannot make another
/// test pass: jmespath's `Parser._MAX_SIZE, saved = 2, Parser._MAX_SIZE` in a test added with the fix,
/// restored in `finally:`. Undone means: a pytest fixture that undoes at teardown (monkeypatch, mocker,
/// taken as a plain parameter of the test or of a function-scoped fixture of the file only new tests
/// use), a `with ...patch...(...)` block (or one entered on a `with ExitStack()`), a `@patch`
/// decorator of the test, `p = patch(...)` started with `self.addCleanup(p.stop)` beside it, or an
/// assignment whose exact original was saved and is put back (`X.Y = saved`, `setattr(X, "Y",
/// saved)`) in the `finally:` of the try that directly follows or encloses it (or by
/// `self.addCleanup(setattr, X, "Y", saved)`). New means: its name is not a test of the file's old
/// version, it is no failing test, and no test of the patch's Python test files went away (a renamed
/// test is compared with its old self instead). Never when the patch redefines the monkeypatch or
/// mocker fixture, when the test reloads modules, or when production code of the change or the patch
/// memoizes results (a cache warmed under the stand-in outlives it).
bool undone_in_new_test(const std::vector<FileVersions>& files, const FileVersions& f, int line, const Target& t,
                        const IntegrityOptions& o, const std::map<std::string, std::string>& helpers) {
  if (!f.after) return false;
  std::vector<std::string> lines{""};
  for_each_capped_line(*f.after, [&](int, const std::string& l) { lines.push_back(l); });
  if (line <= 0 || line >= static_cast<int>(lines.size())) return false;
  const auto line_at = [&](int k) -> const std::string& { return lines[static_cast<std::size_t>(k)]; };
  // Undoing that cannot be trusted: the fixtures redefined by the patch, memoized production code.
  // The fixture redefined (`def monkeypatch(`, `@pytest.fixture(name="monkeypatch")`), unittest's
  // cleanups overridden, code run from strings or modules reloaded anywhere in the test file.
  // Also any write to the undoing machinery: `monkeypatch.undo = ...`, `p.stop = ...`, `MonkeyPatch.undo = ...`,
  // `addCleanup = lambda ...` in a class body, setattr(self, "addCleanup", ...), and a fixture whose name is
  // computed (`@pytest.fixture(**{"name": "monkeypatch"})`, `name=NAME`).
  static const rx::regex fixture_override(
      R"((?:^|\n)[ \t]*(?:async\s+)?def\s+(?:monkeypatch|mocker|addCleanup|doCleanups|_callCleanup|addClassCleanup|doClassCleanups)\s*\()"
      R"(|(?:^|\n)(?:monkeypatch|mocker)\s*=|\bname\s*=\s*['"](?:monkeypatch|mocker)['"])"
      R"(|(?:^|\n)[ \t]*(?:[\w.]+\s*\.\s*)?(?:addCleanup|doCleanups|_callCleanup|addClassCleanup|doClassCleanups)\s*=[^=])"
      R"(|\bsetattr\s*\(\s*(?:self|cls|\w*Case\w*)\s*,\s*['"](?:addCleanup|doCleanups|_callCleanup|addClassCleanup|doClassCleanups)['"])"
      R"(|\b(?:patch|_patch)\s*\.\s*(?:stopall|stop|start|__exit__)\s*=[^=])"
      R"(|\bfixture\s*\((?:\s*\*\*|[^)]*,\s*\*\*|[^)]*\bname\s*=\s*[^'"\s]))");
  // The undoing objects themselves are used only through their public calls: `monkeypatch._setattr[:] = []`,
  // `getattr(monkeypatch, "_setattr").clear()`, `vars(p)["stop"] = ...`, `mp.undo = ...`, `p.stop = ...`
  // reach into what undoes the stand-in.
  const auto tampered = [](const std::string& text, const std::string& name) {
    if (!has_word(text, name)) return false;
    // The object and every name that may hold it: a plain alias (`mp = monkeypatch`, `(mp := p)`),
    // a function that returns or yields it (a fixture wrapping monkeypatch: its parameter in a test is
    // the same object), two levels.
    std::set<std::string> holders{name};
    for (int round = 0; round < 2; ++round) {
      std::set<std::string> more;
      std::string fn;
      static const rx::regex def(R"(^\s*(?:async\s+)?def\s+(\w+)\s*\()");
      for_each_capped_line(text, [&](int, const std::string& l) {
        rx::smatch m;
        if (rx::regex_search(l, m, def)) fn = m[1].str();
        for (const auto& h : holders) {
          if (!has_word(l, h)) continue;
          const rx::regex alias = detail::cached_regex("\\b(\\w+)\\s*(?::=|=)\\s*" + h + "\\s*(?:$|[),;#])");
          if (rx::regex_search(l, m, alias)) more.insert(m[1].str());
          const rx::regex handed = detail::cached_regex("^\\s*(?:return|yield)\\s+" + h + "\\s*(?:#.*)?$");
          if (!fn.empty() && rx::regex_search(l, handed)) more.insert(fn);
        }
      });
      const std::size_t was = holders.size();
      holders.insert(more.begin(), more.end());
      if (holders.size() == was) break;
    }
    // Only its public calls are allowed (`mp.setattr(...)`, `mp.undo()`). Reaching in is: its private
    // or special attributes (`mp._setattr`, `mp.__class__`), introspection (`vars(mp)`, `type(mp)`),
    // and any write or mutating call on a chain rooted at it (`mp.undo = ...`,
    // `mp.__class__.undo = ...`, `p.stop = ...`, `mp[...]`).
    for (const auto& h : holders) {
      // (The class is reached through its module too: `_pytest.monkeypatch.MonkeyPatch.undo = ...`.)
      const std::string before_name = h == "MonkeyPatch" ? "(?:^|[^\\w])" : "(?:^|[^.\\w])";
      const rx::regex reach = detail::cached_regex("\\b(?:vars|getattr|setattr|delattr|type)\\s*\\(\\s*(?:[\\w.]*\\.)?" + h + "\\b|" + before_name + h +
                             R"(\s*(?:\.\s*_\w*|\[|(?:\.\s*\w+|\[[^\]]*\])+\s*(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]|\.\s*(?:clear|pop|popitem|remove|append|extend|insert|update|setdefault|__\w+__)\s*\()))");
      if (rx::regex_search(text, reach)) return true;
    }
    return false;
  };
  static const rx::regex memo(R"(\blru_cache\b|\bfunctools\s*\.\s*cache\b|@\s*cache\b|@\s*cached\b|\bmemoize|\bcachetools\b|\bcached_property\b)");
  // (The builtins, not methods: `re.compile(`, `model.eval()` run no code from strings.)
  static const rx::regex persistent(R"(\breload\s*\(|\bsys\s*\.\s*modules\b|\bimportlib\b|(?:^|[^.\w])(?:exec|eval|compile)\s*\()");
  // Production memoizing by hand: a container bound at module or class level, written from a function
  // that computes with the replaced name (`_results[(a, b)] = a + b + OFFSET`): a result computed
  // under the stand-in outlives it. A name the function only tests in a condition (`if len(cache) >
  // _MAX_SIZE:`, an eviction bound) computes no stored value.
  // (The state names that memoize, empty when none.)
  const auto hand_memo = [&](const std::string& text) -> std::set<std::string> {
    std::set<std::string> memos;
    if (!has_word(text, t.name)) return memos;
    // Module and class state: names bound at module level (whatever the initializer: `{}`,
    // `dict.fromkeys(())`, `None`), module-level functions and classes (their attributes hold
    // values too: `_offset.v = OFFSET`, `_Memo.value = ...`) and containers bound in a class body.
    static const rx::regex top(R"(^([A-Za-z_]\w*)\s*(?::[^=]+)?=[^=]|^(?:async\s+)?def\s+(\w+)|^class\s+(\w+))");
    static const rx::regex container(R"(^[ \t]*(\w+)\s*(?::[^=]+)?=\s*(?:\{\}|dict\(|\[\]|set\(|list\(|(?:collections\.)?(?:OrderedDict|defaultdict|Counter|deque)\())");
    static const rx::regex written(R"((?:^|[^.\w])(\w+)\s*(?:\[[^\]]*\]\s*(?:[-+*/|&^%]|//)?=[^=]|\.\s*(?:setdefault|update|__setitem__|append|add)\s*\())");
    static const rx::regex global_decl(R"(^\s*global\s+([\w\s,]+))");
    static const rx::regex def_line(R"(^\s*(?:async\s+)?def\s+(\w+))");
    std::vector<std::string> ls;
    std::set<std::string> state;
    for_each_capped_line(text, [&](int, const std::string& l) {
      ls.push_back(l);
      rx::smatch m;
      if (rx::regex_search(l, m, top)) state.insert(m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str());
      else if (rx::regex_search(l, m, container)) state.insert(m[1].str());
      // A mutable default argument lives as long as its function (`def _offset(_c={}):`).
      static const rx::regex mutable_default(R"((\w+)\s*(?::[^=,()]+)?=\s*(?:\{\}|\[\]|dict\(\)|list\(\)|set\(\)))");
      if (l.find("def ") != std::string::npos)
        for (rx::sregex_iterator it(l.begin(), l.end(), mutable_default), e; it != e; ++it) state.insert((*it)[1].str());
    });
    const auto ind = [](const std::string& l) { return l.find_first_not_of(" \t"); };
    // The file's functions (methods too): name, first and last line of the body.
    struct Fn {
      std::string name;
      std::size_t def = 0, end = 0;
    };
    std::vector<Fn> fns;
    for (std::size_t d = 0; d < ls.size(); ++d) {
      rx::smatch m;
      if (!rx::regex_search(ls[d], m, def_line)) continue;
      std::size_t e = d + 1;
      while (e < ls.size() && (trim(ls[e]).empty() || ind(ls[e]) > ind(ls[d]))) ++e;
      fns.push_back({m[1].str(), d, e});
    }
    const auto enclosing = [&](std::size_t i) -> const Fn* {
      const Fn* best = nullptr;
      for (const auto& fn : fns)
        if (fn.def < i && i < fn.end && (!best || fn.def > best->def)) best = &fn;
      return best;
    };
    // The names each function's body calls (`name(`), read once on first use.
    std::vector<std::set<std::string, std::less<>>> callees;
    const auto calls = [&](const Fn& caller, const std::string& name) {
      if (callees.empty()) {
        callees.resize(fns.size());
        for (std::size_t fi = 0; fi < fns.size(); ++fi)
          for (std::size_t k = fns[fi].def + 1; k < fns[fi].end; ++k) {
            const std::string& l = ls[k];
            for (std::size_t b = 0; b < l.size();) {
              if (!(std::isalnum(static_cast<unsigned char>(l[b])) || l[b] == '_')) {
                ++b;
                continue;
              }
              std::size_t e = b;
              while (e < l.size() && (std::isalnum(static_cast<unsigned char>(l[e])) || l[e] == '_')) ++e;
              std::size_t after = e;
              while (after < l.size() && (l[after] == ' ' || l[after] == '\t')) ++after;
              if (after < l.size() && l[after] == '(') callees[fi].insert(l.substr(b, e - b));
              b = e;
            }
          }
      }
      return callees[static_cast<std::size_t>(&caller - fns.data())].count(name) > 0;
    };
    // Functions whose result comes from the replaced name: a return that reads it or calls such a
    // function (`def _read(): return OFFSET`, then `_cache["o"] = _read()`).
    std::set<std::string> giving{t.name};
    static const rx::regex return_line(R"(^\s*return\b(.*)$)");
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& fn : fns) {
        if (giving.count(fn.name)) continue;
        for (std::size_t k = fn.def + 1; k < fn.end && !giving.count(fn.name); ++k) {
          rx::smatch rm;
          if (!rx::regex_search(ls[k], rm, return_line)) continue;
          const std::string r = rm[1].str();
          if (std::any_of(giving.begin(), giving.end(), [&](const std::string& w) { return has_word(r, w); })) {
            giving.insert(fn.name);
            grew = true;
          }
        }
      }
    }
    // Does the value stored on line i come from the replaced name: the name itself in it, a call of a
    // function returning it, or a local of the enclosing function computed from those (`r = a + b +
    // OFFSET` ... `_results[k] = r`, `off, _ = OFFSET, None`)? A counter (`_calls += 1`) or a value
    // read elsewhere (`_sep = os.environ[...]`) stores no result.
    const auto from_name = [&](std::size_t i, const std::string& value) {
      const auto reads = [&](const std::string& v) {
        return std::any_of(giving.begin(), giving.end(), [&](const std::string& w) { return has_word(v, w); });
      };
      if (reads(value)) return true;
      const Fn* in = enclosing(i);
      if (!in) return false;
      static const rx::regex local(R"(^\s*\(?\s*([A-Za-z_]\w*(?:\s*,\s*\*?[A-Za-z_]\w*)*)\s*,?\s*\)?\s*(?::[^=]+)?(?:[-+*/|&^%]|//)?=([^=].*)$)");
      std::set<std::string> tainted;
      for (int pass = 0; pass < 3; ++pass)
        for (std::size_t k = in->def + 1; k < in->end; ++k) {
          rx::smatch lm;
          if (!rx::regex_search(ls[k], lm, local)) continue;
          const std::string rhs = lm[2].str();
          if (reads(rhs) || std::any_of(tainted.begin(), tainted.end(), [&](const std::string& w) { return has_word(rhs, w); }))
            for (const auto& n : split_top(lm[1].str(), {","})) tainted.insert(strip_spaces(n).substr(strip_spaces(n).rfind('*') == std::string::npos ? 0 : 1));
        }
      return std::any_of(tainted.begin(), tainted.end(), [&](const std::string& w) { return has_word(value, w); });
    };
    // Is what line i stores in `name` read back by the code that runs with the write: a function
    // connected to the writing one by calls (itself, what it calls, what calls it, transitively)
    // mentions `name` anywhere but as the target of that write? A record production writes and never
    // reads on that path (`_stats["last"] = r` read only by a separate `last()`, an audit message)
    // keeps nothing a later result depends on.
    const auto read_back = [&](std::size_t i, const std::string& name) {
      const Fn* w = enclosing(i);
      if (!w) return true;
      std::set<const Fn*> group{w};
      for (bool grew = true; grew && group.size() < 64;) {
        grew = false;
        for (const auto& fn : fns) {
          if (group.count(&fn)) continue;
          for (const Fn* g : group)
            if (calls(*g, fn.name) || calls(fn, g->name)) {
              group.insert(&fn);
              grew = true;
              break;
            }
        }
      }
      const rx::regex word = detail::cached_regex("(?:^|[^.\\w])" + name + "\\b");
      for (const Fn* g : group)
        for (std::size_t k = g->def + 1; k < g->end; ++k) {
          const std::string& l = ls[k];
          if (!has_word(l, name)) continue;
          // Printed or logged only: nothing a result depends on.
          static const rx::regex reporting(R"(^\s*(?:print|(?:\w+\.)*(?:debug|info|warning|warn|error|exception|critical|log))\s*\()");
          if (k != i && rx::regex_search(l, reporting)) continue;
          if (k != i) return true;
          // The write's own line: setdefault hands back what it keeps (`return _cache.setdefault("o", x)`),
          // and a second mention reads it (`_cache["o"] = _cache.get("o") or x`).
          if (rx::regex_search(l, detail::cached_regex("(?:^|[^.\\w])" + name + "\\s*\\.\\s*setdefault\\s*\\("))) return true;
          const auto first = rx::sregex_iterator(l.begin(), l.end(), word);
          if (std::distance(first, rx::sregex_iterator()) > 1) return true;
        }
      return false;
    };
    // The value a write stores: right of `=`, or the arguments of setdefault/update/append/add.
    const auto stored = [](const std::string& l, std::size_t from) {
      const std::string rest = l.substr(from);
      if (const auto eq = rest.find('='); eq != std::string::npos && (eq + 1 >= rest.size() || rest[eq + 1] != '=')) return rest.substr(eq + 1);
      return rest;
    };
    static const rx::regex attr_written(R"((?:^|[^.\w])(\w+)\s*\.\s*\w+\s*(?:[-+*/|&^%]|//)?=[^=])");
    for (std::size_t i = 0; i < ls.size(); ++i) {
      if (ind(ls[i]) == 0 || ind(ls[i]) == std::string::npos) continue;
      rx::smatch m;
      // `global _effective` in a function that assigns it a value from the replaced name.
      if (rx::regex_search(ls[i], m, global_decl)) {
        std::size_t end = i + 1;
        while (end < ls.size() && (trim(ls[end]).empty() || ind(ls[end]) >= ind(ls[i]))) ++end;
        for (const auto& g : split_top(m[1].str(), {","})) {
          const std::string gname = strip_spaces(g);
          const rx::regex assigned = detail::cached_regex("(?:^|[^.\\w])" + gname + "\\s*(?:[-+*/|&^%]|//)?=[^=]");
          for (std::size_t k = i + 1; k < end; ++k)
            if (rx::regex_search(ls[k], m, assigned) && from_name(k, stored(ls[k], static_cast<std::size_t>(m.position()))) &&
                read_back(k, gname))
              memos.insert(gname);
        }
      }
      for (const auto* re : {&written, &attr_written})
        for (rx::sregex_iterator it(ls[i].begin(), ls[i].end(), *re), e; it != e; ++it)
          if (state.count((*it)[1].str()) && (*it)[1].str() != "self" && from_name(i, stored(ls[i], static_cast<std::size_t>(it->position()))) &&
              read_back(i, (*it)[1].str()))
            memos.insert((*it)[1].str());
      // The process environment keeps what production writes there for every later test
      // (`os.environ.setdefault("CALC_OFFSET", str(OFFSET))`).
      static const rx::regex environ_write(R"(\bos\s*\.\s*environ\s*(?:\[[^\]]*\]\s*=[^=]|\.\s*(?:setdefault|update|__setitem__)\s*\())");
      if (rx::smatch em; rx::regex_search(ls[i], em, environ_write) && from_name(i, stored(ls[i], static_cast<std::size_t>(em.position()))))
        memos.insert("os.environ");
    }
    return memos;
  };
  // Persistent effects are looked for in the test file (outside its other tests, which this one does
  // not run unless it calls them), the patch's other test-side files and the helper modules the tests
  // import: a `reload` in tests/helpers.py called under the patch carries the stand-in over.
  const auto persists = [&](const std::string& path, const std::string& text) {
    if (!rx::regex_search(text, persistent)) return false;
    const FileModel model = analyze(Lang::python, text);
    std::vector<std::string> ls{""};
    for_each_capped_line(text, [&](int, const std::string& l) { ls.push_back(l); });
    for (std::size_t k = 1; k < ls.size(); ++k) {
      if (!rx::regex_search(ls[k], persistent)) continue;
      const TestUnit* other = nullptr;
      for (const auto& u : model.tests)
        if (static_cast<int>(k) >= u.line && static_cast<int>(k) <= u.end_line && !(path == f.path && line >= u.line && line <= u.end_line))
          other = &u;
      if (!other) return true;
      // Another test: harmless unless something calls it.
      const rx::regex call = detail::cached_regex("(?:^|[^\\w.])" + other->name + "\\s*\\(");
      for (std::size_t j = 1; j < ls.size(); ++j)
        if ((static_cast<int>(j) < other->line || static_cast<int>(j) > other->end_line) && rx::regex_search(ls[j], call)) return true;
    }
    return false;
  };
  std::set<std::string> memo_states;  // production state that memoizes a value computed from the replaced name
  for (const auto& g : files) {
    if (!g.after || lang_of(g.path) != Lang::python) continue;
    if (rx::regex_search(*g.after, fixture_override)) return false;
    for (const char* undoer : {"monkeypatch", "mocker", "MonkeyPatch"})
      if (tampered(*g.after, undoer)) return false;
    if ((g.path == f.path || is_test_path(g.path) || basename(g.path) == "conftest.py" || helpers.count(g.path)) && persists(g.path, *g.after))
      return false;
    if (!is_test_path(g.path) && rx::regex_search(*g.after, memo)) return false;
    if (!is_test_path(g.path))
      for (auto& m : hand_memo(*g.after)) memo_states.insert(std::move(m));
  }
  for (const auto& [path, text] : helpers)
    if (rx::regex_search(text, fixture_override) || persists(path, text)) return false;
  for (const auto& g : o.change_files)
    if (g.after && lang_of(g.path) == Lang::python && !is_test_path(g.path)) {
      if (rx::regex_search(*g.after, memo)) return false;
      for (auto& m : hand_memo(*g.after)) memo_states.insert(std::move(m));
    }
  const FileModel after = analyze(Lang::python, *f.after);
  const TestUnit* unit = nullptr;
  const std::string& text = lines[static_cast<std::size_t>(line)];
  const auto indent_of = [](const std::string& l) { return l.find_first_not_of(" \t"); };
  const bool decorator = trim(text).rfind('@', 0) == 0;
  for (const auto& u : after.tests) {
    if (line >= u.line && line <= u.end_line) unit = &u;
    // A decorator line belongs to the next definition below it.
    if (decorator && u.line > line && (!unit || u.line < unit->line)) {
      bool only_decorators = true;
      for (int k = line; k < u.line; ++k)
        if (const auto& l = lines[static_cast<std::size_t>(k)]; !trim(l).empty() && indent_of(l) == indent_of(text) && trim(l)[0] != '@')
          only_decorators = false;
      if (only_decorators) unit = &u;
    }
  }
  // The tests of the file's old version, and whether any test of the patch's Python test files went away.
  std::set<std::string> old_tests;
  for (const auto& g : files) {
    if (lang_of(g.path) != Lang::python || !is_test_path(g.path) || !g.before) continue;
    const FileModel before = analyze(Lang::python, *g.before);
    const FileModel now = g.path == f.path ? after : (g.after ? analyze(Lang::python, *g.after) : FileModel{});
    std::set<std::string> names;
    for (const auto& u : now.tests) names.insert(u.name);
    for (const auto& u : before.tests) {
      if (!names.count(u.name)) return false;  // a test went away or was renamed
      if (g.path == f.path) old_tests.insert(u.name);
    }
  }
  const auto new_test = [&](const TestUnit& u) { return !old_tests.count(u.name) && !names_failing_test(o.failing_tests, u.name); };
  // A memo the test isolates for its own run is no leak: replaced with an undo
  // (`monkeypatch.setattr(calc, "_cache", {})`), or emptied before the stand-in and again in a
  // `finally:` (`calc._cache.clear()`). Any other memo keeps the stand-in's value for later tests.
  if (!memo_states.empty()) {
    if (!unit) return false;
    std::vector<std::string> unit_lines;
    for (int k = unit->line; k <= unit->end_line && k < static_cast<int>(lines.size()); ++k) unit_lines.push_back(line_at(k));
    for (const auto& state : memo_states) {
      if (state == "os.environ") return false;
      const rx::regex replaced = detail::cached_regex(R"((?:monkeypatch|mp)\s*\.\s*setattr\s*\(\s*[\w.]+\s*,\s*['"])" + state + R"(['"]|\bpatch(?:\.object)?\s*\(\s*[\w.]+\s*,\s*['"])" + state + "['\"]");
      const rx::regex cleared = detail::cached_regex("^\\s*[\\w.]*\\b" + state + "\\s*\\.\\s*clear\\s*\\(\\s*\\)\\s*$");
      bool isolated = false, cleared_before = false, in_finally = false, cleared_finally = false;
      for (const auto& ul : unit_lines) {
        if (rx::regex_search(ul, replaced)) isolated = true;
        if (trim(ul) == "finally:") in_finally = true;
        if (rx::regex_search(ul, cleared)) (in_finally ? cleared_finally : cleared_before) = true;
      }
      if (!isolated && !(cleared_before && cleared_finally)) return false;
    }
  }
  // The undoing object (`mp` of a MonkeyPatch.context(), the monkeypatch parameter, a patcher) bound
  // again anywhere in the test but where it is made (`mp = pytest.MonkeyPatch()` inside the block).
  // (`last`: the last line that can still affect the undoing, the end of a `with` block; the test's end when 0.)
  const auto rebound_in_unit = [&](const std::string& name, int made_at, int last = 0) {
    if (!unit) return true;
    const rx::regex bind = detail::cached_regex("(?:^|[^.\\w])" + name + R"(\s*(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]|:=)|\b(?:as|for|del|global|nonlocal)\s+(?:\w+\s*,\s*)*)" + name + "\\b");
    const int end = std::min(last > 0 ? std::min(last, unit->end_line) : unit->end_line, static_cast<int>(lines.size()) - 1);
    for (int k = unit->line + 1; k <= end; ++k)
      if ((k != made_at && rx::regex_search(line_at(k), bind)) || tampered(line_at(k), name)) return true;
    return false;
  };
  static const rx::regex fixture_call(R"(^\s*(monkeypatch|mocker)\s*\.\s*\w+)");
  static const rx::regex patch_decorator(R"(^@(?:\w+\.)*patch(?:\.object|\.dict|\.multiple)?\()");
  rx::smatch fm;
  // The class a line belongs to (a decorator above it, or a line in its body): its tests, when it has
  // some and every one of them is new. A class decorator patches each test method and undoes after
  // it; setUp runs before each test and its cleanups after it.
  const auto new_class_at = [&](int k, bool below) -> std::optional<std::pair<int, int>> {
    static const rx::regex class_line(R"(^(\s*)class\s+\w+)");
    int c = k;
    rx::smatch cm;
    if (below) {
      while (c < static_cast<int>(lines.size()) && (trim(line_at(c)).empty() || trim(line_at(c))[0] == '@')) ++c;
      if (c >= static_cast<int>(lines.size()) || !rx::regex_search(line_at(c), cm, class_line) || indent_of(line_at(c)) != indent_of(line_at(k)))
        return std::nullopt;
    } else {
      while (c > 0 && !(rx::regex_search(line_at(c), cm, class_line) && indent_of(line_at(c)) < indent_of(line_at(k)))) --c;
      if (c <= 0) return std::nullopt;
    }
    int end = c + 1;
    while (end < static_cast<int>(lines.size()) && (trim(line_at(end)).empty() || indent_of(line_at(end)) > indent_of(line_at(c)))) ++end;
    int count = 0;
    for (const auto& u : after.tests)
      if (u.line > c && u.line < end) {
        if (!new_test(u)) return std::nullopt;
        ++count;
      }
    if (count == 0) return std::nullopt;
    return std::pair{c, end - 1};
  };
  bool class_scope = false;
  if (!unit && decorator && rx::regex_search(strip_spaces(text), patch_decorator) && new_class_at(line, true)) return true;
  if (!unit) {
    // setUp / setup_method of a class whose tests are all new: read as the test it prepares.
    for (const auto& h : after.helpers)
      if (line > h.line && line <= h.end_line && (h.name == "setUp" || h.name == "setup_method" || h.name == "asyncSetUp") &&
          new_class_at(h.line, false)) {
        unit = &h;
        class_scope = true;
      }
  }
  if (!unit) {
    // A function-scoped fixture of this file that takes monkeypatch/mocker, used only by new tests.
    if (!rx::regex_search(text, fm, fixture_call)) return false;
    const TestUnit* fixture = nullptr;
    for (const auto& h : after.helpers)
      if (line >= h.line && line <= h.end_line) fixture = &h;
    if (!fixture) return false;
    const auto params = python_parameters(lines, fixture->line);
    if (std::find(params.begin(), params.end(), fm[1].str()) == params.end()) return false;
    std::string decorators;
    for (int k = fixture->line - 1; k > 0 && trim(line_at(k)).rfind('@', 0) == 0; --k) decorators += strip_spaces(line_at(k));
    if (!contains(decorators, "fixture") || contains(decorators, "autouse") ||
        (contains(decorators, "scope=") && !contains(decorators, "scope=\"function\"") && !contains(decorators, "scope='function'")))
      return false;
    // Who takes it: tests and other functions of the file (another fixture could hand it on).
    bool used = false;
    for (const auto* group : {&after.tests, &after.helpers})
      for (const auto& u : *group) {
        if (&u == fixture) continue;
        const auto ps = python_parameters(lines, u.line);
        if (std::find(ps.begin(), ps.end(), fixture->name) == ps.end()) continue;
        if (group == &after.helpers || !new_test(u)) return false;
        used = true;
      }
    // usefixtures("name") or a conftest would reach it from elsewhere.
    if (contains(*f.after, "usefixtures") || basename(f.path) == "conftest.py") return false;
    return used;
  }
  if (!class_scope && !new_test(*unit)) return false;
  const int last = std::min(unit->end_line, static_cast<int>(lines.size()) - 1);
  static const rx::regex with_patch(R"(^\s*(?:async\s+)?with\b.*\bpatch(?:\.object|\.dict|\.multiple)?\s*\()");
  static const rx::regex patch_item(R"(^\s*(?:\w+\.)*patch(?:\.object|\.dict|\.multiple)?\s*\()");
  if (decorator) return rx::regex_search(strip_spaces(text), patch_decorator);
  if (rx::regex_search(text, with_patch)) return true;
  // An item of a parenthesized `with (` over several lines (black's style): the patch is undone
  // when the block ends.
  if (rx::regex_search(text, patch_item)) {
    for (int k = line - 1; k > unit->line; --k) {
      const std::string fl = strip_spaces(lines[static_cast<std::size_t>(k)]);
      if (fl.empty()) continue;
      if (fl == "with(" || fl == "asyncwith(") return indent_of(lines[static_cast<std::size_t>(k)]) < indent_of(text);
      if (fl.back() != ',' || indent_of(lines[static_cast<std::size_t>(k)]) != indent_of(text)) break;
    }
  }
  // `stack.enter_context(patch...(...))` on a `with ExitStack() as stack:` of the test.
  static const rx::regex entered(R"(^\s*(\w+)\s*\.\s*enter_context\s*\(\s*(?:\w+\.)*patch(?:\.object|\.dict|\.multiple)?\s*\()");
  if (rx::regex_search(text, fm, entered)) {
    const rx::regex stack = detail::cached_regex(R"(^\s*(?:async\s+)?with\b.*ExitStack\s*\(\s*\)\s+as\s+)" + fm[1].str() + R"(\b)");
    for (int k = unit->line; k < line; ++k)
      if (rx::regex_search(line_at(k), stack) && indent_of(line_at(k)) < indent_of(text)) return true;
    return false;
  }
  // `with pytest.MonkeyPatch.context() as mp:` undoes at the block's end.
  static const rx::regex mp_call(R"(^\s*(\w+)\s*\.\s*(?:setattr|setitem|delattr|delitem|setenv|delenv)\s*\()");
  if (rx::regex_search(text, fm, mp_call) && fm[1].str() != "monkeypatch" && fm[1].str() != "mocker") {
    const rx::regex context = detail::cached_regex(R"(^\s*(?:async\s+)?with\b.*\b(?:MonkeyPatch|monkeypatch)\s*\.\s*context\s*\(\s*\)\s+as\s+)" + fm[1].str() + R"(\s*:)");
    for (int k = line - 1; k > unit->line; --k)
      if (!trim(line_at(k)).empty() && indent_of(line_at(k)) < indent_of(text)) {
        if (!rx::regex_search(line_at(k), context)) return false;
        // The block ends at the first line back at the `with`'s indentation: what the name is bound
        // to after it no longer touches the undoing.
        int block_end = k + 1;
        while (block_end <= unit->end_line && block_end < static_cast<int>(lines.size()) &&
               (trim(line_at(block_end)).empty() || indent_of(line_at(block_end)) > indent_of(line_at(k))))
          ++block_end;
        return !rebound_in_unit(fm[1].str(), k, block_end - 1);
      }
    return false;
  }
  // The fixture undoes its changes at teardown; it must be a plain parameter of the test.
  if (rx::regex_search(text, fm, fixture_call)) {
    const auto params = python_parameters(lines, unit->line);
    return std::find(params.begin(), params.end(), fm[1].str()) != params.end() && !rebound_in_unit(fm[1].str(), unit->line);
  }
  const std::size_t body_indent = [&] {
    for (int k = unit->line + 1; k <= last; ++k)
      if (!trim(line_at(k)).empty() && indent_of(line_at(k)) > indent_of(line_at(unit->line))) return indent_of(line_at(k));
    return std::string::npos;
  }();
  const std::size_t my_indent = indent_of(text);
  if (body_indent == std::string::npos || my_indent < body_indent) return false;
  // `p = patch.object(...)` ... `p.start()` with `self.addCleanup(p.stop)` right beside the start.
  static const rx::regex patcher(R"(^\s*(\w+)\s*=\s*(?:\w+\.)*patch(?:\.object|\.dict|\.multiple)?\s*\()");
  if (rx::regex_search(text, fm, patcher)) {
    if (my_indent != body_indent) return false;
    const std::string p = fm[1].str();
    if (rebound_in_unit(p, line)) return false;
    std::vector<int> statements;  // the test's own statements, in order
    for (int k = unit->line + 1; k <= last; ++k)
      if (!trim(line_at(k)).empty() && indent_of(line_at(k)) == body_indent) statements.push_back(k);
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const std::string fl = strip_spaces(line_at(statements[i]));
      if (fl != p + ".start()" && fl != "self.addCleanup(" + p + ".stop)") continue;
      // The start and the cleanup as neighbours (either order).
      const auto cleanup_at = [&](std::size_t j) {
        return j < statements.size() && (strip_spaces(line_at(statements[j])) == "self.addCleanup(" + p + ".stop)" ||
                                         strip_spaces(line_at(statements[j])) == "self.addCleanup(patch.stopall)");
      };
      if (fl == p + ".start()") return cleanup_at(i + 1) || (i > 0 && cleanup_at(i - 1));
      return i + 1 < statements.size() && strip_spaces(line_at(statements[i + 1])) == p + ".start()";
    }
    return false;
  }
  // An assignment at the test's own level (or directly in a `try:` there; not in a nested function
  // or loop), its exact original saved first and put back in a `finally:` at the test's level after
  // it, or by self.addCleanup(setattr, ...).
  if (t.name.empty() || t.object.empty()) return false;
  const std::string target = t.object + "." + t.name;
  const std::string flat = strip_spaces(text);
  // The names the original is saved in (`saved = Calc.OFFSET`, `Calc.OFFSET, saved = 0, Calc.OFFSET`,
  // `saved = getattr(Calc, "OFFSET")`) at or before the line, and never bound to anything else in the test.
  const auto is_target = [&](const std::string& v) {
    // (Also with the brackets taken off, as `bare` below leaves it.)
    for (const char* q : {"\"", "'"})
      if (v == "getattr(" + t.object + "," + q + t.name + q + ")" || v == "getattr" + t.object + "," + q + t.name + q) return true;
    return v == target;
  };
  std::set<std::string> saved, rebound;
  static const rx::regex binding(R"(^([\w,().]+?)=([^=].*)$)");
  static const rx::regex other_binding(R"(^(\w+)(?:[-+*/%&|^@]|//|\*\*|>>|<<)=|\b(?:for|as)\s+(\w+)|(\w+)\s*:=|\bdel\s+(\w+))");
  for (int k = unit->line + 1; k <= last; ++k) {
    rx::smatch sm;
    const std::string fl = strip_spaces(line_at(k));
    for (rx::sregex_iterator it(line_at(k).begin(), line_at(k).end(), other_binding), e; it != e; ++it)
      for (int g = 1; g <= 4; ++g)
        if ((*it)[g].matched) rebound.insert((*it)[g].str());
    if (rx::smatch om; rx::regex_search(fl, om, other_binding) && om[1].matched) rebound.insert(om[1].str());
    if (!rx::regex_match(fl, sm, binding)) continue;
    auto left = split_top(sm[1].str(), {","}), right = split_top(sm[2].str(), {","});
    const auto bare = [](std::string x) {
      std::erase_if(x, [](char c) { return c == '(' || c == ')'; });
      return x;
    };
    for (std::size_t i = 0; i < left.size(); ++i) {
      const std::string name = bare(left[i]);
      if (name.empty() || !std::all_of(name.begin(), name.end(), ident_char)) continue;
      const bool exact = k <= line && (left.size() == 1 ? is_target(bare(sm[2].str())) : i < right.size() && is_target(bare(right[i])));
      if (exact && !saved.count(name)) saved.insert(name);
      else rebound.insert(name);
    }
  }
  for (const auto& r : rebound) saved.erase(r);
  const auto restores = [&](const std::string& fl) {
    for (const auto& v : saved) {
      if (fl == target + "=" + v) return true;
      for (const char* q : {"\"", "'"})
        if (fl == "setattr(" + t.object + "," + q + t.name + q + "," + v + ")") return true;
    }
    return false;
  };
  // The saved name appears nowhere but where it is saved and put back (`saved: int = 0`,
  // `[saved] = [0]`, `saved.x = ...` would change what goes back).
  for (auto v = saved.begin(); v != saved.end();) {
    bool other = false;
    for (int k = unit->line + 1; k <= last && !other; ++k) {
      const std::string fl = strip_spaces(line_at(k));
      if (!has_word(fl, *v) || restores(fl)) continue;
      rx::smatch sm;
      const bool save = rx::regex_match(fl, sm, binding) && (contains(sm[2].str(), target) || is_target(sm[2].str())) && k <= line;
      other = !save;
    }
    v = other ? saved.erase(v) : std::next(v);
  }
  if (saved.empty()) return false;
  // Putting the saved original back is no stand-in.
  if (restores(flat)) return true;
  const bool set_form = starts_with(flat, "setattr(" + t.object + ",\"" + t.name + "\",") ||
                        starts_with(flat, "setattr(" + t.object + ",'" + t.name + "',");
  if (!set_form && (flat.compare(0, target.size(), target) != 0 || flat.find('=') == std::string::npos)) return false;
  const auto cleanup = [&](const std::string& fl) {
    for (const auto& v : saved)
      for (const char* q : {"\"", "'"})
        if (fl == "self.addCleanup(setattr," + t.object + "," + q + t.name + q + "," + v + ")") return true;
    return false;
  };
  // Where the undoing must start: the next statement at the test's level (nothing in between can
  // fail and leave the stand-in behind), or the enclosing `try:` when the line is directly in one.
  int next = line + 1;
  while (next <= last && trim(line_at(next)).empty()) ++next;
  if (my_indent > body_indent) {
    int k = line - 1;
    while (k > unit->line && (trim(line_at(k)).empty() || indent_of(line_at(k)) >= my_indent)) --k;
    if (strip_spaces(line_at(k)) != "try:" || indent_of(line_at(k)) != body_indent) return false;
  } else {
    // A cleanup registered before the line (or as the very next statement) runs whatever happens.
    for (int k = unit->line + 1; k < line; ++k)
      if (indent_of(line_at(k)) == body_indent && cleanup(strip_spaces(line_at(k)))) return true;
    if (next <= last && indent_of(line_at(next)) == body_indent && cleanup(strip_spaces(line_at(next)))) return true;
    if (next > last || strip_spaces(line_at(next)) != "try:" || indent_of(line_at(next)) != body_indent) return false;
  }
  // The same `try` statement's `finally:` puts the saved original back.
  bool in_try = my_indent > body_indent, in_finally = false;
  std::size_t finally_body = std::string::npos;  // the indentation of the finally block's own statements
  for (int k = line + 1; k <= last; ++k) {
    const std::string& l = line_at(k);
    if (trim(l).empty()) continue;
    const std::string fl = strip_spaces(l);
    if (indent_of(l) <= body_indent) {
      if (in_finally) return false;
      if (!in_try && k == next && fl == "try:") in_try = true;
      else if (in_try && fl == "finally:") in_finally = true;
      else if (!in_try || !(starts_with(fl, "except") || fl == "else:")) return false;
      continue;
    }
    if (in_finally && finally_body == std::string::npos) finally_body = indent_of(l);
    // Directly in the finally block: not under an `if`, a loop or a nested function there.
    if (in_finally && indent_of(l) == finally_body && restores(fl)) return true;
  }
  return false;
}

}  // namespace

void mock_rules(const std::vector<FileVersions>& files, const IntegrityOptions& options,
                const std::map<std::string, std::string>& helpers, Findings& out) {
  std::optional<Production> prod;
  // Attribute names production code reads (`.offset`, `. scale`), indexed once from its texts.
  std::optional<std::set<std::string, std::less<>>> production_attribute_reads;
  // Does production code anywhere in the project (read through the head, at most 400 files and
  // 16 MiB: beyond that it counts as read) mention `name` outside its definition? Without the head
  // only the change's and the patch's files are known (IntegrityOptions).
  auto read_in_project = [&](const std::string& name) {
    if (options.project_files.empty() || !options.read_head_file) return false;
    std::size_t read = 0, bytes = 0;
    const rx::regex word = detail::cached_regex("\\b" + name + "\\b");
    const rx::regex definition = detail::cached_regex("^[ \\t]*" + name + "\\s*(?::[^=]+)?=[^=]");
    for (const auto& path : options.project_files) {
      if (is_test_path(path) || lang_of(path) == Lang::none) continue;
      if (++read > 400 || bytes > (std::size_t{16} << 20)) return true;
      auto text = options.read_head_file(path);
      if (!text) continue;
      bytes += text->size();
      bool defines_only = true;
      for_each_capped_line(*text, [&](int, const std::string& l) {
        if (defines_only && rx::regex_search(l, word) && !rx::regex_search(l, definition))
          defines_only = false;
      });
      if (!defines_only) return true;
    }
    return false;
  };
  // Is every production read of the constant `name` an argument of a sleep, a timer or a wait
  // (paces)? Then a test may set it to 0 to stay fast: no result changes. Read through the patch,
  // the change and the head (as read_in_project; beyond its budget: no).
  auto pacing_only = [&](const std::string& name) {
    const auto first = name.find_first_not_of('_');
    if (first == std::string::npos || !std::isupper(static_cast<unsigned char>(name[first]))) return false;
    const rx::regex definition = detail::cached_regex("^[ \\t]*" + name + "\\s*(?::[^=]+)?=[^=]");
    int reads = 0;
    bool other = false;
    std::set<std::string> seen;
    auto scan = [&](const std::string& path, const std::string& text) {
      if (is_test_path(path) || lang_of(path) == Lang::none || !seen.insert(path).second) return;
      std::string previous;
      for_each_capped_line(text, [&](int, const std::string& l) {
        const std::string above = std::move(previous);
        previous = l;
        if (other || !has_word(l, name) || rx::regex_search(l, definition)) return;
        // A call split over lines: `time.sleep(` above, the name alone as its argument here.
        static const rx::regex open_call(R"(\b(?:sleep|Sleep|wait|wait_for|setTimeout|delay|timeout)\s*\(\s*$)");
        const bool continued = rx::regex_search(above, open_call) && pacing_argument(l, name);
        if (continued || paces(l, name)) ++reads;
        else other = true;
      });
    };
    for (const auto& f : files)
      if (f.after) scan(f.path, *f.after);
    for (const auto& f : options.change_files)
      if (f.after) scan(f.path, *f.after);
    if (!options.project_files.empty() && options.read_head_file) {
      std::size_t read = 0, bytes = 0;
      for (const auto& path : options.project_files) {
        if (other || is_test_path(path) || lang_of(path) == Lang::none || seen.count(path)) continue;
        if (++read > 400 || bytes > (std::size_t{16} << 20)) return false;
        if (auto text = options.read_head_file(path)) {
          bytes += text->size();
          scan(path, *text);
        }
      }
    }
    return !other && reads > 0;
  };
  // A cache the production code fills as it runs (`_cache[key] = ...` in a function): emptying it
  // changes nothing the code computes. A "cache" production only reads is configuration.
  // A fill inside a function that runs at import (`def _init(): _table["offset"] = 1` ... `_init()`)
  // is the module's initial contents, not run time.
  auto filled_at_run_time = [&](const std::string& name) {
    const rx::regex filled = detail::cached_regex("\\b" + name +
                            "\\s*(?:\\[[^\\]]*\\]\\s*(?:[-+*/|&^%]|//)?=[^=]|\\.\\s*(?:setdefault|update|__setitem__|append|add|appendleft)\\s*\\()");
    static const rx::regex def_line(R"(^\s*(?:async\s+)?def\s+(\w+))");
    const auto in_text = [&](const std::string& text) {
      if (!has_word(text, name)) return false;
      std::vector<std::string> ls;
      for_each_capped_line(text, [&](int, const std::string& l) { ls.push_back(l); });
      const auto ind = [](const std::string& l) { return l.find_first_not_of(" \t"); };
      for (std::size_t i = 0; i < ls.size(); ++i) {
        if (ind(ls[i]) == 0 || ind(ls[i]) == std::string::npos || !has_word(ls[i], name) || !rx::regex_search(ls[i], filled)) continue;
        std::size_t d = i;
        rx::smatch dm;
        while (d > 0 && !(rx::regex_search(ls[d], dm, def_line) && ind(ls[d]) < ind(ls[i]))) --d;
        if (!rx::regex_search(ls[d], dm, def_line) || ind(ls[d]) >= ind(ls[i])) continue;  // a class or module body
        const rx::regex called_at_import = detail::cached_regex("^(?:\\w+\\s*=\\s*)?" + dm[1].str() + "\\s*\\(");
        if (std::none_of(ls.begin(), ls.end(), [&](const std::string& l) { return rx::regex_search(l, called_at_import); })) return true;
      }
      return false;
    };
    const auto scan = [&](const std::vector<FileVersions>& fs) {
      return std::any_of(fs.begin(), fs.end(), [&](const FileVersions& g) {
        return g.after && !is_test_path(g.path) && lang_of(g.path) != Lang::none && in_text(*g.after);
      });
    };
    return scan(files) || scan(options.change_files);
  };
  // Emptying a container that production defines empty and fills as it runs (a cache, a registry:
  // `_cache = {}` ... `_cache[key] = ...` in a function) puts it back to where the program starts:
  // isolation, not a stand-in. One defined with contents (`_cache = {"offset": 1}`) is configuration.
  auto reset_to_initial = [&](const std::string& name) {
    const rx::regex defined_empty = detail::cached_regex("(?:^|\\n)[ \\t]*" + name +
                                   R"(\s*(?::[^=\n]+)?=\s*(?:\{\}|\[\]|dict\(\)|set\(\)|list\(\)|(?:collections\.)?OrderedDict\(\)|(?:collections\.)?defaultdict\([^)\n]*\)|(?:weakref\.)?Weak(?:Value|Key)Dictionary\(\)|(?:collections\.)?(?:Counter|deque)\([^)\n]*\))\s*(?:#[^\n]*)?(?:\n|$))");
    const auto scan = [&](const std::vector<FileVersions>& fs) {
      return std::any_of(fs.begin(), fs.end(), [&](const FileVersions& g) {
        return g.after && !is_test_path(g.path) && lang_of(g.path) == Lang::python && rx::regex_search(*g.after, defined_empty);
      });
    };
    return (scan(files) || scan(options.change_files)) && filled_at_run_time(name);
  };
  for (const auto& f : files) {
    // Test code: test files, conftest.py, and helper modules the tests import (their stand-ins are
    // installed when the tests import them; what the tests call tells what they exercise).
    const auto helper = helpers.find(f.path);
    if (!f.after || !(is_test_path(f.path) || basename(f.path) == "conftest.py" || helper != helpers.end())) continue;
    const Lang lang = lang_of(f.path);
    if (lang == Lang::none) continue;
    const auto added = added_lines(f.before, f.after);
    if (added.empty()) continue;
    // A C++ subclass is a mock only in a file that declares gmock methods (a test peer that derives
    // from the class under test to reach protected members is not).
    const bool gmock = lang == Lang::cpp && (contains(*f.after, "MOCK_METHOD") || contains(*f.after, "MOCK_CONST_METHOD"));
    std::map<std::string, std::string> imported;
    bool imports_read = false;
    // Python: a name bound to a module's namespace (`ns = vars(calc)`, `ns = calc.__dict__`):
    // writes through it are writes to the module.
    std::map<std::string, std::string> namespace_aliases;
    if (lang == Lang::python) {
      static const rx::regex alias(R"(^\s*(\w+)\s*=\s*(?:vars\s*\(\s*([\w.]+)\s*\)|([\w.]+)\s*\.\s*__dict__)\s*$)");
      for_each_capped_line(*f.after, [&](int, const std::string& l) {
        rx::smatch am;
        if (rx::regex_search(l, am, alias)) namespace_aliases[am[1].str()] = am[2].matched ? am[2].str() : am[3].str();
      });
    }
    // Python: a constant of a class set on an instance (`c = Calc()` ... `c.OFFSET = 0`) or overridden
    // in a test subclass (`class _Calc(Calc): OFFSET = 0`) replaces the class's constant for the code
    // that runs on that object: read as `Calc.OFFSET = 0`.
    std::map<std::string, std::string> instance_of;  // local -> class it was made from
    std::map<int, std::string> subclass_constant;    // line -> "Base.NAME = ..."
    if (lang == Lang::python) {
      static const rx::regex made(R"(^\s*(\w+)\s*=\s*([A-Z]\w*)\s*\()");
      static const rx::regex cls(R"(^(\s*)class\s+\w+\s*\(\s*([\w.]+)\s*[,)])");
      static const rx::regex constant(R"(^(\s+)(_*[A-Z][A-Z0-9_]+\s*(?::[^=]+)?=[^=].*))");
      std::string base;
      std::size_t class_indent = 0;
      for_each_capped_line(*f.after, [&](int n, const std::string& l) {
        rx::smatch cm;
        if (rx::regex_search(l, cm, made)) instance_of[cm[1].str()] = cm[2].str();
        if (rx::regex_search(l, cm, cls)) {
          base = cm[2].str();
          class_indent = cm[1].length();
          return;
        }
        const auto first = l.find_first_not_of(" \t");
        if (first == std::string::npos) return;
        if (first <= class_indent) base.clear();
        if (!base.empty() && rx::regex_search(l, cm, constant) && static_cast<std::size_t>(cm[1].length()) > class_indent)
          subclass_constant[n] = base + "." + cm[2].str();
      });
    }
    // Python: a local bound to a module attribute or a class (`s = calc.SETTINGS`, `C = Calc`):
    // writes through it are writes to what it names.
    std::map<std::string, std::string> attribute_aliases;
    // Python test-file functions that change a parameter in place (`def _zero(d): d["offset"] = 0`):
    // function -> the positions of those parameters. A call handing them a production value
    // (`_zero(calc.SETTINGS)`) changes it.
    std::map<std::string, std::set<std::size_t>> mutating_helpers;
    std::function<std::string(const std::string&)> returned_value = [](const std::string& l) { return l; };
    if (lang == Lang::python) {
      // Functions of the test file and of the helper modules the tests import, and the parameters they
      // change in place, directly or by handing them to another such function (`_zero(d)` -> `_set(d, k, v)`).
      struct Fn {
        std::vector<std::string> params;
        std::vector<std::string> body;
        std::string returned;  ///< the dotted value every `return`/`yield` of it gives, "" when none or several
        bool fixture = false;  ///< a pytest fixture: its parameter name in a test is that value
      };
      std::map<std::string, Fn> fns;
      static const rx::regex def(R"(^(\s*)(?:async\s+)?def\s+(\w+)\s*\()");
      const auto read_functions = [&](const std::string& text) {
        std::vector<std::string> ls;
        for_each_capped_line(text, [&](int, const std::string& l) { ls.push_back(l); });
        for (std::size_t i = 0; i < ls.size(); ++i) {
          rx::smatch dm;
          if (!rx::regex_search(ls[i], dm, def)) continue;
          std::vector<std::string> ls1{""};
          ls1.insert(ls1.end(), ls.begin() + static_cast<std::ptrdiff_t>(i), ls.begin() + static_cast<std::ptrdiff_t>(std::min(ls.size(), i + 30)));
          Fn fn;
          for (const auto& prm : python_parameters(ls1, 1)) fn.params.push_back(prm.substr(0, prm.find_first_of("=*")));
          const std::size_t indent = dm[1].length();
          for (std::size_t k = i + 1; k < ls.size(); ++k) {
            const auto first = ls[k].find_first_not_of(" \t");
            if (first == std::string::npos) continue;
            if (first <= indent) break;
            fn.body.push_back(ls[k]);
          }
          static const rx::regex gives(R"(^\s*(?:return|yield)\s+([A-Za-z_]\w*(?:\s*\.\s*\w+)*)\s*$)");
          static const rx::regex any_return(R"(^\s*(?:return|yield)\b)");
          bool several = false;
          for (const auto& bl : fn.body) {
            rx::smatch gm;
            if (rx::regex_search(bl, gm, gives)) {
              const std::string v = strip_spaces(gm[1].str());
              if (!fn.returned.empty() && fn.returned != v) several = true;
              fn.returned = v;
            } else if (rx::regex_search(bl, any_return)) {
              several = true;
            }
          }
          if (several || fn.returned == "None" || fn.returned == "True" || fn.returned == "False") fn.returned.clear();
          for (std::size_t k = i; k-- > 0 && i - k <= 3;) {
            const std::string t = trim(ls[k]);
            if (!starts_with(t, "@")) break;
            if (contains(t, "fixture")) fn.fixture = true;
          }
          fns.emplace(dm[2].str(), std::move(fn));
        }
        // `get = lambda: calc.SETTINGS`: a function returning that value.
        static const rx::regex lambda_def(R"(^\s*(\w+)\s*=\s*lambda\s*:\s*([A-Za-z_]\w*(?:\s*\.\s*\w+)+)\s*$)");
        for (const auto& l : ls) {
          rx::smatch lm;
          if (rx::regex_search(l, lm, lambda_def)) {
            Fn fn;
            fn.returned = strip_spaces(lm[2].str());
            fns.emplace(lm[1].str(), std::move(fn));
          }
        }
      };
      read_functions(*f.after);
      // (The patch's versions first: a name keeps its first definition.)
      for (const auto& g : files)
        if (g.after && g.path != f.path && lang_of(g.path) == Lang::python && (is_test_path(g.path) || helpers.count(g.path)))
          read_functions(*g.after);
      for (const auto& [hp, htext] : helpers)
        if (lang_of(hp) == Lang::python) read_functions(htext);
      // A call with no arguments of a function that hands back a production value (a test helper
      // `def settings(): return calc.SETTINGS`, a production accessor `calc.get_config()` returning
      // a module-level `config`) is that value: `settings()["offset"] = 0` writes calc.SETTINGS.
      // (fns by value: the function outlives this block. accessors: production function -> the
      // module-level name it returns, read once.)
      returned_value = [&, fns, accessors = std::map<std::string, std::string>(), accessors_read = false](const std::string& l) mutable {
        if (l.find("()") == std::string::npos && l.find("( )") == std::string::npos) return l;
        static const rx::regex call(R"(\b([A-Za-z_]\w*(?:\s*\.\s*\w+)*)\s*\(\s*\))");
        std::string rewritten;
        std::size_t from = 0;
        for (rx::sregex_iterator it(l.begin(), l.end(), call), e; it != e; ++it) {
          const std::string name = strip_spaces((*it)[1].str());
          std::string value;
          if (auto fit = fns.find(name); fit != fns.end() && !fit->second.fixture) value = fit->second.returned;
          if (value.empty()) {
            if (!accessors_read) {
              accessors_read = true;
              if (!prod) prod = production(files, options);
              static const rx::regex top_def(R"(^def\s+(\w+)\s*\(\s*\)\s*(?:->[^:]*)?:\s*$)");
              static const rx::regex ret(R"(^\s+return\s+(\w+)\s*$)");
              for (const std::string* t : prod->classes->texts) {
                std::string pending;
                for_each_capped_line(*t, [&](int, const std::string& pl) {
                  rx::smatch pm;
                  if (rx::regex_search(pl, pm, top_def)) {
                    pending = pm[1].str();
                    return;
                  }
                  if (trim(pl).empty() || starts_with(trim(pl), "#") || starts_with(trim(pl), "\"\"\"")) return;
                  if (!pending.empty() && rx::regex_search(pl, pm, ret) && prod->module_vars.count(pm[1].str())) accessors[pending] = pm[1].str();
                  pending.clear();
                });
              }
            }
            const std::string last = name.substr(name.rfind('.') == std::string::npos ? 0 : name.rfind('.') + 1);
            if (auto ait = accessors.find(last); ait != accessors.end())
              value = (last.size() < name.size() ? name.substr(0, name.size() - last.size()) : std::string()) + ait->second;
          }
          if (value.empty()) continue;
          rewritten += l.substr(from, static_cast<std::size_t>(it->position()) - from) + value;
          from = static_cast<std::size_t>(it->position() + it->length());
        }
        return from > 0 ? rewritten + l.substr(from) : l;
      };
      // Every binding form: `s = calc.SETTINGS`, `(s := calc.SETTINGS)`, `s, _ = calc.SETTINGS, None`,
      // `for s in [calc.SETTINGS]:`, `with calc.LOCK as s:`, and getattr(calc, "SETTINGS") for calc.SETTINGS.
      // (`self.s = calc.SETTINGS` in setUp: the test's `self.s[...] = 0` writes it.)
      static const rx::regex alias(R"(^\s*((?:self\s*\.\s*)?\w+)\s*=\s*([A-Za-z_]\w*(?:\s*\.\s*\w+)*)\s*$)");
      static const rx::regex walrus(R"(\b(\w+)\s*:=\s*([A-Za-z_]\w*(?:\s*\.\s*\w+)*)\s*[),\]])");
      static const rx::regex tuple(R"(^\s*[\[(]?\s*(\w+(?:\s*,\s*\*?\w+)*)\s*,?\s*[\])]?\s*=\s*(.+)$)");
      static const rx::regex loop(R"(^\s*(?:async\s+)?for\s+(\w+)\s+in\s+[\[(]\s*([A-Za-z_]\w*(?:\s*\.\s*\w+)+)\s*[,\])])");
      static const rx::regex with_as(R"(\b([A-Za-z_]\w*(?:\s*\.\s*\w+)+)\s+as\s+(\w+))");
      const auto keep = [&](const std::string& local, std::string value) {
        // `calc.SETTINGS if calc.SETTINGS else {}`, `calc.SETTINGS or {}`: the production value is
        // one of what the name may hold.
        for (const auto& alt : split_top(value, {" if ", " else ", " or ", " and "})) {
          const std::string a = strip_spaces(alt);
          if (a != strip_spaces(value) && a.find('.') != std::string::npos &&
              std::all_of(a.begin(), a.end(), [](char c) { return ident_char(c) || c == '.'; })) {
            value = a;
            break;
          }
        }
        value = strip_spaces(value);
        // `[calc.SETTINGS][0]`, `(calc.SETTINGS,)[-1]`: the one item.
        static const rx::regex picked(R"(^[\[(]([A-Za-z_][\w.]*),?[\])]\[-?[01]\]$)");
        if (rx::smatch pm; rx::regex_match(value, pm, picked)) value = pm[1].str();
        if (value == "True" || value == "False" || value == "None" || local == value || local == "_" || value.empty() ||
            !std::all_of(value.begin(), value.end(), [](char c) { return ident_char(c) || c == '.'; }) || std::isdigit(static_cast<unsigned char>(value[0])))
          return;
        attribute_aliases[local] = value;
      };
      for_each_capped_line(*f.after, [&](int, const std::string& raw) {
        const std::string l = returned_value(python_getattr_as_attribute(raw));
        rx::smatch am;
        if (rx::regex_search(l, am, alias)) keep(strip_spaces(am[1].str()), am[2].str());
        for (rx::sregex_iterator it(l.begin(), l.end(), walrus), e; it != e; ++it) keep((*it)[1].str(), (*it)[2].str());
        if (rx::regex_search(l, am, tuple)) {
          std::string rhs = trim(am[2].str());  // (spaces kept: `a if c else b` is read in keep)
          const std::string lhs = strip_spaces(l.substr(0, l.find('=')));
          // `[s] = [calc.SETTINGS]`, `(s,) = (calc.SETTINGS,)`: unpacked from a literal of the same shape.
          if (!lhs.empty() && (lhs.front() == '[' || lhs.front() == '(') && rhs.size() >= 2 && (rhs.front() == '[' || rhs.front() == '(') &&
              (rhs.back() == ']' || rhs.back() == ')'))
            rhs = rhs.substr(1, rhs.size() - 2);
          const auto left = split_top(am[1].str(), {","}), right = split_top(rhs, {","});
          for (std::size_t i = 0; i < left.size() && i < right.size() && left.size() == right.size(); ++i)
            keep(strip_spaces(left[i]), right[i]);
        }
        if (rx::regex_search(l, am, loop)) keep(am[1].str(), am[2].str());
        for (rx::sregex_iterator it(l.begin(), l.end(), with_as), e; it != e; ++it) keep((*it)[2].str(), (*it)[1].str());
      });
      // `from calc import config as cfg`: cfg is calc.config. A pytest fixture handing back a
      // production value (`def settings(): return calc.SETTINGS`): the test's parameter of that name is it.
      static const rx::regex from_as(R"(^\s*from\s+([\w.]+)\s+import\s+\(?(.+?)\)?\s*$)");
      for_each_capped_line(*f.after, [&](int, const std::string& l) {
        rx::smatch fm;
        if (!rx::regex_search(l, fm, from_as)) return;
        for (const auto& item : split_top(fm[2].str(), {","})) {
          const auto words = split_top(trim(item), {" as "});
          if (words.size() == 2 && !attribute_aliases.count(strip_spaces(words[1])))
            attribute_aliases[strip_spaces(words[1])] = fm[1].str() + "." + strip_spaces(words[0]);
        }
      });
      for (const auto& [fname, fn] : fns)
        if (fn.fixture && !fn.returned.empty() && fn.returned.find('.') != std::string::npos && !attribute_aliases.count(fname))
          attribute_aliases[fname] = fn.returned;
      for (bool grew = true; grew;) {
        grew = false;
        for (const auto& [fname, fn] : fns)
          for (std::size_t pi = 0; pi < fn.params.size(); ++pi) {
            const std::string& pn = fn.params[pi];
            if (pn.empty() || pn == "self" || pn == "cls" || mutating_helpers[fname].count(pi)) continue;
            const rx::regex changed = detail::cached_regex("^\\s*(?:del\\s+)?" + pn +
                                     R"(\s*(?:\[|\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__|__ior__)\s*\(|\.\s*\w+\s*=[^=]|(?:[-+*/|&^%]|//|<<|>>|\*\*)=))");
            bool mutates = false;
            for (const auto& bl : fn.body) {
              if (rx::regex_search(bl, changed)) mutates = true;
              // Handed on to a function that changes that parameter.
              for (const auto& [other, positions] : mutating_helpers) {
                if (mutates) break;
                for (const auto& a : arguments_at(bl, other, positions))
                  if (a == pn) mutates = true;
              }
              if (mutates) break;
            }
            if (mutates) {
              mutating_helpers[fname].insert(pi);
              grew = true;
            }
          }
      }
      std::erase_if(mutating_helpers, [](const auto& kv) { return kv.second.empty(); });
    }
    // The file's lines (1-based, [0] empty), read once for the listener checks below.
    std::vector<std::string> file_lines;
    const auto lines_of_file = [&]() -> const std::vector<std::string>& {
      if (file_lines.empty()) {
        file_lines.emplace_back();
        for_each_capped_line(*f.after, [&](int, const std::string& al) { file_lines.push_back(al); });
      }
      return file_lines;
    };
    for (const auto& [n, full] : added) {
      std::string l0 = lang == Lang::python ? returned_value(python_getattr_as_attribute(full.substr(0, kRegexLineChars))) : full.substr(0, kRegexLineChars);
      if (auto sc = subclass_constant.find(n); sc != subclass_constant.end()) l0 = sc->second;
      if (!attribute_aliases.empty()) {
        static const rx::regex through(R"(^(\s*(?:del\s+)?)((?:self\s*\.\s*)?\w+)(\s*(?:\[|\.|(?:[-+*/|&^%]|//|<<|>>|\*\*)=)))");
        rx::smatch am;
        if (rx::regex_search(l0, am, through))
          if (auto it = attribute_aliases.find(strip_spaces(am[2].str())); it != attribute_aliases.end())
            l0 = am[1].str() + it->second + am[3].str() + am.suffix().str();
      }
      if (!instance_of.empty()) {
        // type(c) and c.__class__ of an instance made from a class: the class.
        static const rx::regex class_of(R"(\btype\s*\(\s*(\w+)\s*\)|\b(\w+)\s*\.\s*__class__\b)");
        std::string rewritten;
        std::size_t from = 0;
        for (rx::sregex_iterator it(l0.begin(), l0.end(), class_of), e; it != e; ++it) {
          const std::string local = (*it)[1].matched ? (*it)[1].str() : (*it)[2].str();
          auto c = instance_of.find(local);
          if (c == instance_of.end()) continue;
          rewritten += l0.substr(from, static_cast<std::size_t>(it->position()) - from) + c->second;
          from = static_cast<std::size_t>(it->position() + it->length());
        }
        if (from > 0) l0 = rewritten + l0.substr(from);
      }
      if (!instance_of.empty()) {
        static const rx::regex on_instance(R"(^(\s*)(\w+)\s*\.\s*(_*[A-Z][A-Z0-9_]+\s*=[^=].*))");
        rx::smatch im;
        if (rx::regex_search(l0, im, on_instance))
          if (auto it = instance_of.find(im[2].str()); it != instance_of.end()) l0 = im[1].str() + it->second + "." + im[3].str();
      }
      if (!namespace_aliases.empty()) {
        static const rx::regex write(R"(^(\s*)(\w+)(\s*(?:\[|\.\s*(?:update|setdefault|__setitem__)\s*\()))");
        rx::smatch wm;
        if (rx::regex_search(l0, wm, write))
          if (auto it = namespace_aliases.find(wm[2].str()); it != namespace_aliases.end())
            l0 = wm[1].str() + "vars(" + it->second + ")" + wm[3].str() + wm.suffix().str();
      }
      // What the line may also change: the views of it read below.
      std::vector<std::string> views{l0};
      if (lang == Lang::python) {
        const std::string indent = l0.substr(0, l0.find_first_not_of(" \t") == std::string::npos ? 0 : l0.find_first_not_of(" \t"));
        // An attribute written on a chain rooted at a module-level value (`calc.config.offset = 0`,
        // `calc.CONFIG.offset = 0`): that value changed in place.
        // (Only an attribute production reads: `app.testing = True` on a framework object is configuration.)
        const auto read_by_production = [&](const std::string& attr) {
          if (!production_attribute_reads) {
            if (!prod) prod = production(files, options);
            production_attribute_reads.emplace();
            for (const std::string* t : prod->classes->texts)
              for (std::size_t at = t->find('.'); at != std::string::npos; at = t->find('.', at + 1)) {
                std::size_t b = at + 1;
                while (b < t->size() && (*t)[b] == ' ') ++b;
                std::size_t e = b;
                while (e < t->size() && ident_char((*t)[e])) ++e;
                if (e > b) production_attribute_reads->emplace(t->substr(b, e - b));
              }
          }
          return production_attribute_reads->count(attr) > 0;
        };
        static const rx::regex chain(R"(^\s*(?:del\s+)?([A-Za-z_]\w*)\s*\.\s*(\w+)\s*(?:\.\s*\w+\s*)*\.\s*(\w+)\s*(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]))");
        rx::smatch cm;
        // (A value bound at module level: a class's attribute, `calc.Calc.OFFSET = 5`, is read as itself.)
        const auto module_value = [&](const std::string& name) {
          if (!prod) prod = production(files, options);
          return prod->module_vars.count(name) > 0 && !prod->classes->attributes.count(name);
        };
        if (rx::regex_search(l0, cm, chain) && cm[1].str() != "self" && cm[1].str() != "cls" && module_value(cm[2].str()) &&
            read_by_production(cm[3].str()))
          views.push_back(indent + cm[1].str() + "." + cm[2].str() + ".update()");
        // A lambda that changes its parameter, mapped over production values
        // (`list(map(lambda d: d.update(offset=0), [calc.SETTINGS]))`).
        static const rx::regex lambda(R"(\blambda\s+(\w+)\s*:)");
        for (rx::sregex_iterator it(l0.begin(), l0.end(), lambda), e; it != e; ++it) {
          const std::string pn = (*it)[1].str();
          const rx::regex changed = detail::cached_regex("\\b" + pn + R"(\s*(?:\[[^\]]*\]\s*=|\.\s*(?:update|setdefault|clear|pop|popitem|append|extend|insert|remove|add|discard|__setitem__|__delitem__)\s*\())");
          if (!rx::regex_search(l0, changed)) continue;
          static const rx::regex dotted(R"(\b([A-Za-z_]\w*\.[A-Za-z_]\w*)\b)");
          for (rx::sregex_iterator d(l0.begin(), l0.end(), dotted), de; d != de; ++d)
            if (!starts_with((*d)[1].str(), pn + ".")) views.push_back(indent + (*d)[1].str() + ".update()");
        }
        // setattr(alias, "offset", 0) read as `alias.offset = 0`, then through the alias.
        if (l0.find("setattr") != std::string::npos) {
          static const rx::regex set_form(R"(\bsetattr\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*['"](\w+)['"]\s*,(.*)\)\s*$)");
          if (rx::smatch sm; rx::regex_search(l0, sm, set_form)) {
            std::string owner = sm[1].str();
            const std::string head = owner.substr(0, owner.find('.'));
            if (auto al = attribute_aliases.find(head); al != attribute_aliases.end() && al->second != owner) {
              owner = al->second + owner.substr(head.size());
              views.push_back(indent + owner + "." + sm[2].str() + " =" + sm[3].str());
            }
            if (owner.find('.') != std::string::npos && module_value(owner.substr(owner.rfind('.') + 1)) && read_by_production(sm[2].str()))
              views.push_back(indent + owner + ".update()");
          }
        }
        // vars(calc.config).update(...), calc.config.__dict__[...] = ...: that value changed in place.
        static const rx::regex namespace_of(R"(\bvars\s*\(\s*([A-Za-z_]\w*\.[\w.]+)\s*\)|\b([A-Za-z_]\w*\.[\w.]+?)\s*\.\s*__dict__\b)");
        if (rx::smatch nm; rx::regex_search(l0, nm, namespace_of)) {
          const std::string owner = nm[1].matched ? nm[1].str() : nm[2].str();
          if (module_value(owner.substr(owner.rfind('.') + 1))) views.push_back(indent + owner + ".update()");
        }
        // `from calc import config` ... `config.offset = 0`: a production value's attribute written.
        static const rx::regex own_attr(R"(^\s*([A-Za-z_]\w*)(?:\s*\.\s*\w+)*\s*\.\s*(\w+)\s*(?:(?:[-+*/|&^%]|//|<<|>>|\*\*)?=[^=]))");
        if (rx::smatch om; rx::regex_search(l0, om, own_attr) && om[1].str() != "self" && om[1].str() != "cls" &&
                            module_value(om[1].str()) && read_by_production(om[2].str()))
          views.push_back(indent + om[1].str() + ".update()");
        // A test-file function that changes its parameter in place, handed a production value.
        for (const auto& [fn, positions] : mutating_helpers)
          for (std::string a : arguments_at(l0, fn, positions)) {
            if (auto al = attribute_aliases.find(a); al != attribute_aliases.end()) a = al->second;
            if (a.find('.') != std::string::npos && std::all_of(a.begin(), a.end(), [](char c) { return ident_char(c) || c == '.'; }))
              views.push_back(indent + a + ".update()");
          }
      }
      for (const std::string& view : views) {
      const std::string& l = view;
      auto ts = targets(l, lang, gmock);
      if (ts.empty()) continue;
      if (!prod) prod = production(files, options);
      if (!imports_read) {
        imported = imports(*f.after, lang);
        // A local redefinition may have replaced the import itself: the before version's imports count.
        if (f.before)
          for (auto& [k, v] : imports(*f.before, lang)) imported.emplace(k, v);
        // Python: a module imported at run time (`mod = __import__(name)`, `importlib.import_module("calc")`):
        // its attributes are a module's, whichever module the name turns out to be.
        if (lang == Lang::python) {
          static const rx::regex dynamic(
              R"(^\s*(\w+)\s*=\s*(?:(?:__import__|(?:importlib\s*\.\s*)?import_module)\s*\(\s*|sys\s*\.\s*modules\s*(?:\[\s*|\.\s*get\s*\(\s*))(?:['"]([\w.]+)['"])?)");
          for_each_capped_line(*f.after, [&](int, const std::string& dl) {
            rx::smatch dm;
            if (rx::regex_search(dl, dm, dynamic)) imported.emplace(dm[1].str(), dm[2].matched ? dm[2].str() : "");
          });
        }
        imports_read = true;
      }
      for (const auto& t : ts) {
        std::string why;
        if (lang == Lang::python && (temp_location_value(l, t.name) || (emptied(l) && reset_to_initial(t.name)))) continue;
        // A listener subscribed and unsubscribed again (`calc.LISTENERS.append(seen.append)` ...
        // `finally: calc.LISTENERS.remove(seen.append)`): the code under test runs, observed.
        if (lang == Lang::python) {
          static const rx::regex subscribed(R"(^\s*([\w.]+)\s*\.\s*(?:append|add)\s*\((.+)\)\s*$)");
          static const rx::regex unsubscribed(R"(^\s*([\w.]+)\s*\.\s*(?:remove|discard)\s*\((.+)\)\s*$)");
          rx::smatch sm;
          static const rx::regex popped(R"(^\s*([\w.]+)\s*\.\s*pop\s*\(\s*\)\s*$|^\s*del\s+([\w.]+)\s*\[\s*-\s*1\s*\]\s*$)");
          if (rx::regex_search(l, sm, popped)) {
            // The last subscription taken off again: undoing an append made above.
            const std::string list = strip_spaces(sm[1].matched ? sm[1].str() : sm[2].str());
            bool done = false;
            for_each_capped_line(*f.after, [&](int k, const std::string& al) {
              if (k < n && starts_with(strip_spaces(al), list + ".append(")) done = true;
            });
            if (done) continue;
          }
          if (rx::regex_search(l, sm, unsubscribed)) {
            // The undoing of a subscription made above.
            const std::string did1 = strip_spaces(sm[1].str()) + ".append(" + strip_spaces(sm[2].str()) + ")";
            const std::string did2 = strip_spaces(sm[1].str()) + ".add(" + strip_spaces(sm[2].str()) + ")";
            bool done = false;
            for_each_capped_line(*f.after, [&](int k, const std::string& al) {
              if (k < n && (strip_spaces(al) == did1 || strip_spaces(al) == did2)) done = true;
            });
            if (done) continue;
          }
          if (rx::regex_search(l, sm, subscribed)) {
            // Only a callable that cannot change anything production computes: a bound append of a
            // container the test made (`seen = []` ... `calc.LISTENERS.append(seen.append)`), whatever
            // production does with its (None) result. A function of the test's may edit what it is handed.
            const std::string list = strip_spaces(sm[1].str()), item = strip_spaces(sm[2].str());
            // What `name` holds at line `at`: the nearest binding above it in the enclosing function (or
            // at module level): the assigned expression, "def:" + the body of a local def, "" when unknown.
            lines_of_file();
            const auto reaching = [&](const std::string& name, int at) -> std::string {
              const auto indent = [](const std::string& x) { return x.find_first_not_of(" \t"); };
              const rx::regex bound = detail::cached_regex(R"(^\s*)" + name + R"(\s*(?::[^=]+)?=([^=].*)$)");
              const rx::regex other = detail::cached_regex("^\\s*(?:for\\s+.*\\b" + name + "\\b.*\\bin\\b|with\\b.*\\bas\\s+" + name + "\\b|(?:from\\s+\\S+\\s+)?import\\b.*\\b" +
                                     name + "\\b|global\\s|nonlocal\\s|" + name + "\\s*(?:[-+*/|&^%]|//)=)|:=");
              const rx::regex def = detail::cached_regex(R"(^(\s*)(?:async\s+)?(?:def|class)\s+)" + name + R"(\b)");
              std::size_t limit = at >= 1 && static_cast<std::size_t>(at) < file_lines.size() ? indent(file_lines[static_cast<std::size_t>(at)]) : 0;
              for (int k = at - 1; k >= 1; --k) {
                const std::string& al = file_lines[static_cast<std::size_t>(k)];
                if (trim(al).empty()) continue;
                const std::size_t ai = indent(al);
                rx::smatch bm;
                if (rx::regex_search(al, bm, def) && ai <= limit) {
                  std::string body;
                  for (std::size_t j = static_cast<std::size_t>(k) + 1; j < file_lines.size(); ++j) {
                    if (trim(file_lines[j]).empty()) continue;
                    if (indent(file_lines[j]) <= ai) break;
                    body += trim(file_lines[j]) + "\n";
                  }
                  return trim(al).rfind("class", 0) == 0 ? std::string() : "def:" + body;
                }
                if (ai <= limit && rx::regex_search(al, bm, bound)) return trim(bm[1].str());
                if (ai <= limit && has_word(al, name) && rx::regex_search(al, other)) return "";
                // Leaving the enclosing function: only module-level bindings are seen from here.
                if (ai < limit && rx::regex_search(al, detail::cached_regex(R"(^\s*(?:async\s+)?def\s)"))) limit = 0;
                else if (ai < limit) limit = ai;
              }
              return "";
            };
            // A built-in container (`[]`, `list()`, `collections.deque(maxlen=4)`, `queue.Queue()`).
            // (A constructor name the test side redefines, `class list(list)`, `class deque(...)`, is not the built-in.)
            const auto fresh_container = [&](const std::string& value) {
              static const rx::regex container(
                  R"(^(?:\[\]|\{\}|(set|list|dict)\(\)|(?:collections\.)?(deque)\((?:maxlen\s*=\s*)?[0-9]*\)|(?:queue\.)?((?:Simple|Lifo|Priority)?Queue)\((?:maxsize\s*=\s*)?[0-9]*\))$)");
              rx::smatch cm;
              const std::string v = strip_spaces(value);
              if (!rx::regex_match(v, cm, container)) return false;
              const std::string ctor = cm[1].matched ? cm[1].str() : cm[2].matched ? cm[2].str() : cm[3].matched ? cm[3].str() : std::string();
              if (ctor.empty() || contains(v, ".")) return true;
              const rx::regex redefined = detail::cached_regex("(?:^|\\n)\\s*(?:class|def)\\s+" + ctor + "\\b|(?:^|\\n)\\s*" + ctor +
                                         "\\s*=[^=]|\\bimport\\b[^\\n]*\\bas\\s+" + ctor + "\\b");
              for (const auto& g : files)
                if (g.after && lang_of(g.path) == Lang::python && (is_test_path(g.path) || basename(g.path) == "conftest.py") &&
                    rx::regex_search(*g.after, redefined))
                  return false;
              return true;
            };
            static const rx::regex recorder(R"(^(\w+)\.(?:append|add|put|put_nowait|appendleft)$)");
            static const rx::regex forwarding(R"(^lambda(\w+):(\w+)\.(?:append|add|put|put_nowait|appendleft)\(\1\)$)");
            // `functools.partial(events.insert, 0)`: a recorder with a fixed position.
            static const rx::regex partial_insert(R"(^(?:functools\.)?partial\((\w+)\.insert,-?[0-9]+\)$)");
            rx::smatch rm;
            bool safe = false;
            // A bound recorder method of a container the test made (by the binding the subscription sees),
            // or a lambda or local def whose whole body hands its argument to one.
            const auto records = [&](const std::string& callable) {
              rx::smatch cm;
              if (rx::regex_match(callable, cm, recorder)) return fresh_container(reaching(cm[1].str(), n));
              if (rx::regex_match(callable, cm, forwarding)) return fresh_container(reaching(cm[2].str(), n));
              if (rx::regex_match(callable, cm, partial_insert)) return fresh_container(reaching(cm[1].str(), n));
              return false;
            };
            if (records(item)) {
              safe = true;
            } else if (rx::regex_match(item, rm, detail::cached_regex(R"(^\w+$)"))) {
              const std::string value = reaching(item, n);
              if (starts_with(value, "def:")) {
                static const rx::regex one_line(R"(^def:(\w+)\.(?:append|add|put|put_nowait|appendleft)\((\w+)\)\n$)");
                rx::smatch dm;
                // (`def hook(r): seen.append(r)`: its parameter handed on, nothing else.)
                const std::string compact = "def:" + strip_spaces(value.substr(4, value.size() - 5)) + "\n";
                safe = rx::regex_match(compact, dm, one_line) && fresh_container(reaching(dm[1].str(), n));
              } else {
                // A bare mock records its calls and returns a mock: `hook = mock.Mock()` ...
                // `hook.assert_called_once_with(2)` (one made with side_effect or wraps runs code).
                static const rx::regex bare_mock(R"(^(?:unittest\.)?(?:mock\.)?(?:Magic|Async)?Mock\(\)$)");
                safe = records(strip_spaces(value)) || rx::regex_match(strip_spaces(value), bare_mock);
              }
            }
            // Undone: in the `finally:` of the try right after it, after the `yield` of a fixture, or by
            // self.addCleanup(LIST.remove, ITEM) in the same function.
            const std::set<std::string> undos{list + ".remove(" + item + ")", list + ".discard(" + item + ")", list + ".pop()",
                                              "del" + list + "[-1]"};
            const std::span<const std::string> around(file_lines.begin() + 1, file_lines.end());
            const std::span<const std::string> below = around.subspan(std::min(around.size(), static_cast<std::size_t>(n)));
            const auto ind = [](const std::string& x) { return x.find_first_not_of(" \t"); };
            const std::size_t mine = ind(l);
            std::size_t i = 0;
            while (i < below.size() && trim(below[i]).empty()) ++i;
            bool undone = false;
            if (i < below.size() && strip_spaces(below[i]) == "try:" && ind(below[i]) == mine) {
              bool in_finally = false;
              std::size_t body = std::string::npos;
              for (++i; i < below.size() && !undone; ++i) {
                if (trim(below[i]).empty()) continue;
                const std::string fl = strip_spaces(below[i]);
                if (ind(below[i]) < mine || (ind(below[i]) == mine && in_finally)) break;
                if (ind(below[i]) == mine) {
                  if (fl == "finally:") in_finally = true;
                  else if (!(starts_with(fl, "except") || fl == "else:")) break;
                  continue;
                }
                if (in_finally && body == std::string::npos) body = ind(below[i]);
                if (in_finally && ind(below[i]) == body && undos.count(fl)) undone = true;
              }
            } else {
              // The statements of the same block after it: a `yield` then the removal (a fixture's teardown).
              bool yielded = false;
              for (; i < below.size() && !undone; ++i) {
                if (trim(below[i]).empty()) continue;
                if (ind(below[i]) < mine) break;
                if (ind(below[i]) > mine) continue;
                const std::string fl = strip_spaces(below[i]);
                if (starts_with(fl, "yield")) yielded = true;
                else if (yielded && undos.count(fl)) undone = true;
              }
            }
            // self.addCleanup(calc.LISTENERS.remove, seen.append) at the same level, before or after.
            const std::string cleanup = "self.addCleanup(" + list + ".remove," + item + ")";
            for (int k = n - 1; k >= 1 && k > n - 40 && !undone; --k) {
              const std::string& al = around[static_cast<std::size_t>(k - 1)];
              if (trim(al).empty()) continue;
              if (ind(al) < mine) break;
              if (ind(al) == mine && strip_spaces(al) == cleanup) undone = true;
            }
            for (std::size_t k = static_cast<std::size_t>(n); k < around.size() && !undone; ++k) {
              if (trim(around[k]).empty()) continue;
              if (ind(around[k]) < mine) break;
              if (ind(around[k]) == mine && strip_spaces(around[k]) == cleanup) undone = true;
            }
            if (safe && undone) continue;
          }
        }
        if (t.local_closure &&
            (!called_bare_before(f.before, t.name) || (!t.param && local_value_calls_real(*f.after, n, t.name, lang))))
          continue;
        if (!t.cpp_namespace.empty()) {
          // A namespace of the test file's own (through an alias too) that defines the function.
          std::string ns = t.cpp_namespace.substr(t.cpp_namespace.rfind(':') == std::string::npos ? 0 : t.cpp_namespace.rfind(':') + 1);
          const std::string text = f.after->substr(0, std::size_t{1} << 20);
          rx::smatch am;
          if (rx::regex_search(text, am, detail::cached_regex("\\bnamespace\\s+" + ns + "\\s*=\\s*(?:\\w+::)*(\\w+)\\s*;"))) ns = am[1].str();
          if (!rx::regex_search(text, detail::cached_regex("\\bnamespace\\s+" + ns + "\\s*\\{"))) continue;
          if (!rx::regex_search(text, detail::cached_regex("\\b" + t.name + "\\s*\\([^;{}()]*\\)\\s*(?:const\\s*)?(?:noexcept\\s*)?\\{"))) continue;
        }
        if (t.plain) {
          // Only names the file imports (a module, or a function/class from one) are targets here.
          const std::string head = t.object.substr(0, t.object.find('.'));
          const bool bound = !t.module.empty() || imported.count(head);
          if (!bound) continue;
          // `from calc import add` then `def add`: the target is calc.add itself.
          if (t.object == t.name && t.module.empty() && !t.mutation) {
            auto it = imported.find(t.name);
            if (lang == Lang::python && (it->second.size() <= t.name.size() ||
                                         it->second.compare(it->second.size() - t.name.size() - 1, std::string::npos, "." + t.name) != 0))
              continue;  // `import calc` then `calc = ...`: rebinding the module name is not this case
            if (lang == Lang::python && !t.mutation &&
                python_local_binding_harmless(*f.after, n, t.name, it->second.substr(0, it->second.size() - t.name.size() - 1), imported))
              continue;
          }
        }
        // The module the target lives in, as a project path when it is one.
        std::string module = t.module;
        if (module.empty() && !t.object.empty()) {
          const std::string head = t.object.substr(0, t.object.find('.'));
          if (auto it = imported.find(head); it != imported.end()) module = it->second;
        }
        bool project = false, test_module = false;
        if (lang == Lang::python && !module.empty()) {
          // The test's own module (where `from calc import add` bound the production name).
          std::string as_path = module;
          std::replace(as_path.begin(), as_path.end(), '.', '/');
          test_module = is_test_path(as_path + ".py");
          project = python_project_module(*prod, module);
          // `from calc import Calc` then patch.object(Calc, ...): the module is the import's parent.
          if (!project && module.find('.') != std::string::npos)
            project = python_project_module(*prod, module.substr(0, module.rfind('.')));
        } else if (is_js(lang) && !module.empty()) {
          const std::string p = js_project_module(f.path, module);
          project = !p.empty() && (prod->modules.count(p) || prod->modules.count(p + "/index") || options.project_files.empty());
        }
        const std::string shown = t.mutation ? t.name
                                             : (t.object.empty() ? module : t.object) +
                                                   (t.name.empty() ? "" : (module.empty() && t.object.empty() ? "" : ".") + t.name);
        // A module that is neither the project's nor a test's: a third-party or standard one.
        const bool external_module = !module.empty() && !project && !test_module && (lang == Lang::python || is_js(lang));
        // The class the attribute is looked up on: `Calc`, `calc.Calc`, "calc.Calc.offset", an alias (`import Calc as C`).
        const std::string& holder = t.object.empty() ? t.module : t.object;
        std::string owner = holder.substr(holder.rfind('.') == std::string::npos ? 0 : holder.rfind('.') + 1);
        if (rx::smatch am; lang == Lang::python && !owner.empty() &&
                            rx::regex_search(*f.after, am, detail::cached_regex(R"(\b(\w+)\s+as\s+)" + owner + R"(\b)")))
          owner = am[1].str();
        // A property set through its setter on an object (`flask.session.permanent = True`), not on
        // a class (`Calc.offset = ...` replaces the property itself).
        const bool through_setter = t.plain && !t.mutation && !t.object.empty() && prod->setters.count(t.name) && !owner.empty() &&
                                    !std::isupper(static_cast<unsigned char>(owner[0]));
        if (!t.name.empty() && prod->defined.count(t.name) && !external_looking(t.name) && !pacing_only(t.name) && !external_module &&
            !through_setter && !(prod->unread_constants.count(t.name) && !read_in_project(t.name))) {
          why = t.name + " is defined in the production code this change or the patch touches";
        } else if (lang == Lang::python && t.mutation && prod->module_vars.count(t.name) && !external_looking(t.name) && !external_module) {
          why = t.name + " is a module-level value of the production code this change or the patch touches, changed in place";
        } else if (lang == Lang::python && !t.name.empty() && !owner.empty() && !external_looking(t.name) && !external_module &&
                   !dependency_looking(t.name) && prod->classes->read_attribute(owner, t.name)) {
          why = owner + "." + t.name + " is a class attribute the production code this change or the patch touches reads";
        } else if (project && t.name.empty()) {
          // A whole project module mocked: the test's own imports from it are replaced.
          const bool tested = std::any_of(imported.begin(), imported.end(), [&](const auto& kv) {
            return kv.second == module || starts_with(kv.second, module + ".");
          });
          if (tested || t.plain) why = "the test imports " + module + " from the project and the patch replaces the whole module";
        } else if (project && !external_looking(t.name) &&
                   (called_elsewhere(*f.after, t.name, n) || (helper != helpers.end() && called_elsewhere(helper->second, t.name, 0)))) {
          why = t.name + " comes from the project module " + module + " and the test exercises it";
        }
        if (why.empty()) continue;
        // (A module the tests import that changes a class or function it defines itself, at its top
        // level, `setattr(Flask, name, wrapped)` in app.py beside `class Flask`: the module's own
        // definition, production code the fix touches, not a stand-in installed by test code: flask
        // 6a64969 in bench/real_fixes.)
        static const rx::regex support_name(R"((?:help|test|fixture|fake|stub|mock|conftest|support))", rx::regex::icase);
        if (helper != helpers.end() && f.before && !is_test_path(f.path) && !rx::regex_search(std::string(basename(f.path)), support_name)) {
          const std::string root_name = holder.empty() ? t.name : holder.substr(0, holder.find('.'));
          if (is_plain_name(root_name) && root_name.find('.') == std::string::npos &&
              rx::regex_search(*f.after, detail::cached_regex("(?:^|\\n)(?:export\\s+)?(?:class|def|async\\s+def|function|async\\s+function)\\s+" +
                                                                root_name + "\\b")))
            continue;
        }
        if (lang == Lang::python && undone_in_new_test(files, f, n, t, options, helpers)) continue;
        if (lang == Lang::python && !t.mutation && python_spy_forwards(*f.after, n, shown)) continue;
        out.push_back({"mocked_code_under_test", f.path, n,
                       "test code replaces the code under test with a stand-in (" + shown + "): " + why + ": " + quote(l)});
        return;
      }
      }
      // A write through an owner that no name resolves: introspection (`calc.add.__globals__["OFFSET"]`,
      // `inspect.getmodule(calc.add).OFFSET`, `type(c).__mro__[0].offset`, `c.add.__self__.__class__.offset`)
      // or a container or call (`mods["c"].OFFSET`), writing a name production defines or reads as a
      // class attribute: production state changed through a door the rules cannot follow.
      if (lang == Lang::python) {
        std::string why;
        const std::string name = opaque_write(l0);
        if (!name.empty() && !external_looking(name) && !dependency_looking(name)) {
          if (!prod) prod = production(files, options);
          if (prod->defined.count(name) || prod->classes->read_attribute_any(name) ||
              (prod->module_vars.count(name) && rx::regex_search(l0, detail::cached_regex(R"(__\w+__|\bgetmodule\s*\(|\bsys\s*\.\s*modules\b|\b(?:globals|vars)\s*\()"))))
            why = name + " is production state, written through an expression the guard cannot resolve";
        }
        if (!why.empty()) {
          out.push_back({"mocked_code_under_test", f.path, n, "test code replaces the code under test with a stand-in (" + name + "): " + why + ": " + quote(l0)});
          return;
        }
      }
    }
  }
}

}  // namespace flowagent::integrity
