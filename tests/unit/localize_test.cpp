// Fault localization and retrieval (issue 13): spectrum formulas on hand-made spectra, tree-sitter
// chunks, BM25, the semantic tier against a loopback embeddings server, and coverage localization
// end to end on small real projects (pytest + coverage.py, node + V8 coverage, CMake + GoogleTest +
// gcov), including the time budget and the repair going on without it.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "flowagent/flowagent.hpp"
#include "localize/vector_index.hpp"
#include "support/http_server.hpp"
#include "support/scripted_model.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using namespace flowagent::testkit;

namespace {

SpectrumCounts counts(int ef, int ep, int F, int P) { return SpectrumCounts{ef, ep, F, P}; }

}  // namespace

TEST(Spectrum, FormulasOnHandMadeSpectra) {
  // Two failing and three passing tests.
  const auto only_failing = counts(2, 0, 2, 3);  // every failing test, no passing test
  const auto mixed = counts(1, 1, 2, 3);
  const auto everyone = counts(2, 3, 2, 3);
  const auto unexecuted = counts(0, 2, 2, 3);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::ochiai, only_failing), 1.0);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::ochiai, mixed), 1.0 / std::sqrt(2.0 * 2.0));
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::ochiai, everyone), 2.0 / std::sqrt(2.0 * 5.0));
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::ochiai, unexecuted), 0.0);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::tarantula, only_failing), 1.0);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::tarantula, mixed), 0.5 / (0.5 + 1.0 / 3.0));
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::tarantula, everyone), 0.5);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::dstar, mixed), 1.0 / (1 + 1));
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::dstar, everyone), 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::dstar, only_failing), 8.0);  // finite at e_p + n_f = 0
  EXPECT_DOUBLE_EQ(suspiciousness(SpectrumFormula::dstar, unexecuted), 0.0);
  for (auto f : {SpectrumFormula::ochiai, SpectrumFormula::tarantula, SpectrumFormula::dstar}) {
    EXPECT_GT(suspiciousness(f, only_failing), suspiciousness(f, mixed)) << to_string(f);
    EXPECT_GT(suspiciousness(f, mixed), suspiciousness(f, unexecuted)) << to_string(f);
    EXPECT_EQ(parse_spectrum_formula(to_string(f)), f);
  }
  // Ochiai and Tarantula disagree where a passing test share matters: e_f=1,e_p=0 of F=2 vs e_f=2,e_p=1.
  EXPECT_LT(suspiciousness(SpectrumFormula::ochiai, counts(1, 0, 2, 3)), suspiciousness(SpectrumFormula::ochiai, counts(2, 1, 2, 3)));
  EXPECT_GT(suspiciousness(SpectrumFormula::tarantula, counts(1, 0, 2, 3)),
            suspiciousness(SpectrumFormula::tarantula, counts(2, 1, 2, 3)));
  EXPECT_FALSE(parse_spectrum_formula("jaccard"));
}

TEST(Spectrum, RankFunctionsMapsLinesToFunctionsAndBoostsTheChange) {
  TempDir t;
  write_file(t.path() / "m.py",
             "def a():\n    return 1\n\n\ndef b():\n    x = 2\n    return x\n\n\ndef c():\n    return 3\n");
  write_file(t.path() / "tests/test_m.py", "def test_x():\n    pass\n");
  // b's line 6 only under the failing test; a under both; c only passing; test code ignored.
  std::vector<TestCoverage> cov = {
      {"fail1", true, {{"m.py", {2, 6, 7}}, {"tests/test_m.py", {1, 2}}}},
      {"pass1", false, {{"m.py", {2, 7, 11}}}},
      {"pass2", false, {{"m.py", {2, 11}}}},
  };
  auto ranked = rank_functions(cov, {}, t.path());
  ASSERT_EQ(ranked.size(), 2u);  // c was never executed by a failing test
  EXPECT_EQ(ranked[0].symbol, "b");
  EXPECT_EQ(ranked[0].start_line, 5);
  EXPECT_EQ(ranked[0].end_line, 7);
  EXPECT_DOUBLE_EQ(ranked[0].score, 1.0);
  EXPECT_EQ(ranked[0].top_lines.front(), 6);
  EXPECT_EQ(ranked[1].symbol, "a");
  EXPECT_NEAR(ranked[1].score, 1 / std::sqrt(3.0), 1e-12);
  // Only the change boost separates two equally suspicious functions.
  std::vector<TestCoverage> tie = {{"f", true, {{"m.py", {2, 6}}}}, {"p", false, {{"m.py", {11}}}}};
  auto boosted = rank_functions(tie, {{"m.py", {2}}}, t.path());
  ASSERT_EQ(boosted.size(), 2u);
  EXPECT_EQ(boosted[0].symbol, "a");
  EXPECT_TRUE(boosted[0].in_change);
  EXPECT_DOUBLE_EQ(boosted[0].score, 1.25);
  auto boosted_b = rank_functions(tie, {{"m.py", {6}}}, t.path());
  EXPECT_EQ(boosted_b[0].symbol, "b");
}

TEST(Chunks, TreeSitterFunctionsAndClasses) {
  auto py = code_chunks("pkg/m.py", "class Parser:\n    def parse_line(self, s):\n        return s\n\n\ndef helper():\n    pass\n");
  ASSERT_EQ(py.size(), 3u);
  EXPECT_EQ(py[0].symbol, "Parser");
  EXPECT_EQ(py[0].kind, "class");
  EXPECT_EQ(py[1].symbol, "Parser.parse_line");
  EXPECT_EQ(py[1].start_line, 2);
  EXPECT_EQ(py[1].end_line, 3);
  EXPECT_EQ(py[2].symbol, "helper");
  auto cpp = code_chunks("a.cc", "namespace ns {\nint f(int x) {\n  return x;\n}\nstruct S {\n  int g() const { return 1; }\n};\n}\nint ns::h() { return 2; }\n");
  std::vector<std::string> names;
  for (auto& c : cpp) names.push_back(c.symbol);
  EXPECT_EQ(names, (std::vector<std::string>{"ns::f", "ns::S", "ns::S::g", "ns::h"}));
  auto js = code_chunks("lib.js", "function sum(a, b) {\n  return a + b;\n}\nconst mul = (a, b) => a * b;\nclass K {\n  run() {}\n}\n");
  names.clear();
  for (auto& c : js) names.push_back(c.symbol);
  EXPECT_EQ(names, (std::vector<std::string>{"sum", "mul", "K", "K.run"}));
  auto go = code_chunks("x.go", "package x\nfunc Add(a int) int {\n\treturn a\n}\n");
  ASSERT_EQ(go.size(), 1u);
  EXPECT_EQ(go[0].symbol, "Add");
  EXPECT_TRUE(code_chunks("README.md", "# hi").empty());
}

