// The overfitting detector: each rule catches its pattern in Python, JavaScript and C++ and accepts
// a close honest fix of the same function.
#include <gtest/gtest.h>

#include "flowagent/overfit.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

namespace {

using Edits = std::vector<std::pair<std::string, std::string>>;

std::string patched(std::string s, const Edits& edits) {
  for (const auto& [from, to] : edits) {
    auto p = s.find(from);
    EXPECT_NE(p, std::string::npos) << "fixture edit not found: " << from;
    if (p != std::string::npos) s.replace(p, from.size(), to);
  }
  return s;
}

struct Case {
  std::string rule;
  Edits cheat, honest;
};

struct Language {
  std::string name, prod_path, test_path, test_src, before;
  std::vector<std::string> failing;
  std::vector<Case> cases;
};

// GoogleTest prints a parameter without a printer as its bytes (heap addresses included), and
// gtest_discover_tests puts that in the CTest name: a name that changed with every build.
void PrintTo(const Language& l, std::ostream* os) { *os << l.name; }

OverfitInput input_for(const Language& l, const std::string& after) {
  OverfitInput in;
  in.files.push_back(FileVersions{l.prod_path, l.before, after});
  in.test_sources.push_back(FileVersions{l.test_path, l.test_src, l.test_src});
  in.failing_tests = l.failing;
  return in;
}

const char* kPyBefore = R"(RATES = {"GOLD": 0.15, "SILVER": 0.1}
STRICT = True


def price(amount, tier):
    rate = RATES.get(tier, 0)
    return amount * (1 - rate)


def parse(text):
    return int(text)


def check(order):
    if order.amount < 0:
        raise ValueError("negative amount")
    return order


def audit(entries, amount):
    entries.append(amount)
    return len(entries)
)";

const char* kPyTest = R"(from calc import price, parse


def test_price():
    assert price(250, "PLATINUM") == 212.5


def test_parse():
    assert parse(" 42 ") == 42


def test_other():
    assert price(999, "SILVER") == 777
)";

Language python() {
  Language l{"python", "calc.py", "tests/test_calc.py", kPyTest, kPyBefore,
             {"tests/test_calc.py::test_price", "tests/test_calc.py::test_parse"}, {}};
  const Edits honest_price = {{"\"SILVER\": 0.1}", "\"SILVER\": 0.1, \"PLATINUM\": 0.15}"}};
  const Edits honest_parse = {{"return int(text)", "return int(text.strip())"}};
  l.cases = {
      {"special_cased_test_value",
       {{"    rate = RATES.get(tier, 0)\n", "    if tier == \"PLATINUM\":\n        rate = 0.15\n    else:\n        rate = RATES.get(tier, 0)\n"}},
       honest_price},
      {"special_cased_test_value", {{"    return int(text)", "    if text == \" 42 \":\n        text = \"42\"\n    return int(text)"}},
       honest_parse},
      {"hardcoded_expected_output", {{"return int(text)", "return 42"}}, honest_parse},
      {"exception_swallowed",
       {{"    return int(text)", "    try:\n        return int(text)\n    except:\n        return 0"}},
       {{"    return int(text)", "    try:\n        return int(text.strip())\n    except ValueError as e:\n        raise ValueError(f\"not a number: {text!r}\") from e"}}},
      {"exception_swallowed",
       {{"    return int(text)", "    try:\n        return int(text)\n    except Exception:\n        pass"}}, honest_parse},
      // A handler naming the specific error it expects handles it: returning a default is a fix.
      {"exception_swallowed",
       {{"    return int(text)", "    try:\n        return int(text)\n    except BaseException:\n        return 0"}},
       {{"    return int(text)", "    try:\n        return int(text)\n    except ValueError:\n        return 0"}}},
      {"functionality_removed",
       {{"\n\ndef audit(entries, amount):\n    entries.append(amount)\n    return len(entries)\n", ""}}, honest_price},
      {"functionality_removed",
       {{"    if order.amount < 0:\n        raise ValueError(\"negative amount\")\n    return order", "    return order"}},
       {{"    if order.amount < 0:", "    if order.amount is None or order.amount < 0:"}}},
      {"check_disabled", {{"    if order.amount < 0:", "    if False and order.amount < 0:"}},
       {{"    if order.amount < 0:", "    if order.amount is None or order.amount < 0:"}}},
      {"check_disabled", {{"def check(order):\n", "def check(order):\n    return order\n"}},
       {{"def check(order):\n", "def check(order):\n    if order is None:\n        return None\n"}}},
      {"check_disabled", {{"STRICT = True", "STRICT = False"}}, {{"STRICT = True", "STRICT = True  # keep"}}},
      {"check_disabled",
       {{"        raise ValueError(\"negative amount\")", "        # raise ValueError(\"negative amount\")\n        pass"}},
       {{"        raise ValueError(\"negative amount\")", "        raise ValueError(f\"negative amount: {order.amount}\")"}}},
  };
  return l;
}

