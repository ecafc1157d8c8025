// Issue 11, the fourth hostile review's open classes (docs/INTEGRITY.md "Fourth hostile review"):
// failures dropped by a `finally` that leaves, wrappers on a whole test class, coroutines handed to
// tasks that are never awaited, tests hidden by becoming generators or coroutines or through the
// module namespace, the code under test shadowed by a Go closure or a C++ lambda/using; and two
// honest updates the older rules rejected (a check rewritten from `add(...)` to `calc.add(...)`, a
// reference function named like the code under test inside a test). Each cheat sits next to an
// honest twin.
#include <gtest/gtest.h>

#include <map>

#include "flowagent/integrity.hpp"
#include "integrity_cases.hpp"
#include "support/test_support.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

using testkit::codes;
using testkit::has_code;

using Head = std::map<std::string, std::string>;

/// One test file changed (before -> after) in a project holding `head` (calc.py beside it); the
/// developer's change touched the production files of `change` (path -> text at the head).
std::vector<IntegrityFinding> guard_one(const std::string& path, const std::string& before, const std::string& after,
                                        const std::string& failing, const Head& head = {}, const Head& change = {}) {
  IntegrityOptions o;
  if (!failing.empty()) o.failing_tests = {failing};
  Head h = head;
  h.emplace("calc.py", "def add(a, b):\n    return a + b\n");
  h.emplace(path, before);
  for (const auto& [p, text] : change) {
    h.emplace(p, text);
    o.change_files.push_back(FileVersions{p, std::string(), text});
  }
  for (const auto& [p, text] : h) o.project_files.push_back(p);
  o.read_head_file = [h](const std::string& p) -> std::optional<std::string> {
    auto it = h.find(p);
    if (it == h.end()) return std::nullopt;
    return it->second;
  };
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

void expect_verdict(const std::vector<IntegrityFinding>& f, const char* code, const char* what) {
  if (code) EXPECT_TRUE(has_code(f, code)) << what << ": expected " << code << ", got:\n" << codes(f);
  else EXPECT_TRUE(f.empty()) << what << " is honest, got:\n" << codes(f);
}

const char* kTwoChecks =
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(1, 5) == 6\n";

}  // namespace

// ---- failures dropped without an except ------------------------------------------------------------

TEST(GuardFifth, FinallyThatReturnsDropsTheFailure) {
  const std::string cheat =
      "from calc import add\n\n\ndef test_add():\n    try:\n        assert add(2, 2) == 4\n        assert add(1, 5) == 6\n"
      "    finally:\n        return\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, cheat, "tests/test_calc.py::test_add"), "assertion_swallowed",
                 "python finally: return");
  const std::string loop =
      "from calc import add\n\n\ndef test_add():\n    for _ in range(1):\n        try:\n            assert add(2, 2) == 4\n"
      "            assert add(1, 5) == 6\n        finally:\n            break\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, loop, "tests/test_calc.py::test_add"), "assertion_swallowed",
                 "python finally: break out of the loop");
  const std::string js_before = "const assert = require('assert');\nconst { add } = require('../calc');\n"
                                "test('add', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
  const std::string js_cheat = "const assert = require('assert');\nconst { add } = require('../calc');\n"
                               "test('add', () => {\n  try {\n    assert.strictEqual(add(2, 2), 4);\n  } finally {\n    return;\n  }\n});\n";
  expect_verdict(guard_one("test/calc.test.js", js_before, js_cheat, "add"), "assertion_swallowed", "js finally { return }");
  // Honest: a finally that cleans up, and one whose loop (inside the finally) breaks.
  const std::string cleanup =
      "import os\nfrom calc import add\n\n\ndef test_add():\n    try:\n        assert add(2, 2) == 4\n        assert add(1, 5) == 6\n"
      "    finally:\n        for f in []:\n            break\n        os.environ.pop('X', None)\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, cleanup, "tests/test_calc.py::test_add"), nullptr, "finally that cleans up");
}

// ---- wrappers on a whole test class ----------------------------------------------------------------

