// Replays the CUDA NTT kernels of cuda/ntt.cu block by block and thread by thread on the host,
// with the same index math and butterflies (cuda/ntt_tile.h), and compares with the CPU
// transform. Threads of one block only communicate through shared memory between stage groups,
// and within a group each thread reads and writes only its own 2^R slots (8 in full-width blocks,
// 4 in narrow ones), so running the threads of
// a group one after another is equivalent to the GPU's execution. This checks the tiling, the
// twiddle indices and the swizzle without a GPU; tests/kernel_selftest.cu checks the real kernels.
#include <string>
#include <type_traits>
#include <vector>

#include "common/ntt_tables.h"
#include "cpu/ntt.h"
#include "cuda/ntt_tile.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

using namespace fhelium::ntt_tile;

LimbConsts consts_for(const NttTablesView& t, uint32_t prime, bool fwd) {
  LimbConsts c;
  c.n = 1u << t.log_n;
  c.log_n = t.log_n;
  c.q = t.moduli[prime].value;
  c.tw = (fwd ? t.forward : t.inverse) + 2 * static_cast<std::size_t>(prime) * c.n;
  c.tw_fp64 = (fwd ? t.forward_fp64 : t.inverse_fp64) + static_cast<std::size_t>(prime) * c.n;
  c.scal = t.scalars + 4 * static_cast<std::size_t>(prime);
  return c;
}

// Mirrors ntt_columns_kernel for one limb (kCols << (S - R) threads of 2^R slots per block), in
// the limb's value type V (with_limb_arithmetic: double for primes below 2^45).
template <bool kFwd, int S, uint32_t kCols, int R, typename V>
void emulate_columns(const uint64_t* src, uint64_t* dst, const LimbConsts& c) {
  constexpr uint32_t kSlots = 1u << R;
  constexpr int kGroups = groups_for(S, R);
  constexpr uint32_t kThreadsHere = kCols << (S - R);
  const uint32_t blocks = (c.n >> S) / kCols;
  std::vector<uint64_t> sh(kCols << S);
  // The block's staged twiddles: entries [0, 2^S) of the limb's row (ColumnTwiddles), pairs for
  // the integer path, doubles' bits for the double path, as the kernel stages them.
  const bool fp64 = std::is_same_v<V, double>;
  std::vector<uint64_t> staged = fp64 ? std::vector<uint64_t>(c.tw_fp64, c.tw_fp64 + column_twiddles(S))
                                      : std::vector<uint64_t>(c.tw, c.tw + 2 * column_twiddles(S));
  LimbConsts cs = c;
  cs.tw = staged.data();
  cs.tw_fp64 = staged.data();
  for (uint32_t bx = 0; bx < blocks; ++bx) {
    for (int grp = 0; grp < kGroups; ++grp) {
      for (uint32_t tid = 0; tid < kThreadsHere; ++tid) {
        const uint32_t col = tid % kCols, t = tid / kCols;
        const TileGeom g{col, kCols, bx * kCols + col, c.log_n - S};
        uint32_t lo;
        int q_lo, q_hi;
        group_bits<kFwd, S, R>(grp, lo, q_lo, q_hi);
        V x[kSlots];
        for (uint32_t v = 0; v < kSlots; ++v) {
          const uint32_t k = slot_k<R>(t, v, lo);
          if (grp > 0) x[v] = value_from_bits<V>(sh[sh_addr(g, k)]);
          else x[v] = kFwd ? value_from_word<V>(src[glob(g, k)]) : value_from_bits<V>(src[glob(g, k)]);
        }
        reg_stages<kFwd, ColumnTwiddles>(x, lo, q_lo, q_hi, t, g, cs);
        for (uint32_t v = 0; v < kSlots; ++v) {
          const uint32_t k = slot_k<R>(t, v, lo);
          if (grp == kGroups - 1) dst[glob(g, k)] = kFwd ? value_bits(x[v]) : value_word(x[v], c);
          else sh[sh_addr(g, k)] = value_bits(x[v]);
        }
      }
    }
  }
}

