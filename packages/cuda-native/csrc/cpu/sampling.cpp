#include "cpu/sampling.h"

#include <vector>

#include "common/sampling_checks.h"

namespace fhelium::cpu {
namespace {

// Four consecutive ChaCha20 blocks at once, one per lane of 32-bit vectors (GCC/Clang vector
// extensions: SSE2 on x86-64, NEON on arm64): the same words as four chacha20_block calls
// (common/sampling_core.h), about three times faster.
constexpr int kLanes = 4;
typedef uint32_t Lanes __attribute__((vector_size(4 * kLanes)));

inline Lanes rotl_lanes(Lanes x, int bits) { return (x << bits) | (x >> (32 - bits)); }

inline void quarter_round_lanes(Lanes& a, Lanes& b, Lanes& c, Lanes& d) {
  a += b;
  d = rotl_lanes(d ^ a, 16);
  c += d;
  b = rotl_lanes(b ^ c, 12);
  a += b;
  d = rotl_lanes(d ^ a, 8);
  c += d;
  b = rotl_lanes(b ^ c, 7);
}

// Blocks counter .. counter + 3 into out[lane][16]. The counter must not wrap (checked by the
// callers' keystream limit: block indices stay below 2^32).
void chacha20_blocks4(const SamplingKey& k, uint32_t counter, uint32_t out[kLanes][16]) {
  const uint32_t s[16] = {0x61707865u, 0x3320646eu, 0x79622d32u, 0x6b206574u,
                          k.key[0],    k.key[1],    k.key[2],    k.key[3],
                          k.key[4],    k.key[5],    k.key[6],    k.key[7],
                          counter,     k.stream,    0u,          0u};
  Lanes init[16];
  for (int i = 0; i < 16; ++i) init[i] = Lanes{} + s[i];
  for (int l = 0; l < kLanes; ++l) init[12][l] = counter + static_cast<uint32_t>(l);
  Lanes x[16];
  for (int i = 0; i < 16; ++i) x[i] = init[i];
  for (int round = 0; round < 10; ++round) {
    quarter_round_lanes(x[0], x[4], x[8], x[12]);
    quarter_round_lanes(x[1], x[5], x[9], x[13]);
    quarter_round_lanes(x[2], x[6], x[10], x[14]);
    quarter_round_lanes(x[3], x[7], x[11], x[15]);
    quarter_round_lanes(x[0], x[5], x[10], x[15]);
    quarter_round_lanes(x[1], x[6], x[11], x[12]);
    quarter_round_lanes(x[2], x[7], x[8], x[13]);
    quarter_round_lanes(x[3], x[4], x[9], x[14]);
  }
  for (int i = 0; i < 16; ++i) {
    const Lanes word = x[i] + init[i];
    for (int l = 0; l < kLanes; ++l) out[l][i] = word[l];
  }
}

}  // namespace

void sample_uniform_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                        std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                        const SamplingKey& key) {
  check_sample_uniform_mod("cpu::sample_uniform_mod", out, batch_stride, batch, limbs, log_n,
                           moduli);
  const std::size_t n = std::size_t{1} << log_n;
  // Four residues per ChaCha block, four blocks per step: N is a multiple of 16, so a step never
  // straddles limbs.
  constexpr std::size_t kPerStep = 4 * kLanes;
  uint32_t blocks[kLanes][16];
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t l = 0; l < limbs; ++l) {
      const Modulus m = moduli[l];
      uint64_t* o = out + b * batch_stride + l * n;
      const std::size_t first_block = ((b * limbs + l) * n) / 4;
      for (std::size_t i = 0; i < n; i += kPerStep) {
        chacha20_blocks4(key, static_cast<uint32_t>(first_block + i / 4), blocks);
        for (int lane = 0; lane < kLanes; ++lane) {
          for (int k = 0; k < 4; ++k) {
            o[i + 4 * lane + k] =
                uniform_residue(block_word(blocks[lane], 2 * k), block_word(blocks[lane], 2 * k + 1), m);
          }
        }
      }
    }
  }
}

void sample_small_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                      std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                      const SamplingKey& key, const SmallDistributions& distributions) {
  check_sample_small_mod("cpu::sample_small_mod", out, batch_stride, batch, limbs, log_n, moduli,
                         distributions);
  const std::size_t n = std::size_t{1} << log_n;
  // Eight coefficients per ChaCha block, four blocks per step (N is a multiple of 32).
  constexpr std::size_t kPerStep = 8 * kLanes;
  std::vector<int32_t> values(n);
  uint32_t blocks[kLanes][16];
  for (std::size_t b = 0; b < batch; ++b) {
    const auto p = static_cast<uint32_t>(b);
    const std::size_t first_block = (b * n) / 8;
    for (std::size_t i = 0; i < n; i += kPerStep) {
      chacha20_blocks4(key, static_cast<uint32_t>(first_block + i / 8), blocks);
      for (int lane = 0; lane < kLanes; ++lane) {
        for (int k = 0; k < 8; ++k) values[i + 8 * lane + k] = small_sample(block_word(blocks[lane], k), distributions, p);
      }
    }
    const uint64_t bound = small_bound(distributions, p);
    for (std::size_t l = 0; l < limbs; ++l) {
      const Modulus m = moduli[l];
      uint64_t* o = out + b * batch_stride + l * n;
      if (m.value > bound) {
        for (std::size_t i = 0; i < n; ++i) o[i] = small_residue_below(values[i], m.value);
      } else {
        for (std::size_t i = 0; i < n; ++i) o[i] = small_residue(values[i], m);
      }
    }
  }
}

}  // namespace fhelium::cpu
