// The per-thread index math and register butterflies of the CUDA NTT (cuda/ntt.cu), as
// host+device functions so that the host test harness can replay a whole thread block
// thread by thread (tests/ntt_tile_emulation_test.cpp) on a machine without a GPU.
//
// A tile is 2^S elements with local indices k. Each thread owns 2^R of them at a time (R = 3, 8
// slots, or R = 2, 4 slots): for an R-bit window [lo, lo + R) of local index bits, register slot v
// of thread t is k = ((t >> lo) << (lo + R)) | (v << lo) | (t mod 2^lo). A "group" applies the
// radix-2 stages of up to R bits of that window in registers; groups are separated by a
// shared-memory exchange. Eight slots take the fewest instructions per element; four halve each
// thread's serial chain of dependent multiplications, which is what a transform of a few limbs
// waits for (see kNarrowSlotBits).
//
// A limb whose prime is below 2^45 runs its butterflies in double precision
// (common/ntt_butterfly_fp64.h): the thread's registers and the block's shared memory then hold
// doubles (as their bit patterns in the uint64_t words), and so does global memory between the
// two phases of one transform; the words a transform reads first and writes last are the same
// integers as the integer path's. The functions below take either value type V (uint64_t or
// double) and dispatch on it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/modarith.h"
#include "common/ntt_butterfly.h"
#include "common/ntt_butterfly_fp64.h"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#endif

#if defined(__CUDACC__)
#define FHELIUM_CONSTEXPR_HD __host__ __device__ constexpr
#else
#define FHELIUM_CONSTEXPR_HD constexpr
#endif

