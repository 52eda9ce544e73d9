// Host-built twiddle tables for the negacyclic NTT, one row per prime of the full basis.
//
// Convention (shared by the CPU and CUDA kernels):
// - psi_q is the MINIMAL primitive 2N-th root of unity mod q: the smallest value in [2, q) whose
//   multiplicative order is exactly 2N. It is unique, so the tables depend only on (log N, q).
//   It is found from the first g in 2, 3, ... for which x = g^((q-1)/2N) has order 2N; the
//   primitive 2N-th roots are then exactly x^k for odd k, and the smallest of those is taken.
// - forward[p][i] = (psi^{bitrev(i)}, shoup) for i in [0, N), bitrev over log N bits;
//   inverse[p][i] = (psi^{-bitrev(i)}, shoup). Both interleaved as (w, w_shoup) word pairs so a
//   kernel fetches one twiddle with one 16-byte load. Entry 0 is unused (it is 1).
// - scalars[p] = (N^{-1}, shoup, N^{-1} * psi^{-bitrev(1)}, shoup): the inverse transform folds
//   N^{-1} into its last stage.
// - forward_fp64[p][i] and inverse_fp64[p][i]: the same twiddles w as doubles (their bit patterns
//   in the words), for the CUDA transforms' double-precision butterflies (ntt_butterfly_fp64.h),
//   which need no Shoup constant: a block stages half the bytes, and converts nothing.
// - The forward transform maps coefficients a_0..a_{N-1} to the evaluations
//   a(psi^{2*bitrev(i)+1}) in position i (bit-reversed order); the inverse undoes it exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/modarith.h"

namespace fhelium {

// What the kernels receive: pointers into one flat block of words (host memory for the CPU
// kernels, device memory for the CUDA ones). Cheap to copy; owns nothing.
struct NttTablesView {
  uint32_t log_n;
  uint32_t num_primes;
  const Modulus* moduli;    // [num_primes]
  const uint64_t* forward;  // [num_primes][N][2]
  const uint64_t* inverse;  // [num_primes][N][2]
  const uint64_t* scalars;  // [num_primes][4]
  const uint64_t* forward_fp64;  // [num_primes][N]: bits of double(w)
  const uint64_t* inverse_fp64;  // [num_primes][N]
};

class NttTables {
 public:
  // Builds the tables for every prime, in order (row p is primes[p]). Throws Error(Argument)
  // when log_n is outside [1, 17], a prime is not prime, not below 2^62, or not 1 mod 2N.
  static NttTables build(uint32_t log_n, const std::vector<uint64_t>& primes);

  uint32_t log_n() const { return log_n_; }
  uint32_t num_primes() const { return num_primes_; }
  uint64_t psi(uint32_t prime) const { return psi_[prime]; }

  // The flat block to copy to wherever the kernels run: moduli (padded to an even word count) |
  // forward | inverse | scalars | forward_fp64 | inverse_fp64. The copy must start 16-byte aligned.
  const std::vector<uint64_t>& words() const { return words_; }

  // A view whose pointers address a copy of words() that starts at `base` (host or device).
  NttTablesView view(const uint64_t* base) const;
  // A view of this object's own host words.
  NttTablesView host_view() const { return view(words_.data()); }

 private:
  uint32_t log_n_ = 0;
  uint32_t num_primes_ = 0;
  std::vector<uint64_t> psi_;
  std::vector<uint64_t> words_;
};

// The minimal primitive 2N-th root of unity modulo the prime q (see the convention above).
// Throws Error(Argument) when q is not 1 mod 2N.
uint64_t minimal_primitive_root(uint64_t q, uint64_t two_n);

}  // namespace fhelium
