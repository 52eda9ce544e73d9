#include "tests/test_util.h"

#include <algorithm>

#include "common/number_theory.h"

namespace fhelium::test {

std::vector<uint64_t> ntt_primes(uint32_t bits, uint32_t log_n, std::size_t count,
                                 const std::vector<uint64_t>& exclude) {
  const uint64_t step = uint64_t{2} << log_n;
  std::vector<uint64_t> out;
  uint64_t candidate = ((uint64_t{1} << bits) / step) * step + 1;
  if (candidate >= (uint64_t{1} << bits)) candidate -= step;
  while (out.size() < count) {
    if (is_prime_u64(candidate) &&
        std::find(exclude.begin(), exclude.end(), candidate) == exclude.end()) {
      out.push_back(candidate);
    }
    candidate -= step;
  }
  return out;
}

void fill_random(std::vector<uint64_t>& data, std::size_t batch, std::size_t limbs,
                 std::size_t n, const std::vector<uint64_t>& primes, const uint32_t* map) {
  data.resize(batch * limbs * n);
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t l = 0; l < limbs; ++l)
      for (std::size_t i = 0; i < n; ++i)
        data[(b * limbs + l) * n + i] = random_below(primes[map[l]]);
}

}  // namespace fhelium::test
