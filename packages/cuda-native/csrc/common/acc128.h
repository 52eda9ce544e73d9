// A 128-bit multiply-accumulator for lazy reduction, identical on the CPU and the GPU (two words
// with explicit carries, so both backends run the same integer operations).
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

struct Acc128 {
  uint64_t lo;
  uint64_t hi;
};

// acc += a * b. The caller bounds the number of terms so that acc stays below 2^128.
FHELIUM_HD void acc_mul_add(Acc128& acc, uint64_t a, uint64_t b) {
  const uint64_t plo = a * b;
  const uint64_t phi = mulhi64(a, b);
  const uint64_t lo = acc.lo + plo;
  acc.hi += phi + (lo < plo ? 1u : 0u);
  acc.lo = lo;
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