namespace fhelium::ntt_tile {

// Shared-memory swizzle: flips the low 3 address bits with bits 4..6, which makes the
// "8 consecutive words per thread" pattern of the lowest stage group free of bank conflicts while
// keeping row-contiguous patterns conflict-free. A bijection within every aligned block of 8.
FHELIUM_HD uint32_t swz(uint32_t a) { return a ^ ((a >> 4) & 7u); }

// Where local element k of the tile lives: shared address and global index within the limb.
struct TileGeom {
  uint32_t sh_off;   // shared word offset of local element 0
  uint32_t kstride;  // shared words between local elements k and k+1
  uint32_t jbase;    // global index of local element 0
  uint32_t kshift;   // global index step is 1 << kshift
};

FHELIUM_HD uint32_t sh_addr(const TileGeom& g, uint32_t k) { return swz(g.sh_off + k * g.kstride); }
FHELIUM_HD uint32_t glob(const TileGeom& g, uint32_t k) { return g.jbase + (k << g.kshift); }

// Local index of register slot v of thread t for the R-bit window [lo, lo + R).
template <int R = 3>
FHELIUM_HD uint32_t slot_k(uint32_t t, uint32_t v, uint32_t lo) {
  return ((t >> lo) << (lo + R)) | (v << lo) | (t & ((1u << lo) - 1u));
}

// Per-limb constants: the limb's twiddle rows ((w, w_shoup) pairs for the integer path, the bits
// of double(w) for the double path), its 4 scalars and prime.
struct LimbConsts {
  const uint64_t* tw;
  const uint64_t* tw_fp64 = nullptr;
  const uint64_t* scal;
  uint64_t q;
  uint32_t n;
  uint32_t log_n;
  uint32_t tw_origin = 0;  // ChunkTwiddles: global index of the block's first element
  Fp64Modulus fp{};        // q and 1/q as doubles, for limbs with uses_fp64_butterflies(q)
};

// The value type of a limb's arithmetic and the conversions at its boundaries. `word` is an
// integer word (what a transform reads first; below 2^53 for the double path, which holds for any
// word below 4q); `bits` is how a value travels through shared memory, and through global memory
// between the two phases of one transform.
template <typename V>
FHELIUM_HD V value_from_word(uint64_t word) {
  return static_cast<V>(word);
}
template <typename V>
FHELIUM_HD V value_from_bits(uint64_t bits) {
  if constexpr (std::is_same_v<V, double>) {
    return fp64_from_bits(bits);
  } else {
    return bits;
  }
}
template <typename V>
FHELIUM_HD uint64_t value_bits(V x) {
  if constexpr (std::is_same_v<V, double>) {
    return fp64_bits(x);
  } else {
    return x;
  }
}
// The word a transform's last store writes: the double path reduces to [0, q); the integer path's
// values are already what it stores (the inverse's last stage reduces fully; a forward's last
// store goes through shared memory and reduce_from_4q).
template <typename V>
FHELIUM_HD uint64_t value_word(V x, const LimbConsts& c) {
  if constexpr (std::is_same_v<V, double>) {
    return fp64_to_word(x, c.fp);
  } else {
    return x;
  }
}

// The word in [0, q) for a value a forward transform left in shared memory (as value_bits): the
// double path reduces its signed lazy value, the integer path its value below 4q.
FHELIUM_HD uint64_t forward_result_word(uint64_t stored, const LimbConsts& c) {
  return uses_fp64_butterflies(c.q) ? fp64_to_word(fp64_from_bits(stored), c.fp) : reduce_from_4q(stored, c.q);
}

struct Twiddle {
  uint64_t w;
  uint64_t w_shoup;
};

// Where a stage's twiddle comes from. The pair at global bit gb containing global index j uses
// table entry (N + j) >> (gb + 1); a policy maps that to an index into `LimbConsts::tw`.
// GlobalTwiddles: `tw` is the limb's row of the global table, read through the read-only path.
struct GlobalTwiddles {
  static constexpr bool kShared = false;
  static FHELIUM_HD uint32_t index(const LimbConsts& c, uint32_t j, uint32_t gb) { return (c.n + j) >> (gb + 1); }
};
// ColumnTwiddles: `tw` is a shared-memory copy of entries [0, 2^S) (the column phase only uses
// those), so the index is the table's.
struct ColumnTwiddles {
  static constexpr bool kShared = true;
  static FHELIUM_HD uint32_t index(const LimbConsts& c, uint32_t j, uint32_t gb) { return (c.n + j) >> (gb + 1); }
};
// ChunkTwiddles<W>: `tw` is the shared-memory staging of a chunk block of W words starting at
// global index c.tw_origin (a multiple of W): at bit gb the block uses W >> (gb + 1) consecutive
// entries, from (N + origin) >> (gb + 1), staged back to back from bit 0 up
// (chunk_twiddle_offset). Every block then reads each of its twiddles from global memory once,
// all at its start, instead of one dependent global load per stage.
FHELIUM_CONSTEXPR_HD uint32_t log2_floor(uint32_t x) { return x <= 1 ? 0 : 1 + log2_floor(x >> 1); }
FHELIUM_CONSTEXPR_HD uint32_t chunk_twiddle_offset(uint32_t words, uint32_t gb) { return words - (words >> gb); }
FHELIUM_CONSTEXPR_HD uint32_t chunk_twiddles(uint32_t words, uint32_t s) { return chunk_twiddle_offset(words, s); }
template <uint32_t W>
struct ChunkTwiddles {
  static constexpr bool kShared = true;
  static FHELIUM_HD uint32_t index(const LimbConsts& c, uint32_t j, uint32_t gb) {
    return chunk_twiddle_offset(W, gb) + ((j - c.tw_origin) >> (gb + 1));
  }
};
// The table entry that a chunk block of W words at global index `origin` stages as its entry e
// (0 <= e < chunk_twiddles(W, S)), given origin_entry = N + origin: e lies in bit gb's segment
// [W - (W >> gb), W - (W >> (gb + 1))), so W - 1 - e is in [W >> (gb + 1), W >> gb) and
// gb = log2(W) - 1 - floor(log2(W - 1 - e)).
template <uint32_t W>
FHELIUM_HD uint32_t chunk_twiddle_entry(uint32_t e, uint32_t origin_entry) {
#if defined(__CUDA_ARCH__)
  const uint32_t floor_log2 = 31 - __clz(static_cast<int>(W - 1 - e));
#else
  const uint32_t floor_log2 = log2_floor(W - 1 - e);
#endif
  const uint32_t gb = log2_floor(W) - 1 - floor_log2;
  return (origin_entry >> (gb + 1)) + (e - chunk_twiddle_offset(W, gb));
}

// Shared copies cannot be read through the read-only global path (__ldg).
template <typename Tw>
FHELIUM_HD Twiddle load_twiddle(const uint64_t* tw, uint32_t index) {
#if defined(__CUDA_ARCH__)
  const ulonglong2 v = Tw::kShared ? *(reinterpret_cast<const ulonglong2*>(tw) + index)
                                   : __ldg(reinterpret_cast<const ulonglong2*>(tw) + index);
  return Twiddle{v.x, v.y};
#else
  return Twiddle{tw[2 * index], tw[2 * index + 1]};
#endif
}

// The double path's twiddle `index` of a row of double(w) bit patterns (NttTablesView's
// forward_fp64 and inverse_fp64, or a block's staged copy of one).
template <typename Tw>
FHELIUM_HD double load_twiddle_fp64(const uint64_t* tw, uint32_t index) {
#if defined(__CUDA_ARCH__)
  const uint64_t bits = Tw::kShared ? tw[index] : __ldg(reinterpret_cast<const unsigned long long*>(tw) + index);
#else
  const uint64_t bits = tw[index];
#endif
  return value_from_bits<double>(bits);
}

// log2 of a slot count (8 or 4).
template <int E>
FHELIUM_CONSTEXPR_HD int slot_bits() {
  static_assert(E == 8 || E == 4, "a thread holds 8 or 4 slots");
  return E == 8 ? 3 : 2;
}

// The twiddle of table index `index` in the limb's value type: a (w, w_shoup) pair for the
// integer path, double(w) for the double path.
template <typename Tw, typename V>
FHELIUM_HD auto load_stage_twiddle(const LimbConsts& c, uint32_t index) {
  if constexpr (std::is_same_v<V, double>) {
    return load_twiddle_fp64<Tw>(c.tw_fp64, index);
  } else {
    return load_twiddle<Tw>(c.tw, index);
  }
}

// One butterfly on (a, b) with twiddle w: Cooley-Tukey for the forward, Gentleman-Sande for the
// inverse, whose last stage (`last`, global bit log_n - 1) folds in N^{-1} from the limb's scalars.
template <bool kFwd>
FHELIUM_HD void butterfly(double& a, double& b, double w, bool last, const LimbConsts& c) {
  if (kFwd) {
    ct_butterfly_fp64(a, b, w, c.fp);
  } else if (last) {
    gs_butterfly_last_fp64(a, b, static_cast<double>(c.scal[0]), static_cast<double>(c.scal[2]), c.fp);
  } else {
    gs_butterfly_fp64(a, b, w, c.fp);
  }
}
template <bool kFwd>
FHELIUM_HD void butterfly(uint64_t& a, uint64_t& b, const Twiddle& w, bool last, const LimbConsts& c) {
  if (kFwd) {
    ct_butterfly_lazy(a, b, w.w, w.w_shoup, c.q);
  } else if (last) {
    gs_butterfly_last(a, b, c.scal[0], c.scal[1], c.scal[2], c.scal[3], c.q);
  } else {
    gs_butterfly_lazy(a, b, w.w, w.w_shoup, c.q);
  }
}

// One radix-2 stage on the E registers: slot bit QB of window `lo`. The pair at global bit gb
// containing global index j uses twiddle (N + j) >> (gb + 1) in both directions.
template <bool kFwd, int QB, typename Tw = GlobalTwiddles, typename V, int E>
FHELIUM_HD void reg_stage(V (&x)[E], uint32_t lo, uint32_t t, const TileGeom& g, const LimbConsts& c) {
  const uint32_t gb = lo + QB + g.kshift;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int h = 0; h < ((E / 2) >> QB); ++h) {
    const int v0 = h << (QB + 1);
    const uint32_t j = glob(g, slot_k<slot_bits<E>()>(t, static_cast<uint32_t>(v0), lo));
    const auto w = load_stage_twiddle<Tw, V>(c, Tw::index(c, j, gb));
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int l = 0; l < (1 << QB); ++l) {
      const int a = v0 | l;
      butterfly<kFwd>(x[a], x[a | (1 << QB)], w, gb == c.log_n - 1, c);
    }
  }
}

