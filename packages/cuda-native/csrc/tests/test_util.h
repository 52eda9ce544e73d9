// Minimal test harness for the kernel families: counted checks, deterministic random data and
// small helpers shared by the test files.
#pragma once

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/modarith.h"

namespace fhelium::test {

struct Counter {
  const char* suite;
  long passed = 0;
  long failed = 0;
  void check(bool ok, const std::string& what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      if (failed <= 20) std::printf("  FAIL [%s] %s\n", suite, what.c_str());
    }
  }
};

inline std::mt19937_64& rng() {
  static std::mt19937_64 engine(0x5eed1234abcdULL);
  return engine;
}

inline uint64_t random_below(uint64_t q) { return std::uniform_int_distribution<uint64_t>(0, q - 1)(rng()); }

// Finds `count` distinct primes q = 1 mod 2^(log_n+1) just below 2^bits, descending.
std::vector<uint64_t> ntt_primes(uint32_t bits, uint32_t log_n, std::size_t count,
                                 const std::vector<uint64_t>& exclude = {});

// Fills limb l of every batch element with values below primes[map[l]].
void fill_random(std::vector<uint64_t>& data, std::size_t batch, std::size_t limbs,
                 std::size_t n, const std::vector<uint64_t>& primes, const uint32_t* map);

// True when f() throws Error(Argument); any other Error propagates.
template <typename F>
bool throws_argument_error(F f) {
  try {
    f();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Argument) throw;
    return true;
  }
  return false;
}

}  // namespace fhelium::test
