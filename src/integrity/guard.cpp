// The test-integrity guard's entry point: models every touched file before and after the patch,
// then runs the rule families (guard_internal.hpp lists the parts).
#include <tuple>
#include <functional>
#include <memory>
#include <set>

#include "core/regex.hpp"
#include "integrity/guard_internal.hpp"
#include "core/deep_stack.hpp"
#include "integrity/swallow.hpp"

namespace flowagent {

namespace integrity {

bool in_test_folder(std::string_view path) {
  // Folders by whole name (`latest/`, `contest/`, `pytest/` are not test folders): test, tests,
  // __tests__, spec(s), names ending in `_test(s)`/`-test(s)`/`tests` (unittests, e2e-tests).
  const auto test_dir = [](std::string_view d) {
    return d == "test" || d == "tests" || d == "__tests__" || d == "spec" || d == "specs" || d == "__specs__" ||
           ends_with(d, "tests") || ends_with(d, "_test") || ends_with(d, "-test") || ends_with(d, ".test") ||
           ends_with(d, "_spec") || ends_with(d, "-spec");
  };
  for (std::size_t p = 0; p < path.size();) {
    const auto slash = path.find('/', p);
    if (slash == std::string_view::npos) break;
    if (test_dir(path.substr(p, slash - p))) return true;
    p = slash + 1;
  }
  return false;
}

}  // namespace integrity

bool is_test_path(std::string_view path) {
  using integrity::contains;
  using integrity::ends_with;
  using integrity::starts_with;
  const std::string_view base = integrity::basename(path);
  // A test folder, a top folder or file starting with "test" (testing/, testdata/, test_utils.py),
  // or a test file's name.
  return integrity::in_test_folder(path) || starts_with(path, "test") || starts_with(base, "test_") || base == "tests.py" ||
         contains(base, "_test.") || contains(base, ".test.") || contains(base, ".spec.") || contains(base, "_spec.") ||
         ends_with(base, "Test.java") || ends_with(base, "Tests.java") || ends_with(base, "Test.kt") ||
         ends_with(base, "Tests.kt") || contains(base, "_unittest.") || base == "conftest.py" ||
         contains(base, "-test.") || starts_with(base, "jest.setup") || starts_with(base, "vitest.setup") ||
         starts_with(base, "setupTests.");
}

static std::vector<IntegrityFinding> integrity_findings(const std::vector<FileVersions>& files, const IntegrityOptions& options);

std::vector<IntegrityFinding> check_test_integrity(const std::vector<FileVersions>& files, const IntegrityOptions& options) {
  // The rules match patterns over whole files: on a deep stack (core/deep_stack.hpp). A pattern
  // they build from the files' text can be past what std::regex compiles (a 50,000-character
  // name: "Number of NFA states exceeds limit"), which no host expects as an exception: the
  // patch is then not judged, and not passed (fail closed).
  try {
    return detail::with_deep_stack([&] {
      const integrity::tsnav::CancelPoll poll(options.cancelled);
      return integrity_findings(files, options);
    });
  } catch (const integrity::tsnav::Cancelled&) {
    return {IntegrityFinding{"cancelled", "", 0, "the guard was cancelled while it read the files; the patch is not judged"}};
  } catch (const rx::regex_error& e) {
    return {IntegrityFinding{"parse_error", "", 0,
                             std::string("the guard could not read the files with its patterns (") + e.what() +
                                 ": a name or an expression too long for them); the patch is not judged"}};
  } catch (const std::exception& e) {  // out of memory, most likely: still never passed
    return {IntegrityFinding{"parse_error", "", 0,
                             std::string("the guard failed while reading the files (") + e.what() + "); the patch is not judged"}};
  }
}

static std::vector<IntegrityFinding> integrity_findings(const std::vector<FileVersions>& files, const IntegrityOptions& options) {
  using namespace integrity;
  Findings out;
  std::vector<GoneTest> gone;
  std::vector<NewTest> added;
  // Models live until every file was compared: renames are settled across files at the end.
  std::vector<std::unique_ptr<FileModel>> before_models, after_models;
  std::vector<const FileModel*> after_ptrs;
  std::vector<std::string> after_paths;
  std::map<std::string, std::string> unchanged_helpers;
  std::vector<std::pair<std::string, std::string>> unpatched_tests;
  const auto helpers = test_imported_modules(files, options, &unchanged_helpers, &unpatched_tests);
  const auto skip_helpers = external_skip_helpers(files, options);
  // What the patch's helper modules define (check helpers, wrappers, decorators, managers), before
  // and after: the tests that import them are read through it (swallow.hpp).
  ImportedDefs imported_before, imported_after;
  // A helper module's short name (`tests/helpers.py` -> helpers) and its checking functions.
  auto short_name = [](const std::string& path) {
    const std::string b(basename(path));
    return b.substr(0, b.find('.'));
  };
  // (Also a function that checks through another of the module's: `checkAdd` calling `expectEq`.)
  auto add_checking_functions = [](ImportedDefs& into, const std::string& module, const FileModel& m) {
    std::set<std::string> checking;
    for (const auto& h : m.helpers)
      if (!h.asserts.empty()) checking.insert(h.name);
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& h : m.helpers)
        if (!checking.count(h.name) && std::any_of(h.calls.begin(), h.calls.end(), [&](const std::string& c) { return checking.count(c) > 0; }))
          grew = checking.insert(h.name).second || grew;
    }
    for (const auto& h : m.helpers)
      if (checking.count(h.name)) into.helpers.emplace_back(module, h);
  };
  // Each helper module's text, with the pool it goes to and the model read from it.
  struct HelperText {
    std::string path;
    const std::string* text;
    std::vector<ImportedDefs*> into;
    FileModel model;
  };
  std::vector<HelperText> helper_texts;
  for (const auto& f : files) {
    if (!helpers.count(f.path)) continue;
    for (auto [text, into] : {std::pair{&f.before, &imported_before}, std::pair{&f.after, &imported_after}}) {
      if (!*text) continue;
      FileModel m = analyze(lang_of(f.path), **text);
      into->droppers.insert(m.droppers.begin(), m.droppers.end());
      into->non_checks.insert(m.non_checks.begin(), m.non_checks.end());
      into->predicates.insert(m.predicates.begin(), m.predicates.end());
      into->reporters.insert(m.reporters.begin(), m.reporters.end());
      into->outcome_readers.insert(m.outcome_readers.begin(), m.outcome_readers.end());
      into->modules.insert(short_name(f.path));
      for (const auto& [name, sources] : m.returns) into->returns[name].insert(sources.begin(), sources.end());
      helper_texts.push_back({f.path, &**text, {into}, std::move(m)});
    }
  }
  // The helper modules the patch leaves alone, the same before and after: their wrappers that drop
  // failures and their predicates of an error (`isTransient(e)`) read the tests that use them.
  for (const auto& [path, text] : unchanged_helpers) {
    // (Go and C/C++: the test-side ones, `helpers_test.go`, `tests/test_helpers.h`; a production
    // header's functions are the code under test.)
    const Lang hl = lang_of(path);
    if (hl != Lang::python && !is_js(hl) && !((hl == Lang::go || hl == Lang::cpp) && (is_test_path(path) || test_support_module(path, text))))
      continue;
    FileModel m = analyze(lang_of(path), text);
    for (ImportedDefs* into : {&imported_before, &imported_after})
      for (const auto& [name, sources] : m.returns) into->returns[name].insert(sources.begin(), sources.end());
    if (is_js(lang_of(path)))
      for (ImportedDefs* into : {&imported_before, &imported_after}) {
        into->droppers.insert(m.droppers.begin(), m.droppers.end());
        into->predicates.insert(m.predicates.begin(), m.predicates.end());
        into->reporters.insert(m.reporters.begin(), m.reporters.end());
        into->outcome_readers.insert(m.outcome_readers.begin(), m.outcome_readers.end());
      }
    helper_texts.push_back({path, &text, {&imported_before, &imported_after}, std::move(m)});
  }
  // The pytest fixtures of the conftest.py files the patch holds: what each returns.
  for (const auto& f : files) {
    if (basename(f.path) != "conftest.py") continue;
    for (auto [text, into] : {std::pair{&f.before, &imported_before}, std::pair{&f.after, &imported_after}})
      if (*text)
        for (const auto& [name, sources] : analyze(Lang::python, **text).returns) into->fixtures[name].insert(sources.begin(), sources.end());
  }
  // What a helper function returns, followed through the helpers it returns in turn (`check_add`
  // -> `compute` of tests/core.py -> `add`), a few levels.
  for (ImportedDefs* pool : {&imported_before, &imported_after})
    for (int level = 0; level < 4; ++level) {
      bool grew = false;
      for (auto& [name, sources] : pool->returns)
        for (const auto& src : std::set<std::string>(sources))
          if (auto r = pool->returns.find(src); r != pool->returns.end() && r->first != name)
            for (const auto& x : r->second) grew = sources.insert(x).second || grew;
      if (!grew) break;
    }
  // Their checking functions, read with what the other helper modules' functions return (a check
  // of `compute(a, b)` in tests/helpers.py looks at the add that tests/core.py's compute returns).
  for (auto& h : helper_texts) {
    ImportedDefs returns_only;
    returns_only.returns = h.into.front()->returns;
    if (!returns_only.returns.empty()) h.model = analyze(lang_of(h.path), *h.text, &returns_only);
    for (ImportedDefs* into : h.into) add_checking_functions(*into, short_name(h.path), h.model);
  }
  // Which helper module a short name stands for (Go and C/C++ reach helpers by folder and include).
  std::multimap<std::string, std::string> module_paths;
  for (const auto& h : helper_texts) module_paths.emplace(short_name(h.path), h.path);
  // The checking functions of the helper modules a file's version imports (with_helpers reads them).
  auto link_imported = [&](FileModel& model, const std::string& path, const std::string& text, const ImportedDefs& pool) {
    const Lang lang = lang_of(path);
    if (pool.helpers.empty()) return;
    // (With the functions of the same module it calls, which the file need not import itself:
    // `check_add` calling the module's `_expect`.)
    std::function<void(const std::string&, const TestUnit&, int)> add = [&](const std::string& module, const TestUnit& h, int depth) {
      if (std::any_of(model.imported_helpers.begin(), model.imported_helpers.end(), [&](const TestUnit& x) { return x.name == h.name; })) return;
      model.imported_helpers.push_back(h);
      if (depth >= 4) return;
      for (const auto& [m, other] : pool.helpers)
        if (m == module && h.calls.count(other.name)) add(m, other, depth + 1);
    };
    if (lang == Lang::go || lang == Lang::cpp) {
      // Go: the package's other test files (same folder, same package); C/C++: the headers the
      // file includes with quotes, by file name.
      // (An include resolved as the compiler's search would: the file's folder, `include/`,
      // `tests/`, `test/`, the root; `<...>` too, for a project's own header on the include path.)
      std::set<std::string> included;
      if (lang == Lang::cpp) {
        static const rx::regex inc(R"re(^\s*#\s*include\s*["<]([^">]+)[">])re");
        for_each_capped_line(text, [&](int, const std::string& l) {
          rx::smatch m;
          if (!contains(l, "include") || !rx::regex_search(l, m, inc)) return;
          for (const std::string& b : {dir_of(path), std::string("include"), std::string("tests"), std::string("test"), std::string()})
            if (std::string p = join(b, m[1].str()); !p.empty()) included.insert(p);
        });
      }
      const std::string package = lang == Lang::go ? go_package(text) : std::string();
      for (const auto& [module, h] : pool.helpers) {
        const auto [first, last] = module_paths.equal_range(module);
        const bool reached = std::any_of(first, last, [&](const auto& mp) {
          const std::string& p = mp.second;
          if (p == path || lang_of(p) != lang) return false;
          if (lang == Lang::cpp) return included.count(p) > 0;
          const auto t = std::find_if(helper_texts.begin(), helper_texts.end(), [&](const HelperText& x) { return x.path == p; });
          return dir_of(p) == dir_of(path) && t != helper_texts.end() && go_package(*t->text) == package;
        });
        if (reached) add(module, h, 0);
      }
      return;
    }
    if (lang != Lang::python && !is_js(lang)) return;
    const FileNames names = file_names(lang, text);
    for (const auto& [module, h] : pool.helpers) {
      const auto im = names.imported.find(h.name);
      bool reached = im != names.imported.end() && !names.module_bindings.count(h.name);
      // (A method of a class the file imports from it: `from tests.helpers import SumChecker` ...
      // `SumChecker().check(2, 2, 4)`.)
      if (const auto cls = names.imported.find(h.owner); !h.owner.empty() && cls != names.imported.end() && !names.module_bindings.count(h.owner))
        reached = reached || cls->second == module || ends_with(cls->second, "." + module) || ends_with(cls->second, "/" + module);
      for (const auto& [local, from] : names.imported) {
        // (`import tests.helpers as h`, `const h = require('./helpers')`; `from tests import helpers`.)
        if (names.module_bindings.count(local) && (from == module || ends_with(from, "." + module) || ends_with(from, "/" + module)))
          reached = true;
        const auto member = names.member_names.find(local);
        if (!names.module_bindings.count(local) && (member == names.member_names.end() ? local : member->second) == module) reached = true;
      }
      if (reached) add(module, h, 0);
    }
  };
  // The lines the patch adds to test files and test-support modules (oracle_replacement_rules).
  std::map<std::string, std::vector<std::string>> support_added;
  for (const auto& f : files)
    if (f.after && (is_test_path(f.path) || helpers.count(f.path))) support_added[f.path] = added_lines(f.before, *f.after);
  for (const auto& f : files) {
    const Lang lang = lang_of(f.path);
    auto& before = *before_models.emplace_back(std::make_unique<FileModel>());
    auto& after = *after_models.emplace_back(std::make_unique<FileModel>());
    // The old version of a test file reads names the developer's change renamed the new way.
    if (f.before) before = analyze(lang, options.renamed.empty() || !is_test_path(f.path) ? *f.before : with_renames(*f.before, options.renamed),
                                   &imported_before);
    if (f.after) after = analyze(lang, *f.after, &imported_after);
    for (auto [model, text, pool] : {std::tuple{&before, &f.before, &imported_before}, std::tuple{&after, &f.after, &imported_after}})
      if (*text) link_imported(*model, f.path, **text, *pool);
    after_ptrs.push_back(&after);
    after_paths.push_back(f.path);
    const bool support = helpers.count(f.path) > 0 && f.after && test_support_module(f.path, *f.after);
    const auto skips = skip_helpers.find(f.path);
    const RuleContext c{f, lang, is_test_path(f.path), before, after, options, support, helpers.count(f.path) > 0,
                        skips == skip_helpers.end() ? nullptr : &skips->second, &support_added, &files};

    const std::size_t found = out.size();
    file_rules(c, out);
    for (auto rules : {python_rules, js_rules, jvm_rules, go_rules, cpp_rules, rust_rules, runner_process_rules, tap_output_rules, assertion_def_rules, oracle_replacement_rules,
                  helper_skip_rules, assertion_patch_rules, fresh_tester_rules})
      rules(c, out);
    if (auto h = helpers.find(f.path); h != helpers.end()) imported_helper_tautologies(c, h->second, out);
    if (out.size() > found && (out[found].rule == "unsupported_language" || out[found].rule == "parse_error")) continue;

    const bool syntactic = lang != Lang::none && (!f.before || before.parsed) && (!f.after || after.parsed);
    if (syntactic) {
      compare_tests(c, out, gone, added);
    } else if (c.test_file && f.after) {
      // Textual fallback for test files the parsers do not know (data, snapshots, shell).
      for (const auto& [n, l] : added_lines(f.before, f.after))
        if (auto m = skip_marker(l)) out.push_back({"skip_added", f.path, n, "skip marker added: " + *m});
    }
  }
  // The test files the patch leaves alone, read through the helper modules it changes: a check
  // helper weakened in `helpers_test.go`, `test_helpers.h` or `tests/helpers.py` weakens every test
  // that calls it although no test file changed (review 32 D).
  if (!helpers.empty())
    for (const auto& [path, text] : unpatched_tests) {
      const Lang lang = lang_of(path);
      if (lang == Lang::none) continue;
      FileModel before = analyze(lang, text, &imported_before), after = analyze(lang, text, &imported_after);
      if (!before.parsed || !after.parsed) continue;
      link_imported(before, path, text, imported_before);
      link_imported(after, path, text, imported_after);
      if (before.imported_helpers.empty() && after.imported_helpers.empty()) continue;
      const FileVersions same{path, text, text};
      const RuleContext c{same, lang, true, before, after, options, false, false, nullptr, &support_added, &files};
      std::vector<GoneTest> none_gone;
      std::vector<NewTest> none_added;
      const std::size_t found = out.size();
      compare_tests(c, out, none_gone, none_added);
      // (Reported at the test, whose lines the helper's check does not share.)
      for (std::size_t i = found; i < out.size(); ++i)
        for (const auto& t : after.tests)
          if (starts_with(out[i].message, "test " + t.name + ":") || starts_with(out[i].message, "test " + t.name + " ")) {
            out[i].line = t.line;
            break;
          }
      // (One file whose tests check less through the helper is the finding; the rest of the
      // package's files would say the same at the cost of reading each.)
      if (out.size() > found) break;
    }
  settle_gone_tests(gone, added, after_ptrs, after_paths, files, options, out);
  mock_rules(files, options, helpers, out);
  shadowing_rules(files, options, out);
  collection_rules(files, options, out);
  return out;
}

}  // namespace flowagent
