// Which compute capabilities a CUDA architecture list runs on (common/cuda_architectures.h): the
// SASS, PTX, arch-specific and family-specific rules, CMake's spellings and lists, and the words
// the availability message uses.
#include <string>

#include "common/cuda_architectures.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

std::string support_name(const CudaArchitectureSupport& s) {
  if (!s.known) return "unknown";
  return s.supported ? "supported" : "unsupported";
}

void expect_support(Counter& c, const char* list, int major, int minor, const char* expected) {
  const std::string found = support_name(cuda_architectures_support(list, major, minor));
  c.check(found == expected, std::string("'") + list + "' on " + std::to_string(major) + "." + std::to_string(minor) +
                                 ": expected " + expected + ", found " + found);
}

void expect_words(Counter& c, const char* list, const std::string& expected) {
  const std::string found = describe_cuda_architectures(list);
  c.check(found == expected, std::string("describe '") + list + "': expected '" + expected + "', found '" + found + "'");
}

}  // namespace

void run_cuda_architectures_tests(Counter& c) {
  // The addon's own list: sm_90 SASS plus compute_90 PTX, so Hopper and everything later (by JIT).
  expect_support(c, "90", 9, 0, "supported");
  expect_support(c, "90", 10, 0, "supported");
  expect_support(c, "90", 12, 0, "supported");
  expect_support(c, "90", 8, 0, "unsupported");
  expect_support(c, "90", 8, 9, "unsupported");
  expect_support(c, "90", 7, 5, "unsupported");

  // SASS only: the same major version, from its minor up.
  expect_support(c, "86-real", 8, 6, "supported");
  expect_support(c, "86-real", 8, 9, "supported");
  expect_support(c, "86-real", 8, 0, "unsupported");
  expect_support(c, "86-real", 9, 0, "unsupported");
  // PTX only: any later device.
  expect_support(c, "80-virtual", 8, 0, "supported");
  expect_support(c, "80-virtual", 12, 0, "supported");
  expect_support(c, "80-virtual", 7, 5, "unsupported");
  // Arch-specific: exactly that compute capability, SASS or PTX.
  expect_support(c, "90a", 9, 0, "supported");
  expect_support(c, "90a", 10, 0, "unsupported");
  expect_support(c, "90a-virtual", 10, 0, "unsupported");
  expect_support(c, "100a-real", 10, 0, "supported");
  expect_support(c, "100a-real", 10, 3, "unsupported");
  // Family-specific: the same major version from its minor up.
  expect_support(c, "100f", 10, 3, "supported");
  expect_support(c, "100f", 12, 0, "unsupported");
  expect_support(c, "100f-virtual", 9, 0, "unsupported");

  // Lists: any entry that runs is enough; ',' (as passed to the compiler) or ';' (CMake's).
  expect_support(c, "80-real,90", 8, 0, "supported");
  expect_support(c, "80-real;90", 8, 6, "supported");
  expect_support(c, "80-real;90", 8, 9, "supported");
  expect_support(c, "86-real,90-real", 10, 0, "unsupported");
  expect_support(c, ",90,", 9, 0, "supported");

  // What cannot be read refuses nothing.
  expect_support(c, "native", 8, 0, "unknown");
  expect_support(c, "all-major", 7, 5, "unknown");
  expect_support(c, "90,native", 8, 0, "unknown");
  expect_support(c, "", 9, 0, "unknown");
  expect_support(c, "9", 9, 0, "unknown");
  expect_support(c, "1000", 9, 0, "unknown");
  expect_support(c, "09", 9, 0, "unknown");
  expect_support(c, "90-realx", 9, 0, "unknown");
  expect_support(c, "-real", 9, 0, "unknown");
  expect_support(c, "90b", 9, 0, "unknown");

  expect_words(c, "90", "compute capability 9.0 and newer");
  expect_words(c, "90-real", "compute capability 9.0 to 9.x");
  expect_words(c, "90a", "compute capability exactly 9.0");
  expect_words(c, "100f", "compute capability 10.0 to 10.x");
  expect_words(c, "80-real;90", "compute capability 8.0 to 8.x or 9.0 and newer");
  expect_words(c, "90-real,90-virtual", "compute capability 9.0 to 9.x or 9.0 and newer");
  expect_words(c, "90,90", "compute capability 9.0 and newer");
  expect_words(c, "native", "");
  expect_words(c, "", "");
}

}  // namespace fhelium::test