// Applies the stages of slot bits [q_lo, q_hi] of window `lo`: descending for the forward
// (Cooley-Tukey) transform, ascending for the inverse (Gentleman-Sande).
template <bool kFwd, typename Tw = GlobalTwiddles, typename V, int E>
FHELIUM_HD void reg_stages(V (&x)[E], uint32_t lo, int q_lo, int q_hi, uint32_t t, const TileGeom& g,
                           const LimbConsts& c) {
  // Slot bit 2 exists with 8 slots only.
  if (kFwd) {
    if constexpr (E == 8) {
      if (q_hi >= 2 && q_lo <= 2) reg_stage<true, 2, Tw>(x, lo, t, g, c);
    }
    if (q_hi >= 1 && q_lo <= 1) reg_stage<true, 1, Tw>(x, lo, t, g, c);
    if (q_lo <= 0) reg_stage<true, 0, Tw>(x, lo, t, g, c);
  } else {
    if (q_lo <= 0) reg_stage<false, 0, Tw>(x, lo, t, g, c);
    if (q_hi >= 1 && q_lo <= 1) reg_stage<false, 1, Tw>(x, lo, t, g, c);
    if constexpr (E == 8) {
      if (q_hi >= 2 && q_lo <= 2) reg_stage<false, 2, Tw>(x, lo, t, g, c);
    }
    // The double path's inverse sums grow by up to 2x a stage (gs_butterfly_fp64): reduced once a
    // group of at most 3 stages, as independent operations on the E registers, instead of on each
    // butterfly's chain. From inputs below 2q they stay below 16q < 2^50.
    if constexpr (std::is_same_v<V, double>) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (int v = 0; v < E; ++v) x[v] = reduce_fp64(x[v], c.fp);
    }
  }
}

