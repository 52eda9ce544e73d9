#include "cpu/ntt.h"

#include <cstring>

#include "common/ntt_butterfly.h"
#include "common/ntt_checks.h"

namespace fhelium::cpu {
namespace {

// In-place forward transform of one limb (Cooley-Tukey, bit-reversed output).
void forward_limb(uint64_t* a, uint32_t log_n, const uint64_t* tw, uint64_t q) {
  const std::size_t n = std::size_t{1} << log_n;
  std::size_t t = n;
  for (std::size_t m = 1; m < n; m <<= 1) {
    t >>= 1;
    for (std::size_t i = 0; i < m; ++i) {
      const uint64_t w = tw[2 * (m + i)];
      const uint64_t ws = tw[2 * (m + i) + 1];
      uint64_t* x = a + 2 * i * t;
      uint64_t* y = x + t;
      for (std::size_t j = 0; j < t; ++j) ct_butterfly_lazy(x[j], y[j], w, ws, q);
    }
  }
  for (std::size_t j = 0; j < n; ++j) a[j] = reduce_from_4q(a[j], q);
}

// In-place inverse transform of one limb (Gentleman-Sande, bit-reversed input).
void inverse_limb(uint64_t* a, uint32_t log_n, const uint64_t* tw, const uint64_t* scalars,
                  uint64_t q) {
  const std::size_t n = std::size_t{1} << log_n;
  std::size_t t = 1;
  for (std::size_t m = n >> 1; m > 1; m >>= 1) {
    for (std::size_t i = 0; i < m; ++i) {
      const uint64_t w = tw[2 * (m + i)];
      const uint64_t ws = tw[2 * (m + i) + 1];
      uint64_t* x = a + 2 * i * t;
      uint64_t* y = x + t;
      for (std::size_t j = 0; j < t; ++j) gs_butterfly_lazy(x[j], y[j], w, ws, q);
    }
    t <<= 1;
  }
  uint64_t* x = a;
  uint64_t* y = a + t;
  for (std::size_t j = 0; j < t; ++j) {
    gs_butterfly_last(x[j], y[j], scalars[0], scalars[1], scalars[2], scalars[3], q);
  }
}

template <bool kForward>
void run(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
         std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
         const uint32_t* limb_to_prime, const NttTablesView& t, const char* where) {
  const LimbMap map = check_ntt_arguments(where, in, in_batch_stride, out, out_batch_stride, batch,
                                          limbs, limb_to_prime, t);
  const std::size_t n = std::size_t{1} << t.log_n;
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t l = 0; l < limbs; ++l) {
      const uint32_t p = map.prime[l];
      const uint64_t* src = in + b * in_batch_stride + l * n;
      uint64_t* dst = out + b * out_batch_stride + l * n;
      if (src != dst) std::memcpy(dst, src, n * sizeof(uint64_t));
      const uint64_t q = t.moduli[p].value;
      if (kForward) {
        forward_limb(dst, t.log_n, t.forward + 2 * n * p, q);
      } else {
        inverse_limb(dst, t.log_n, t.inverse + 2 * n * p, t.scalars + 4 * p, q);
      }
    }
  }
}

}  // namespace

void ntt_forward(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables) {
  run<true>(in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables,
            "cpu::ntt_forward");
}

void ntt_inverse(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables) {
  run<false>(in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables,
             "cpu::ntt_inverse");
}

}  // namespace fhelium::cpu
