#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "support/test_support.hpp"
#include "workspace/sandbox_fs.hpp"

namespace {
namespace FLOWAGENT_TEST_FILE_ID {  // (file-local: unity batches, tests/CMakeLists.txt)
using namespace flowagent;
using flowagent::detail::SandboxFs;
namespace fs = std::filesystem;

class SandboxFsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path() / "ws";
    outside = tmp.path() / "outside";
    fs::create_directories(root / "src");
    fs::create_directories(outside);
    testkit::write_file(root / "src/a.txt", "alpha\n");
    testkit::write_file(outside / "secret.txt", "secret\n");
    auto s = SandboxFs::open(root);
    ASSERT_TRUE(s);
    sfs.emplace(std::move(*s));
  }
  testkit::TempDir tmp;
  fs::path root, outside;
  std::optional<SandboxFs> sfs;
};

TEST_F(SandboxFsTest, ReadsAndWritesInside) {
  EXPECT_EQ(*sfs->read("src/a.txt", 100), "alpha\n");
  EXPECT_EQ(*sfs->read("./src//a.txt", 100), "alpha\n");
  ASSERT_TRUE(sfs->write("new/deep/b.txt", "beta"));
  EXPECT_EQ(testkit::read_file(root / "new/deep/b.txt"), "beta");
  ASSERT_TRUE(sfs->remove("new/deep/b.txt"));
  EXPECT_FALSE(fs::exists(root / "new/deep/b.txt"));
}

TEST_F(SandboxFsTest, RefusesEscapes) {
  for (const char* bad : {"/etc/passwd", "../outside/secret.txt", "src/../../outside/secret.txt", "..", ""}) {
    auto r = sfs->read(bad, 100);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Errc::sandbox) << bad << ": " << r.error().message;
  }
  EXPECT_EQ(sfs->read(std::string("src/a.txt\0x", 11), 100).error().code, Errc::sandbox);
  EXPECT_EQ(sfs->write("../escape.txt", "x").error().code, Errc::sandbox);
  EXPECT_FALSE(fs::exists(tmp.path() / "escape.txt"));
}

TEST_F(SandboxFsTest, SymlinksLeadingOutsideAreRefused) {
  fs::create_symlink(outside / "secret.txt", root / "abs_link");
  fs::create_symlink("../outside/secret.txt", root / "rel_link");
  fs::create_directory_symlink(outside, root / "dir_link");
  fs::create_directory_symlink("../../outside", root / "src/up_link");
  for (const char* bad : {"abs_link", "rel_link", "dir_link/secret.txt", "src/up_link/secret.txt"}) {
    auto r = sfs->read(bad, 100);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, Errc::sandbox) << bad << ": " << r.error().message;
  }
  // Writing through a symlinked parent folder must not create anything outside.
  EXPECT_FALSE(sfs->write("dir_link/planted.txt", "x"));
  EXPECT_FALSE(fs::exists(outside / "planted.txt"));
  // Writing to a symlink itself is refused (it would otherwise follow or replace it).
  EXPECT_EQ(sfs->write("abs_link", "x").error().code, Errc::sandbox);
  EXPECT_EQ(testkit::read_file(outside / "secret.txt"), "secret\n");
}

TEST_F(SandboxFsTest, SymlinksInsideAreFollowed) {
  fs::create_symlink("src/a.txt", root / "inside_link");
  fs::create_directory_symlink("src", root / "src_link");
  EXPECT_EQ(*sfs->read("inside_link", 100), "alpha\n");
  EXPECT_EQ(*sfs->read("src_link/a.txt", 100), "alpha\n");
  fs::create_symlink("loop2", root / "loop1");
  fs::create_symlink("loop1", root / "loop2");
  EXPECT_EQ(sfs->read("loop1", 100).error().code, Errc::sandbox);
}

TEST_F(SandboxFsTest, SpecialFilesAndSizeCaps) {
  ASSERT_EQ(::mkfifo((root / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(sfs->read("fifo", 100).error().code, Errc::sandbox);  // never blocks on a FIFO
  EXPECT_EQ(sfs->write("fifo", "x").error().code, Errc::sandbox);
  EXPECT_EQ(sfs->read("src/a.txt", 3).error().code, Errc::invalid_argument);
  EXPECT_EQ(sfs->read("src", 100).error().code, Errc::invalid_argument);
  EXPECT_EQ(sfs->remove("src").error().code, Errc::invalid_argument);
}

TEST_F(SandboxFsTest, WriteKeepsModeAndIsAtomic) {
  testkit::write_file(root / "run.sh", "#!/bin/sh\n");
  fs::permissions(root / "run.sh", fs::perms::owner_all);
  ASSERT_TRUE(sfs->write("run.sh", "#!/bin/sh\necho hi\n"));
  EXPECT_EQ(fs::status(root / "run.sh").permissions() & fs::perms::owner_exec, fs::perms::owner_exec);
  for (auto& e : fs::directory_iterator(root))
    EXPECT_EQ(e.path().filename().string().find(".flowagent-tmp"), std::string::npos);
}

TEST_F(SandboxFsTest, SymlinkSwapAfterCheckCannotEscape) {
  // Swap a folder for a symlink to the outside while writes run; nothing may land outside.
  fs::create_directories(root / "swap");
  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    while (!stop) {
      std::error_code ec;
      fs::remove_all(root / "swap", ec);
      fs::create_directory_symlink(outside, root / "swap", ec);
      fs::remove(root / "swap", ec);
      fs::create_directories(root / "swap", ec);
    }
  });
  for (int i = 0; i < 300; ++i) (void)sfs->write("swap/f" + std::to_string(i % 5) + ".txt", "x");
  stop = true;
  swapper.join();
  for (auto& e : fs::directory_iterator(outside)) EXPECT_EQ(e.path().filename(), "secret.txt");
}

TEST(LooksBinary, DetectsNulAndInvalidUtf8) {
  EXPECT_TRUE(detail::looks_binary(std::string("a\0b", 3)));
  EXPECT_TRUE(detail::looks_binary("\xFF\xFE"));
  EXPECT_FALSE(detail::looks_binary("plain text \xE2\x82\xAC"));
}
}  // namespace FLOWAGENT_TEST_FILE_ID
}  // namespace
