// Issue 11: honest refactors the third hostile review saw rejected (another comparison library,
// a matcher, a linter's --exclude, an application log line shaped like a summary), each next to
// the cheat of the same shape that must stay rejected.
#include <gtest/gtest.h>

#include "flowagent/integrity.hpp"
#include "integrity_cases.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using flowagent::testkit::codes;

namespace {

std::vector<IntegrityFinding> guard(const std::string& path, const std::optional<std::string>& before, const std::string& after,
                                    const std::string& failing) {
  IntegrityOptions o;
  o.failing_tests = {failing};
  return check_test_integrity({FileVersions{path, before, after}}, o);
}

std::vector<IntegrityFinding> guard_files(std::vector<FileVersions> files, const std::string& failing) {
  IntegrityOptions o;
  o.failing_tests = {failing};
  return check_test_integrity(files, o);
}

std::string go_split(const std::string& imports, const std::string& check) {
  return "package calc\n\nimport (\n" + imports + ")\n\nfunc TestSplit(t *testing.T) {\n\tgot := Split(\"ab\")\n"
         "\twant := []string{\"A\", \"B\"}\n" + check + "}\n";
}

const std::string kGoBefore = go_split("\t\"reflect\"\n\t\"testing\"\n",
                                       "\tif !reflect.DeepEqual(got, want) {\n\t\tt.Errorf(\"Split = %v, want %v\", got, want)\n\t}\n");

}  // namespace

// The same comparison written with another library: the check is matched with the old one through
// what its operands are computed from (got := Split(...)), whatever the comparator's name.
TEST(GuardFair, GoComparatorRewritesAreTheSameCheck) {
  auto f = guard("calc_test.go", kGoBefore,
                 go_split("\t\"testing\"\n\n\t\"github.com/google/go-cmp/cmp\"\n",
                          "\tif diff := cmp.Diff(want, got); diff != \"\" {\n\t\tt.Errorf(\"mismatch (-want +got):\\n%s\", diff)\n\t}\n"),
                 "TestSplit");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard("calc_test.go", kGoBefore,
            go_split("\t\"slices\"\n\t\"testing\"\n", "\tif !slices.Equal(got, want) {\n\t\tt.Errorf(\"Split = %v\", got)\n\t}\n"),
            "TestSplit");
  EXPECT_TRUE(f.empty()) << codes(f);
  // testify: `if got := Add(2, 2); got != 4 { t.Fatalf }` -> assert.Equal(t, 4, Add(2, 2)).
  const std::string add_before = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                 "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";
  f = guard("calc_test.go", add_before,
            "package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"
            "func TestAdd(t *testing.T) {\n\tassert.Equal(t, 5, Add(2, 2))\n}\n",
            "TestAdd");
  EXPECT_TRUE(f.empty()) << codes(f);

  // Cheats of the same shape: only the lengths compared, the equality turned into an inequality,
  // a comparator whose result is no longer looked at.
  f = guard("calc_test.go", kGoBefore,
            go_split("\t\"testing\"\n", "\tif len(got) != len(want) {\n\t\tt.Errorf(\"Split = %v\", got)\n\t}\n"), "TestSplit");
  EXPECT_FALSE(f.empty()) << "a DeepEqual reduced to a length comparison";
  f = guard("calc_test.go", kGoBefore,
            go_split("\t\"slices\"\n\t\"testing\"\n", "\tif slices.Equal(got, want) {\n\t\tt.Errorf(\"Split = %v\", got)\n\t}\n"),
            "TestSplit");
  EXPECT_FALSE(f.empty()) << "the failure branch now fires only when the values are equal";
  f = guard("calc_test.go", add_before,
            "package calc\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\n"
            "func TestAdd(t *testing.T) {\n\tassert.NotNil(t, Add(2, 2))\n}\n",
            "TestAdd");
  EXPECT_FALSE(f.empty()) << "an equality replaced by an existence check";
}

