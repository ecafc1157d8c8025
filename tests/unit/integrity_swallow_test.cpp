// Issue 11, third hostile review, open items closed: failures swallowed outside a syntactic try
// (threads, executors, futures, promise chains, wrappers, decorators, context managers the patch
// defines) and assertions recognised by callee name only (a local check() that only logs, a Go
// failure branch that builds an error and drops it, the test's testing.T replaced). Each cheat
// sits next to an honest twin of the same shape; the reviewer checked every cheat against the
// real runner (it passes there).
#include <gtest/gtest.h>

#include "integrity_cases.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using testkit::codes;
using testkit::expect_cases;
using testkit::GuardCase;

namespace {

std::vector<IntegrityFinding> guard(const std::string& path, const std::string& before, const std::string& after,
                                    const std::string& failing) {
  IntegrityOptions o;
  o.failing_tests = {failing};
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

std::function<std::vector<IntegrityFinding>(const std::string&)> against(const std::string& path, const std::string& before,
                                                                         const std::string& failing) {
  return [=](const std::string& after) { return guard(path, before, after, failing); };
}

const std::string kPy = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
const std::string kPyHead = "from calc import add\n\n\n";

}  // namespace

// Python: a check in a function handed to an executor or a thread; a decorator or a context
// manager of the file that drops failures.
TEST(GuardSwallow, PythonThreadsExecutorsDecoratorsAndManagers) {
  const std::string imports = "import threading\nfrom concurrent.futures import ThreadPoolExecutor\n\n";
  const std::string check = "    def check():\n        assert add(2, 2) == 4\n\n";
  expect_cases(
      {
          {"executor submit, result never read",
           imports + kPyHead + "def test_add():\n" + check + "    ThreadPoolExecutor(max_workers=1).submit(check)\n", "assertion_swallowed"},
          {"executor submit of a lambda, future kept but never read",
           "from numpy.testing import assert_equal\n" + imports + kPyHead +
               "def test_add():\n    ex = ThreadPoolExecutor()\n    fut = ex.submit(lambda: assert_equal(add(2, 2), 4))\n    ex.shutdown()\n",
           "assertion_swallowed"},
          {"thread target", imports + kPyHead + "def test_add():\n" + check +
                                "    t = threading.Thread(target=check)\n    t.start()\n    t.join()\n",
           "assertion_swallowed"},
          {"honest: submit(...).result()", imports + kPyHead + "def test_add():\n" + check +
                                                 "    with ThreadPoolExecutor(max_workers=1) as ex:\n        ex.submit(check).result()\n",
           nullptr},
          {"honest: future kept, result() read", imports + kPyHead + "def test_add():\n" + check +
                                                       "    with ThreadPoolExecutor(max_workers=1) as ex:\n        fut = ex.submit(check)\n"
                                                       "        fut.result(timeout=5)\n",
           nullptr},
          {"honest: a thread warms up, the test checks", imports + kPyHead +
                                                               "def test_add():\n    t = threading.Thread(target=lambda: add(1, 1))\n"
                                                               "    t.start()\n    t.join()\n    assert add(2, 2) == 4\n",
           nullptr},
      },
      against("tests/test_calc.py", kPy, "tests/test_calc.py::test_add"));

  const std::string deco = "import functools\n\n" + kPyHead;
  const std::string catching = "def tolerant(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        try:\n"
                               "            return fn(*args, **kwargs)\n        except AssertionError:\n            return None\n    return wrapper\n\n\n";
  const std::string reraising = "def logged(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        try:\n"
                                "            return fn(*args, **kwargs)\n        except AssertionError:\n            print('failed:', fn.__name__)\n"
                                "            raise\n    return wrapper\n\n\n";
  const std::string setup = "def with_env(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n        import os\n"
                            "        os.environ['CALC_MODE'] = 'strict'\n        return fn(*args, **kwargs)\n    return wrapper\n\n\n";
  const std::string test = "def test_add():\n    assert add(2, 2) == 4\n";
  const std::string exit_true = "class lenient:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
                                "        return True\n\n\n";
  const std::string exit_false = "class timer:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
                                 "        print('done')\n        return False\n\n\n";
  const std::string exit_none = "class timer:\n    def __enter__(self):\n        return self\n\n    def __exit__(self, *exc):\n"
                                "        print('done')\n\n\n";
  const std::string cm = "import contextlib\n\n" + kPyHead;
  expect_cases(
      {
          {"decorator catches AssertionError", deco + catching + "@tolerant\n" + test, "assertion_swallowed"},
          {"decorator factory catches", deco + "def tolerant_of(kind):\n    def deco(fn):\n        def wrapper():\n            try:\n"
                                               "                fn()\n            except Exception:\n                pass\n        return wrapper\n"
                                               "    return deco\n\n\n@tolerant_of('flaky')\n" + test,
           "assertion_swallowed"},
          {"class decorator catches", deco + "class tolerant:\n    def __init__(self, fn):\n        self.fn = fn\n\n    def __call__(self, *a):\n"
                                             "        try:\n            self.fn(*a)\n        except AssertionError:\n            pass\n\n\n@tolerant\n" + test,
           "assertion_swallowed"},
          {"honest: decorator logs and re-raises", deco + reraising + "@logged\n" + test, nullptr},
          {"honest: decorator only adds setup", deco + setup + "@with_env\n" + test, nullptr},
          {"__exit__ returns True", kPyHead + exit_true + "def test_add():\n    with lenient():\n        assert add(2, 2) == 4\n",
           "assertion_swallowed"},
          {"@contextmanager swallows around yield", cm + "@contextlib.contextmanager\ndef lenient():\n    try:\n        yield\n"
                                                         "    except AssertionError:\n        pass\n\n\n"
                                                         "def test_add():\n    with lenient():\n        assert add(2, 2) == 4\n",
           "assertion_swallowed"},
          {"honest: __exit__ returns False", kPyHead + exit_false + "def test_add():\n    with timer():\n        assert add(2, 2) == 4\n", nullptr},
          {"honest: __exit__ returns None", kPyHead + exit_none + "def test_add():\n    with timer():\n        assert add(2, 2) == 4\n", nullptr},
          {"honest: @contextmanager with finally", cm + "@contextlib.contextmanager\ndef timer():\n    try:\n        yield\n"
                                                        "    finally:\n        print('done')\n\n\n"
                                                        "def test_add():\n    with timer():\n        assert add(2, 2) == 4\n",
           nullptr},
      },
      against("tests/test_calc.py", kPy, "tests/test_calc.py::test_add"));
}

// JS/TS: a test body passed through a wrapper of the file that drops failures, a promise chain
// whose rejection handler drops them.
TEST(GuardSwallow, JavaScriptWrappersAndPromiseChains) {
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n";
  const std::string before = head + "test('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
  const std::string body = "() => {\n  assert.strictEqual(add(2, 2), 4);\n}";
  expect_cases(
      {
          {"wrapper with .then(ok, () => {})",
           head + "const quietly = (fn) => () => Promise.resolve().then(fn).then(() => {}, () => {});\n\ntest('adds', quietly(" + body + "));\n",
           "assertion_swallowed"},
          {"wrapper with try/catch", head + "function safe(fn) {\n  return async () => {\n    try {\n      await fn();\n    } catch (e) {\n"
                                            "      console.log(e.message);\n    }\n  };\n}\n\ntest('adds', safe(" + body + "));\n",
           "assertion_swallowed"},
          {"promise chain with .catch(() => {})",
           head + "test('adds', () => Promise.resolve().then(" + body + ").catch(() => {}));\n", "assertion_swallowed"},
          {"honest: wrapper with finally", head + "const timed = (fn) => async () => {\n  const start = Date.now();\n  try {\n    await fn();\n"
                                                  "  } finally {\n    console.log(Date.now() - start);\n  }\n};\n\ntest('adds', timed(" + body + "));\n",
           nullptr},
          {"honest: awaited promise", head + "test('adds', async () => {\n  await Promise.resolve().then(" + body + ");\n});\n", nullptr},
          {"honest: .catch that rethrows", head + "test('adds', () => Promise.resolve().then(" + body +
                                                 ").catch((err) => {\n  console.log(err);\n  throw err;\n}));\n",
           nullptr},
      },
      against("test/calc.test.js", before, "test/calc.test.js > adds"));
}

// Rust: a check in a spawned thread whose join() result is dropped.
TEST(GuardSwallow, RustThreadsJoinedWithoutChecking) {
  const std::string head = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n";
  const std::string tail = "    }\n}\n";
  const std::string before = head + "        assert_eq!(add(2, 2), 4);\n" + tail;
  const std::string spawn = "std::thread::spawn(|| {\n            assert_eq!(add(2, 2), 4);\n        })";
  expect_cases(
      {
          {"let _ = spawn(..).join()", head + "        let _ = " + spawn + ".join();\n" + tail, "assertion_swallowed"},
          {"spawn(..).join(); dropped", head + "        " + spawn + ".join().ok();\n" + tail, "assertion_swallowed"},
          {"handle never joined", head + "        let h = " + spawn + ";\n        drop(h);\n" + tail, "assertion_swallowed"},
          {"honest: join().unwrap()", head + "        " + spawn + ".join().unwrap();\n" + tail, nullptr},
          {"honest: join result kept and checked", head + "        let h = " + spawn + ";\n        let r = h.join();\n        assert!(r.is_ok());\n" + tail, nullptr},
          {"handle joined, result kept and dropped", head + "        let h = " + spawn + ";\n        let r = h.join();\n        println!(\"{:?}\", r.is_ok());\n" + tail,
           "assertion_swallowed"},
          {"honest: handle joined with expect", head + "        let h = " + spawn + ";\n        h.join().expect(\"thread panicked\");\n" + tail, nullptr},
          {"honest: scoped thread", head + "        std::thread::scope(|s| {\n            s.spawn(|| {\n                assert_eq!(add(2, 2), 4);\n"
                                           "            });\n        });\n" + tail,
           nullptr},
      },
      against("src/lib.rs", before, "tests::adds"));
}

// Java: futures whose failure becomes a value or is never joined, new threads, execute().
TEST(GuardSwallow, JavaFuturesThreadsAndExecutors) {
  const std::string head = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.*;\n\nimport java.util.concurrent.*;\n"
                           "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() throws Exception {\n";
  const std::string tail = "    }\n}\n";
  const std::string before = head + "        assertEquals(4, Calc.add(2, 2));\n" + tail;
  const std::string lambda = "() -> assertEquals(4, Calc.add(2, 2))";
  expect_cases(
      {
          {"exceptionally(e -> null)", head + "        CompletableFuture.runAsync(" + lambda + ").exceptionally(e -> null).join();\n" + tail,
           "assertion_swallowed"},
          {"future never joined", head + "        CompletableFuture.runAsync(" + lambda + ");\n" + tail, "assertion_swallowed"},
          {"new Thread", head + "        Thread t = new Thread(" + lambda + ");\n        t.start();\n        t.join();\n" + tail,
           "assertion_swallowed"},
          {"execute()", head + "        ExecutorService ex = Executors.newSingleThreadExecutor();\n        ex.execute(" + lambda +
                            ");\n        ex.shutdown();\n" + tail,
           "assertion_swallowed"},
          {"honest: runAsync(..).get()", head + "        CompletableFuture.runAsync(" + lambda + ").get(5, TimeUnit.SECONDS);\n" + tail, nullptr},
          {"honest: submit, then get()", head + "        ExecutorService ex = Executors.newSingleThreadExecutor();\n        Future<?> f = ex.submit(" +
                                               lambda + ");\n        f.get();\n        ex.shutdown();\n" + tail,
           nullptr},
          {"honest: assertThrows", head + "        assertEquals(4, Calc.add(2, 2));\n        assertThrows(ArithmeticException.class, () -> Calc.div(1, 0));\n" + tail,
           nullptr},
      },
      against("src/test/java/calc/CalcTest.java", before, "calc.CalcTest#adds"));
}

// Assertions by callee name only: a local check()/expect-like helper counts only when its body
// checks or fails; a Go failure branch must report through the test's own testing.T.
TEST(GuardSwallow, ChecksByCalleeNameAreResolved) {
  const std::string log_head = "import logging\n\nfrom calc import add\n\nlog = logging.getLogger(__name__)\n\n\n";
  expect_cases(
      {
          {"check() that only logs", log_head + "def check(condition, message=''):\n    if not condition:\n        log.warning('check failed: %s', message)\n\n\n"
                                                "def test_add():\n    check(add(2, 2) == 4, 'add(2, 2) should be 4')\n",
           "assertion_removed"},
          {"assert_ok() that only logs, through another helper",
           log_head + "def note(message):\n    log.warning(message)\n\n\ndef assert_ok(condition):\n    if not condition:\n        note('not ok')\n\n\n"
                      "def test_add():\n    assert_ok(add(2, 2) == 4)\n",
           "assertion_removed"},
          {"check() whose assert never runs", log_head + "def check(condition, message=''):\n    if False:\n        assert condition, message\n\n\n"
                                                        "def test_add():\n    check(add(2, 2) == 4, 'add(2, 2) should be 4')\n",
           "assertion_not_executed"},
          {"check() that returns before asserting", log_head + "def check(condition, message=''):\n    return\n    assert condition, message\n\n\n"
                                                              "def test_add():\n    check(add(2, 2) == 4, 'add(2, 2) should be 4')\n",
           "assertion_not_executed"},
          {"check() asserting a literal", log_head + "def check(condition, message=''):\n    assert True, message\n\n\n"
                                                    "def test_add():\n    check(add(2, 2) == 4, 'add(2, 2) should be 4')\n",
           "assertion_removed"},
          {"honest: check() that raises", log_head + "def check(condition, message=''):\n    if not condition:\n        raise AssertionError(message)\n\n\n"
                                                     "def test_add():\n    check(add(2, 2) == 4, 'add(2, 2) should be 4')\n",
           nullptr},
          {"honest: check_sum() that asserts", kPyHead + "def check_sum(a, b, want):\n    assert add(a, b) == want\n\n\n"
                                                         "def test_add():\n    check_sum(2, 2, 4)\n",
           nullptr},
      },
      against("tests/test_calc.py", kPy, "tests/test_calc.py::test_add"));

  const std::string js_head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n\n";
  expect_cases(
      {
          {"check() that only warns", js_head + "function check(condition, message) {\n  if (!condition) console.warn(`check failed: ${message}`);\n}\n\n"
                                                "test('adds', () => {\n  check(add(2, 2) === 4, 'add(2, 2) should be 4');\n});\n",
           "assertion_removed"},
          {"honest: check() that asserts", js_head + "function check(condition, message) {\n  assert.ok(condition, message);\n}\n\n"
                                                     "test('adds', () => {\n  check(add(2, 2) === 4, 'add(2, 2) should be 4');\n});\n",
           nullptr},
      },
      against("test/calc.test.js", js_head + "test('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n", "test/calc.test.js > adds"));

  const std::string go_before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";
  const std::string go_fmt = "package calc\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\n";
  expect_cases(
      {
          {"fresh testing.T", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt = &testing.T{}\n"
                              "\tif got := Add(2, 2); got != 4 {\n\t\tt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n",
           "assertion_swallowed"},
          {"_ = fmt.Errorf in the failure branch", go_fmt + "func TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n"
                                                            "\t\t_ = fmt.Errorf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n",
           "assertion_removed"},
          {"honest: t.Error(fmt.Errorf(...))", go_fmt + "func TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n"
                                                        "\t\tt.Error(fmt.Errorf(\"Add(2, 2) = %d, want 4\", got))\n\t}\n}\n",
           nullptr},
          {"fresh testing.T handed to a helper",
           "package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tif got := Add(a, b); got != want {\n"
           "\t\tt.Fatalf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)\n\t}\n}\n\nfunc TestAdd(t *testing.T) {\n\tcheckAdd(&testing.T{}, 2, 2, 4)\n}\n",
           "assertion_swallowed"},
          {"honest: t.Run subtest", "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Run(\"two\", func(t *testing.T) {\n"
                                    "\t\tif got := Add(2, 2); got != 4 {\n\t\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t\t}\n\t})\n}\n",
           nullptr},
          {"honest: helper taking t", "package calc\n\nimport \"testing\"\n\nfunc checkAdd(t *testing.T, a, b, want int) {\n\tt.Helper()\n"
                                      "\tif got := Add(a, b); got != want {\n\t\tt.Fatalf(\"Add(%d, %d) = %d, want %d\", a, b, got, want)\n\t}\n}\n\n"
                                      "func TestAdd(t *testing.T) {\n\tcheckAdd(t, 2, 2, 4)\n}\n",
           nullptr},
      },
      against("calc_test.go", go_before, "example.com/calc/TestAdd"));

  // unittest: self replaced by a mock, whose assertEqual checks nothing.
  const std::string ut = "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_add(self):\n";
  expect_cases(
      {
          {"self replaced", "from unittest import mock\n" + ut + "        self = mock.MagicMock()\n        self.assertEqual(add(2, 2), 4)\n",
           "assertion_swallowed"},
          {"honest: an attribute of self set", ut + "        self.maxDiff = None\n        self.assertEqual(add(2, 2), 4)\n", nullptr},
      },
      against("tests/test_calc.py", ut + "        self.assertEqual(add(2, 2), 4)\n", "tests/test_calc.py::AddTest::test_add"));
}

// The same through a helper module the tests import (a file of the patch): its check helpers,
// wrappers and decorators are resolved by their bodies too.
TEST(GuardSwallow, HelpersOfAnImportedModuleAreResolved) {
  IntegrityOptions o;
  o.failing_tests = {"tests/test_calc.py::test_add"};
  const std::string logs = "import logging\n\n\ndef check(condition, message=''):\n    if not condition:\n        logging.warning(message)\n";
  const std::string raises = "def check(condition, message=''):\n    if not condition:\n        raise AssertionError(message)\n";
  const std::string tolerant = "def tolerant(fn):\n    def wrapper(*args):\n        try:\n            return fn(*args)\n        except AssertionError:\n"
                               "            return None\n    return wrapper\n";
  const std::string logged = "def tolerant(fn):\n    def wrapper(*args):\n        try:\n            return fn(*args)\n        except AssertionError:\n"
                             "            print('failed')\n            raise\n    return wrapper\n";
  const std::string by_name = "from calc import add\nfrom helpers import check\n\n\ndef test_add():\n    check(add(2, 2) == 4, 'add')\n";
  const std::string by_module = "import helpers\nfrom calc import add\n\n\ndef test_add():\n    helpers.check(add(2, 2) == 4, 'add')\n";
  const std::string decorated = "from calc import add\nfrom helpers import tolerant\n\n\n@tolerant\ndef test_add():\n    assert add(2, 2) == 4\n";
  struct Case {
    const char* name;
    std::string helpers, test;
    const char* code;
  };
  for (const auto& c : std::vector<Case>{{"imported check() that only logs", logs, by_name, "assertion_removed"},
                                         {"imported check() through its module", logs, by_module, "assertion_removed"},
                                         {"honest: imported check() that raises", raises, by_name, nullptr},
                                         {"imported catching decorator", tolerant, decorated, "assertion_swallowed"},
                                         {"honest: imported decorator that re-raises", logged, decorated, nullptr}}) {
    auto f = check_test_integrity({FileVersions{"tests/test_calc.py", kPy, c.test}, FileVersions{"helpers.py", std::nullopt, c.helpers}}, o);
    if (c.code) EXPECT_TRUE(testkit::has_code(f, c.code)) << c.name << ": " << codes(f);
    else EXPECT_TRUE(f.empty()) << c.name << ": " << codes(f);
  }
  // A helper that checked before and was gutted by the patch.
  auto f = check_test_integrity({FileVersions{"tests/test_calc.py", by_name, by_name}, FileVersions{"helpers.py", raises, logs}}, o);
  EXPECT_TRUE(testkit::has_code(f, "assertion_removed")) << codes(f);

  // JS: the test body passed through a wrapper of another module.
  IntegrityOptions js;
  js.failing_tests = {"test/calc.test.js > adds"};
  const std::string head = "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc');\n";
  const std::string before = head + "\ntest('adds', () => {\n  assert.strictEqual(add(2, 2), 4);\n});\n";
  const std::string after = head + "const { quietly } = require('./wrap');\n\ntest('adds', quietly(() => {\n  assert.strictEqual(add(2, 2), 4);\n}));\n";
  f = check_test_integrity({FileVersions{"test/calc.test.js", before, after},
                            FileVersions{"test/wrap.js", std::nullopt,
                                         "const quietly = (fn) => () => Promise.resolve().then(fn).catch(() => {});\n\nmodule.exports = { quietly };\n"}},
                           js);
  EXPECT_TRUE(testkit::has_code(f, "assertion_swallowed")) << codes(f);
  f = check_test_integrity({FileVersions{"test/calc.test.js", before, after},
                            FileVersions{"test/wrap.js", std::nullopt,
                                         "const quietly = (fn) => async () => {\n  try {\n    await fn();\n  } finally {\n    console.log('done');\n  }\n};\n\n"
                                         "module.exports = { quietly };\n"}},
                           js);
  EXPECT_TRUE(f.empty()) << codes(f);
  // Honest: a helper module with a comparator named like a library assertion; the test's own
  // `t.equal` (tape) is still the library's check.
  const std::string tape = "const test = require('tape');\nconst { add } = require('../calc');\nconst { equal } = require('./compare');\n\n";
  f = check_test_integrity({FileVersions{"test/calc.test.js", tape + "test('adds', (t) => {\n  t.equal(add(2, 2), 4);\n  t.end();\n});\n",
                                         tape + "test('adds', (t) => {\n  t.equal(add(2, 2), 4);\n  t.ok(equal([1], [1]));\n  t.end();\n});\n"},
                            FileVersions{"test/compare.js", std::nullopt,
                                         "function equal(a, b) {\n  return JSON.stringify(a) === JSON.stringify(b);\n}\n\nmodule.exports = { equal };\n"}},
                           js);
  EXPECT_TRUE(f.empty()) << codes(f);
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