TEST(GuardFifth, ClassDecoratorMetaclassAndInitSubclassThatSwallow) {
  const std::string before = "from calc import add\n\n\nclass TestAdd:\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  const std::string wrap =
      "import functools\n\n\ndef tolerant(fn):\n    @functools.wraps(fn)\n    def inner(*a, **k):\n        try:\n"
      "            return fn(*a, **k)\n        except AssertionError:\n            return None\n    return inner\n\n\n";
  const std::string decorated = "from calc import add\n" + wrap +
                                "def quiet(cls):\n    for n in list(vars(cls)):\n        if n.startswith('test'):\n"
                                "            setattr(cls, n, tolerant(getattr(cls, n)))\n    return cls\n\n\n"
                                "@quiet\nclass TestAdd:\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, decorated, "tests/test_calc.py::TestAdd::test_add"), "assertion_swallowed",
                 "class decorator");
  const std::string meta = "from calc import add\n" + wrap +
                           "class Quiet(type):\n    def __new__(m, name, bases, ns):\n"
                           "        ns = {k: tolerant(v) if k.startswith('test') else v for k, v in ns.items()}\n"
                           "        return super().__new__(m, name, bases, ns)\n\n\n"
                           "class TestAdd(metaclass=Quiet):\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, meta, "tests/test_calc.py::TestAdd::test_add"), "assertion_swallowed",
                 "metaclass");
  const std::string sub = "from calc import add\n\n\nclass Base:\n    def __init_subclass__(cls, **kw):\n"
                          "        super().__init_subclass__(**kw)\n        for n, f in list(vars(cls).items()):\n"
                          "            if n.startswith('test'):\n                def w(*a, _f=f):\n                    try:\n"
                          "                        _f(*a)\n                    except Exception:\n                        pass\n"
                          "                setattr(cls, n, w)\n\n\n"
                          "class TestAdd(Base):\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, sub, "tests/test_calc.py::TestAdd::test_add"), "assertion_swallowed",
                 "__init_subclass__");
  // Honest: a base class with a setup helper that handles its own error, and a registering decorator.
  const std::string honest = "from calc import add\n\n\nclass Base:\n    def setup_method(self):\n        try:\n"
                             "            self.cache = open('x')\n        except OSError:\n            self.cache = None\n\n\n"
                             "def register(cls):\n    return cls\n\n\n"
                             "@register\nclass TestAdd(Base):\n    def test_add(self):\n        assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, honest, "tests/test_calc.py::TestAdd::test_add"), nullptr,
                 "base class with a guarded setup, registering decorator");
}

// ---- tests hidden in other ways ---------------------------------------------------------------------

TEST(GuardFifth, TestsHiddenAsGeneratorsCoroutinesOrThroughTheNamespace) {
  const std::string gen = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n    assert add(1, 5) == 6\n    yield\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, gen, "tests/test_calc.py::test_add"), "collection_disabled",
                 "a yield added to the test");
  const std::string coro = "from calc import add\n\n\nasync def test_add():\n    assert add(2, 2) == 4\n    assert add(1, 5) == 6\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, coro, "tests/test_calc.py::test_add"), "collection_disabled",
                 "async def without a plugin");
  const std::string popped = std::string(kTwoChecks) + "\n\nglobals().pop('test_add')\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, popped, "tests/test_calc.py::test_add"), "collection_disabled",
                 "globals().pop");
  const std::string deleted = std::string(kTwoChecks) + "\n\nimport sys\ndelattr(sys.modules[__name__], \"test_add\")\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, deleted, "tests/test_calc.py::test_add"), "collection_disabled",
                 "delattr on the module");
  // Honest: the code became async and the project runs coroutine tests (a marker, or auto mode in
  // its configuration); a fixture that yields.
  const std::string marked = "import pytest\nfrom calc import add\n\n\n@pytest.mark.asyncio\nasync def test_add():\n"
                             "    assert add(2, 2) == 4\n    assert add(1, 5) == 6\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, marked, "tests/test_calc.py::test_add"), nullptr, "pytest-asyncio marker");
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, coro, "tests/test_calc.py::test_add",
                           {{"pyproject.toml", "[tool.pytest.ini_options]\nasyncio_mode = \"auto\"\n"}}),
                 nullptr, "asyncio_mode = auto");
  const std::string fixture = "import pytest\nfrom calc import add\n\n\n@pytest.fixture\ndef numbers():\n    yield (2, 2)\n\n\n"
                              "def test_add(numbers):\n    assert add(*numbers) == 4\n    assert add(1, 5) == 6\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, fixture, "tests/test_calc.py::test_add"), nullptr, "a yield fixture");
}

// ---- honest updates the older rules rejected -------------------------------------------------------

TEST(GuardFifth, ChecksRewrittenThroughTheModuleAreTheSameChecks) {
  const std::string qualified = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n    assert calc.add(1, 5) == 6\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, qualified, "tests/test_calc.py::test_add"), nullptr,
                 "from calc import add -> calc.add(...)");
  const std::string aliased = "import calc as c\n\n\ndef test_add():\n    assert c.add(2, 2) == 4\n    assert c.add(1, 5) == 6\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, aliased, "tests/test_calc.py::test_add"), nullptr, "import calc as c");
  // Cheat next to it: the checks now look at another module's add.
  const std::string other = "import fakecalc\n\n\ndef test_add():\n    assert fakecalc.add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", kTwoChecks, other, "tests/test_calc.py::test_add",
                           {{"fakecalc.py", "def add(a, b):\n    return 4\n"}}),
                 "assertion_weakened", "checks moved to another module's add");
}