// Mirrors ntt_chunks_kernel for one limb, with the block's twiddles staged as the kernel stages
// them (pairs, or doubles' bits for the double path) when kStageTw (ChunkTwiddles), or read from
// the global tables.
template <bool kFwd, int S, int kTiles, bool kStageTw, int R, typename V>
void emulate_chunks(const uint64_t* src, uint64_t* dst, const LimbConsts& c) {
  constexpr uint32_t kSlots = 1u << R;
  constexpr uint32_t kWords = static_cast<uint32_t>(kTiles) << S;
  constexpr uint32_t kThreadsHere = static_cast<uint32_t>(kTiles) << (S - R);
  constexpr int kGroups = groups_for(S, R);
  using Tw = std::conditional_t<kStageTw, ChunkTwiddles<kWords>, GlobalTwiddles>;
  const uint32_t blocks = (c.n >> S) / kTiles;
  std::vector<uint64_t> sh(kWords);
  std::vector<uint64_t> staged(2 * chunk_twiddles(kWords, S));
  for (uint32_t bx = 0; bx < blocks; ++bx) {
    const std::size_t block_off = static_cast<std::size_t>(bx) * kWords;
    LimbConsts cb = c;
    if (kStageTw) {
      // Entry by entry through chunk_twiddle_entry, as the kernel's staging copies them.
      for (uint32_t e = 0; e < chunk_twiddles(kWords, S); ++e) {
        const uint32_t entry = chunk_twiddle_entry<kWords>(e, c.n + static_cast<uint32_t>(block_off));
        if constexpr (std::is_same_v<V, double>) {
          staged[e] = c.tw_fp64[entry];
        } else {
          staged[2 * e] = c.tw[2 * entry];
          staged[2 * e + 1] = c.tw[2 * entry + 1];
        }
      }
      cb.tw = staged.data();
      cb.tw_fp64 = staged.data();
      cb.tw_origin = static_cast<uint32_t>(block_off);
    }
    if (!kFwd) {
      for (uint32_t i = 0; i < kWords; ++i) sh[swz(i)] = src[block_off + i];
    }
    for (int grp = 0; grp < kGroups; ++grp) {
      for (uint32_t tid = 0; tid < kThreadsHere; ++tid) {
        const uint32_t tile = tid >> (S - R), t = tid & ((1u << (S - R)) - 1u);
        const TileGeom g{tile << S, 1u, static_cast<uint32_t>(block_off) + (tile << S), 0u};
        uint32_t lo;
        int q_lo, q_hi;
        group_bits<kFwd, S, R>(grp, lo, q_lo, q_hi);
        V x[kSlots];
        for (uint32_t v = 0; v < kSlots; ++v) {
          const uint32_t k = slot_k<R>(t, v, lo);
          if (grp > 0) x[v] = value_from_bits<V>(sh[sh_addr(g, k)]);
          else if (!kFwd) x[v] = value_from_word<V>(sh[sh_addr(g, k)]);
          else x[v] = kStageTw ? value_from_bits<V>(src[glob(g, k)]) : value_from_word<V>(src[glob(g, k)]);
        }
        reg_stages<kFwd, Tw>(x, lo, q_lo, q_hi, t, g, cb);
        for (uint32_t v = 0; v < kSlots; ++v) {
          const uint32_t k = slot_k<R>(t, v, lo);
          if (!kFwd && grp == kGroups - 1) dst[glob(g, k)] = kStageTw ? value_bits(x[v]) : value_word(x[v], c);
          else sh[sh_addr(g, k)] = value_bits(x[v]);
        }
      }
    }
    if (kFwd) {
      for (uint32_t i = 0; i < kWords; ++i) dst[block_off + i] = forward_result_word(sh[swz(i)], c);
    }
  }
}

template <bool kFwd, int S, typename V>
void emulate_columns_width(bool narrow, const uint64_t* src, uint64_t* dst, const LimbConsts& c) {
  if (narrow) emulate_columns<kFwd, S, narrow_columns_per_block(S), kNarrowSlotBits, V>(src, dst, c);
  else emulate_columns<kFwd, S, columns_per_block(S), kWideSlotBits, V>(src, dst, c);
}

template <bool kFwd, typename V>
void emulate_columns_dispatch(uint32_t s, bool narrow, const uint64_t* src, uint64_t* dst, const LimbConsts& c) {
  switch (s) {
    case 6: emulate_columns_width<kFwd, 6, V>(narrow, src, dst, c); break;
    case 7: emulate_columns_width<kFwd, 7, V>(narrow, src, dst, c); break;
    default: emulate_columns_width<kFwd, 8, V>(narrow, src, dst, c); break;
  }
}

template <bool kFwd, int S, typename V>
void emulate_chunks_width(bool narrow, const uint64_t* src, uint64_t* dst, const LimbConsts& c) {
  if (narrow) emulate_chunks<kFwd, S, static_cast<int>(narrow_chunk_tiles_per_block(S)), true, kNarrowSlotBits, V>(src, dst, c);
  else emulate_chunks<kFwd, S, static_cast<int>(chunk_tiles_per_block(S, false)), true, kWideSlotBits, V>(src, dst, c);
}

template <bool kFwd, typename V>
void emulate_chunks_dispatch(uint32_t s, bool single, bool narrow, const uint64_t* src, uint64_t* dst,
                             const LimbConsts& c) {
  if (single) {
    switch (s) {
      case 10: emulate_chunks<kFwd, 10, 1, false, kWideSlotBits, V>(src, dst, c); break;
      case 11: emulate_chunks<kFwd, 11, 1, false, kWideSlotBits, V>(src, dst, c); break;
      default: emulate_chunks<kFwd, 12, 1, false, kWideSlotBits, V>(src, dst, c); break;
    }
    return;
  }
  switch (s) {
    case 7: emulate_chunks_width<kFwd, 7, V>(narrow, src, dst, c); break;
    case 8: emulate_chunks_width<kFwd, 8, V>(narrow, src, dst, c); break;
    default: emulate_chunks_width<kFwd, 9, V>(narrow, src, dst, c); break;
  }
}