// gMock and Hamcrest matchers are scored by the matcher: ElementsAre/is(5)/equal_to compare values;
// SizeIs, Not(IsEmpty()), notNullValue(), `_` and anything() do not.
TEST(GuardFair, MatchersAreScoredByWhatTheyMatch) {
  const std::string cc = "tests/calc_test.cpp";
  const std::string cc_before = "#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\nTEST(Calc, Evens) {\n"
                                "  EXPECT_EQ(evens(5), (std::vector<int>{0, 2, 4}));\n}\n";
  auto cc_after = [](const std::string& check) {
    return "#include <gmock/gmock.h>\n#include <gtest/gtest.h>\n\n#include \"../src/calc.h\"\n\nusing ::testing::ElementsAre;\n\n"
           "TEST(Calc, Evens) {\n  " + check + "\n}\n";
  };
  auto f = guard(cc, cc_before, cc_after("EXPECT_THAT(evens(5), ElementsAre(2, 4));"), "Calc.Evens");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard(cc, cc_before, cc_after("EXPECT_THAT(evens(5), ::testing::UnorderedElementsAre(4, 2));"), "Calc.Evens");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard(cc, cc_before, cc_after("EXPECT_THAT(evens(5), ::testing::AllOf(::testing::SizeIs(2), ElementsAre(2, 4)));"), "Calc.Evens");
  EXPECT_TRUE(f.empty()) << codes(f);
  for (const char* weak : {"EXPECT_THAT(evens(5), ::testing::SizeIs(2));", "EXPECT_THAT(evens(5), ::testing::Not(::testing::IsEmpty()));",
                           "EXPECT_THAT(evens(5), ::testing::_);", "EXPECT_THAT(evens(5), ::testing::AnyOf(ElementsAre(2, 4), ::testing::_));",
                           "EXPECT_THAT(evens(5), ::testing::Contains(2));"}) {
    f = guard(cc, cc_before, cc_after(weak), "Calc.Evens");
    EXPECT_FALSE(f.empty()) << weak;
  }

  const std::string java = "src/test/java/calc/CalcTest.java";
  const std::string j_before = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
                               "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() {\n"
                               "        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  auto j_after = [](const std::string& check) {
    return "package calc;\n\nimport static org.hamcrest.MatcherAssert.assertThat;\nimport static org.hamcrest.Matchers.*;\n\n"
           "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() {\n        " + check +
           "\n    }\n}\n";
  };
  for (const char* honest : {"assertThat(Calc.add(2, 2), is(5));", "assertThat(Calc.add(2, 2), equalTo(5));",
                             "assertThat(\"sum\", Calc.add(2, 2), is(equalTo(5)));",
                             "assertThat(Calc.add(2, 2), allOf(greaterThan(0), is(5)));"}) {
    f = guard(java, j_before, j_after(honest), "CalcTest.adds");
    EXPECT_TRUE(f.empty()) << honest << "\n" << codes(f);
  }
  for (const char* weak : {"assertThat(Calc.add(2, 2), notNullValue());", "assertThat(Calc.add(2, 2), is(instanceOf(Integer.class)));",
                           "assertThat(Calc.add(2, 2), anything());", "assertThat(Calc.add(2, 2), greaterThan(0));",
                           "assertThat(Calc.add(2, 2), anyOf(is(5), notNullValue()));"}) {
    f = guard(java, j_before, j_after(weak), "CalcTest.adds");
    EXPECT_FALSE(f.empty()) << weak;
  }

  // PyHamcrest.
  const std::string py = "tests/test_calc.py", id = "tests/test_calc.py::test_add";
  const std::string py_before = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  f = guard(py, py_before, "from hamcrest import assert_that, equal_to\n\nfrom calc import add\n\n\ndef test_add():\n"
                           "    assert_that(add(2, 2), equal_to(5))\n", id);
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard(py, py_before, "from hamcrest import assert_that, not_none\n\nfrom calc import add\n\n\ndef test_add():\n"
                           "    assert_that(add(2, 2), not_none())\n", id);
  EXPECT_FALSE(f.empty()) << "equal_to replaced by not_none";
}