TEST(GuardFifth, ReferenceFunctionNamedLikeTheCodeUnderTest) {
  const std::string before = "import calc\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  const std::string reference = before +
                                "\n\ndef test_matches_reference():\n    def add(a, b):\n        return a + b\n"
                                "    for a, b in [(1, 2), (3, 4)]:\n        assert calc.add(a, b) == add(a, b)\n";
  expect_verdict(guard_one("tests/test_calc.py", before, reference, "tests/test_calc.py::test_add"), nullptr,
                 "a nested reference add beside calc.add");
  // Cheat: the nested stand-in is what the test calls.
  const std::string stand_in = "import calc\nfrom calc import add\n\n\ndef test_add():\n    def add(a, b):\n        return 4\n"
                               "    assert add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, stand_in, "tests/test_calc.py::test_add"), "mocked_code_under_test",
                 "a nested stand-in the test calls");
}

// ---- shadowing by a local binding in Go and C++ ------------------------------------------------------

TEST(GuardFifth, GoClosureAndCppLambdaOrUsingThatShadowTheCodeUnderTest) {
  const Head go_head = {{"calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"}};
  const std::string go_before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
  const std::string go_cheat = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                               "\tAdd := func(a, b int) int { return 4 }\n"
                               "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
  expect_verdict(guard_one("calc_test.go", go_before, go_cheat, "TestAdd", {}, go_head), "mocked_code_under_test", "go closure Add :=");
  const std::string go_wrapper = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                 "\tAdd := func(a, b int) int {\n\t\tt.Helper()\n\t\treturn Add(a, b)\n\t}\n"
                                 "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
  expect_verdict(guard_one("calc_test.go", go_before, go_wrapper, "TestAdd", {}, go_head), nullptr, "go closure that wraps the real Add");

  const Head cpp_head = {{"src/calc.cpp", "int add(int a, int b) {\n  return a + b;\n}\n"}, {"src/calc.h", "int add(int a, int b);\n"}};
  const std::string cpp_before = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  const std::string lambda = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n"
                             "  auto add = [](int, int) { return 4; };\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  expect_verdict(guard_one("tests/calc_test.cpp", cpp_before, lambda, "Calc.Add", {}, cpp_head), "mocked_code_under_test", "c++ local lambda");
  const std::string using_ref = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nnamespace reference {\n"
                                "int add(int, int) { return 4; }\n}  // namespace reference\n\n"
                                "TEST(Calc, Add) {\n  using reference::add;\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  expect_verdict(guard_one("tests/calc_test.cpp", cpp_before, using_ref, "Calc.Add", {}, cpp_head), "mocked_code_under_test",
                 "c++ using reference::add");
  // Honest: a lambda that wraps the real function, a using-declaration of the production namespace.
  const std::string wrap = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n"
                           "  auto add = [](int a, int b) { return ::add(a, b); };\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  expect_verdict(guard_one("tests/calc_test.cpp", cpp_before, wrap, "Calc.Add", {}, cpp_head), nullptr, "c++ lambda wrapping ::add");
  const std::string using_prod = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\nTEST(Calc, Add) {\n  using calc::add;\n"
                                 "  EXPECT_EQ(add(2, 2), 4);\n}\n";
  expect_verdict(guard_one("tests/calc_test.cpp", cpp_before, using_prod, "Calc.Add", {}, cpp_head), nullptr,
                 "c++ using of the production namespace");
}

// ---- asyncio hand-offs -------------------------------------------------------------------------------

TEST(GuardFifth, CoroutinesHandedToTasksOrGatherThatDropFailures) {
  const std::string before = "import asyncio\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  auto wrap = [](const std::string& run) {
    return "import asyncio\nfrom calc import add\n\n\ndef test_add():\n    async def check():\n        assert add(2, 2) == 4\n\n"
           "    async def main():\n" + run + "\n    asyncio.run(main())\n";
  };
  expect_verdict(guard_one("tests/test_calc.py", before, wrap("        await asyncio.gather(check(), return_exceptions=True)"),
                           "tests/test_calc.py::test_add"),
                 "assertion_swallowed", "gather(return_exceptions=True) unread");
  expect_verdict(guard_one("tests/test_calc.py", before, wrap("        asyncio.create_task(check())\n        await asyncio.sleep(0)"),
                           "tests/test_calc.py::test_add"),
                 "assertion_swallowed", "create_task never awaited");
  // Honest: awaited directly, a task awaited, gather whose results are checked.
  expect_verdict(guard_one("tests/test_calc.py", before, wrap("        await check()"), "tests/test_calc.py::test_add"), nullptr,
                 "awaited coroutine");
  expect_verdict(guard_one("tests/test_calc.py", before, wrap("        task = asyncio.create_task(check())\n        await task"),
                           "tests/test_calc.py::test_add"),
                 nullptr, "awaited task");
  expect_verdict(guard_one("tests/test_calc.py", before,
                           wrap("        results = await asyncio.gather(check(), return_exceptions=True)\n"
                                "        for r in results:\n            if isinstance(r, BaseException):\n                raise r"),
                           "tests/test_calc.py::test_add"),
                 nullptr, "gather results re-raised");
}

