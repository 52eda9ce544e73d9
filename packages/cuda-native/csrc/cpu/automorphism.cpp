#include "cpu/automorphism.h"

#include "common/automorphism_checks.h"
#include "common/galois_index.h"
#include "common/number_theory.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {

void automorphism_ntt(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, uint64_t galois_elt) {
  check_automorphism_buffers("cpu::automorphism_ntt", in, out, batch, limbs, log_n, galois_elt);
  // Kernels allocate nothing: source indices are computed for a block of outputs into a small
  // stack array and applied to every limb, one limb at a time. Threads take blocks of outputs.
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t polys = batch * limbs;
  constexpr uint32_t kBlock = 1024;
  parallel_for(n / kBlock, grain_for(2 * kBlock * (polys + 1)), [&](std::size_t begin, std::size_t end) {
    uint32_t source[kBlock];
    for (std::size_t blk = begin; blk < end; ++blk) {
      const uint32_t i0 = static_cast<uint32_t>(blk * kBlock);
      for (uint32_t i = 0; i < kBlock; ++i) source[i] = automorphism_ntt_source(i0 + i, log_n, galois_elt);
      for (std::size_t p = 0; p < polys; ++p) {
        const uint64_t* src = in + p * n;
        uint64_t* dst = out + p * n + i0;
        for (uint32_t i = 0; i < kBlock; ++i) dst[i] = src[source[i]];
      }
    }
  });
}

void automorphism_coeff(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, uint64_t galois_elt, const uint32_t* limb_to_prime,
                        const Modulus* moduli, std::size_t num_primes) {
  const char* where = "cpu::automorphism_coeff";
  check_automorphism_buffers(where, in, out, batch, limbs, log_n, galois_elt);
  require_argument(moduli != nullptr, where, "a moduli array", "null");
  const LimbMap map = make_limb_map(where, limb_to_prime, limbs, num_primes);
  const uint64_t galois_inv = host_inv_mod(galois_elt, uint64_t{2} << log_n);
  // Threads take whole rows (limbs of batch elements). n and the inverse are locals of each
  // range: captured ones could alias the uint64 outputs and would be reloaded after every store.
  parallel_for(batch * limbs, grain_for(std::size_t{4} << log_n), [&](std::size_t begin, std::size_t end) {
    const std::size_t n = std::size_t{1} << log_n;
    const uint64_t g_inv = galois_inv;
    for (std::size_t r = begin; r < end; ++r) {
      const uint64_t q = moduli[map.prime[r % limbs]].value;
      const uint64_t* src = in + r * n;
      uint64_t* dst = out + r * n;
      for (uint32_t k = 0; k < n; ++k) {
        const uint64_t s = automorphism_coeff_source(k, log_n, g_inv);
        dst[k] = s < n ? src[s] : neg_mod(src[s - n], q);
      }
    }
  });
}

}  // namespace fhelium::cpu
