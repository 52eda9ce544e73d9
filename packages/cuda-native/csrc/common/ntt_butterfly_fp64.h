// NTT butterflies in double precision, for moduli below 2^45 (every 40-bit scale prime of the
// benchmark sets). The CUDA transforms run these for such limbs instead of the integer Harvey
// butterflies of ntt_butterfly.h: on the H200 they ran at 2.2-2.5x the integer rate
// (tools/gpu/butterfly-probe.cu, reports/gpu/2026-12-06T0634-butterfly-probe), since the integer
// butterflies are bound by the 32-bit multiply pipe and these use the otherwise idle FP64 pipe.
//
// Every value is an integer held exactly in a double (|x| < 2^53), and every result, once reduced
// to [0, q) (fp64_to_word), equals the integer transform's word for word: the products below are
// exact, not approximations. Values are "signed lazy": x stands for x mod q, anywhere in
// (-2^50, 2^50), so sums need no correction.
//
// Bounds (q < 2^45 = kFp64ModulusBound, all operands integers):
// - mul_mod_fp64(y, w): |y| < 2^50, 0 <= w < q. hi = fl(y*w) and lo = y*w - hi (exact, by FMA,
//   |lo| <= ulp(hi)/2 <= |y|*w*2^-53); k = round(hi * fl(1/q)), within 3/4 of y*w/q since both
//   |lo|/q and the error of fl(1/q) contribute at most |y|*2^-53 <= 1/8; then hi - k*q (one FMA)
//   and + lo are integers below 2^53, so exact. Result r = y*w - k*q with |r| < q.
// - Forward (Cooley-Tukey) stages add |t| < q to each magnitude: from inputs below 4q, a
//   transform of 2^17 (17 stages) stays below 21q < 2^50.
// - Inverse (Gentleman-Sande) sums double each stage: a caller reduces them every few stages
//   (reduce_fp64). From inputs below 2q, three stages stay below 16q < 2^50.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/modarith.h"

namespace fhelium {

// Moduli below this run the double-precision butterflies (see the bounds above).
constexpr uint64_t kFp64ModulusBound = uint64_t{1} << 45;

FHELIUM_HD bool uses_fp64_butterflies(uint64_t q) { return q < kFp64ModulusBound; }

// A double's bit pattern in a 64-bit word, and back: how doubles travel in the library's word
// buffers (the NTT tables' forward_fp64 and inverse_fp64, which the host writes and the kernels
// read, and the double path's values in shared memory and between the two phases of a transform).
FHELIUM_HD uint64_t fp64_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<uint64_t>(__double_as_longlong(x));
#else
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}
FHELIUM_HD double fp64_from_bits(uint64_t bits) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(bits));
#else
  double x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

// 1.5 * 2^52: adding it to a double of magnitude below 2^51 rounds it to an integer (the nearest).
constexpr double kFp64RoundConstant = 6755399441055744.0;

// The operations below, each rounded once (no contraction into other FMAs, no reassociation): on
// the device through the _rn intrinsics, which the compiler never fuses; on the host through
// std::fma and plain arithmetic, which this library compiles without -ffast-math.
FHELIUM_HD double fp64_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
FHELIUM_HD double fp64_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
FHELIUM_HD double fp64_sub(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
FHELIUM_HD double fp64_fma(double a, double b, double c) {
#if defined(__CUDA_ARCH__)
  return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// The constants of one modulus: q and fl(1/q) (correctly rounded on host and device alike).
struct Fp64Modulus {
  double q;
  double q_inv;
};

FHELIUM_HD Fp64Modulus make_fp64_modulus(uint64_t q) {
  const double qd = static_cast<double>(q);
#if defined(__CUDA_ARCH__)
  return Fp64Modulus{qd, __drcp_rn(qd)};
#else
  return Fp64Modulus{qd, 1.0 / qd};
#endif
}

// y*w mod q as a signed lazy value, |result| < q. Requires |y| < 2^50, 0 <= w < q (above).
FHELIUM_HD double mul_mod_fp64(double y, double w, const Fp64Modulus& m) {
  const double hi = fp64_mul(y, w);
  const double lo = fp64_fma(y, w, -hi);
  const double k = fp64_sub(fp64_fma(hi, m.q_inv, kFp64RoundConstant), kFp64RoundConstant);
  return fp64_add(fp64_fma(-k, m.q, hi), lo);
}

// x - round(x/q)*q, in [-5q/8, 5q/8] for |x| < 2^50 (the rounding errs by at most 1/2 plus
// |x|*2^-53/q).
FHELIUM_HD double reduce_fp64(double x, const Fp64Modulus& m) {
  const double k = fp64_sub(fp64_fma(x, m.q_inv, kFp64RoundConstant), kFp64RoundConstant);
  return fp64_fma(-k, m.q, x);
}

// The word in [0, q) that a signed lazy value |x| < 2^50 stands for.
FHELIUM_HD uint64_t fp64_to_word(double x, const Fp64Modulus& m) {
  const double r = reduce_fp64(x, m);  // [-5q/8, 5q/8]
  return static_cast<uint64_t>(r < 0 ? fp64_add(r, m.q) : r);
}

// Cooley-Tukey (forward): (x, y) -> (x + w*y, x - w*y); each magnitude grows by less than q.
FHELIUM_HD void ct_butterfly_fp64(double& x, double& y, double w, const Fp64Modulus& m) {
  const double t = mul_mod_fp64(y, w, m);
  const double u = x;
  x = fp64_add(u, t);
  y = fp64_sub(u, t);
}

// Gentleman-Sande (inverse): (x, y) -> (x + y, (x - y) * w). The sum is not reduced (|x + y| <=
// |x| + |y|; see the bounds above); |(x - y) * w| < q. Requires |x|, |y| < 2^49.
FHELIUM_HD void gs_butterfly_fp64(double& x, double& y, double w, const Fp64Modulus& m) {
  const double s = fp64_add(x, y);
  const double d = fp64_sub(x, y);
  x = s;
  y = mul_mod_fp64(d, w, m);
}

// The last inverse stage with N^{-1} folded in: ((x + y) * n_inv, (x - y) * w_n_inv), |each| < q.
FHELIUM_HD void gs_butterfly_last_fp64(double& x, double& y, double n_inv, double w_n_inv, const Fp64Modulus& m) {
  const double s = fp64_add(x, y);
  const double d = fp64_sub(x, y);
  x = mul_mod_fp64(s, n_inv, m);
  y = mul_mod_fp64(d, w_n_inv, m);
}

}  // namespace fhelium