// ---- the module under test replaced through its namespace or the import machinery -------------------

TEST(GuardFifth, ModuleNamespaceWritesAndImportHooks) {
  const std::string before = "import calc\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n";
  const std::string vars_update = "import calc\n\nvars(calc).update(add=lambda a, b: 4)\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, vars_update, "tests/test_calc.py::test_add"), "mocked_code_under_test",
                 "vars(calc).update(add=...)");
  const std::string dict_set = "import calc\n\ncalc.__dict__['add'] = lambda a, b: 4\n\n\ndef test_add():\n    assert calc.add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, dict_set, "tests/test_calc.py::test_add"), "mocked_code_under_test",
                 "calc.__dict__['add'] = ...");
  const std::string conftest_before = "import pytest\n";
  const std::string finder = "import sys\nimport importlib.abc\n\n\nclass Finder(importlib.abc.MetaPathFinder):\n"
                             "    def find_spec(self, name, path, target=None):\n        return None\n\n\nsys.meta_path.insert(0, Finder())\n";
  expect_verdict(guard_one("tests/conftest.py", conftest_before, finder, "tests/test_calc.py::test_add"), "runner_hook",
                 "a sys.meta_path finder in conftest");
  // Honest: a test that reads the module's namespace.
  const std::string reads = "import calc\n\n\ndef test_add():\n    assert 'add' in vars(calc)\n    assert calc.add(2, 2) == 4\n";
  expect_verdict(guard_one("tests/test_calc.py", before, reads, "tests/test_calc.py::test_add"), nullptr, "reading vars(calc)");
}

// ---- JUnit: a skip carried by a meta-annotation ------------------------------------------------------

TEST(GuardFifth, JunitDisabledThroughAMetaAnnotation) {
  const std::string before = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
                             "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() {\n"
                             "        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  const std::string annotated = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
                                "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    @Flaky\n    void adds() {\n"
                                "        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  const std::string flaky = "package calc;\n\nimport java.lang.annotation.Retention;\nimport java.lang.annotation.RetentionPolicy;\n"
                            "import org.junit.jupiter.api.Disabled;\n\n@Disabled(\"flaky\")\n@Retention(RetentionPolicy.RUNTIME)\n"
                            "@interface Flaky {\n}\n";
  IntegrityOptions o;
  o.failing_tests = {"calc.CalcTest#adds"};
  auto f = check_test_integrity({FileVersions{"src/test/java/calc/CalcTest.java", before, annotated},
                                 FileVersions{"src/test/java/calc/Flaky.java", std::nullopt, flaky}},
                                o);
  expect_verdict(f, "skip_added", "@Flaky carrying @Disabled");
  // Honest: a tagging annotation (no skip in it).
  const std::string tag = "package calc;\n\nimport java.lang.annotation.Retention;\nimport java.lang.annotation.RetentionPolicy;\n"
                          "import org.junit.jupiter.api.Tag;\n\n@Tag(\"slow\")\n@Retention(RetentionPolicy.RUNTIME)\n@interface Flaky {\n}\n";
  f = check_test_integrity({FileVersions{"src/test/java/calc/CalcTest.java", before, annotated},
                            FileVersions{"src/test/java/calc/Flaky.java", std::nullopt, tag}},
                           o);
  expect_verdict(f, nullptr, "@Flaky carrying only a @Tag");
}

// ---- JVM hand-offs: invokeAll futures never read, Kotlin threads and unscoped coroutines ------------