TEST(Retrieval, IdentifierWords) {
  EXPECT_EQ(split_identifier_words("parseHTTPHeader max_line_len Foo2Bar"),
            (std::vector<std::string>{"parse", "http", "header", "max", "line", "len", "foo", "2", "bar"}));
  EXPECT_TRUE(split_identifier_words("  ::  ").empty());
}

namespace {

void write_retrieval_tree(const fs::path& root) {
  write_file(root / "src/header_parser.py",
             "def parse_header_line(line):\n    name, value = line.split(':', 1)\n    return name.strip(), value.strip()\n\n\n"
             "def format_header(name, value):\n    return name + ': ' + value\n");
  write_file(root / "src/math_utils.py", "def clamp_value(x, lo, hi):\n    return max(lo, min(x, hi))\n");
  write_file(root / "src/net.cc", "int openSocketConnection(int port) {\n  return port;\n}\n");
}

}  // namespace

TEST(Retrieval, Bm25FindsFunctionsByIdentifierWordsAndCachesPerCommit) {
  TempDir t;
  write_retrieval_tree(t.path());
  CodeRetriever r;
  auto hits = r.search(t.path(), "key1", "test_parse_header_line_with_colon", 3);
  ASSERT_TRUE(hits) << hits.error().to_string();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].file, "src/header_parser.py");
  EXPECT_EQ((*hits)[0].symbol, "parse_header_line");
  EXPECT_EQ((*hits)[0].start_line, 1);
  EXPECT_EQ((*hits)[0].end_line, 3);
  auto sock = r.search(t.path(), "key1", "socket connection", 3);
  ASSERT_TRUE(sock);
  ASSERT_FALSE(sock->empty());
  EXPECT_EQ((*sock)[0].symbol, "openSocketConnection");  // camelCase split
  EXPECT_EQ(r.indexes_built(), 1u);                       // the second search used the cached index
  ASSERT_TRUE(r.search(t.path(), "key2", "clamp", 3));
  EXPECT_EQ(r.indexes_built(), 2u);
  auto none = r.search(t.path(), "key1", "zzzqqq", 3);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

namespace {

// A deterministic "embedding": which of a few topics a text mentions.
std::vector<double> topic_vector(const std::string& text) {
  std::vector<double> v;
  for (const char* w : {"header", "format", "clamp", "socket"}) v.push_back(text.find(w) != std::string::npos ? 1.0 : 0.0);
  v.push_back(0.01);
  return v;
}

// The loopback embeddings endpoint: topic_vector of each input; an input holding `phrase` is read
// as `meaning` (the stand-in model "understands" the query). OpenAI's reply lists the vectors out
// of order on purpose ("index" decides); Ollama's in order.
Reply topic_embeddings(const Recorded& req, const std::string& phrase, const std::string& meaning, bool ollama = false) {
  auto doc = parse_json(req.body);
  Json::Array vecs;
  for (const auto& in : doc->find("input")->as_array()) {
    std::string s = in.as_string();
    if (s.find(phrase) != std::string::npos) s = meaning;
    Json::Array v;
    for (double x : topic_vector(s)) v.emplace_back(x);
    vecs.emplace_back(std::move(v));
  }
  if (ollama) return Reply::json(dump_json_lossy(Json::obj({{"embeddings", Json(std::move(vecs))}})));
  Json::Array data;
  for (std::size_t i = vecs.size(); i-- > 0;)
    data.push_back(Json::obj({{"index", static_cast<std::int64_t>(i)}, {"embedding", vecs[i]}}));
  return Reply::json(dump_json_lossy(Json::obj({{"data", Json(std::move(data))}})));
}

}  // namespace

TEST(Retrieval, SemanticTierAgainstLoopbackEmbeddingsServer) {
  for (std::string protocol : {"openai", "ollama"}) {
    TempDir t;
    write_retrieval_tree(t.path());
    TestHttpServer server;
    server.set_handler([&](const Recorded& req) { return topic_embeddings(req, "header line text", "format", protocol == "ollama"); });
    EmbedderOptions eo;
    eo.protocol = protocol;
    eo.base_url = protocol == "openai" ? server.url() + "/v1" : server.url();
    eo.model = "embed-test";
    eo.api_key = "sk-test";
    auto emb = make_http_embedder(eo);
    ASSERT_TRUE(emb) << emb.error().to_string();
    RetrieverOptions ro;
    ro.embedder = *emb;
    ro.semantic_weight = 0.8;
    CodeRetriever semantic(ro);
    CodeRetriever lexical;
    const std::string q = "header line text";
    auto lex = lexical.search(t.path(), "k", q, 3);
    auto sem = semantic.search(t.path(), "k", q, 3);
    ASSERT_TRUE(lex && sem) << (sem ? "" : sem.error().to_string());
    ASSERT_GE(lex->size(), 2u);
    ASSERT_GE(sem->size(), 2u);
    EXPECT_EQ((*lex)[0].symbol, "parse_header_line") << protocol;  // lexically both share "header"
    EXPECT_EQ((*sem)[0].symbol, "format_header") << protocol;      // the embedding says "format"
    const auto first = semantic.texts_embedded();
    EXPECT_GT(first, 0u);
    ASSERT_TRUE(semantic.search(t.path(), "k", q, 3));
    EXPECT_EQ(semantic.texts_embedded(), first);  // vectors cached by content hash
    auto reqs = server.requests();
    ASSERT_FALSE(reqs.empty());
    EXPECT_EQ(reqs[0].target, protocol == "openai" ? "/v1/embeddings" : "/api/embed");
    EXPECT_EQ(reqs[0].header("authorization"), "Bearer sk-test");
  }
  // A failing endpoint leaves the lexical ranking in place.
  TempDir t;
  write_retrieval_tree(t.path());
  TestHttpServer down;
  down.set_handler([](const Recorded&) { return Reply::json("{}", 500); });
  EmbedderOptions eo;
  eo.base_url = down.url();
  eo.model = "m";
  RetrieverOptions ro;
  ro.embedder = *make_http_embedder(eo);
  CodeRetriever r(ro);
  auto hits = r.search(t.path(), "", "parse header line", 2);
  ASSERT_TRUE(hits);
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].symbol, "parse_header_line");
}

