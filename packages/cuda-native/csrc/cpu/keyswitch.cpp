#include "cpu/keyswitch.h"

#include "common/acc128.h"
#include "common/galois_index.h"
#include "common/keyswitch_checks.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {

void keyswitch_inner_product(const uint64_t* digits, std::size_t num_digits, std::size_t limbs,
                             const uint64_t* keys, const uint32_t* limb_to_prime,
                             const Modulus* moduli, std::size_t num_primes, uint32_t log_n,
                             uint64_t galois_elt, bool accumulate, uint64_t* out) {
  const LimbMap map = check_keyswitch("cpu::keyswitch_inner_product", digits, num_digits, limbs,
                                      keys, limb_to_prime, moduli, num_primes, log_n, galois_elt, out);
  const std::size_t n = std::size_t{1} << log_n;
  // Blocked over coefficients (n >= 2^kMinLogN is a multiple of kBlock, so every block is full and
  // aligned) so that each digit's and key's rows stream through the cache in chunks while the
  // accumulators stay in L1. With an automorphism, the sources of an aligned block of outputs are
  // a permutation of one aligned block of the digits (true of every NTT-domain automorphism): that
  // block is copied in order into `chunk` and the gather reads it from L1. The source positions
  // of a block are computed once for every limb and digit. Threads take whole blocks (each block
  // writes its own coefficients of every limb), so the partition does not change any result.
  constexpr std::size_t kBlock = 256;
  static_assert((std::size_t{1} << kMinLogN) % kBlock == 0, "every block must be full");
  const bool permuted = galois_elt != 1;
  const std::size_t work = 8 * num_digits * limbs * kBlock;  // two 128-bit multiply-adds per digit, limb and word
  parallel_for(n / kBlock, grain_for(work), [&](std::size_t first, std::size_t last) {
    Acc128 acc0[kBlock], acc1[kBlock];
    uint32_t source[kBlock];
    uint64_t chunk[kBlock];
    for (std::size_t k0 = first * kBlock; k0 < last * kBlock; k0 += kBlock) {
      std::size_t base = k0;
      if (permuted) {
        base = automorphism_ntt_source(static_cast<uint32_t>(k0), log_n, galois_elt) / kBlock * kBlock;
        for (std::size_t k = 0; k < kBlock; ++k) {
          source[k] = automorphism_ntt_source(static_cast<uint32_t>(k0 + k), log_n, galois_elt) -
                      static_cast<uint32_t>(base);
        }
      }
      for (std::size_t l = 0; l < limbs; ++l) {
        const uint32_t p = map.prime[l];
        const Modulus m = moduli[p];
        // With (num_digits + 1) * q <= 2^64 the sums (and out's residue) stay below 2^64 * q: no
        // folding, one reduction.
        const bool single = fits_single_reduction(num_digits + (accumulate ? 1 : 0), m.value);
        uint64_t* out0 = out + l * n + k0;
        uint64_t* out1 = out + (limbs + l) * n + k0;
        for (std::size_t k = 0; k < kBlock; ++k) {
          acc0[k] = Acc128{accumulate ? out0[k] : 0, 0};
          acc1[k] = Acc128{accumulate ? out1[k] : 0, 0};
        }
        uint32_t terms = 0;
        for (std::size_t j = 0; j < num_digits; ++j) {
          const uint64_t* d = digits + (j * limbs + l) * n + base;
          const uint64_t* key0 = keys + (j * 2 * num_primes + p) * n + k0;
          const uint64_t* key1 = key0 + num_primes * n;
          if (permuted) {
            for (std::size_t k = 0; k < kBlock; ++k) chunk[k] = d[k];
            for (std::size_t k = 0; k < kBlock; ++k) {
              const uint64_t dk = chunk[source[k]];
              acc_mul_add(acc0[k], dk, key0[k]);
              acc_mul_add(acc1[k], dk, key1[k]);
            }
          } else {
            for (std::size_t k = 0; k < kBlock; ++k) {
              acc_mul_add(acc0[k], d[k], key0[k]);
              acc_mul_add(acc1[k], d[k], key1[k]);
            }
          }
          if (!single && ++terms == kFoldTerms) {
            for (std::size_t k = 0; k < kBlock; ++k) {
              acc0[k] = Acc128{acc_reduce(acc0[k], m), 0};
              acc1[k] = Acc128{acc_reduce(acc1[k], m), 0};
            }
            terms = 0;
          }
        }
        if (single) {
          for (std::size_t k = 0; k < kBlock; ++k) {
            out0[k] = acc_reduce_small(acc0[k], m);
            out1[k] = acc_reduce_small(acc1[k], m);
          }
        } else {
          for (std::size_t k = 0; k < kBlock; ++k) {
            out0[k] = acc_reduce(acc0[k], m);
            out1[k] = acc_reduce(acc1[k], m);
          }
        }
      }
    }
  });
}

}  // namespace fhelium::cpu
