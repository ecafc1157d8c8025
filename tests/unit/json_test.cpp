#include <gtest/gtest.h>

#include <cmath>

#include "flowagent/json.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;

TEST(Json, ParsesAllTypesAndKeepsOrder) {
  auto v = parse_json(R"({"b":1,"a":[true,false,null,1.5,"x"],"big":18446744073709551615,"neg":-7})");
  ASSERT_TRUE(v) << v.error().message;
  ASSERT_TRUE(v->is_object());
  EXPECT_EQ(v->as_object()[0].first, "b");
  EXPECT_EQ(v->find("b")->as_int(), 1);
  const auto& a = v->find("a")->as_array();
  ASSERT_EQ(a.size(), 5u);
  EXPECT_TRUE(a[0].as_bool());
  EXPECT_TRUE(a[2].is_null());
  EXPECT_DOUBLE_EQ(a[3].as_double(), 1.5);
  EXPECT_EQ(a[4].as_string(), "x");
  EXPECT_EQ(v->find("big")->type(), Json::Type::number);  // beyond int64
  EXPECT_EQ(v->find("neg")->as_int(), -7);
}

TEST(Json, RejectsInvalidDocuments) {
  for (const char* bad : {"", "   ", "{", "{\"a\":}", "[1,2", "{\"a\":1} x", "nul", "{'a':1}", "[1,]"}) {
    auto v = parse_json(bad);
    ASSERT_FALSE(v) << bad;
    EXPECT_EQ(v.error().code, Errc::invalid_json) << bad;
    EXPECT_NE(v.error().message.find("invalid JSON"), std::string::npos);
  }
}

TEST(Json, RejectsInvalidUtf8) {
  std::string bad = "{\"a\":\"\xC3\x28\"}";
  auto v = parse_json(bad);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("UTF-8"), std::string::npos);
}

TEST(Json, RejectsExcessiveNesting) {
  std::string deep(300, '[');
  deep += std::string(300, ']');
  auto v = parse_json(deep, 256);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, Errc::invalid_json);
  EXPECT_TRUE(parse_json(deep, 400));
}

TEST(Json, WriterEscapesEverythingThatNeedsIt) {
  Json v = Json::obj({{"s", std::string("q\"b\\n\n\t\x01</script>&\x7f")}});
  auto out = dump_json(v);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, R"({"s":"q\"b\\n\n\t\u0001\u003c/script\u003e\u0026\u007f"})");
  auto back = parse_json(*out);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, v);
}

TEST(Json, WriterRejectsInvalidUtf8AndNonFinite) {
  Json bad = Json::obj({{"s", std::string("ok\xFF")}});
  auto out = dump_json(bad);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, Errc::invalid_json);
  EXPECT_EQ(dump_json_lossy(bad), "{\"s\":\"ok\xEF\xBF\xBD\"}");
  Json key_bad = Json::obj({{std::string("k\xC0"), 1}});
  EXPECT_FALSE(dump_json(key_bad));
  EXPECT_FALSE(dump_json(Json(std::nan(""))));
  EXPECT_EQ(dump_json_lossy(Json(INFINITY)), "null");
}

TEST(Json, RoundTripsNumbersAndUnicode) {
  Json v = Json::obj({{"d", 0.1}, {"i", -9007199254740993LL}, {"u", "\xE2\x82\xAC \xF0\x9F\x98\x80"}, {"w", 3.0}});
  auto out = dump_json(v);
  ASSERT_TRUE(out);
  auto back = parse_json(*out);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, v);
  EXPECT_EQ(back->find("w")->type(), Json::Type::number);
}

TEST(Json, PrettyPrints) {
  Json v = Json::obj({{"a", Json::array()}, {"b", Json(Json::Array{1, 2})}});
  auto out = dump_json(v, {2});
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "{\n  \"a\": [],\n  \"b\": [\n    1,\n    2\n  ]\n}");
}

TEST(Utf8, ValidatesAndSanitizes) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("\xE2\x82\xAC"));
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xC0\xAF"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_EQ(sanitize_utf8("a\xFF" "b"), "a\xEF\xBF\xBD" "b");
  EXPECT_EQ(sanitize_utf8("\xE2\x82"), "\xEF\xBF\xBD");
  EXPECT_TRUE(is_valid_utf8(sanitize_utf8("\xC3\x28\xA0\xA1\xF0\x28\x8C\xBC")));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