// semantic_candidates = 0: the whole index is embedded and searched, so a query that shares no word
// with the code still finds it by meaning (the exact scan here; faiss is for large indexes).
TEST(Retrieval, WholeIndexSemanticSearchFindsCodeWithoutSharedWords) {
  TempDir t;
  write_retrieval_tree(t.path());
  TestHttpServer server;
  // The stand-in model "understands" the query as being about clamping.
  server.set_handler([&](const Recorded& req) { return topic_embeddings(req, "between bounds", "clamp"); });
  EmbedderOptions eo;
  eo.base_url = server.url() + "/v1";
  eo.model = "embed-test";
  RetrieverOptions ro;
  ro.embedder = *make_http_embedder(eo);
  ro.semantic_candidates = 0;
  CodeRetriever whole(ro);
  const std::string q = "keep a number between bounds";
  auto hits = whole.search(t.path(), "k", q, 2);
  ASSERT_TRUE(hits) << hits.error().to_string();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].symbol, "clamp_value");
  EXPECT_EQ(whole.texts_embedded(), 4u);  // every chunk once
  ASSERT_TRUE(whole.search(t.path(), "k", "socket", 2));
  EXPECT_EQ(whole.texts_embedded(), 4u);  // cached by content hash
  // The re-ranking tier has no lexical candidate to re-rank for that query.
  ro.semantic_candidates = 50;
  CodeRetriever rerank(ro);
  auto none = rerank.search(t.path(), "k", q, 2);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

// The large-index backend is exact: faiss's flat inner-product index returns what the scan returns.
TEST(Retrieval, VectorIndexFaissEqualsTheExactScan) {
  using detail::VectorIndex;
  VectorIndex small(3, /*faiss_min=*/4);
  small.add({1, 0, 0});
  small.add({0, 2, 0});
  small.add({1, 1, 0});
  small.add({0, 0, 0});     // zero length: scores 0
  small.add({1, 2});        // wrong dimension: scores 0
  auto s = small.search({0, 1, 0}, 3, VectorIndex::Backend::scan);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].second, 1u);
  EXPECT_FLOAT_EQ(s[0].first, 1.0f);
  EXPECT_EQ(s[1].second, 2u);
  EXPECT_NEAR(s[1].first, std::sqrt(0.5), 1e-6);
  EXPECT_EQ(s[2].second, 0u);  // score 0 ties: the first added wins
  EXPECT_EQ(small.backend(), VectorIndex::faiss_available() ? VectorIndex::Backend::faiss : VectorIndex::Backend::scan);
  if (!VectorIndex::faiss_available()) GTEST_SKIP() << "built without faiss (libfaiss-dev, FLOWAGENT_WITH_FAISS)";
  // Above the default threshold, random vectors: the same neighbours in the same order.
  const std::size_t n = VectorIndex::kFaissMin + 1000, dim = 32;
  VectorIndex big(dim);
  std::uint64_t x = 88172645463325252ull;
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return static_cast<float>(static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
  };
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> v(dim);
    for (auto& e : v) e = next();
    big.add(v);
  }
  EXPECT_EQ(big.backend(), VectorIndex::Backend::faiss);
  for (int qn = 0; qn < 5; ++qn) {
    std::vector<float> q(dim);
    for (auto& e : q) e = next();
    auto a = big.search(q, 20, VectorIndex::Backend::scan);
    auto b = big.search(q, 20);  // automatic: faiss at this size
    ASSERT_EQ(a.size(), 20u);
    ASSERT_EQ(b.size(), 20u);
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].second, b[i].second) << "query " << qn << " rank " << i;
      EXPECT_NEAR(a[i].first, b[i].first, 1e-5);
    }
  }
}

// ---- coverage localization on real projects -----------------------------------------------------

namespace {

RepairRequest request_for(const fs::path& repo, const std::string& base, const std::string& head) {
  RepairRequest r = sample_request(repo.string());
  r.change.base_commit = base;
  r.change.head_commit = head;
  r.commands.timeout_seconds = 120;
  return r;
}

Localization localize_repo(const RepairRequest& r, CoverageLocalizerOptions o = {}) {
  // These projects check the ranking, not the budget (OverBudgetIsCutOffCleanly does): with no
  // floor, 3x a 0.2 s reference run would leave a loaded machine one neighbour or none.
  if (o.budget.count() == 0 && o.min_budget.count() == 0) o.min_budget = std::chrono::seconds(60);
  auto loc = make_coverage_localizer(o);
  auto changed = changed_lines(r.repository, r.change.base_commit, r.change.head_commit);
  EXPECT_TRUE(changed);
  auto l = loc->localize(r.repository, r, changed ? *changed : ChangedLines{}, CancelToken(), nullptr);
  EXPECT_TRUE(l) << (l ? "" : l.error().to_string());
  return l ? *l : Localization{};
}

// The outcome every end-to-end project must show: the tool, the spectrum's test counts, and the
// bug's function first.
void expect_first(const Localization& l, const std::string& tool, int failing, int passing, const std::string& file,
                  const std::string& symbol) {
  EXPECT_EQ(l.tool, tool);
  EXPECT_EQ(l.failing_tests, failing) << l.note;
  EXPECT_EQ(l.passing_tests, passing) << l.note;
  ASSERT_FALSE(l.functions.empty()) << l.note;
  EXPECT_EQ(l.functions[0].file, file);
  EXPECT_EQ(l.functions[0].symbol, symbol);
}

}  // namespace