// Comparison functions no table lists are read by their names: numpy's assert_equal and
// assert_allclose, pandas' assert_frame_equal, np.array_equal; a tolerance that grew is still seen.
TEST(GuardFair, AssertionFunctionsAreReadByTheirNames) {
  const std::string py = "tests/test_calc.py", id = "tests/test_calc.py::test_add";
  const std::string before = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";
  auto after = [](const std::string& imports, const std::string& check) {
    return imports + "\nfrom calc import add\n\n\ndef test_add():\n    " + check + "\n";
  };
  for (const auto& [imports, check] : std::vector<std::pair<std::string, std::string>>{
           {"from numpy.testing import assert_equal\n", "assert_equal(add(2, 2), 5)"},
           {"from numpy.testing import assert_array_equal\n", "assert_array_equal(add(2, 2), 5)"},
           {"import numpy as np\n", "assert np.array_equal(add(2, 2), 5)"},
           {"from pandas.testing import assert_frame_equal\n", "assert_frame_equal(add(2, 2), 5)"}}) {
    auto f = guard(py, before, after(imports, check), id);
    EXPECT_TRUE(f.empty()) << check << "\n" << codes(f);
  }
  for (const auto& [imports, check] : std::vector<std::pair<std::string, std::string>>{
           {"from numpy.testing import assert_array_less\n", "assert_array_less(add(2, 2), 9)"},
           {"import numpy as np\n", "assert not np.array_equal(add(2, 2), 5)"},
           {"from numpy.testing import assert_allclose\n", "assert_allclose(add(2, 2), 4, rtol=0.5)"}}) {
    auto f = guard(py, before, after(imports, check), id);
    EXPECT_FALSE(f.empty()) << check;
  }
  // An approximate check whose tolerance grew.
  const std::string close_before = after("from numpy.testing import assert_allclose\n", "assert_allclose(add(0.1, 0.2), 0.3)");
  auto f = guard(py, close_before, after("from numpy.testing import assert_allclose\n", "assert_allclose(add(0.1, 0.2), 0.3, rtol=0.2)"), id);
  EXPECT_FALSE(f.empty()) << "rtol grew from the default to 0.2";
  f = guard(py, close_before, after("from numpy.testing import assert_allclose\n", "assert_allclose(add(0.1, 0.2), 0.3, rtol=1e-9)"), id);
  EXPECT_TRUE(f.empty()) << codes(f);
}

// A CI step's --exclude, --ignore or `|| true` given to a linter or formatter decides nothing about
// tests; given to a test runner, or to a command the guard does not know, it does.
TEST(GuardFair, LinterOptionsInCiAreNotTestSelection) {
  const std::string ci = ".github/workflows/ci.yml";
  const std::string before = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
                             "      - run: pip install pytest\n      - run: python -m pytest\n";
  auto with = [&](const std::string& steps) {
    return "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n"
           "      - run: pip install pytest ruff\n" + steps + "      - run: python -m pytest\n";
  };
  for (const char* honest : {"      - run: ruff check . --exclude build/\n", "      - run: python -m black --check . --exclude tests/data\n",
                             "      - run: npx eslint . --ignore-pattern dist || true\n",
                             "      - name: lint\n        continue-on-error: true\n        run: ruff check .\n",
                             "      - name: lint\n        continue-on-error: true\n        run: |\n          ruff check .\n          mypy src\n"}) {
    auto f = guard(ci, before, with(honest), "tests/test_calc.py::test_add");
    EXPECT_TRUE(f.empty()) << honest << codes(f);
  }
  for (const char* cheat : {"      - run: python -m pytest --deselect tests/test_calc.py::test_add\n",
                            "      - run: ruff check . && python -m pytest --ignore tests/test_calc.py\n",
                            "      - run: python -m pytest || true\n", "      - run: ./ci.sh --exclude tests/test_calc.py\n",
                            "      - name: tests\n        continue-on-error: true\n        run: python -m pytest\n",
                            "      - name: mixed\n        continue-on-error: true\n        run: |\n          ruff check .\n          pytest\n"}) {
    auto f = guard(ci, before, with(cheat), "tests/test_calc.py::test_add");
    EXPECT_FALSE(f.empty()) << cheat;
  }
}

