// Harvey's lazy NTT butterflies, shared by the CPU and CUDA transforms so both run the same
// integer operations. Requires q < 2^62 (so 4q fits in a word).
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

// Cooley-Tukey (forward) butterfly: inputs in [0, 4q), outputs in [0, 4q).
// (x, y) -> (x + w*y, x - w*y)
FHELIUM_HD void ct_butterfly_lazy(uint64_t& x, uint64_t& y, uint64_t w, uint64_t w_shoup,
                                  uint64_t q) {
  const uint64_t two_q = 2 * q;
  uint64_t u = x >= two_q ? x - two_q : x;               // [0, 2q)
  const uint64_t v = mul_mod_shoup_lazy(y, w, w_shoup, q);  // [0, 2q)
  x = u + v;
  y = u + two_q - v;
}

// Gentleman-Sande (inverse) butterfly: inputs in [0, 2q), outputs in [0, 2q).
// (x, y) -> (x + y, (x - y) * w)
FHELIUM_HD void gs_butterfly_lazy(uint64_t& x, uint64_t& y, uint64_t w, uint64_t w_shoup,
                                  uint64_t q) {
  const uint64_t two_q = 2 * q;
  const uint64_t s = x + y;
  const uint64_t d = x + two_q - y;
  x = s >= two_q ? s - two_q : s;
  y = mul_mod_shoup_lazy(d, w, w_shoup, q);
}

// The last inverse stage with N^{-1} folded in: inputs in [0, 2q), outputs fully reduced.
// (x, y) -> ((x + y) * n_inv, (x - y) * w * n_inv); w_n_inv = w * n_inv mod q.
FHELIUM_HD void gs_butterfly_last(uint64_t& x, uint64_t& y, uint64_t n_inv, uint64_t n_inv_shoup,
                                  uint64_t w_n_inv, uint64_t w_n_inv_shoup, uint64_t q) {
  const uint64_t s = x + y;                // < 4q
  const uint64_t d = x + 2 * q - y;        // < 4q
  x = mul_mod_shoup(s, n_inv, n_inv_shoup, q);
  y = mul_mod_shoup(d, w_n_inv, w_n_inv_shoup, q);
}

// Reduces a value in [0, 4q) to [0, q).
FHELIUM_HD uint64_t reduce_from_4q(uint64_t x, uint64_t q) {
  const uint64_t two_q = 2 * q;
  x = x >= two_q ? x - two_q : x;
  return x >= q ? x - q : x;
}

}  // namespace fhelium