TEST(CoverageLocalization, PythonBugFunctionRanksFirst) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string base = make_repo(
      repo, {{"shapes/geometry.py",
              "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n\n\n"
              "def scale(w, h, k):\n    return w * k, h * k\n\n\ndef describe(w, h):\n    return f'{w}x{h} area={area(w, h)}'\n"},
             {"shapes/__init__.py", ""},
             {"tests/test_geometry.py",
              "from shapes.geometry import area, perimeter, scale, describe\n\n\n"
              "def test_area():\n    assert area(2, 3) == 6\n\n\n"
              "def test_perimeter():\n    assert perimeter(2, 3) == 10\n\n\n"
              "def test_perimeter_square():\n    assert perimeter(1, 1) == 4\n\n\n"
              "def test_scale():\n    assert scale(1, 2, 3) == (3, 6)\n\n\n"
              "def test_describe():\n    assert describe(2, 3) == '2x3 area=6'\n"},
             // Another file's test: only the whole-suite run (when the budget allows it) sees it pass.
             {"tests/test_more.py", "from shapes.geometry import area\n\n\ndef test_area_square():\n    assert area(2, 2) == 4\n"},
             {".gitignore", "__pycache__/\n"}});
  // The change breaks perimeter for non-squares and touches describe harmlessly.
  const std::string head = commit_files(
      repo, {{"shapes/geometry.py",
              "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    if w == h:\n        return 4 * w\n    return 2 * w + h\n\n\n"
              "def scale(w, h, k):\n    return w * k, h * k\n\n\ndef describe(w, h):\n    text = f'{w}x{h} area={area(w, h)}'\n    return text\n"}},
      "Fast path for squares");
  auto r = request_for(repo, base, head);
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.failure.failing_tests = {"tests/test_geometry.py::test_perimeter"};
  const fs::path before = repo / "shapes/geometry.py";
  const std::string content = read_file(before);
  auto l = localize_repo(r);
  EXPECT_EQ(l.ecosystem, "python");
  EXPECT_EQ(l.tool, "coverage.py");
  EXPECT_FALSE(l.cut_off) << l.note;
  EXPECT_EQ(l.failing_tests, 1) << l.note;
  EXPECT_EQ(l.passing_tests, 5);  // 4 of the failing file, 1 of the whole-suite run
  ASSERT_FALSE(l.functions.empty()) << l.note;
  EXPECT_EQ(l.functions[0].file, "shapes/geometry.py");
  EXPECT_EQ(l.functions[0].symbol, "perimeter");
  EXPECT_TRUE(l.functions[0].in_change);
  EXPECT_EQ(l.functions[0].top_lines.front(), 8);  // `return 2 * w + h`: only the failing test runs it
  for (const auto& f : l.functions) EXPECT_NE(f.file, "tests/test_geometry.py");  // test code is not ranked
  EXPECT_EQ(read_file(before), content);          // the repository is untouched
  EXPECT_FALSE(fs::exists(repo / ".flowagent-cov"));
  // Cached per commit.
  auto loc = make_coverage_localizer();
  auto changed = changed_lines(repo, base, head);
  auto a = loc->localize(repo, r, *changed, CancelToken(), nullptr);
  auto b = loc->localize(repo, r, *changed, CancelToken(), nullptr);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->from_cache);
  EXPECT_TRUE(b->from_cache);
  EXPECT_EQ(b->functions[0].symbol, "perimeter");
  // Disabled by the request.
  r.limits.localization_budget = 0;
  auto off = localize_repo(r);
  EXPECT_TRUE(off.functions.empty());
  EXPECT_NE(off.note.find("disabled"), std::string::npos);
}

TEST(CoverageLocalization, JavaScriptV8CoverageRanksTheBugFirst) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string runner =
      "console.log('TAP version 13');\nconst tests = require('./cases');\nconst only = process.argv.slice(2);\nlet n = 0, failed = 0;\n"
      "for (const [name, fn] of Object.entries(tests)) {\n  if (only.length && !only.includes(name)) continue;\n"
      "  n++;\n  try { fn(); console.log(`ok ${n} - ${name}`); }\n"
      "  catch (e) { failed++; console.log(`not ok ${n} - ${name}`); }\n}\nconsole.log(`1..${n}`);\n"
      "process.exitCode = failed ? 1 : 0;\n";
  const std::string base = make_repo(
      repo, {{"src/strings.js",
              "function capitalize(s) {\n  return s.charAt(0).toUpperCase() + s.slice(1);\n}\n\n"
              "function truncate(s, n) {\n  if (s.length <= n) return s;\n  return s.slice(0, n) + '...';\n}\n\n"
              "function words(s) {\n  return s.split(/\\s+/).filter(Boolean);\n}\n\n"
              "module.exports = { capitalize, truncate, words };\n"},
             {"test/cases.js",
              "const assert = require('assert');\nconst { capitalize, truncate, words } = require('../src/strings');\n"
              "module.exports = {\n  capitalize: () => assert.strictEqual(capitalize('abc'), 'Abc'),\n"
              "  truncate_short: () => assert.strictEqual(truncate('ab', 5), 'ab'),\n"
              "  truncate_long: () => assert.strictEqual(truncate('abcdef', 3), 'abc...'),\n"
              "  words: () => assert.deepStrictEqual(words(' a  b '), ['a', 'b']),\n};\n"},
             {"test/run.js", runner}});
  const std::string head = commit_files(
      repo, {{"src/strings.js",
              "function capitalize(s) {\n  return s.charAt(0).toUpperCase() + s.slice(1);\n}\n\n"
              "function truncate(s, n) {\n  if (s.length <= n) return s;\n  return s.slice(0, n - 1) + '...';\n}\n\n"
              "function words(s) {\n  return s.split(/\\s+/).filter(Boolean);\n}\n\n"
              "module.exports = { capitalize, truncate, words };\n"}},
      "Count the ellipsis");
  auto r = request_for(repo, base, head);
  r.commands.test = "node test/run.js {tests}";
  r.failure.failing_tests = {"truncate_long"};
  auto l = localize_repo(r);
  EXPECT_EQ(l.ecosystem, "javascript");
  expect_first(l, "NODE_V8_COVERAGE", 1, 3, "src/strings.js", "truncate");
  ASSERT_FALSE(l.functions.empty());
  EXPECT_EQ(l.functions[0].top_lines.front(), 7);
}