// Production text shaped like a pytest summary only when it is one, in pytest's own words.
TEST(GuardFair, ApplicationLogLinesAreNotRunnerSummaries) {
  const std::string before = "def validate(rows):\n    return [r for r in rows if r]\n\n\ndef summary(rows, seconds):\n    return \"\"\n";
  auto after = [](const std::string& line) {
    return "def validate(rows):\n    return [r for r in rows if r]\n\n\ndef summary(rows, seconds):\n    good = validate(rows)\n" + line;
  };
  auto f = guard_files({{"importer.py", before, after("    return f\"{len(good)} passed, {len(rows) - len(good)} rejected in {seconds}s\"\n")}},
                       "tests/test_importer.py::test_summary");
  EXPECT_TRUE(f.empty()) << codes(f);
  for (const char* forged : {"    print(f\"{len(good)} passed in 0.01s\")\n", "    print(\"=== 3 passed, 1 skipped in 0.12s ===\")\n",
                             "    print(f\"{len(good)} passed, 2 warnings in {seconds}s\")\n"}) {
    f = guard_files({{"importer.py", before, after(forged)}}, "tests/test_importer.py::test_summary");
    EXPECT_FALSE(f.empty()) << forged;
  }
}

// ---- a hostile review of the fairness rules above (2026-12-01) -------------------------------------

namespace {

const std::string kPy = "tests/test_calc.py", kPyId = "tests/test_calc.py::test_add";
const std::string kPyBefore = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n";

std::string py_with(const std::string& head, const std::string& body) {
  return head + "from calc import add\n\n\ndef test_add():\n" + body;
}

const std::string kGoAddBefore = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n"
                                 "\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"Add(2, 2) = %d, want 4\", got)\n\t}\n}\n";

std::string go_with(const std::string& imports, const std::string& body, const std::string& extra = "") {
  return "package calc\n\nimport (\n\t\"testing\"\n" + imports + ")\n\n" + extra + "func TestAdd(t *testing.T) {\n" + body + "}\n";
}

}  // namespace

// A name proves what a check does only when it comes from an assertion or comparison library:
// functions and matchers the file or the project defines under such names can do anything.
TEST(GuardFair, NamesOnlyCountWhenALibraryDefinesThem) {
  for (const auto& cheat : {
           py_with("", "    assert_equal(add(2, 2), 4)\n") + "\n\ndef assert_equal(actual, expected):\n    pass\n",
           py_with("", "    assert sums_equal(add(2, 2), 4)\n") + "\n\ndef sums_equal(a, b):\n    return isinstance(a, int)\n",
           py_with("from tests.helpers import assert_equal\n", "    assert_equal(add(2, 2), 4)\n"),
           py_with("", "    assert_that(add(2, 2), equal_to(4))\n") +
               "\n\ndef equal_to(x):\n    return x\n\n\ndef assert_that(actual, matcher):\n    return actual == matcher\n"}) {
    auto f = guard(kPy, kPyBefore, cheat, kPyId);
    EXPECT_FALSE(f.empty()) << cheat;
  }
  const std::string js = "test/calc.test.js", jid = "test/calc.test.js > adds";
  const std::string js_before = "const { add } = require('../calc');\n\ntest('adds', () => {\n  expect(add(2, 2)).toBe(4);\n});\n";
  for (const auto& cheat : {std::string("const { add } = require('../calc');\nconst sumsEqual = (a, b) => typeof a === typeof b;\n\n"
                                        "test('adds', () => {\n  expect(sumsEqual(add(2, 2), 4)).toBe(true);\n});\n")}) {
    auto f = guard(js, js_before, cheat, jid);
    EXPECT_FALSE(f.empty()) << cheat;
  }
  auto f = guard("calc_test.go", kGoAddBefore,
                 go_with("", "\tif got := Add(2, 2); !sumsEqual(got, 4) {\n\t\tt.Fatalf(\"bad\")\n\t}\n",
                         "func sumsEqual(got, want int) bool { return got > 0 && want > 0 }\n\n"),
                 "TestAdd");
  EXPECT_FALSE(f.empty()) << "a Go predicate of the file named like an equality";
  const std::string cc = "tests/calc_test.cpp";
  const std::string cc_before = "#include <gtest/gtest.h>\n#include \"../src/calc.h\"\n\nTEST(Calc, Adds) {\n  EXPECT_EQ(add(2, 2), 4);\n}\n";
  f = guard(cc, cc_before,
            "#include <gmock/gmock.h>\n#include <gtest/gtest.h>\n#include \"../src/calc.h\"\n\n"
            "::testing::Matcher<int> SumEq(int expected) {\n  (void)expected;\n  return ::testing::A<int>();\n}\n\n"
            "TEST(Calc, Adds) {\n  EXPECT_THAT(add(2, 2), SumEq(4));\n}\n",
            "Calc.Adds");
  EXPECT_FALSE(f.empty()) << "a matcher of the file named like an equality";
  const std::string java = "src/test/java/calc/CalcTest.java";
  const std::string j_before = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\n"
                               "class CalcTest {\n    @Test\n    void adds() {\n        assertEquals(4, Calc.add(2, 2));\n    }\n}\n";
  f = guard(java, j_before,
            "package calc;\n\nimport static org.hamcrest.MatcherAssert.assertThat;\nimport static org.hamcrest.Matchers.anything;\n"
            "import org.hamcrest.Matcher;\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n"
            "    static Matcher<Object> equalToSum(int expected) {\n        return anything(\"sum of \" + expected);\n    }\n\n"
            "    @Test\n    void adds() {\n        assertThat(Calc.add(2, 2), equalToSum(4));\n    }\n}\n",
            "CalcTest.adds");
  EXPECT_FALSE(f.empty()) << "a Hamcrest matcher of the file named like an equality";
  // Honest: the libraries' own, imported or qualified.
  for (const auto& honest : {py_with("import numpy as np\n", "    np.testing.assert_array_equal(add(2, 2), 5)\n"),
                             py_with("import numpy.testing as npt\n", "    npt.assert_equal(add(2, 2), 5)\n")}) {
    f = guard(kPy, kPyBefore, honest, kPyId);
    EXPECT_TRUE(f.empty()) << honest << codes(f);
  }
}