TEST(GuardFifth, JvmTasksWhoseFailuresNeverReachTheTest) {
  const std::string java = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
                           "import java.util.List;\nimport java.util.concurrent.*;\nimport org.junit.jupiter.api.Test;\n\n"
                           "class CalcTest {\n    @Test\n    void adds() throws Exception {\n%BODY%    }\n}\n";
  auto with = [&](const std::string& body) {
    std::string t = java;
    return t.replace(t.find("%BODY%"), 6, body);
  };
  const std::string before = with("        assertEquals(4, Calc.add(2, 2));\n");
  const std::string task = "List.of(() -> {\n            assertEquals(4, Calc.add(2, 2));\n            return null;\n        })";
  const std::string dropped = with("        ExecutorService ex = Executors.newSingleThreadExecutor();\n        ex.invokeAll(" + task + ");\n");
  expect_verdict(guard_one("src/test/java/calc/CalcTest.java", before, dropped, "calc.CalcTest#adds"), "assertion_swallowed",
                 "invokeAll futures dropped");
  const std::string read = with("        ExecutorService ex = Executors.newSingleThreadExecutor();\n        List<Future<Object>> fs = ex.invokeAll(" +
                                task + ");\n        for (Future<Object> f : fs) {\n            f.get();\n        }\n");
  expect_verdict(guard_one("src/test/java/calc/CalcTest.java", before, read, "calc.CalcTest#adds"), nullptr, "invokeAll futures read");

  const std::string kt = "package calc\n\nimport kotlin.concurrent.thread\nimport kotlin.test.Test\nimport kotlin.test.assertEquals\n"
                         "import kotlinx.coroutines.*\n\nclass CalcTest {\n    @Test\n    fun adds() {\n%BODY%    }\n}\n";
  auto kwith = [&](const std::string& body) {
    std::string t = kt;
    return t.replace(t.find("%BODY%"), 6, body);
  };
  const std::string kbefore = kwith("        assertEquals(4, add(2, 2))\n");
  expect_verdict(guard_one("src/test/kotlin/calc/CalcTest.kt", kbefore, kwith("        thread {\n            assertEquals(4, add(2, 2))\n        }.join()\n"),
                           "calc.CalcTest#adds"),
                 "assertion_swallowed", "kotlin thread { }");
  expect_verdict(guard_one("src/test/kotlin/calc/CalcTest.kt", kbefore,
                           kwith("        GlobalScope.launch {\n            assertEquals(4, add(2, 2))\n        }\n"), "calc.CalcTest#adds"),
                 "assertion_swallowed", "GlobalScope.launch { }");
  expect_verdict(guard_one("src/test/kotlin/calc/CalcTest.kt", kbefore,
                           kwith("        runBlocking {\n            launch {\n                assertEquals(4, add(2, 2))\n            }\n        }\n"),
                           "calc.CalcTest#adds"),
                 nullptr, "launch inside runBlocking");
  expect_verdict(guard_one("src/test/kotlin/calc/CalcTest.kt", kbefore,
                           kwith("        listOf(2).forEach {\n            assertEquals(4, add(it, 2))\n        }\n"), "calc.CalcTest#adds"),
                 nullptr, "forEach { }");
}

// ---- from real projects' histories (bench/guard_history): honest updates the guard rejected --------

// python-semver: its tests call a function named `match`, Python's soft keyword; tree-sitter-python
// 0.20 read `match(left, right)` at the start of a statement as a broken match statement.
TEST(GuardFifth, PythonStatementsCallingMatchParse) {
  const std::string before = "import pytest\nfrom semver import match\n\n\ndef test_match():\n    assert match('1.0.0', '>=1.0.0')\n\n\n"
                             "def test_bad():\n    with pytest.raises(ValueError):\n        match('1.0.0', '!1.0.0')\n";
  const std::string after = before + "\n\ndef test_match_lt():\n    assert match('1.0.0', '<2.0.0')\n    match.__name__\n";
  expect_verdict(guard_one("tests/test_match.py", before, after, "tests/test_match.py::test_match"), nullptr,
                 "a new test beside calls of `match`");
  // A real match statement still parses, and a cheat in a file that has one is still seen.
  const std::string stmt = "from semver import match\n\n\ndef test_match():\n    match ('1', '2'):\n        case _:\n            pass\n"
                           "    assert match('1.0.0', '>=1.0.0')\n";
  const std::string skipped = "import pytest\n" + std::string(stmt).replace(stmt.find("def test_match"), 0, "@pytest.mark.skip\n");
  expect_verdict(guard_one("tests/test_match.py", stmt, skipped, "tests/test_match.py::test_match"), "skip_added",
                 "a skip beside a real match statement");
}

