# Finds every third-party dependency. All come from Debian packages installed by scripts/install-deps.sh.
find_package(Threads REQUIRED)
find_package(Boost 1.81 CONFIG REQUIRED COMPONENTS headers)
find_package(absl CONFIG REQUIRED)
find_package(simdjson CONFIG REQUIRED)
find_package(pugixml CONFIG REQUIRED)
find_package(OpenSSL REQUIRED)
find_package(re2 REQUIRED)  # cmake/Findre2.cmake (Debian ships re2 with pkg-config only)

# tl::expected when installed; otherwise include/flowagent/expected.hpp maps to std::expected (C++23).
find_package(tl-expected CONFIG QUIET)
if(tl-expected_FOUND)
  set(FLOWAGENT_EXPECTED_IMPL tl)
else()
  set(FLOWAGENT_EXPECTED_IMPL std)
endif()
message(STATUS "flowagent: Expected<T> is ${FLOWAGENT_EXPECTED_IMPL}::expected")
