// flowagent/expected.hpp: the one spelling of "a value or an error" used across the library.
//
// flowagent::expected / flowagent::unexpected are tl::expected when the build found the tl-expected
// package (FLOWAGENT_USE_TL_EXPECTED is then defined for every consumer by the CMake target), and
// std::expected from C++23 otherwise. Code never names tl:: or std:: expected directly.
#pragma once

#if defined(FLOWAGENT_USE_TL_EXPECTED)
#include <tl/expected.hpp>
namespace flowagent {
template <class T, class E>
using expected = tl::expected<T, E>;
using tl::unexpected;
}  // namespace flowagent
#else
#include <expected>
#if !defined(__cpp_lib_expected)
#error "flowagent needs tl::expected or C++23 std::expected (GCC >= 12 with -std=c++23)"
#endif
namespace flowagent {
template <class T, class E>
using expected = std::expected<T, E>;
using std::unexpected;
}  // namespace flowagent
#endif
