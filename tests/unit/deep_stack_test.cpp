// core/deep_stack: work that matches std::regex over long text runs on a thread whose stack the
// recursion cannot overflow (libstdc++ recurses once per character a repetition consumes).
#include "core/deep_stack.hpp"

#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <pthread.h>

#include <regex>
#include <stdexcept>
#include <string>

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent::detail;

// The pattern of the guard's import_aliases over a 200,000-character word: far more than an 8 MiB
// stack holds (about 30,000 characters; 15,000 under ASan).
bool long_word_matches() {
  const std::string text = std::string(200000, 'x') + " as y";
  static const std::regex py(R"(\b([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)\b)");
  std::smatch m;
  return std::regex_search(text, m, py) && m[2].str() == "y";
}

TEST(DeepStack, ARegexOverAVeryLongRunDoesNotOverflowIt) {
  EXPECT_FALSE(on_deep_stack());
  EXPECT_TRUE(with_deep_stack([] { return long_word_matches(); }));
}

TEST(DeepStack, ValuesAndExceptionsComeBackAndNestedCallsDoNotHop) {
  EXPECT_EQ(with_deep_stack([] { return std::string("value"); }), "value");
  EXPECT_THROW(run_on_deep_stack([] { throw std::runtime_error("from the deep thread"); }), std::runtime_error);
  bool deep = false, nested_deep = false;
  pthread_t outer{}, inner{};
  run_on_deep_stack([&] {
    deep = on_deep_stack();
    outer = pthread_self();
    run_on_deep_stack([&] {
      nested_deep = on_deep_stack();
      inner = pthread_self();
    });
  });
  EXPECT_TRUE(deep);
  EXPECT_TRUE(nested_deep);
  EXPECT_TRUE(pthread_equal(outer, inner));  // (already deep: no second thread)
  EXPECT_FALSE(on_deep_stack());
}

// A host thread with a small stack (an IDE's worker: 256 KiB) calling in.
TEST(DeepStack, AHostThreadWithASmallStackIsNoLimit) {
  bool matched = false;
  flowagent::testkit::on_thread_with_stack(256 * 1024, [&] { matched = with_deep_stack([] { return long_word_matches(); }); });
  EXPECT_TRUE(matched);
}

}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