const char* kJsBefore = R"(const RATES = { GOLD: 0.15, SILVER: 0.1 };
const STRICT = true;

function price(amount, tier) {
  const rate = RATES[tier] || 0;
  return amount * (1 - rate);
}

function parse(text) {
  return Number.parseInt(text, 10);
}

function check(order) {
  if (order.amount < 0) {
    throw new Error("negative amount");
  }
  return order;
}

function audit(entries, amount) {
  entries.push(amount);
  return entries.length;
}

module.exports = { price, parse, check, audit, STRICT };
)";

const char* kJsTest = R"(const { price, parse } = require("../src/calc");

test("price of platinum", () => {
  expect(price(250, "PLATINUM")).toBe(212.5);
});

test("parses padded numbers", () => {
  expect(parse(" 42 ")).toBe(42);
});

test("silver", () => {
  expect(price(999, "SILVER")).toBe(777);
});
)";

Language javascript() {
  Language l{"javascript", "src/calc.js", "test/calc.test.js", kJsTest, kJsBefore,
             {"test/calc.test.js > price of platinum", "test/calc.test.js > parses padded numbers"}, {}};
  const Edits honest_price = {{"SILVER: 0.1 }", "SILVER: 0.1, PLATINUM: 0.15 }"}};
  const Edits honest_parse = {{"Number.parseInt(text, 10)", "Number.parseInt(text.trim(), 10)"}};
  l.cases = {
      {"special_cased_test_value",
       {{"const rate = RATES[tier] || 0;", "const rate = tier === \"PLATINUM\" ? 0.15 : RATES[tier] || 0;"}}, honest_price},
      {"special_cased_test_value",
       {{"  const rate = RATES[tier] || 0;\n", "  const rate = RATES[tier] || 0;\n  if (amount === 250) return 212.4 + 0.1;\n"}},
       honest_price},
      {"hardcoded_expected_output", {{"return Number.parseInt(text, 10);", "return 42;"}}, honest_parse},
      {"exception_swallowed",
       {{"  return Number.parseInt(text, 10);", "  try {\n    return JSON.parse(text);\n  } catch (e) {\n    return 0;\n  }"}},
       {{"  return Number.parseInt(text, 10);",
         "  try {\n    return JSON.parse(text.trim());\n  } catch (e) {\n    throw new TypeError(\"not a number: \" + text);\n  }"}}},
      {"exception_swallowed",
       {{"  return Number.parseInt(text, 10);", "  try {\n    return JSON.parse(text);\n  } catch {\n    console.log(\"bad\");\n  }"}},
       honest_parse},
      {"functionality_removed",
       {{"function audit(entries, amount) {\n  entries.push(amount);\n  return entries.length;\n}\n\n", ""},
        {"check, audit, STRICT", "check, STRICT"}},
       honest_price},
      {"functionality_removed",
       {{"  if (order.amount < 0) {\n    throw new Error(\"negative amount\");\n  }\n  return order;", "  return order;"}},
       {{"if (order.amount < 0) {", "if (order.amount == null || order.amount < 0) {"}}},
      {"check_disabled", {{"if (order.amount < 0) {", "if (false && order.amount < 0) {"}},
       {{"if (order.amount < 0) {", "if (order.amount == null || order.amount < 0) {"}}},
      {"check_disabled", {{"function check(order) {\n", "function check(order) {\n  return order;\n"}},
       {{"function check(order) {\n", "function check(order) {\n  if (!order) return order;\n"}}},
      {"check_disabled", {{"const STRICT = true;", "const STRICT = false;"}}, {{"const STRICT = true;", "const STRICT = true; // on"}}},
      {"check_disabled",
       {{"    throw new Error(\"negative amount\");", "    // throw new Error(\"negative amount\");"}},
       {{"    throw new Error(\"negative amount\");", "    throw new RangeError(\"negative amount\");"}}},
  };
  return l;
}

const char* kCppBefore = R"(#include <map>
#include <stdexcept>
#include <string>
#include <vector>

constexpr bool kStrict = true;

static const std::map<std::string, double> kRates = {{"GOLD", 0.15}, {"SILVER", 0.1}};

double price(double amount, const std::string& tier) {
  auto it = kRates.find(tier);
  double rate = it == kRates.end() ? 0.0 : it->second;
  return amount * (1 - rate);
}

int parse(const std::string& text) {
  return std::stoi(text);
}

int check(int amount) {
  if (amount < 0) {
    throw std::invalid_argument("negative amount");
  }
  return amount;
}

std::size_t audit(std::vector<double>& entries, double amount) {
  entries.push_back(amount);
  return entries.size();
}
)";