TEST(CoverageLocalization, CppGcovWithGoogleTestRanksTheBugFirst) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string cmake =
      "cmake_minimum_required(VERSION 3.16)\nproject(stats CXX)\nfind_package(GTest REQUIRED)\n"
      "add_library(stats stats.cc)\nadd_executable(stats_test stats_test.cc)\n"
      "target_link_libraries(stats_test stats GTest::gtest_main)\n";
  const std::string tests =
      "#include <gtest/gtest.h>\n#include \"stats.h\"\n"
      "TEST(Stats, Mean) { EXPECT_DOUBLE_EQ(mean({1, 2, 3}), 2.0); }\n"
      "TEST(Stats, MaxOf) { EXPECT_EQ(max_of({1, 5, 3}), 5); }\n"
      "TEST(Stats, MaxOfNegative) { EXPECT_EQ(max_of({-4, -2, -7}), -2); }\n"
      "TEST(Stats, Sum) { EXPECT_EQ(sum({1, 2}), 3); }\n";
  auto src = [](const std::string& max_init) {
    return "#include \"stats.h\"\nint sum(const std::vector<int>& v) {\n  int s = 0;\n  for (int x : v) s += x;\n  return s;\n}\n"
           "double mean(const std::vector<int>& v) {\n  return static_cast<double>(sum(v)) / v.size();\n}\n"
           "int max_of(const std::vector<int>& v) {\n  int m = " + max_init + ";\n  for (int x : v)\n    if (x > m) m = x;\n  return m;\n}\n";
  };
  const std::string base = make_repo(
      repo, {{"CMakeLists.txt", cmake},
             {"stats.h", "#pragma once\n#include <vector>\nint sum(const std::vector<int>& v);\ndouble mean(const std::vector<int>& v);\n"
                         "int max_of(const std::vector<int>& v);\n"},
             {"stats.cc", src("v.front()")},
             {"stats_test.cc", tests},
             {".gitignore", "build/\n"}});
  const std::string head = commit_files(repo, {{"stats.cc", src("0")}}, "Simplify max_of");
  auto r = request_for(repo, base, head);
  r.commands.build = "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build build -j2 >/dev/null";
  r.commands.test = "./build/stats_test --gtest_filter={tests|:}";
  r.failure.failing_tests = {"Stats.MaxOfNegative"};
  auto l = localize_repo(r);
  EXPECT_EQ(l.ecosystem, "cpp");
  expect_first(l, "gcov", 1, 3, "stats.cc", "max_of");
  ASSERT_FALSE(l.functions.empty());
  EXPECT_TRUE(l.functions[0].in_change);
  EXPECT_FALSE(fs::exists(repo / "build"));  // built in a scratch copy
}

// Java without Maven (it needs the network for its plugins): javac with --release 11 (upstream
// JaCoCo 0.8.6 supports class files up to Java 15; Debian's reads Java 17's too, but a newer JDK's
// default may be past it) and the JUnit console launcher, both from Debian (libjacoco-java,
// junit5); the agent reaches the JVM through JAVA_TOOL_OPTIONS.
TEST(CoverageLocalization, JavaJacocoWithJUnitRanksTheBugFirst) {
  const fs::path launcher = "/usr/share/java/junit-platform-console-standalone.jar";
  if (!fs::exists(launcher) || !fs::exists("/usr/share/java/org.jacoco.agent.jar") || !fs::exists("/usr/bin/javac"))
    GTEST_SKIP() << "javac, junit5 or libjacoco-java is not installed (scripts/install-deps.sh)";
  TempDir t;
  const fs::path repo = t.path() / "repo";
  auto calc = [](const std::string& max_init) {
    return "package calc;\n\npublic class Calc {\n  public static int add(int a, int b) {\n    return a + b;\n  }\n\n"
           "  public static int max(int[] v) {\n    int m = " + max_init + ";\n    for (int x : v)\n      if (x > m) m = x;\n"
           "    return m;\n  }\n\n  public static int sum(int[] v) {\n    int s = 0;\n    for (int x : v) s += x;\n"
           "    return s;\n  }\n}\n";
  };
  // Test ids are JUnit XML names (pkg.Class.method()); the script turns them into selectors.
  const std::string script =
      "args=\nfor t in \"$@\"; do\n  case \"$t\" in\n    *\"()\") m=${t%\"()\"}; args=\"$args --select-method ${m%.*}#${m##*.}\";;\n"
      "    *) args=\"$args --select-class $t\";;\n  esac\ndone\n[ -n \"$args\" ] || args=--scan-class-path\n"
      "exec java -jar " + launcher.string() + " -cp out --disable-banner --details=none --reports-dir=reports $args\n";
  const std::string base = make_repo(
      repo, {{"src/main/java/calc/Calc.java", calc("v[0]")},
             {"src/test/java/calc/CalcTest.java",
              "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\nimport org.junit.jupiter.api.Test;\n\n"
              "class CalcTest {\n  @Test void add() { assertEquals(3, Calc.add(1, 2)); }\n"
              "  @Test void max() { assertEquals(5, Calc.max(new int[] {1, 5, 3})); }\n"
              "  @Test void maxNegative() { assertEquals(-2, Calc.max(new int[] {-4, -2, -7})); }\n"
              "  @Test void sum() { assertEquals(3, Calc.sum(new int[] {1, 2})); }\n}\n"},
             {"run-tests.sh", script},
             {".gitignore", "out/\nreports/\n"}});
  const std::string head = commit_files(repo, {{"src/main/java/calc/Calc.java", calc("0")}}, "Simplify max");
  auto r = request_for(repo, base, head);
  r.commands.build = "javac -nowarn --release 11 -d out -cp " + launcher.string() + " $(find src -name '*.java')";
  r.commands.test = "sh run-tests.sh {tests}";
  r.commands.report_globs = {"reports/*.xml"};
  r.failure.failing_tests = {"calc.CalcTest.maxNegative()"};
  auto l = localize_repo(r);
  EXPECT_EQ(l.ecosystem, "java");
  expect_first(l, "JaCoCo", 1, 3, "src/main/java/calc/Calc.java", "Calc.max");
  ASSERT_FALSE(l.functions.empty());
  EXPECT_TRUE(l.functions[0].in_change);
  for (const auto& f : l.functions) EXPECT_EQ(f.file.find("src/test/"), std::string::npos) << f.file;
  EXPECT_FALSE(fs::exists(repo / "out"));  // built in a scratch copy
}