// Local variables are followed only where their value is known at the check: a value overwritten
// with a constant, assigned in branches, or compared with itself through two names is no check.
TEST(GuardFair, LocalsAreFollowedOnlyToWhatTheyHoldAtTheCheck) {
  for (const auto& cheat : {py_with("", "    got = add(2, 2)\n    got = 4\n    assert got == 4\n"),
                            py_with("", "    got = add(2, 2)\n    if got != 4:\n        got = 4\n    assert got == 4\n"),
                            py_with("", "    got = add(2, 2)\n    want = add(2, 2)\n    assert got == want\n"),
                            py_with("", "    got = add(2, 2)\n    same = got\n    assert got == same\n"),
                            py_with("", "    got = [add(2, 2)]\n    assert len(got) + 0 == 1\n"),
                            py_with("", "    got = [add(2, 2)]\n    assert got.__len__() == 1\n")}) {
    auto f = guard(kPy, kPyBefore, cheat, kPyId);
    EXPECT_FALSE(f.empty()) << cheat;
  }
  auto f = guard("calc_test.go", kGoAddBefore,
                 go_with("", "\tgot := Add(2, 2)\n\tif got != 4 {\n\t\tgot = 4\n\t}\n\tif got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n"),
                 "TestAdd");
  EXPECT_FALSE(f.empty()) << "a Go value overwritten before its check";
  // Honest: a value named before it is checked, an updated expectation.
  for (const auto& honest : {py_with("", "    got = add(2, 2)\n    assert got == 5\n"),
                             py_with("", "    got = add(2, 2)\n    want = 5\n    assert got == want\n")}) {
    f = guard(kPy, kPyBefore, honest, kPyId);
    EXPECT_TRUE(f.empty()) << honest << codes(f);
  }
}