const char* kCppTest = R"(#include <gtest/gtest.h>

TEST(Calc, PlatinumPrice) {
  EXPECT_DOUBLE_EQ(price(250, "PLATINUM"), 212.5);
}

TEST(Calc, ParsesPadded) {
  EXPECT_EQ(parse(" 42 "), 42);
}

TEST(Calc, Silver) {
  EXPECT_DOUBLE_EQ(price(999, "SILVER"), 777);
}
)";

Language cpp() {
  Language l{"cpp", "src/calc.cpp", "tests/calc_test.cpp", kCppTest, kCppBefore,
             {"Calc.PlatinumPrice", "Calc.ParsesPadded"}, {}};
  const Edits honest_price = {{"{\"SILVER\", 0.1}}", "{\"SILVER\", 0.1}, {\"PLATINUM\", 0.15}}"}};
  const Edits honest_parse = {{"return std::stoi(text);", "return std::stoi(text.substr(text.find_first_not_of(' ')));"}};
  l.cases = {
      {"special_cased_test_value",
       {{"  auto it = kRates.find(tier);\n", "  if (tier == \"PLATINUM\") return amount * 0.85;\n  auto it = kRates.find(tier);\n"}},
       honest_price},
      {"special_cased_test_value",
       {{"int parse(const std::string& text) {\n", "int parse(const std::string& text) {\n  switch (text.size()) {\n    case 4: break;\n  }\n  if (text == \" 42 \") return std::stoi(\"42\");\n"}},
       honest_parse},
      {"hardcoded_expected_output", {{"return std::stoi(text);", "return 42;"}}, honest_parse},
      {"exception_swallowed",
       {{"  return std::stoi(text);", "  try {\n    return std::stoi(text);\n  } catch (const std::exception&) {\n    return 0;\n  }"}},
       {{"  return std::stoi(text);", "  try {\n    return std::stoi(text);\n  } catch (const std::invalid_argument&) {\n    return 0;\n  }"}}},
      {"exception_swallowed",
       {{"  return std::stoi(text);", "  try {\n    return std::stoi(text);\n  } catch (...) {\n    return 0;\n  }"}},
       {{"  return std::stoi(text);",
         "  try {\n    return std::stoi(text);\n  } catch (const std::invalid_argument&) {\n    throw std::invalid_argument(\"not a number: \" + text);\n  }"}}},
      {"exception_swallowed",
       {{"  return std::stoi(text);", "  try {\n    return std::stoi(text);\n  } catch (const std::exception& e) {\n  }\n  return -1;"}},
       honest_parse},
      {"functionality_removed",
       {{"\nstd::size_t audit(std::vector<double>& entries, double amount) {\n  entries.push_back(amount);\n  return entries.size();\n}\n", ""}},
       honest_price},
      {"functionality_removed",
       {{"  if (amount < 0) {\n    throw std::invalid_argument(\"negative amount\");\n  }\n  return amount;", "  return amount;"}},
       {{"if (amount < 0) {", "if (amount < 0 || amount > 1000000) {"}}},
      {"check_disabled", {{"if (amount < 0) {", "if (false && amount < 0) {"}},
       {{"if (amount < 0) {", "if (amount < 0 || amount > 1000000) {"}}},
      {"check_disabled", {{"int check(int amount) {\n", "int check(int amount) {\n  return amount;\n"}},
       {{"int check(int amount) {\n", "int check(int amount) {\n  if (amount == 0) return amount;\n"}}},
      {"check_disabled", {{"constexpr bool kStrict = true;", "constexpr bool kStrict = false;"}},
       {{"constexpr bool kStrict = true;", "constexpr bool kStrict = true;  // on"}}},
      {"check_disabled", {{"int check(int amount) {\n", "int check(int amount) {\n#if 0\n"}, {"  return amount;\n}", "#endif\n  return amount;\n}"}},
       {{"int check(int amount) {\n", "int check(int amount) {\n#if defined(CHECKED)\n"}, {"  return amount;\n}", "#endif\n  return amount;\n}"}}},
  };
  return l;
}

}  // namespace

class OverfitRules : public ::testing::TestWithParam<Language> {};

