#include "cpu/keyswitch.h"

#include "common/acc128.h"
#include "common/keyswitch_checks.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t* out) {
  const LimbMap map = check_keyswitch("cpu::keyswitch_inner_product", digits, num_digits, limbs,
                                      keys, limb_to_prime, moduli, num_primes, log_n, out);
  const std::size_t n = std::size_t{1} << log_n;
  // Blocked over coefficients so that each digit's and key's rows stream through the cache
  // contiguously while the accumulators stay in L1. Threads take (limb, block) pairs.
  constexpr std::size_t kBlock = 256;
  const std::size_t blocks = (n + kBlock - 1) / kBlock;
  const std::size_t work = 8 * num_digits * kBlock;  // two 128-bit multiply-adds per digit and word
  parallel_for(limbs * blocks, grain_for(work), [&](std::size_t begin, std::size_t end) {
    Acc128 acc0[kBlock], acc1[kBlock];
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t l = i / blocks, k0 = (i % blocks) * kBlock;
      const uint32_t p = map.prime[l];
      const Modulus m = moduli[p];
      const std::size_t len = n - k0 < kBlock ? n - k0 : kBlock;
      for (std::size_t k = 0; k < len; ++k) acc0[k] = acc1[k] = Acc128{0, 0};
      // With num_digits * q <= 2^64 the sums stay below 2^64 * q: no folding, one reduction.
      const bool single = fits_single_reduction(num_digits, m.value);
      uint32_t terms = 0;
      for (std::size_t j = 0; j < num_digits; ++j) {
        const uint64_t* d = digits + (j * limbs + l) * n + k0;
        const uint64_t* key0 = keys + (j * 2 * num_primes + p) * n + k0;
        const uint64_t* key1 = key0 + num_primes * n;
        for (std::size_t k = 0; k < len; ++k) {
          acc_mul_add(acc0[k], d[k], key0[k]);
          acc_mul_add(acc1[k], d[k], key1[k]);
        }
        if (!single && ++terms == kFoldTerms) {
          for (std::size_t k = 0; k < len; ++k) {
            acc0[k] = Acc128{acc_reduce(acc0[k], m), 0};
            acc1[k] = Acc128{acc_reduce(acc1[k], m), 0};
          }
          terms = 0;
        }
      }
      uint64_t* out0 = out + l * n + k0;
      uint64_t* out1 = out + (limbs + l) * n + k0;
      if (single) {
        for (std::size_t k = 0; k < len; ++k) {
          out0[k] = acc_reduce_small(acc0[k], m);
          out1[k] = acc_reduce_small(acc1[k], m);
        }
      } else {
        for (std::size_t k = 0; k < len; ++k) {
          out0[k] = acc_reduce(acc0[k], m);
          out1[k] = acc_reduce(acc1[k], m);
        }
      }
    }
  });
}

}  // namespace fhelium::cpu