TEST(CoverageLocalization, OverBudgetIsCutOffCleanly) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string base = make_repo(repo, {{"slow.py", "import time\n\n\ndef work():\n    time.sleep(30)\n    return 1\n"},
                                            {"test_slow.py", "from slow import work\n\n\ndef test_work():\n    assert work() == 2\n"}});
  const std::string head = commit_files(repo, {{"slow.py", "import time\n\n\ndef work():\n    time.sleep(30)\n    return 1\n\n"}}, "ws");
  auto r = request_for(repo, base, head);
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.failure.failing_tests = {"test_slow.py::test_work"};
  CoverageLocalizerOptions o;
  o.budget = std::chrono::milliseconds(2000);
  const auto t0 = std::chrono::steady_clock::now();
  auto l = localize_repo(r, o);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(l.cut_off) << l.note;
  EXPECT_TRUE(l.functions.empty());
  EXPECT_NE(l.note.find("budget"), std::string::npos) << l.note;
  EXPECT_LT(ms, 12'000);  // the 30 s test was killed, not waited for
}

TEST(CoverageLocalization, RepairGoesOnWhenLocalizationIsCutOffAndContextShowsTheSection) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string base = make_repo(repo, {{"calc.py", "import os\n\n\ndef add(a, b):\n    if os.environ.get('SLOW_LOCALIZE'):\n        pass\n    return a + b\n"},
                                            {"test_calc.py", "import time\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"}});
  const std::string head = commit_files(
      repo, {{"calc.py", "import os\n\n\ndef add(a, b):\n    if os.environ.get('SLOW_LOCALIZE'):\n        pass\n    return a + b + 1\n\n\n"
                         "def sub(a, b):\n    return a - b\n\n\ndef neg(a):\n    return -a\n"}},
      "Add sub and neg");
  for (bool slow : {true, false}) {
    ScriptedModel model;
    model.push(tool_calls_reply({{"edit_file", Json::obj({{"path", "calc.py"}, {"old_text", "a + b + 1"}, {"new_text", "a + b"}})}}));
    model.push(tool_calls_reply({{"run_tests", Json::object()}}));
    model.push(final_reply("Removed the extra 1."));
    auto r = request_for(repo, base, head);
    r.change.description = "Add sub and neg";
    // The localization's own run is slow (a sleep only the coverage run hits), the repair's runs are not.
    r.commands.test = slow ? "case \"$PWD\" in *flowagent-localize-*) sleep 20;; esac; "
                             "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}"
                           : "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
    r.failure.failing_tests = {"test_calc.py::test_add"};
    r.model.spec = "openai-compatible:scripted";
    r.model.base_url = model.base_url();
    AgentOptions o;
    GitWorkspaceOptions w;
    w.root = t.path() / (slow ? "pool1" : "pool2");
    o.workspaces = make_git_workspace_provider(w);
    ReactOptions ro;
    CoverageLocalizerOptions co;
    co.budget = std::chrono::milliseconds(slow ? 1500 : 60'000);
    ro.localizer = make_coverage_localizer(co);
    ro.retriever = std::make_shared<CodeRetriever>();
    o.strategies = {make_react_strategy(ro)};
    auto agent = Agent::create(o);
    ASSERT_TRUE(agent);
    auto res = (*agent)->run(r);
    EXPECT_EQ(res.status, Status::fixed) << res.reason << ": " << res.message << "\n" << [&] {
      std::string s;
      for (const auto& x : res.trajectory) s += x.kind + " " + x.name + ": " + x.output.substr(0, 400) + "\n";
      return s;
    }();
    const TrajectoryStep* note = nullptr;
    for (const auto& s : res.trajectory)
      if (s.kind == "note" && s.name == "localization") note = &s;
    ASSERT_NE(note, nullptr);
    if (slow) {
      EXPECT_NE(note->output.find("cut off"), std::string::npos) << note->output;
    } else {
      EXPECT_EQ(note->output.find("cut off"), std::string::npos) << note->output;
      EXPECT_NE(note->output.find("shown:\n  calc.py:4-7 add"), std::string::npos) << note->output;
      // The model's first message holds the section.
      auto reqs = model.server.requests();
      ASSERT_FALSE(reqs.empty());
      EXPECT_NE(reqs[0].body.find("Where the failure most likely is"), std::string::npos);
      EXPECT_NE(reqs[0].body.find("calc.py:4-7 add"), std::string::npos);
    }
  }
}

TEST(Context, FaultSectionStaysWithinTheBudget) {
  RepairRequest r = sample_request();
  r.limits.context_tokens = 1000;  // 4000 chars
  std::string section = "# Where the failure most likely is\n" + std::string(5000, 'x');
  auto ctx = build_initial_context(r, CancelToken(), {}, section);
  ASSERT_TRUE(ctx);
  EXPECT_LE(ctx->text.size(), 4000u);
  EXPECT_NE(ctx->text.find("# Where the failure most likely is"), std::string::npos);
  EXPECT_LE(ctx->fault_section.size(), 4000u / 5 + 20);
  EXPECT_NE(std::find(ctx->trimmed.begin(), ctx->trimmed.end(), "fault localization section"), ctx->trimmed.end());
}

