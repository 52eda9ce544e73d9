// Modular arithmetic on 64-bit RNS words, shared by the CPU and CUDA kernels.
//
// Every function here is exact integer arithmetic, so a kernel that uses them computes the same
// bits on the CPU and on the GPU: only `mulhi64` differs in how it is computed (`unsigned __int128`
// on the host, `__umul64hi` on the device).
//
// Preconditions (not checked: these run per element in hot loops):
// - every modulus q satisfies 2 <= q < 2^62, so that a + b and 2q fit in 64 bits;
// - operands are already reduced (0 <= a, b < q) unless a function says otherwise.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define FHELIUM_HD __host__ __device__ __forceinline__
#else
#define FHELIUM_HD inline
#endif

namespace fhelium {

// High 64 bits of the 128-bit product a * b.
FHELIUM_HD uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

FHELIUM_HD uint64_t add_mod(uint64_t a, uint64_t b, uint64_t q) {
  const uint64_t s = a + b;
  return s >= q ? s - q : s;
}

FHELIUM_HD uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t q) {
  return a >= b ? a - b : a + (q - b);
}

FHELIUM_HD uint64_t neg_mod(uint64_t a, uint64_t q) { return a == 0 ? 0 : q - a; }

// A modulus with its Barrett constant floor(2^128 / q), split into two words. The layout is the
// one the kernels receive in device memory: three uint64 words per modulus.
struct Modulus {
  uint64_t value;
  uint64_t ratio_hi;  // floor(2^128 / q) >> 64
  uint64_t ratio_lo;  // floor(2^128 / q) & (2^64 - 1)
};

// Reduces the 128-bit value (hi, lo) modulo m.value. Requires hi < m.value (true for any product
// of two reduced operands). Barrett reduction with base 2^64, as in Microsoft SEAL.
FHELIUM_HD uint64_t reduce128(uint64_t hi, uint64_t lo, const Modulus& m) {
  // Round 1: lo * ratio
  const uint64_t carry0 = mulhi64(lo, m.ratio_lo);
  const uint64_t t2_lo = lo * m.ratio_hi;
  const uint64_t t2_hi = mulhi64(lo, m.ratio_hi);
  uint64_t tmp1 = t2_lo + carry0;
  const uint64_t tmp3 = t2_hi + (tmp1 < t2_lo ? 1u : 0u);
  // Round 2: hi * ratio
  const uint64_t u_lo = hi * m.ratio_lo;
  const uint64_t u_hi = mulhi64(hi, m.ratio_lo);
  const uint64_t sum = tmp1 + u_lo;
  const uint64_t carry1 = u_hi + (sum < tmp1 ? 1u : 0u);
  const uint64_t quotient = hi * m.ratio_hi + tmp3 + carry1;
  const uint64_t r = lo - quotient * m.value;
  return r >= m.value ? r - m.value : r;
}

// Reduces a single word x (any 64-bit value) modulo m.value.
FHELIUM_HD uint64_t reduce64(uint64_t x, const Modulus& m) {
  const uint64_t quotient = mulhi64(x, m.ratio_hi);
  const uint64_t r = x - quotient * m.value;
  return r >= m.value ? r - m.value : r;
}

// The product goes through one `unsigned __int128` multiplication, so that on the device the
// compiler can share the 32-bit partial products of its two halves, which a 64-bit low product
// beside mulhi64 computes twice. On the H200 this made decryption (poly_eval_mod, a chain of
// mul_mod per coefficient) 13-20% faster at n16-l23 and n16-l35, and left mulMod and the tensor
// product within 3% (reports/gpu/2026-12-04T1437-* and T1441-*). reduce128 keeps its separate
// halves: the same change there made the key-switching inner product 11% slower (T1425-*).
FHELIUM_HD uint64_t mul_mod(uint64_t a, uint64_t b, const Modulus& m) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return reduce128(static_cast<uint64_t>(p >> 64), static_cast<uint64_t>(p), m);
}

// Shoup multiplication by a fixed operand w (twiddle factors, key material):
// w_shoup = floor(w * 2^64 / q), computed once on the host by shoup_precompute.
FHELIUM_HD uint64_t mul_mod_shoup(uint64_t a, uint64_t w, uint64_t w_shoup, uint64_t q) {
  const uint64_t quotient = mulhi64(a, w_shoup);
  const uint64_t r = a * w - quotient * q;
  return r >= q ? r - q : r;
}

// Lazy variant: result in [0, 2q). For NTT butterflies that reduce once at the end.
FHELIUM_HD uint64_t mul_mod_shoup_lazy(uint64_t a, uint64_t w, uint64_t w_shoup, uint64_t q) {
  const uint64_t quotient = mulhi64(a, w_shoup);
  return a * w - quotient * q;
}

// Horner evaluation at x of the polynomial whose coefficients are c[0], c[stride], ...,
// c[(k - 1) * stride] (k >= 1, all reduced): c_0 + c_1·x + ... + c_{k-1}·x^{k-1} mod q. Decryption
// is this at x = s over the components of a ciphertext.
FHELIUM_HD uint64_t poly_eval_mod(const uint64_t* c, int64_t stride, int64_t k, uint64_t x, const Modulus& m) {
  uint64_t acc = c[(k - 1) * stride];
  for (int64_t j = k - 2; j >= 0; --j) acc = add_mod(mul_mod(acc, x, m), c[j * stride], m.value);
  return acc;
}

// The product of two degree-1 polynomials in s, (a0 + a1·s)(b0 + b1·s) = a0·b0 + (a0·b1 + a1·b0)·s +
// a1·b1·s² (the tensor product of two ciphertexts): a_j at a[j * stride], b_j at b[j * stride], the
// three results at out[0], out[stride], out[2 * stride]. Every input is read before out is written.
FHELIUM_HD void tensor_product_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, int64_t stride,
                                   const Modulus& m) {
  const uint64_t a0 = a[0];
  const uint64_t a1 = a[stride];
  const uint64_t b0 = b[0];
  const uint64_t b1 = b[stride];
  out[0] = mul_mod(a0, b0, m);
  out[stride] = add_mod(mul_mod(a0, b1, m), mul_mod(a1, b0, m), m.value);
  out[2 * stride] = mul_mod(a1, b1, m);
}

#if !defined(__CUDA_ARCH__)
// Host-only precomputation (uses 128-bit division, which the device lacks).
inline Modulus make_modulus(uint64_t q) {
  // floor(2^128 / q) = floor((2^128 - 1) / q) unless q divides 2^128, impossible for odd q > 1;
  // for even q it is a power of two and the kernels never see one (moduli are odd primes).
  const unsigned __int128 all_ones = ~static_cast<unsigned __int128>(0);
  const unsigned __int128 ratio = all_ones / q;
  return Modulus{q, static_cast<uint64_t>(ratio >> 64), static_cast<uint64_t>(ratio)};
}

inline uint64_t shoup_precompute(uint64_t w, uint64_t q) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(w) << 64) / q);
}
#endif

}  // namespace fhelium
