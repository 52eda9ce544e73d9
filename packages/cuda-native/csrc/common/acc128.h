// A 128-bit multiply-accumulator for lazy reduction, one implementation for the CPU and CUDA
// kernels, so that both compute the same exact sums.
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

struct Acc128 {
  uint64_t lo;
  uint64_t hi;
};

// acc += a * b. The caller bounds the number of terms so that acc stays below 2^128.
// The product and the sum are one `unsigned __int128` expression. On the device the compiler then
// forms the 128-bit product from four 32-bit partial products shared by both halves, where a
// separate 64-bit low product and __umul64hi compute some of them twice. On the H200 that made
// the basis conversions of n16-l23 about 20% faster (ModUp 87 -> 70 us, ModDown's 57 -> 45 us as
// graph nodes; reports/gpu/2026-12-04T1413-*).
FHELIUM_HD void acc_mul_add(Acc128& acc, uint64_t a, uint64_t b) {
  const unsigned __int128 sum =
      ((static_cast<unsigned __int128>(acc.hi) << 64) | acc.lo) + static_cast<unsigned __int128>(a) * b;
  acc.lo = static_cast<uint64_t>(sum);
  acc.hi = static_cast<uint64_t>(sum >> 64);
}

// acc mod m for any 128-bit acc: reduces the high word first so reduce128's hi < q holds.
FHELIUM_HD uint64_t acc_reduce(const Acc128& acc, const Modulus& m) {
  return reduce128(reduce64(acc.hi, m), acc.lo, m);
}

// acc mod m when acc.hi < m.value is known (e.g. a sum of products bounded by 2^64 * q).
FHELIUM_HD uint64_t acc_reduce_small(const Acc128& acc, const Modulus& m) {
  return reduce128(acc.hi, acc.lo, m);
}

// True when a sum of `terms` products of values below q stays below 2^64 * q, i.e. when
// terms * q <= 2^64: such a sum needs no folding and a single acc_reduce_small.
FHELIUM_HD bool fits_single_reduction(uint64_t terms, uint64_t q) {
  return terms <= ~uint64_t{0} / q;
}

// Products of two values below 2^62 are below 2^124, so a residue (< 2^62) plus this many
// products stays below 2^128. Accumulating kernels fold (reduce) after every kFoldTerms products.
constexpr uint32_t kFoldTerms = 15;

}  // namespace fhelium