TEST(Retrieval, SearchRelevantCodeToolThroughTheRegistry) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const std::string head = make_repo(repo, {{"src/header_parser.py",
                                             "def parse_header_line(line):\n    return line.split(':', 1)\n\n\n"
                                             "def format_header(name, value):\n    return name + ': ' + value\n"},
                                            {"src/net.cc", "int openSocketConnection(int port) {\n  return port;\n}\n"}});
  GitWorkspaceOptions wo;
  wo.root = t.path() / "pool";
  auto provider = make_git_workspace_provider(wo);
  RepairRequest r = sample_request(repo.string());
  r.change.head_commit = head;
  auto ws = provider->acquire(r, CancelToken());
  ASSERT_TRUE(ws) << ws.error().message;
  ToolRegistry reg;
  auto retriever = std::make_shared<CodeRetriever>();
  ASSERT_TRUE(register_retrieval_tool(reg, retriever));
  EXPECT_FALSE(register_retrieval_tool(reg, retriever));  // the name is taken
  ToolState state;
  CancelToken cancel;
  ToolContext ctx{**ws, r, state, cancel};
  auto out = reg.invoke("search_relevant_code", *parse_json(R"({"query":"openSocket","max_results":2})"), ctx);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_TRUE(out->ok);
  EXPECT_EQ(out->content.rfind("src/net.cc:1-3 function openSocketConnection (score ", 0), 0u) << out->content;
  auto none = reg.invoke("search_relevant_code", *parse_json(R"({"query":"zzzqqq"})"), ctx);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->content, "no matching functions or classes");
  EXPECT_FALSE(reg.invoke("search_relevant_code", *parse_json(R"({"max_results":2})"), ctx));  // query required
  EXPECT_EQ(retriever->indexes_built(), 1u);
}

TEST(CoverageLocalization, GoCoverprofileRanksTheBugFirst) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  auto src = [](const std::string& cond) {
    return "package mathx\n\nfunc Abs(x int) int {\n\tif " + cond + " {\n\t\treturn -x\n\t}\n\treturn x\n}\n\n"
           "func Sign(x int) int {\n\tif x < 0 {\n\t\treturn -1\n\t}\n\treturn 1\n}\n";
  };
  const std::string base = make_repo(
      repo, {{"go.mod", "module example.com/mathx\n\ngo 1.19\n"},
             {"mathx.go", src("x < 0")},
             {"mathx_test.go", "package mathx\n\nimport \"testing\"\n\n"
                               "func TestAbsPositive(t *testing.T) { if Abs(3) != 3 { t.Fatal(Abs(3)) } }\n"
                               "func TestAbsNegative(t *testing.T) { if Abs(-1) != 1 { t.Fatal(Abs(-1)) } }\n"
                               "func TestSign(t *testing.T) { if Sign(-2) != -1 { t.Fatal(Sign(-2)) } }\n"}});
  const std::string head = commit_files(repo, {{"mathx.go", src("x < -1")}}, "tweak");
  auto r = request_for(repo, base, head);
  r.commands.test = "go test -v -count=1 -run {tests|^|}$ ./...";
  r.failure.failing_tests = {"TestAbsNegative"};
  auto l = localize_repo(r);
  EXPECT_EQ(l.ecosystem, "go");
  EXPECT_EQ(l.failing_tests, 1) << l.note;
  ASSERT_FALSE(l.functions.empty()) << l.note;
  EXPECT_EQ(l.functions[0].file, "mathx.go");
  EXPECT_EQ(l.functions[0].symbol, "Abs");
}

// Every localization command runs the project's code: it goes through the sandbox like the build
// and test tools do, and without the sandbox nothing runs (fail closed).
TEST(CoverageLocalization, ProbesRunInTheSandboxAndFailClosedWithoutIt) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const fs::path outside = t.path() / "outside";
  fs::create_directories(outside);
  // The failing test tries to leave a mark on the host, outside its tree, and reads the variable
  // run_command sets inside the sandbox.
  const std::string test_py =
      "import os\nfrom calc import add\n\n\ndef test_add():\n"
      "    try:\n        open('" + (outside / "mark").string() + "', 'w').write(os.environ.get('FLOWAGENT_SANDBOX', 'no'))\n"
      "    except OSError:\n        pass\n    assert add(2, 2) == 4\n\n\ndef test_add_mixed():\n    assert add(1, 2) == 3\n";
  const std::string base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"},
                                            {"test_calc.py", test_py}});
  const std::string head = commit_files(
      repo, {{"calc.py", "def add(a, b):\n    if a == b:\n        return 2 * a + 1\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"}},
      "Fast path for doubling");
  auto r = request_for(repo, base, head);
  r.commands.test = "/usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.failure.failing_tests = {"test_calc.py::test_add"};
  auto changed = changed_lines(repo, base, head);
  ASSERT_TRUE(changed);

  CoverageLocalizerOptions co;
  co.cache = false;
  auto loc = make_coverage_localizer(co);
  SandboxOptions sandboxed;  // the defaults: bubblewrap, fail closed
  auto l = loc->localize(repo, r, *changed, CancelToken(), &sandboxed);
  ASSERT_TRUE(l) << l.error().to_string();
  ASSERT_FALSE(l->functions.empty()) << l->note;
  EXPECT_EQ(l->functions[0].symbol, "add");
  EXPECT_EQ(l->failing_tests, 1);
  // The sandbox's private /tmp swallowed the write: nothing reached the host.
  EXPECT_FALSE(fs::exists(outside / "mark"));

  // No sandbox: Errc::sandbox_unavailable, and not one command ran.
  SandboxOptions broken;
  broken.bwrap_path = t.path() / "no-such-bwrap";
  auto refused = loc->localize(repo, r, *changed, CancelToken(), &broken);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::sandbox_unavailable) << refused.error().to_string();
  EXPECT_FALSE(fs::exists(outside / "mark"));

  // Only when the host opts out do the commands run on the host (the mark shows it).
  broken.allow_unsandboxed_commands = true;
  auto host = loc->localize(repo, r, *changed, CancelToken(), &broken);
  ASSERT_TRUE(host) << host.error().to_string();
  EXPECT_FALSE(host->functions.empty()) << host->note;
  ASSERT_TRUE(fs::exists(outside / "mark"));
  EXPECT_EQ(read_file(outside / "mark"), "1");  // run_command's environment, without the isolation
}