// Mirrors the host dispatch of cuda/ntt.cu for one limb, with full-width or narrow blocks (the
// kernels pick narrow ones for few polynomials; both must give the same transform).
template <bool kFwd, typename V>
void emulate_in(const uint64_t* in, uint64_t* out, const LimbConsts& c, bool narrow) {
  if (c.log_n <= 12) {
    emulate_chunks_dispatch<kFwd, V>(c.log_n, true, false, in, out, c);
    return;
  }
  if (kFwd) {
    emulate_columns_dispatch<true, V>(column_log(c.log_n), narrow, in, out, c);
    emulate_chunks_dispatch<true, V>(chunk_log(c.log_n), false, narrow, out, out, c);
  } else {
    emulate_chunks_dispatch<false, V>(chunk_log(c.log_n), false, narrow, in, out, c);
    emulate_columns_dispatch<false, V>(column_log(c.log_n), narrow, out, out, c);
  }
}

template <bool kFwd>
void emulate(const uint64_t* in, uint64_t* out, const NttTablesView& t, uint32_t prime, bool narrow) {
  LimbConsts c = consts_for(t, prime, kFwd);
  if (uses_fp64_butterflies(c.q)) {
    c.fp = make_fp64_modulus(c.q);
    emulate_in<kFwd, double>(in, out, c, narrow);
  } else {
    emulate_in<kFwd, uint64_t>(in, out, c, narrow);
  }
}

}  // namespace

void run_ntt_tile_emulation_tests(Counter& c) {
  for (uint32_t log_n = 10; log_n <= 17; ++log_n) {
    const std::size_t n = std::size_t{1} << log_n;
    // 36, 40 and 45 bits run the double-precision butterflies (45: the largest primes that do),
    // 46, 60 and 61 the integer ones.
    for (uint32_t bits : {36u, 40u, 45u, 46u, 60u, 61u}) {
      const auto primes = ntt_primes(bits, log_n, 1);
      const uint64_t q = primes[0];
      const NttTables tables = NttTables::build(log_n, primes);
      const NttTablesView v = tables.host_view();
      const uint32_t map[1] = {0};
      std::vector<uint64_t> x(n), cpu_f(n), emu_f(n), cpu_i(n), emu_i(n);
      for (auto& e : x) e = random_below(q);
      // The forward takes words below 4q (basis_conversion.cu's fused loads rely on it): random
      // ones, and every word 4q - 1.
      std::vector<uint64_t> x4(n), top(n, 4 * q - 1), cpu_f4(n), emu_f4(n), cpu_top(n), emu_top(n);
      for (auto& e : x4) e = random_below(4 * q);
      cpu::ntt_forward(x.data(), 0, cpu_f.data(), 0, 1, 1, map, v);
      cpu::ntt_forward(x4.data(), 0, cpu_f4.data(), 0, 1, 1, map, v);
      cpu::ntt_forward(top.data(), 0, cpu_top.data(), 0, 1, 1, map, v);
      // Both must be the transforms of the reduced words.
      std::vector<uint64_t> x4_reduced(n), top_reduced(n, (4 * q - 1) % q), want_f4(n), want_top(n);
      for (std::size_t i = 0; i < n; ++i) x4_reduced[i] = x4[i] % q;
      cpu::ntt_forward(x4_reduced.data(), 0, want_f4.data(), 0, 1, 1, map, v);
      cpu::ntt_forward(top_reduced.data(), 0, want_top.data(), 0, 1, 1, map, v);
      const std::string size = ", log_n " + std::to_string(log_n) + ", " + std::to_string(bits) + "-bit" +
                               (uses_fp64_butterflies(q) ? " (double-precision butterflies)" : "");
      c.check(cpu_f4 == want_f4 && cpu_top == want_top, "CPU forward of words below 4q == of the reduced words" + size);
      // Inverse of arbitrary reduced input (not only of a forward output).
      cpu::ntt_inverse(x.data(), 0, cpu_i.data(), 0, 1, 1, map, v);
      for (const bool narrow : {false, true}) {
        const std::string what = std::string(narrow ? " (narrow blocks)" : "") + size;
        emulate<true>(x.data(), emu_f.data(), v, 0, narrow);
        c.check(cpu_f == emu_f, "CUDA forward tiling == CPU" + what);
        emulate<true>(x4.data(), emu_f4.data(), v, 0, narrow);
        c.check(cpu_f4 == emu_f4, "CUDA forward tiling == CPU, inputs below 4q" + what);
        emulate<true>(top.data(), emu_top.data(), v, 0, narrow);
        c.check(cpu_top == emu_top, "CUDA forward tiling == CPU, every input 4q - 1" + what);
        emulate<false>(x.data(), emu_i.data(), v, 0, narrow);
        c.check(cpu_i == emu_i, "CUDA inverse tiling == CPU" + what);
      }
    }
  }
}

}  // namespace fhelium::test
