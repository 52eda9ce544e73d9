// The keystream and the per-element samplers of the sampling kernels (cpu/sampling.h,
// cuda/sampling.h), shared by the CPU and CUDA code so both compute the same bits.
//
// Keystream: ChaCha20 as in RFC 8439 (20 rounds, 256-bit key), block counter in state word 12,
// the caller's 32-bit stream number in word 13, words 14 and 15 zero. Block b of a (key, stream)
// is the 64 bytes of counter b; the keystream is blocks 0, 1, 2, ... and its 64-bit word k is
// bytes [8k, 8k + 8) read little-endian. This is exactly the output of OpenSSL's "chacha20"
// cipher over zero bytes with the 16-byte IV (0, stream, 0, 0) as little-endian 32-bit words,
// which the tests use as the reference.
//
// Every sample is a pure function of (key, stream, its position), so one thread per ChaCha block
// produces its samples independently: the CPU and the GPU agree bit for bit.
#pragma once

#include <cstdint>

#include "common/modarith.h"

namespace fhelium {

// Largest number of polynomials one sample_small_mod call fills (one distribution each).
constexpr uint32_t kSamplingMaxPolys = 8;
// Largest number of thresholds over all distributions of one sample_small_mod call.
constexpr uint32_t kSamplingMaxThresholds = 128;

// Where the samples of one call come from: a 256-bit ChaCha20 key (little-endian words) and the
// stream number that separates independent keystreams under one key.
struct SamplingKey {
  uint32_t key[8];
  uint32_t stream;
};

// The distributions of the polynomials of one sample_small_mod call, as cumulative tables
// ("CDT"): polynomial p takes the value minimum[p] + #{ j in [begin[p], begin[p+1]) : u >=
// thresholds[j] } for the uniform 64-bit keystream word u of each coefficient. With thresholds
// T_0 <= T_1 <= ... value minimum + k has probability (T_k - T_{k-1}) / 2^64 (T_{-1} = 0,
// T_count = 2^64). The scan reads every threshold of the polynomial, so the time taken does not
// depend on the sample. Passed by value to CUDA kernels (1.1 KB of kernel parameters).
struct SmallDistributions {
  uint64_t thresholds[kSamplingMaxThresholds];
  uint32_t begin[kSamplingMaxPolys + 1];
  int32_t minimum[kSamplingMaxPolys];
  uint32_t polys;
};

FHELIUM_HD uint32_t rotl32(uint32_t x, int bits) { return (x << bits) | (x >> (32 - bits)); }

FHELIUM_HD void chacha_quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
  a += b;
  d = rotl32(d ^ a, 16);
  c += d;
  b = rotl32(b ^ c, 12);
  a += b;
  d = rotl32(d ^ a, 8);
  c += d;
  b = rotl32(b ^ c, 7);
}

// Block `counter` of the keystream of `k` into out[16] (RFC 8439 section 2.3).
FHELIUM_HD void chacha20_block(const SamplingKey& k, uint32_t counter, uint32_t out[16]) {
  uint32_t s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                    k.key[0],    k.key[1],    k.key[2],    k.key[3],
                    k.key[4],    k.key[5],    k.key[6],    k.key[7],
                    counter,     k.stream,    0u,          0u};
  uint32_t x[16];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < 16; ++i) x[i] = s[i];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int round = 0; round < 10; ++round) {
    chacha_quarter_round(x[0], x[4], x[8], x[12]);
    chacha_quarter_round(x[1], x[5], x[9], x[13]);
    chacha_quarter_round(x[2], x[6], x[10], x[14]);
    chacha_quarter_round(x[3], x[7], x[11], x[15]);
    chacha_quarter_round(x[0], x[5], x[10], x[15]);
    chacha_quarter_round(x[1], x[6], x[11], x[12]);
    chacha_quarter_round(x[2], x[7], x[8], x[13]);
    chacha_quarter_round(x[3], x[4], x[9], x[14]);
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < 16; ++i) out[i] = x[i] + s[i];
}

// 64-bit word w (0..7) of a block.
FHELIUM_HD uint64_t block_word(const uint32_t block[16], int w) {
  return static_cast<uint64_t>(block[2 * w]) | (static_cast<uint64_t>(block[2 * w + 1]) << 32);
}

// The value of polynomial p's distribution for the uniform word u (see SmallDistributions).
FHELIUM_HD int32_t small_sample(uint64_t u, const SmallDistributions& d, uint32_t p) {
  int32_t value = d.minimum[p];
  const uint32_t end = d.begin[p + 1];
  for (uint32_t j = d.begin[p]; j < end; ++j) value += u >= d.thresholds[j] ? 1 : 0;
  return value;
}

// The largest |value| polynomial p's distribution takes.
FHELIUM_HD uint64_t small_bound(const SmallDistributions& d, uint32_t p) {
  const int64_t lowest = d.minimum[p];
  const int64_t highest = lowest + static_cast<int64_t>(d.begin[p + 1] - d.begin[p]);
  const int64_t a = lowest < 0 ? -lowest : lowest;
  const int64_t b = highest < 0 ? -highest : highest;
  return static_cast<uint64_t>(a > b ? a : b);
}

// value mod q in [0, q) for |value| < q: the case of noise against RNS primes (branch-free).
FHELIUM_HD uint64_t small_residue_below(int32_t value, uint64_t q) {
  return static_cast<uint64_t>(static_cast<int64_t>(value)) + (value < 0 ? q : 0);
}

// value mod m.value in [0, q) for any |value| < 2^31 and any modulus.
FHELIUM_HD uint64_t small_residue(int32_t value, const Modulus& m) {
  const uint64_t magnitude = static_cast<uint64_t>(value < 0 ? -static_cast<int64_t>(value) : value);
  const uint64_t r = reduce64(magnitude, m);
  return value < 0 && r != 0 ? m.value - r : r;
}

// (hi * 2^64 + lo) mod m.value. For a uniform 128-bit value the result is uniform mod q up to a
// statistical distance below q / 2^128 (< 2^-66 for the kernels' moduli below 2^62).
FHELIUM_HD uint64_t uniform_residue(uint64_t lo, uint64_t hi, const Modulus& m) {
  return reduce128(reduce64(hi, m), lo, m);
}

}  // namespace fhelium
