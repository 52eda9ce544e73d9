// Runs every CPU test suite and prints the counts; exit status 1 when any check failed. The
// reference suites run with the default thread count (FHELIUM_CPU_THREADS or the hardware's);
// the parallel suites set their own.
#include <cstdio>
#include <exception>

#include "cpu/parallel.h"
#include "tests/test_util.h"

namespace fhelium::test {
void run_ntt_tests(Counter& c);
void run_ntt_tile_emulation_tests(Counter& c);
void run_automorphism_tests(Counter& c);
void run_basis_conversion_tests(Counter& c);
void run_rescale_tests(Counter& c);
void run_keyswitch_tests(Counter& c);
void run_sampling_tests(Counter& c);
void run_mul_accumulate_tests(Counter& c);
void run_parallel_tests(Counter& c);
void run_parallel_kernel_tests(Counter& c);
void run_mod_down_rescale_tests(Counter& c);
void run_cuda_architectures_tests(Counter& c);
}  // namespace fhelium::test

int main() {
  using fhelium::test::Counter;
  try {
    std::printf("cpu threads %zu\n", fhelium::cpu::thread_count());
  } catch (const std::exception& e) {  // a bad FHELIUM_CPU_THREADS
    std::printf("FAIL %s\n", e.what());
    return 1;
  }
  Counter suites[] = {{"ntt"},          {"ntt-cuda-tiling-emulation"}, {"automorphism"},
                      {"basis_conversion"}, {"rescale"},                  {"keyswitch"},
                      {"sampling"},          {"mul_accumulate"},            {"parallel"},
                      {"parallel-kernels"},  {"mod_down_rescale"},            {"cuda_architectures"}};
  fhelium::test::run_ntt_tests(suites[0]);
  fhelium::test::run_ntt_tile_emulation_tests(suites[1]);
  fhelium::test::run_automorphism_tests(suites[2]);
  fhelium::test::run_basis_conversion_tests(suites[3]);
  fhelium::test::run_rescale_tests(suites[4]);
  fhelium::test::run_keyswitch_tests(suites[5]);
  fhelium::test::run_sampling_tests(suites[6]);
  fhelium::test::run_mul_accumulate_tests(suites[7]);
  fhelium::test::run_parallel_tests(suites[8]);
  fhelium::test::run_parallel_kernel_tests(suites[9]);
  fhelium::test::run_mod_down_rescale_tests(suites[10]);
  fhelium::test::run_cuda_architectures_tests(suites[11]);
  long failed = 0, passed = 0;
  for (const auto& s : suites) {
    std::printf("%-32s %6ld passed %4ld failed\n", s.suite, s.passed, s.failed);
    failed += s.failed;
    passed += s.passed;
  }
  std::printf("TOTAL %ld passed, %ld failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