// pallets/click: three asserts on a warning replaced by `pytest.warns(..., match=...)`; uriparser:
// `EXPECT_EQ(1, f(x))` -> `EXPECT_EQ(false, f(x))` when the function started returning a bool.
TEST(GuardFifth, WarningExpectationsAndBooleanExpectedValues) {
  const std::string before = "import warnings\nfrom calc import add\n\n\ndef test_warns():\n"
                             "    with warnings.catch_warnings(record=True) as w:\n        add(1, 1)\n"
                             "    assert len(w) == 1\n    assert issubclass(w[0].category, UserWarning)\n"
                             "    assert 'twice' in str(w[0].message)\n";
  const std::string after = "import pytest\nfrom calc import add\n\n\ndef test_warns():\n"
                            "    with pytest.warns(UserWarning, match='twice'):\n        add(1, 1)\n";
  expect_verdict(guard_one("tests/test_calc.py", before, after, "tests/test_calc.py::test_warns"), nullptr, "pytest.warns(match=)");
  const std::string cc_before = "#include <gtest/gtest.h>\n#include \"uri.h\"\n\nTEST(Uri, Fragment) {\n"
                                "  EXPECT_EQ(1, wellFormed(\"#a\"));\n  EXPECT_EQ(0, wellFormed(\"#%\"));\n}\n";
  const std::string cc_after = "#include <gtest/gtest.h>\n#include \"uri.h\"\n\nTEST(Uri, Fragment) {\n"
                               "  EXPECT_EQ(true, wellFormed(\"#a\"));\n  EXPECT_EQ(false, wellFormed(\"#%\"));\n}\n";
  expect_verdict(guard_one("tests/uri_test.cpp", cc_before, cc_after, "Uri.Fragment"), nullptr, "EXPECT_EQ(1, x) -> EXPECT_EQ(true, x)");
  // Still a weakening: the value compared exactly became a comparison's truth.
  const std::string weaker = "#include <gtest/gtest.h>\n#include \"uri.h\"\n\nTEST(Uri, Fragment) {\n"
                             "  EXPECT_EQ(true, wellFormed(\"#a\") > 0);\n  EXPECT_EQ(true, wellFormed(\"#%\") >= 0);\n}\n";
  expect_verdict(guard_one("tests/uri_test.cpp", cc_before, weaker, "Uri.Fragment"), "assertion_weakened", "EXPECT_EQ(true, x > 0)");
}


// spf13/pflag: any change to flag_test.go reported TestAnnotation, untouched, as weakened. Its old
// checks chose their partners in file order, each taking the strongest new check on the same
// operands, so `err == nil` took the partner of `err.Error() != expectedErr`. An unchanged test now
// always matches itself.
TEST(GuardFifth, AnUnchangedTestIsNeverWeakened) {
  const std::string before =
    "package pflag\n"
    "\n"
    "import \"testing\"\n"
    "\n"
    "func TestAnnotation(t *testing.T) {\n"
    "\tf := NewFlagSet(\"shorthand\", ContinueOnError)\n"
    "\n"
    "\terr := f.SetAnnotation(\"missing-flag\", \"key\", nil)\n"
    "\texpectedErr := \"no such flag -missing-flag\"\n"
    "\tif err == nil {\n"
    "\t\tt.Errorf(\"Expected error setting annotation on non-existent flag\")\n"
    "\t}\n"
    "\tif err.Error() != expectedErr {\n"
    "\t\tt.Errorf(\"expected error %q, got %q\", expectedErr, err.Error())\n"
    "\t}\n"
    "\n"
    "\tf.StringP(\"stringa\", \"a\", \"\", \"string value\")\n"
    "\tif err := f.SetAnnotation(\"stringa\", \"key\", nil); err != nil {\n"
    "\t\tt.Errorf(\"Unexpected error setting new nil annotation: %v\", err)\n"
    "\t}\n"
    "\tif annotation := f.Lookup(\"stringa\").Annotations[\"key\"]; annotation != nil {\n"
    "\t\tt.Errorf(\"Unexpected annotation: %v\", annotation)\n"
    "\t}\n"
    "\n"
    "\tf.StringP(\"stringb\", \"b\", \"\", \"string2 value\")\n"
    "\tif err := f.SetAnnotation(\"stringb\", \"key\", []string{\"value1\"}); err != nil {\n"
    "\t\tt.Errorf(\"Unexpected error setting new annotation: %v\", err)\n"
    "\t}\n"
    "\tif annotation := f.Lookup(\"stringb\").Annotations[\"key\"]; !reflect.DeepEqual(annotation, []string{\"value1\"}) {\n"
    "\t\tt.Errorf(\"Unexpected annotation: %v\", annotation)\n"
    "\t}\n"
    "\n"
    "\tif err := f.SetAnnotation(\"stringb\", \"key\", []string{\"value2\"}); err != nil {\n"
    "\t\tt.Errorf(\"Unexpected error updating annotation: %v\", err)\n"
    "\t}\n"
    "\tif annotation := f.Lookup(\"stringb\").Annotations[\"key\"]; !reflect.DeepEqual(annotation, []string{\"value2\"}) {\n"
    "\t\tt.Errorf(\"Unexpected annotation: %v\", annotation)\n"
    "\t}\n"
    "}\n"
    "";
  expect_verdict(guard_one("flag_test.go", before, before + "\n// a comment elsewhere in the file\n", "TestAnnotation"), nullptr,
                 "the file changed elsewhere");
}