// Window `lo` and active slot bits [q_lo, q_hi] of stage group `grp` of a 2^S tile (S >= R) with
// R-bit windows. Forward groups walk local bits from the top (S-1..S-R, S-R-1..S-2R, ..., then
// what is left, in window [0, R)); inverse groups walk from the bottom, the last one in window
// [S-R, S).
template <bool kFwd, int S, int R = 3>
FHELIUM_HD void group_bits(int grp, uint32_t& lo, int& q_lo, int& q_hi) {
  if (kFwd) {
    const int hi_bit = S - 1 - R * grp;
    const int lo_bit = hi_bit - (R - 1) > 0 ? hi_bit - (R - 1) : 0;
    lo = static_cast<uint32_t>(hi_bit >= R - 1 ? hi_bit - (R - 1) : 0);
    q_hi = hi_bit - static_cast<int>(lo);
    q_lo = lo_bit - static_cast<int>(lo);
  } else {
    const int lo_bit = R * grp;
    const int hi_bit = lo_bit + (R - 1) < S - 1 ? lo_bit + (R - 1) : S - 1;
    lo = static_cast<uint32_t>(lo_bit <= S - R ? lo_bit : S - R);
    q_lo = lo_bit - static_cast<int>(lo);
    q_hi = hi_bit - static_cast<int>(lo);
  }
}

FHELIUM_CONSTEXPR_HD int groups_for(int s, int r = 3) { return (s + r - 1) / r; }