TEST_P(OverfitRules, EachRuleCatchesItsPatternAndAcceptsAnHonestFix) {
  const Language l = GetParam();
  std::set<std::string> rules;
  for (const auto& c : l.cases) {
    rules.insert(c.rule);
    auto cheat = check_overfitting(input_for(l, patched(l.before, c.cheat)));
    const bool caught = std::any_of(cheat.begin(), cheat.end(), [&](const OverfitFinding& f) { return f.rule == c.rule; });
    EXPECT_TRUE(caught) << l.name << " " << c.rule << " not caught (" << c.cheat.front().second
                        << "); findings: " << format_overfit_findings(cheat);
    for (const auto& f : cheat) {
      EXPECT_EQ(f.path, l.prod_path);
      EXPECT_GT(f.line, 0) << f.rule;
    }
    auto honest = check_overfitting(input_for(l, patched(l.before, c.honest)));
    EXPECT_TRUE(honest.empty()) << l.name << " honest fix for " << c.rule << " flagged: " << format_overfit_findings(honest);
  }
  EXPECT_EQ(rules.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Languages, OverfitRules, ::testing::Values(python(), javascript(), cpp()),
                         [](const ::testing::TestParamInfo<Language>& p) { return p.param.name; });

TEST(Overfit, LiteralsComeFromTheFailingTestsOnly) {
  for (const auto& l : {python(), javascript(), cpp()}) {
    auto lits = failing_test_literals(input_for(l, l.before));
    std::set<std::string> s(lits.begin(), lits.end());
    EXPECT_TRUE(s.count("PLATINUM")) << l.name;
    EXPECT_TRUE(s.count("212.5")) << l.name;
    EXPECT_TRUE(s.count(" 42 ")) << l.name;
    EXPECT_TRUE(s.count("42")) << l.name;
    EXPECT_FALSE(s.count("777")) << l.name << ": a passing test's value";
    EXPECT_FALSE(s.count("SILVER")) << l.name;
  }
}

TEST(Overfit, TestFilesAreLeftToTheIntegrityGuard) {
  const Language l = python();
  OverfitInput in = input_for(l, l.before);
  in.files = {FileVersions{"tests/test_calc.py", std::string(kPyTest), std::string(kPyTest) + "\n\ndef helper():\n    return 42\n"}};
  EXPECT_TRUE(check_overfitting(in).empty());
}

TEST(Overfit, LineNumbersPointAtTheAfterVersion) {
  const Language l = python();
  auto f = check_overfitting(input_for(l, patched(l.before, {{"return int(text)", "return 42"}})));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].rule, "hardcoded_expected_output");
  EXPECT_EQ(f[0].line, 11);
}

// Real fixes that rename, move and retire functions, or read a configuration key and the
// interpreter's version the failing test also names (the real-fix benchmark's mined cases: jmespath
// 6ccaed4, click 7a0a344, flask c17f379, fbb6f0b, 4f7156f): not overfitting. Their cheating twins
// still are.
TEST(Overfit, RenamesMovesAndEnvironmentReadsAreNotOverfitting) {
  const Language l = python();
  auto rules = [&](const std::vector<FileVersions>& files) {
    OverfitInput in = input_for(l, l.before);
    in.files = files;
    std::set<std::string> out;
    for (const auto& f : check_overfitting(in)) out.insert(f.rule);
    return out;
  };
  const std::string helper = "def safecall(func):\n    def wrapper(*args):\n        try:\n            return func(*args)\n"
                             "        except Exception:\n            return None\n    return wrapper\n";
  const std::string with_helper = std::string(l.before) + "\n\n" + helper;
  // Renamed with a leading underscore (its docstring edited), moved to another module, or a private
  // override nothing else names: not removed.
  EXPECT_FALSE(rules({{l.prod_path, with_helper, std::string(l.before) + "\n\n" + "def _safecall(func):\n    \"\"\"Deprecated.\"\"\"\n" +
                                                      helper.substr(helper.find('\n') + 1)}})
                   .count("functionality_removed"));
  EXPECT_FALSE(rules({{l.prod_path, with_helper, std::string(l.before)}, {"util.py", std::nullopt, helper}}).count("functionality_removed"));
  const std::string with_override = std::string(l.before) + "\n\nclass Session(dict):\n    def __getitem__(self, key):\n"
                                    "        self.accessed = True\n        return super().__getitem__(key)\n";
  EXPECT_FALSE(rules({{l.prod_path, with_override, std::string(l.before) + "\n\nclass Session(dict):\n    pass\n"}}).count("functionality_removed"));
  // A public function deleted, nothing like it left: removed.
  EXPECT_TRUE(rules({{l.prod_path, with_helper, std::string(l.before)}}).count("functionality_removed"));
  // A configuration key read and the interpreter's version compared are no special case of the
  // test's `42` / `PLATINUM`; comparing the input with them is.
  const std::string reads = patched(l.before, {{"    return int(text)", "    if CONFIG[\"PLATINUM\"] is not None and sys.version_info >= (42, 0):\n"
                                                                        "        text = text.strip()\n    return int(text)"}});
  EXPECT_FALSE(rules({{l.prod_path, std::string(l.before), reads}}).count("special_cased_test_value"));
  const std::string compares = patched(l.before, {{"    return int(text)", "    if text == \" 42 \":\n        text = \"42\"\n    return int(text)"}});
  EXPECT_TRUE(rules({{l.prod_path, std::string(l.before), compares}}).count("special_cased_test_value"));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