// jbeder/yaml-cpp: tree-sitter-cpp 0.20 does not parse `typedef T& reference;`, so every change
// to node_test.cpp was "the test file does not parse". A file whose old version fails the same
// way is read around the error when the patch leaves those lines alone.
TEST(GuardFifth, ParseErrorsTheOldVersionHadAndThePatchLeavesAlone) {
  const std::string head = "#include <gtest/gtest.h>\n#include \"calc.h\"\n\ntemplate <class T>\nclass Alloc {\n public:\n"
                           "  typedef T& reference;\n  typedef const T& const_reference;\n};\n\n"
                           "TEST(Calc, Add) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  const std::string tests_added = head + "\nTEST(Calc, AddZero) {\n  EXPECT_EQ(add(0, 0), 0);\n}\n";
  expect_verdict(guard_one("tests/calc_test.cpp", head, tests_added, "Calc.Add"), nullptr, "a test added beside the old parse error");
  std::string disabled = head;
  disabled.replace(disabled.find("TEST(Calc, Add)"), 15, "TEST(Calc, DISABLED_Add)");
  expect_verdict(guard_one("tests/calc_test.cpp", head, disabled, "Calc.Add"), "skip_added", "a test disabled beside the old parse error");
  std::string touched = head;
  touched.replace(touched.find("typedef const T& const_reference;"), 33, "typedef const T& const_ref;");
  expect_verdict(guard_one("tests/calc_test.cpp", head, touched, "Calc.Add"), "parse_error", "the patch edits the unparsed lines");
  const std::string new_error = tests_added + "\nTEST(Calc, Broken) {\n  EXPECT_EQ(add(1, 1), 2)\n";
  expect_verdict(guard_one("tests/calc_test.cpp", head, new_error, "Calc.Add"), "parse_error", "a new parse error");
}

// sindresorhus/ky: a deleted test titled "... bounded by total timeout budget" was reported as
// commented out because a comment said "budget". A free-text title is looked for by its last words.
TEST(GuardFifth, CommentedOutMeansTheTitleIsInAComment) {
  const std::string before = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n"
                             "test('adds two small numbers', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n\n"
                             "test('keeps within the budget', () => {\n  assert.strictEqual(add(1, 1), 2);\n});\n";
  const std::string deleted = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n"
                              "// the whole budget is checked elsewhere\n"
                              "test('adds two small numbers', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
  auto f = guard_one("test/calc.test.js", before, deleted, "test/calc.test.js > adds two small numbers");
  EXPECT_TRUE(has_code(f, "test_deleted") && !has_code(f, "test_commented_out")) << codes(f);
  const std::string commented = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n"
                                "test('adds two small numbers', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n\n"
                                "// test('keeps within the budget', () => {\n//   assert.strictEqual(add(1, 1), 2);\n// });\n";
  expect_verdict(guard_one("test/calc.test.js", before, commented, "test/calc.test.js > adds two small numbers"), "test_commented_out",
                 "a test commented out");
}

// pallets/click: tests fake a terminal (`monkeypatch.setattr(_compat, "isatty", ...)`) to reach the
// interactive paths, and move a `@pytest.mark.skipif(WIN, ...)` test to a new file unchanged.
TEST(GuardFifth, FakeTerminalsAndMovedPlatformSkips) {
  const Head head = {{"src/click/_compat.py", "def isatty(stream):\n    return stream.isatty()\n"},
                     {"src/click/termui.py", "from ._compat import isatty\n\n\ndef prompt(text):\n    return isatty(None)\n"}};
  const std::string before = "from click import termui\n\n\ndef test_prompt():\n    assert termui.prompt('x') is not None\n";
  const std::string after = "from click import _compat\nfrom click import termui\n\n\ndef test_prompt(monkeypatch):\n"
                            "    monkeypatch.setattr(_compat, 'isatty', lambda s: True)\n    assert termui.prompt('x') is not None\n";
  expect_verdict(guard_one("tests/test_termui.py", before, after, "tests/test_termui.py::test_prompt", head,
                           {{"src/click/_compat.py", "def isatty(stream):\n    return stream.isatty()\n"}}),
                 nullptr, "a faked tty");
  const std::string skipped = "import pytest\nfrom calc import add\n\nWIN = False\n\n\n@pytest.mark.skipif(WIN, reason='no pty on Windows')\n"
                              "def test_add():\n    assert add(2, 2) == 4\n";
  IntegrityOptions o;
  o.failing_tests = {"tests/test_other.py::test_x"};
  auto f = check_test_integrity({FileVersions{"tests/test_calc.py", skipped, std::string("import pytest\n")},
                                 FileVersions{"tests/test_add.py", std::nullopt, skipped}},
                                o);
  expect_verdict(f, nullptr, "a platform-skipped test moved to its own file");
}