// Tile split used by the CUDA transform: log_n <= 12 runs one chunk kernel over the whole limb;
// otherwise chunks of 2^9 elements (the largest two-phase chunk tile) and columns of the remaining
// 2^(log_n - 9) rows, at least 2^6 (the smallest column tile): 6/7, 6/8, 6/9, 7/9 and 8/9
// column/chunk stages for log_n = 13..17. At 2^14 and 2^15 that is five stage groups of 8-slot
// threads where the even split (7/7, 7/8) had six, one shared-memory exchange fewer; at 2^16 the
// count is the same (7/9 against 8/8) and it still measured faster. Against the even split, as
// nodes of a replayed graph on an H100 (reports/gpu/2026-12-06T0806-*), multiply + relinearize +
// rescale took 63.6 against 65.0 us at n14-l7, 220.6 against 226.5 at n15-l15 and 479.5 against
// 485.9 at n16-l23.
// Precondition: 13 <= log_n <= 17 (dispatch_columns and dispatch_chunks have these tiles only).
FHELIUM_CONSTEXPR_HD uint32_t column_log(uint32_t log_n) { return log_n > 15 ? log_n - 9 : 6; }
FHELIUM_CONSTEXPR_HD uint32_t chunk_log(uint32_t log_n) { return log_n - column_log(log_n); }
FHELIUM_CONSTEXPR_HD uint32_t columns_per_block(uint32_t s) { return 2048u >> s; }
// The column phase of a 2^S tile at global bits [log_n - S, log_n) only uses twiddle entries
// (N + j) >> (gb + 1) in [1, 2^S): the block stages entries [0, 2^S) in shared memory.
FHELIUM_CONSTEXPR_HD uint32_t column_twiddles(uint32_t s) { return 1u << s; }
// Full-width chunk blocks of the two-phase transform hold 1024 words (half a column block): the
// twiddles they stage take the same shared memory per word, and twice as many blocks fill the SMs
// more evenly. On the H200 (reports/gpu/2026-12-03T2222-*: ntt-variants.cu there) a chunk
// phase of 64 limbs took, per graph node, 11.3 against 12.0 us at N = 2^14 and 41.1 against
// 44.3 us at N = 2^16 (forward; the inverse 11.6 against 12.1 and 42.5 against 45.0).
FHELIUM_CONSTEXPR_HD uint32_t chunk_tiles_per_block(uint32_t s, bool single) {
  return single ? 1u : (1024u >> s);
}

// Narrow blocks for transforms of few polynomials: a quarter of the columns (at least 4, so a
// row access still covers one whole 32-byte sector) or of 2048 words of chunk tiles (at least
// one tile) per block. At N = 2^14 one limb makes only 8 blocks of 2048 elements per phase;
// narrow blocks give 4x as many, which is what keeps the SMs busy when a rescale or ModDown
// transforms 1 or 2 limbs.
FHELIUM_CONSTEXPR_HD uint32_t narrow_columns_per_block(uint32_t s) {
  return columns_per_block(s) / 4 >= 4u ? columns_per_block(s) / 4 : 4u;
}
FHELIUM_CONSTEXPR_HD uint32_t narrow_chunk_tiles_per_block(uint32_t s) { return (512u >> s) >= 1u ? 512u >> s : 1u; }
// Blocks of 2048 words per phase below which the transform uses narrow blocks: two per SM of an
// H100/H200 (kNarrowBelowWords for the chunk phase, whose full-width blocks are smaller).
constexpr uint32_t kNarrowBelowBlocks = 264;
constexpr uint64_t kNarrowBelowWords = uint64_t{kNarrowBelowBlocks} * 2048u;
// Slot bits R of the threads of narrow blocks (4 slots; full-width blocks have 8). A transform of
// a few limbs leaves most SMs idle and lasts as long as one thread's serial chain of dependent
// 64-bit multiplications: on the H200, Nsight Compute put a 2-limb phase at about 1,500
// instructions per warp at 3.8 cycles each (reports/gpu/2026-12-03T1811-*). Four slots halve
// the butterflies per thread for one more shared-memory exchange.
constexpr int kNarrowSlotBits = 2;
constexpr int kWideSlotBits = 3;

}  // namespace fhelium::ntt_tile
