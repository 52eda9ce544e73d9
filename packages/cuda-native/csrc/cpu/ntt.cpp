#include "cpu/ntt.h"

#include <cstring>

#include "common/ntt_butterfly.h"
#include "common/ntt_checks.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {
namespace {

// In-place forward transform of one limb (Cooley-Tukey, bit-reversed output). Stages run in
// pairs (radix 4: two stages per pass over the data, half the loads and stores); the last stage
// also does the final reduction to [0, q).
void forward_limb(uint64_t* a, uint32_t log_n, const uint64_t* tw, uint64_t q) {
  const std::size_t n = std::size_t{1} << log_n;
  std::size_t m = 1;
  std::size_t t = n >> 1;  // half-size of the blocks of stage m
  // Two stages (m and 2m) at once while at least two remain before the last stage.
  for (; t >= 4; m <<= 2, t >>= 2) {
    const std::size_t h = t >> 1;  // half-size at stage 2m
    for (std::size_t i = 0; i < m; ++i) {
      const uint64_t w = tw[2 * (m + i)], ws = tw[2 * (m + i) + 1];
      const uint64_t w0 = tw[2 * (2 * m + 2 * i)], ws0 = tw[2 * (2 * m + 2 * i) + 1];
      const uint64_t w1 = tw[2 * (2 * m + 2 * i + 1)], ws1 = tw[2 * (2 * m + 2 * i + 1) + 1];
      uint64_t* x0 = a + 2 * i * t;
      uint64_t* x1 = x0 + h;
      uint64_t* x2 = x0 + t;
      uint64_t* x3 = x2 + h;
      for (std::size_t j = 0; j < h; ++j) {
        uint64_t v0 = x0[j], v1 = x1[j], v2 = x2[j], v3 = x3[j];
        ct_butterfly_lazy(v0, v2, w, ws, q);
        ct_butterfly_lazy(v1, v3, w, ws, q);
        ct_butterfly_lazy(v0, v1, w0, ws0, q);
        ct_butterfly_lazy(v2, v3, w1, ws1, q);
        x0[j] = v0;
        x1[j] = v1;
        x2[j] = v2;
        x3[j] = v3;
      }
    }
  }
  // One or two stages remain (t = 2 or t = 1).
  if (t == 2) {
    for (std::size_t i = 0; i < m; ++i) {
      const uint64_t w = tw[2 * (m + i)], ws = tw[2 * (m + i) + 1];
      uint64_t* x = a + 4 * i;
      ct_butterfly_lazy(x[0], x[2], w, ws, q);
      ct_butterfly_lazy(x[1], x[3], w, ws, q);
    }
    m <<= 1;
  }
  for (std::size_t i = 0; i < m; ++i) {
    const uint64_t w = tw[2 * (m + i)], ws = tw[2 * (m + i) + 1];
    uint64_t* x = a + 2 * i;
    ct_butterfly_lazy(x[0], x[1], w, ws, q);
    x[0] = reduce_from_4q(x[0], q);
    x[1] = reduce_from_4q(x[1], q);
  }
}

// In-place inverse transform of one limb (Gentleman-Sande, bit-reversed input). Stages run in
// pairs (radix 4) except the last, which folds in N^{-1}.
void inverse_limb(uint64_t* a, uint32_t log_n, const uint64_t* tw, const uint64_t* scalars,
                  uint64_t q) {
  const std::size_t n = std::size_t{1} << log_n;
  std::size_t t = 1;       // half-size of the blocks of stage m
  std::size_t m = n >> 1;  // number of blocks
  for (; m >= 4; m >>= 2, t <<= 2) {
    // Stage m (pairs at distance t) then stage m/2 (pairs at distance 2t) on groups of 4t.
    for (std::size_t g = 0; g < (m >> 1); ++g) {
      const uint64_t wa = tw[2 * (m + 2 * g)], wsa = tw[2 * (m + 2 * g) + 1];
      const uint64_t wb = tw[2 * (m + 2 * g + 1)], wsb = tw[2 * (m + 2 * g + 1) + 1];
      const uint64_t w = tw[2 * ((m >> 1) + g)], ws = tw[2 * ((m >> 1) + g) + 1];
      uint64_t* x0 = a + 4 * g * t;
      uint64_t* x1 = x0 + t;
      uint64_t* x2 = x0 + 2 * t;
      uint64_t* x3 = x0 + 3 * t;
      for (std::size_t j = 0; j < t; ++j) {
        uint64_t v0 = x0[j], v1 = x1[j], v2 = x2[j], v3 = x3[j];
        gs_butterfly_lazy(v0, v1, wa, wsa, q);
        gs_butterfly_lazy(v2, v3, wb, wsb, q);
        gs_butterfly_lazy(v0, v2, w, ws, q);
        gs_butterfly_lazy(v1, v3, w, ws, q);
        x0[j] = v0;
        x1[j] = v1;
        x2[j] = v2;
        x3[j] = v3;
      }
    }
  }
  if (m == 2) {
    for (std::size_t i = 0; i < 2; ++i) {
      const uint64_t w = tw[2 * (2 + i)], ws = tw[2 * (2 + i) + 1];
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
         const uint32_t* limb_to_prime, const NttTablesView& t, NttDigitSkip skip, const char* where) {
  const LimbMap map = check_ntt_arguments(where, in, in_batch_stride, out, out_batch_stride, batch,
                                          limbs, limb_to_prime, t);
  check_ntt_digit_skip(where, skip, in, in_batch_stride, out, out_batch_stride, batch, limbs);
  const std::size_t n = std::size_t{1} << t.log_n;
  // Limbs are independent transforms: threads take whole limbs of the batch x limbs grid. A
  // butterfly costs about 4 word operations, a limb log_n / 2 butterflies per word.
  parallel_for(batch * limbs, grain_for(2 * n * t.log_n), [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t b = i / limbs, l = i % limbs;
      if (skip.skips(b, static_cast<uint32_t>(l))) continue;
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
  });
}

}  // namespace

void ntt_forward(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables, NttDigitSkip skip) {
  run<true>(in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables, skip,
            "cpu::ntt_forward");
}

void ntt_inverse(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                 std::size_t out_batch_stride, std::size_t batch, std::size_t limbs,
                 const uint32_t* limb_to_prime, const NttTablesView& tables) {
  run<false>(in, in_batch_stride, out, out_batch_stride, batch, limbs, limb_to_prime, tables,
             NttDigitSkip{}, "cpu::ntt_inverse");
}

}  // namespace fhelium::cpu