// Through the whole pipeline: a job whose sandbox cannot be set up ends sandbox_unavailable before
// the localizer (or anything else) runs a command.
TEST(CoverageLocalization, NoSandboxNoLocalizationRun) {
  TempDir t;
  const fs::path repo = t.path() / "repo";
  const fs::path mark = t.path() / "ran";
  const std::string base = make_repo(repo, {{"calc.py", "def add(a, b):\n    return a + b\n"},
                                            {"test_calc.py", "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"}});
  const std::string head = commit_files(repo, {{"calc.py", "def add(a, b):\n    return a + b + 1\n"}}, "off by one");
  ScriptedModel model;
  model.push(final_reply("nothing"));
  auto r = request_for(repo, base, head);
  r.commands.test = "touch " + mark.string() + "; /usr/bin/python3 -m pytest -q -p no:cacheprovider {tests}";
  r.failure.failing_tests = {"test_calc.py::test_add"};
  r.model.spec = "openai-compatible:scripted";
  r.model.base_url = model.base_url();
  AgentOptions o;
  GitWorkspaceOptions w;
  w.root = t.path() / "pool";
  o.workspaces = make_git_workspace_provider(w);
  o.sandbox.bwrap_path = t.path() / "no-such-bwrap";
  ReactOptions ro;
  ro.localizer = make_coverage_localizer();
  o.strategies = {make_react_strategy(ro)};
  auto agent = Agent::create(o);
  ASSERT_TRUE(agent);
  auto res = (*agent)->run(r);
  EXPECT_EQ(res.reason, "sandbox_unavailable") << res.message;
  EXPECT_FALSE(fs::exists(mark));
}

// Test files as ids (tape): the passing neighbours are the other test files of the failing file's
// folder, each run alone under NODE_V8_COVERAGE.
TEST(CoverageLocalization, TapeTestFilesAsIdsRankTheBugFirst) {
  const fs::path tape = fs::path(FLOWAGENT_SOURCE_DIR) / "third_party/tape/node_modules";
  if (!fs::exists(tape / ".bin/tape")) GTEST_SKIP() << "tape is not installed (scripts/install-deps.sh)";
  TempDir t;
  const fs::path repo = t.path() / "repo";
  auto lib = [](const std::string& pad) {
    return "function pad(s, n) {\n  while (s.length < n) s = " + pad + ";\n  return s;\n}\n\n"
           "function upper(s) {\n  return s.toUpperCase();\n}\n\n"
           "function repeat(s, n) {\n  let out = '';\n  for (let i = 0; i < n; i++) out += s;\n  return out;\n}\n\n"
           "module.exports = { pad, upper, repeat };\n";
  };
  auto test_file = [](const std::string& name, const std::string& body) {
    return "const test = require('tape');\nconst lib = require('../lib');\n\ntest('" + name + "', (t) => {\n  " + body +
           "\n  t.end();\n});\n";
  };
  const std::string base = make_repo(
      repo, {{"lib.js", lib("' ' + s")},
             {"test/pad.js", test_file("pad", "t.equal(lib.pad('a', 3), '  a');")},
             {"test/upper.js", test_file("upper", "t.equal(lib.upper('a'), 'A');")},
             {"test/repeat.js", test_file("repeat", "t.equal(lib.repeat('ab', 2), 'abab');")},
             // A neighbour that fails on its own (not named failing): its exit status is its own.
             {"test/upper_more.js", test_file("upper more", "t.equal(lib.upper('b'), 'b');")}});
  const std::string head = commit_files(repo, {{"lib.js", lib("s + ' '")}}, "Pad on the right");
  auto r = request_for(repo, base, head);
  r.commands.test = "node " + (tape / "tape/bin/tape").string() + " {tests}";
  r.failure.failing_tests = {"test/pad.js"};
  auto changed = changed_lines(repo, base, head);
  ASSERT_TRUE(changed);
  SandboxOptions sandbox;
  sandbox.read_only_paths.push_back(tape);  // the vendored tape, visible in the sandbox
  sandbox.env_set["NODE_PATH"] = tape.string();
  CoverageLocalizerOptions co;
  co.budget = std::chrono::seconds(120);  // a loaded machine must not cut the neighbours off
  auto l = make_coverage_localizer(co)->localize(repo, r, *changed, CancelToken(), &sandbox);
  ASSERT_TRUE(l) << l.error().to_string();
  // Failing: test/pad.js and test/upper_more.js; passing: test/repeat.js and test/upper.js. The
  // failing file and its three neighbours ran in one node process, each with its own coverage window
  // and exit status:
  // upper() (run by a failing and a passing neighbour) ranks below pad() (run by the failing test only).
  expect_first(*l, "NODE_V8_COVERAGE", 2, 2, "lib.js", "pad");
  ASSERT_FALSE(l->functions.empty());
  EXPECT_TRUE(l->functions[0].in_change);
  EXPECT_EQ(l->test_runs, 1) << l->note;  // the failing file (the reference run) and the neighbours: one process
  bool upper_ranked = false;
  for (const auto& f : l->functions)
    if (f.symbol == "upper") {
      upper_ranked = true;
      EXPECT_LT(f.score, l->functions[0].score);
    }
  EXPECT_TRUE(upper_ranked);  // upper_more.js's window holds upper(), and it failed
  EXPECT_FALSE(l->cut_off) << l->note;
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