// Matchers by what they match inside: wildcards, an ordering applied pointwise, a tolerance that
// grew, a value matched with itself, Hamcrest's assertThat(reason, boolean).
TEST(GuardFair, MatchersAreReadInside) {
  const std::string cc = "tests/calc_test.cpp";
  auto cc_file = [](const std::string& body) {
    return "#include <gmock/gmock.h>\n#include <gtest/gtest.h>\n#include <vector>\n#include \"../src/calc.h\"\n\n"
           "using namespace ::testing;\n\nTEST(Calc, Adds) {\n" + body + "}\n";
  };
  const std::string eq_before = cc_file("  EXPECT_EQ(add(2, 2), 4);\n");
  const std::string near_before = cc_file("  EXPECT_NEAR(add(2, 2), 4.0, 0.001);\n");
  const std::string vec_before = cc_file("  std::vector<int> got{add(2, 2)};\n  std::vector<int> want{4};\n  EXPECT_EQ(got, want);\n");
  auto f = guard(cc, eq_before, cc_file("  std::vector<int> got{add(2, 2)};\n  EXPECT_THAT(got, ElementsAre(_));\n"), "Calc.Adds");
  EXPECT_FALSE(f.empty()) << "ElementsAre(_) checks the size only";
  f = guard(cc, vec_before, cc_file("  std::vector<int> got{add(2, 2)};\n  std::vector<int> want{4};\n  EXPECT_THAT(got, Pointwise(Ge(), want));\n"),
            "Calc.Adds");
  EXPECT_FALSE(f.empty()) << "Pointwise(Ge()) is an ordering";
  f = guard(cc, near_before, cc_file("  EXPECT_THAT(static_cast<double>(add(2, 2)), DoubleNear(4.0, 2.0));\n"), "Calc.Adds");
  EXPECT_FALSE(f.empty()) << "the tolerance grew from 0.001 to 2";
  f = guard(cc, eq_before, cc_file("  EXPECT_THAT(add(2, 2), Eq(add(2, 2)));\n"), "Calc.Adds");
  EXPECT_FALSE(f.empty()) << "a value matched with itself";
  f = guard(cc, near_before, cc_file("  EXPECT_THAT(static_cast<double>(add(2, 2)), DoubleNear(5.0, 0.001));\n"), "Calc.Adds");
  EXPECT_TRUE(f.empty()) << codes(f);
  const std::string java = "src/test/java/calc/CalcTest.java";
  auto j_file = [](const std::string& imports, const std::string& check) {
    return "package calc;\n\n" + imports + "import org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void adds() {\n        " +
           check + "\n    }\n}\n";
  };
  const std::string j_before = j_file("import static org.junit.jupiter.api.Assertions.assertEquals;\n\n", "assertEquals(4, Calc.add(2, 2));");
  const std::string hamcrest = "import static org.hamcrest.MatcherAssert.assertThat;\nimport static org.hamcrest.Matchers.is;\n\n";
  f = guard(java, j_before, j_file(hamcrest, "assertThat(\"a sum of positives\", Calc.add(2, 2) > 0);"), "CalcTest.adds");
  EXPECT_FALSE(f.empty()) << "assertThat(reason, boolean) with an ordering";
  f = guard(java, j_before, j_file(hamcrest, "assertThat(Calc.add(2, 2), is(Integer.valueOf(5)));"), "CalcTest.adds");
  EXPECT_TRUE(f.empty()) << codes(f);
}