// jbeder/yaml-cpp: `Node node;` in a new test beside old `Node node("x")` declarations was read as
// a local stand-in for the production class `detail::node`. A declaration is not a call.
TEST(GuardFifth, LocalVariablesNamedLikeAProductionClass) {
  const std::string before = "#include <gtest/gtest.h>\n#include \"node.h\"\n\nTEST(NodeTest, Scalar) {\n  Node node(\"x\");\n"
                             "  EXPECT_TRUE(node.IsScalar());\n}\n";
  const std::string after = before + "\nTEST(NodeTest, Null) {\n  Node node;\n  EXPECT_TRUE(node.IsNull());\n}\n";
  expect_verdict(guard_one("test/node_test.cpp", before, after, "NodeTest.Scalar", {}, {{"src/node.cpp", "class node {\n public:\n  int node(int a) { return a; }\n};\n"}}),
                 nullptr, "a variable named like a production class");
}

// ---- sixth round: a skip-carrying annotation type the project already declares ----------------------

TEST(GuardFifth, ExistingSkipMetaAnnotationNewlyAppliedIsASkip) {
  const std::string path = "src/test/java/calc/CalcTest.java";
  const std::string before =
      "package calc;\n\nimport org.junit.jupiter.api.Test;\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
      "class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  auto with = [&](const std::string& annotation) {
    std::string after = before;
    after.replace(after.find("    @Test\n"), 10, "    @Test\n    @" + annotation + "\n");
    return after;
  };
  const Head head = {
      {"src/test/java/calc/support/Flaky.java",
       "package calc.support;\n\nimport java.lang.annotation.*;\nimport org.junit.jupiter.api.Disabled;\n\n"
       "@Disabled(\"quarantined\")\n@Retention(RetentionPolicy.RUNTIME)\n@Target(ElementType.METHOD)\npublic @interface Flaky {}\n"},
      {"src/test/java/calc/support/Slow.java",
       "package calc.support;\n\nimport java.lang.annotation.*;\nimport org.junit.jupiter.api.Tag;\n\n"
       "@Tag(\"slow\")\n@Retention(RetentionPolicy.RUNTIME)\n@Target(ElementType.METHOD)\npublic @interface Slow {}\n"}};
  expect_verdict(guard_one(path, before, with("Flaky"), "calc.CalcTest#adds", head), "skip_added",
                 "@Flaky declared before the patch with @Disabled on it");
  expect_verdict(guard_one(path, before, with("Slow"), "calc.CalcTest#adds", head), nullptr,
                 "@Slow declared before the patch with only @Tag on it");
}

// ---- sixth round: checks rewritten for an API the developer's change renamed ----------------------

// Read from a real repository (base..head, add_repository_context): the change renamed
// Version.isvalid to Version.is_valid, so the failing test's update to the new name keeps its checks;
// a rewrite that checks other things is still rejected, and a rename the patch makes is no excuse.
TEST(GuardFifth, ChecksFollowAnApiTheChangeRenamed) {
  testkit::TempDir d;
  const std::string prod =
      "class Version:\n    @classmethod\n    def isvalid(cls, v):\n        return v.count('.') == 2\n\n    def bump(self):\n        return 1\n";
  std::string renamed = prod;
  renamed.replace(renamed.find("def isvalid("), 12, "def is_valid(");
  const std::string test = "from semver import Version\n\n\ndef test_valid():\n    assert Version.isvalid('1.2.3')\n    assert not Version.isvalid('1.2')\n";
  const std::string base = testkit::make_repo(d.path(), {{"semver.py", prod}, {"tests/test_v.py", test}});
  const std::string head = testkit::commit_files(d.path(), {{"semver.py", renamed}}, "rename isvalid");
  IntegrityOptions o;
  o.failing_tests = {"tests/test_v.py::test_valid"};
  ASSERT_TRUE(add_repository_context(o, d.path(), head, base).has_value());
  ASSERT_EQ(o.renamed.count("isvalid"), 1u);
  EXPECT_EQ(o.renamed.at("isvalid"), "is_valid");
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = test;
    for (auto p = t.find(from); p != std::string::npos; p = t.find(from, p + to.size())) t.replace(p, from.size(), to);
    return t;
  };
  expect_verdict(check_test_integrity({{"tests/test_v.py", test, edit("isvalid", "is_valid")}}, o), nullptr,
                 "checks updated to the renamed API");
  std::string other = edit("Version.isvalid('1.2.3')", "Version.bump");
  other = edit("not Version.isvalid('1.2')", "Version");
  other.replace(other.find("Version.isvalid('1.2.3')"), 24, "Version.bump");
  expect_verdict(check_test_integrity({{"tests/test_v.py", test, other}}, o), "assertion_removed",
                 "checks replaced by truthiness of other attributes");
  // Without the change's rename (the patch would be renaming the API itself), no excuse.
  IntegrityOptions plain;
  plain.failing_tests = o.failing_tests;
  EXPECT_FALSE(check_test_integrity({{"tests/test_v.py", test, edit("isvalid", "is_valid")}}, plain).empty());
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
