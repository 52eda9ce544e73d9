// The sampling kernels: the scalar ChaCha20 block (the CUDA kernels' code) against RFC 8439, and
// the CPU kernels (four blocks at a time) against a scalar reference built from it.
#include <cstdio>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/modarith.h"
#include "common/sampling_core.h"
#include "cpu/sampling.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

// RFC 8439 appendix A.1, test vectors #1 and #2 (all-zero key and nonce; counters 0 and 1), as
// little-endian words.
constexpr uint32_t kRfcBlock0[16] = {0xade0b876, 0x903df1a0, 0xe56a5d40, 0x28bd8653, 0xb819d2bd, 0x1aed8da0,
                                     0xccef36a8, 0xc70d778b, 0x7c5941da, 0x8d485751, 0x3fe02477, 0x374ad8b8,
                                     0xf4b8436a, 0x1ca11815, 0x69b687c3, 0x8665eeb2};
constexpr uint32_t kRfcBlock1[16] = {0xbee7079f, 0x7a385155, 0x7c97ba98, 0x0d082d73, 0xa0290fcb, 0x6965e348,
                                     0x3e53c612, 0xed7aee32, 0x7621b729, 0x434ee69c, 0xb03371d5, 0xd539d874,
                                     0x281fed31, 0x45fb0a51, 0x1f0ae1ac, 0x6f4d794b};

SamplingKey test_key(uint32_t stream) {
  SamplingKey k{};
  for (uint32_t w = 0; w < 8; ++w) k.key[w] = 0x01234567u * (w + 3) ^ (w << 24);
  k.stream = stream;
  return k;
}

template <typename F>
bool throws(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind() == ErrorKind::Argument;
  }
  return false;
}

}  // namespace

void run_sampling_tests(Counter& c) {
  {
    const SamplingKey zero{};
    uint32_t block[16];
    chacha20_block(zero, 0, block);
    bool same = true;
    for (int i = 0; i < 16; ++i) same = same && block[i] == kRfcBlock0[i];
    c.check(same, "chacha20_block: RFC 8439 A.1 test vector #1");
    chacha20_block(zero, 1, block);
    same = true;
    for (int i = 0; i < 16; ++i) same = same && block[i] == kRfcBlock1[i];
    c.check(same, "chacha20_block: RFC 8439 A.1 test vector #2");
  }

  const uint32_t log_n = 10;
  const std::size_t n = std::size_t{1} << log_n;
  const std::vector<uint64_t> primes = {(uint64_t{1} << 61) - 1, 1099511480321ull, 7, 3};
  std::vector<Modulus> moduli;
  for (uint64_t q : primes) moduli.push_back(make_modulus(q));
  const std::size_t limbs = primes.size(), batch = 2, stride = limbs * n + 5;

  // Uniform: residue j = (b * limbs + l) * N + i from keystream words 2j, 2j + 1.
  {
    const SamplingKey key = test_key(7);
    std::vector<uint64_t> out(batch * stride, 0), expected(batch * stride, 0);
    cpu::sample_uniform_mod(out.data(), stride, batch, limbs, log_n, moduli.data(), key);
    uint32_t block[16];
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t l = 0; l < limbs; ++l) {
        for (std::size_t i = 0; i < n; ++i) {
          const std::size_t j = (b * limbs + l) * n + i;
          chacha20_block(key, static_cast<uint32_t>(j / 4), block);
          const int k = static_cast<int>(j % 4);
          expected[b * stride + l * n + i] =
              uniform_residue(block_word(block, 2 * k), block_word(block, 2 * k + 1), moduli[l]);
        }
      }
    }
    c.check(out == expected, "sample_uniform_mod equals the scalar reference (batch stride, tiny moduli)");
  }
  // Small: coefficient i of polynomial b from keystream word b * N + i, value mod every limb.
  SmallDistributions d{};
  d.polys = 2;
  const unsigned __int128 two64 = static_cast<unsigned __int128>(1) << 64;
  d.thresholds[0] = static_cast<uint64_t>((two64 + 2) / 3);
  d.thresholds[1] = static_cast<uint64_t>((2 * two64 + 2) / 3);
  for (uint32_t j = 0; j < 40; ++j) d.thresholds[2 + j] = (uint64_t{j} + 1) << 57;
  d.begin[0] = 0;
  d.begin[1] = 2;
  d.begin[2] = 42;
  d.minimum[0] = -1;
  d.minimum[1] = -20;
  {
    const SamplingKey key = test_key(0);
    std::vector<uint64_t> out(batch * stride, 0), expected(batch * stride, 0);
    cpu::sample_small_mod(out.data(), stride, batch, limbs, log_n, moduli.data(), key, d);
    uint32_t block[16];
    bool in_range = true;
    for (std::size_t b = 0; b < batch; ++b) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = b * n + i;
        chacha20_block(key, static_cast<uint32_t>(j / 8), block);
        const int32_t v = small_sample(block_word(block, static_cast<int>(j % 8)), d, static_cast<uint32_t>(b));
        in_range = in_range && v >= d.minimum[b] && v <= d.minimum[b] + static_cast<int32_t>(d.begin[b + 1] - d.begin[b]);
        for (std::size_t l = 0; l < limbs; ++l) {
          const int64_t q = static_cast<int64_t>(primes[l]);
          expected[b * stride + l * n + i] = static_cast<uint64_t>(((v % q) + q) % q);
        }
      }
    }
    c.check(in_range, "sample_small_mod values within each distribution's range");
    c.check(out == expected, "sample_small_mod equals the scalar reference (batch stride, tiny moduli)");
  }
  // Argument checks: nothing is written before they pass.
  {
    std::vector<uint64_t> out(batch * stride, 11);
    const SamplingKey key = test_key(1);
    c.check(throws([&] { cpu::sample_small_mod(out.data(), stride, 3, limbs, log_n, moduli.data(), key, d); }),
            "sample_small_mod refuses a batch other than the number of distributions");
    SmallDistributions bad = d;
    bad.begin[2] = kSamplingMaxThresholds + 1;
    c.check(throws([&] { cpu::sample_small_mod(out.data(), stride, batch, limbs, log_n, moduli.data(), key, bad); }),
            "sample_small_mod refuses thresholds beyond the table");
    bad = d;
    bad.minimum[1] = INT32_MIN;
    c.check(throws([&] { cpu::sample_small_mod(out.data(), stride, batch, limbs, log_n, moduli.data(), key, bad); }),
            "sample_small_mod refuses values beyond int32");
    c.check(throws([&] { cpu::sample_uniform_mod(out.data(), limbs * n - 1, batch, limbs, log_n, moduli.data(), key); }),
            "sample_uniform_mod refuses overlapping batch elements");
    c.check(throws([&] { cpu::sample_uniform_mod(out.data(), stride, batch, limbs, 9, moduli.data(), key); }),
            "sample_uniform_mod refuses N below 2^10");
    c.check(throws([&] {
              cpu::sample_uniform_mod(out.data(), stride, 1, limbs, log_n, reinterpret_cast<const Modulus*>(out.data() + 1), key);
            }),
            "sample_uniform_mod refuses moduli inside out");
    bool untouched = true;
    for (uint64_t w : out) untouched = untouched && w == 11;
    c.check(untouched, "rejected calls wrote nothing");
  }
}

}  // namespace fhelium::test