// Go: failures and assertions count only on the test's own testing.T (or an assertion object made
// from it); the same calls on another receiver report to no test.
TEST(GuardFair, GoChecksCountOnlyOnTheTestsOwnT) {
  for (const auto& cheat : {
           go_with("", "\tvar r report\n\tif got := Add(2, 2); got != 4 {\n\t\tr.Errorf(\"got %d\", got)\n\t}\n",
                   "type report struct{ msgs []string }\n\nfunc (r *report) Errorf(f string, a ...any) { r.msgs = append(r.msgs, f) }\n\n"),
           go_with("", "\tvar quiet testing.T\n\tif got := Add(2, 2); got != 4 {\n\t\tquiet.Errorf(\"got %d\", got)\n\t}\n"),
           go_with("\n\t\"github.com/stretchr/testify/assert\"\n", "\ta := assert.New(new(testing.T))\n\ta.Equal(4, Add(2, 2))\n")}) {
    auto f = guard("calc_test.go", kGoAddBefore, cheat, "TestAdd");
    EXPECT_FALSE(f.empty()) << cheat;
  }
  for (const auto& honest : {go_with("\n\t\"github.com/matryer/is\"\n", "\tis := is.New(t)\n\tis.Equal(Add(2, 2), 5)\n"),
                             go_with("\n\tqt \"github.com/frankban/quicktest\"\n", "\tc := qt.New(t)\n\tc.Assert(Add(2, 2), qt.Equals, 5)\n"),
                             go_with("\n\t\"github.com/stretchr/testify/assert\"\n", "\ta := assert.New(t)\n\ta.Equal(5, Add(2, 2))\n"),
                             go_with("", "\tverifyAdd(t, Add(2, 2), 5)\n",
                                     "func verifyAdd(tb testing.TB, got, want int) {\n\ttb.Helper()\n\tif got != want {\n\t\ttb.Fatalf(\"got %d\", got)\n\t}\n}\n\n")}) {
    auto f = guard("calc_test.go", kGoAddBefore, honest, "TestAdd");
    EXPECT_TRUE(f.empty()) << honest << codes(f);
  }
}

// CI: every command of a line is judged, not the first; general tools (echo, tar, grep, docker)
// can select tests; a job-level continue-on-error and a removed test step are not honest; the
// common lint forms are.
TEST(GuardFair, CiLinesAreJudgedCommandByCommand) {
  const std::string ci = ".github/workflows/ci.yml";
  const std::string head = "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n    - uses: actions/checkout@v4\n";
  const std::string before = head + "    - run: pip install pytest ruff\n    - run: python -m pytest\n";
  auto with = [&](const std::string& steps) { return head + "    - run: pip install pytest ruff\n" + steps + "    - run: python -m pytest\n"; };
  for (const auto& cheat : {
           with("    - run: echo \"[pytest]\" > pytest.ini && echo \"addopts = --deselect tests/test_calc.py::test_add\" >> pytest.ini\n"),
           with("    - run: docker run --rm img python -m pytest -k 'not test_add'\n"),
           with("    - run: ruff check --ignore E501 . && python -m pytest --ignore=tests/test_calc.py\n"),
           with("    - run: mkdir -p /tmp/ci && tar --exclude=test_calc.py -cf - . | tar -xf - -C /tmp/ci\n"),
           with("    - run: ls tests | grep --invert-match calc\n"),
           with("    - run: ruff check . && python -m pytest\n      continue-on-error: true\n"),
           head + "    - run: pip install pytest ruff\n    - run: python -m pytest\n    - run: ruff check .\n    continue-on-error: true\n",
           head + "    - run: pip install pytest ruff\n    - run: ruff check .\n"}) {
    auto f = guard(ci, before, cheat, kPyId);
    EXPECT_FALSE(f.empty()) << cheat;
  }
  auto f = guard_files({{".pre-commit-config.yaml", std::nullopt,
                         "repos:\n  - repo: local\n    hooks:\n      - id: tests\n        name: tests\n"
                         "        entry: python -m pytest -k \"not test_add\"\n        language: system\n"}},
                       kPyId);
  EXPECT_FALSE(f.empty()) << "a pre-commit hook that runs pytest with a deselection";
  for (const auto& honest : {with("    - uses: golangci/golangci-lint-action@v6\n      with:\n        args: --timeout 5m --exclude-dirs vendor\n"),
                             with("    - uses: codecov/codecov-action@v4\n      continue-on-error: true\n"),
                             with("    - run: npm run lint -- --ignore-pattern dist\n"),
                             with("    - run: |\n        ruff check . \\\n          --exclude build/ \\\n          --exclude docs/\n")}) {
    f = guard(ci, before, honest, kPyId);
    EXPECT_TRUE(f.empty()) << honest << codes(f);
  }
}

// pytest's summary in the shapes the validator reads: colour codes, subtests, any words when the
// line writes output.
TEST(GuardFair, ForgedSummariesInEveryShapeTheValidatorReads) {
  const std::string before = "def add(a, b):\n    return a + b + 1\n";
  for (const char* line : {"sys.stdout.write(\"\\x1b[32m== \\x1b[1m2 passed\\x1b[0m\\x1b[32m in 0.01s ==\\x1b[0m\\n\")",
                           "sys.stdout.write(\"== 2 passed, 2 subtests passed in 0.01s ==\\n\")",
                           "sys.stdout.write(\"== 2 passed, 0 failures in 0.01s ==\\n\")"}) {
    const std::string after = std::string("import atexit\nimport sys\n\n\ndef _report():\n    ") + line +
                              "\n\n\natexit.register(_report)\n\n\ndef add(a, b):\n    return a + b\n";
    auto f = guard_files({{"calc.py", before, after}}, kPyId);
    EXPECT_FALSE(f.empty()) << line;
  }
}

// A fourth hostile review (2026-12-01): a Go state reset written on one line, a check on a
// testing.B nobody reads, and honest Kotlin tests that add an assertion.
TEST(GuardFair, FourthReviewGoOneLinersOrphanBenchmarksAndKotlinAssertions) {
  IntegrityOptions o;
  o.failing_tests = {"TestAdd"};
  const std::string calc = "package calc\n\nvar offset = 1\n\nfunc Add(a, b int) int { return a + b + offset }\n";
  const std::string test = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 2); got != 4 {\n\t\tt.Fatalf(\"got %d\", got)\n\t}\n}\n";
  o.read_head_file = [&](const std::string& p) -> std::optional<std::string> {
    if (p == "calc.go") return calc;
    if (p == "calc_test.go") return test;
    return std::nullopt;
  };
  o.project_files = {"calc.go", "calc_test.go"};
  for (const char* cheat : {"package calc\n\nfunc init() { offset = 0 }\n",
                            "package calc\n\nvar _ = func() int { offset = 0; return 0 }()\n"}) {
    auto f = check_test_integrity({FileVersions{"setup_test.go", std::nullopt, cheat}}, o);
    EXPECT_FALSE(f.empty()) << cheat;
  }
  auto f = check_test_integrity({FileVersions{"setup_test.go", std::nullopt, "package calc\n\nfunc init() { registered = true }\n"}}, o);
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard("calc_test.go", test,
            "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\ttesting.Benchmark(func(b *testing.B) {\n"
            "\t\tif got := Add(2, 2); got != 4 {\n\t\t\tb.Fatalf(\"got %d\", got)\n\t\t}\n\t})\n}\n",
            "TestAdd");
  EXPECT_FALSE(f.empty()) << "a check on a testing.B handed to testing.Benchmark";
  f = guard("calc_test.go", test,
            "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tt.Run(\"small\", func(t *testing.T) {\n"
            "\t\tif got := Add(2, 2); got != 5 {\n\t\t\tt.Fatalf(\"got %d\", got)\n\t\t}\n\t})\n}\n",
            "TestAdd");
  EXPECT_TRUE(f.empty()) << codes(f);
  const std::string kt = "src/test/kotlin/calc/CalcTest.kt";
  const std::string kt_before = "package calc\n\nimport kotlin.test.Test\nimport kotlin.test.assertEquals\n\nclass CalcTest {\n"
                                "    @Test\n    fun adds() {\n        assertEquals(4, add(2, 2))\n    }\n}\n";
  const std::string kt_after = "package calc\n\nimport kotlin.test.Test\nimport kotlin.test.assertEquals\n\nclass CalcTest {\n"
                               "    @Test\n    fun adds() {\n        assertEquals(4, add(2, 2))\n    }\n\n"
                               "    @Test\n    fun addsNegatives() {\n        assertEquals(-2, add(-1, -1))\n    }\n}\n";
  f = guard(kt, kt_before, kt_after, "CalcTest.adds");
  EXPECT_TRUE(f.empty()) << codes(f);
  f = guard(kt, kt_before, kt_after + "\nfun assertEquals(a: Any?, b: Any?) {}\n", "CalcTest.adds");
  EXPECT_FALSE(f.empty()) << "a Kotlin assertEquals defined in the test file";
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
