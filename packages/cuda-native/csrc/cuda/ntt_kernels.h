// The NTT kernels and their launch helpers, shared by the transforms (ntt.cu) and the
// operations that fuse a transform with the work around it (rescale.cu, basis_conversion.cu).
// CUDA only: include it from .cu files. Everything here has internal linkage (an unnamed
// namespace), so each including file compiles and registers its own instances of the kernel
// templates; no two translation units share a kernel symbol. See ntt.cu for the two-phase algorithm.
#pragma once

#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <type_traits>

#include "common/device_stream.h"
#include "common/kernel_args.h"
#include "common/limb_map.h"
#include "common/ntt_butterfly.h"
#include "common/ntt_digit_skip.h"
#include "common/ntt_tables.h"
#include "cuda/dependent_launch.h"
#include "cuda/device_context.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_tile.h"

namespace fhelium::cuda {
namespace {

using namespace fhelium::ntt_tile;

struct NttLaunch {
  const uint64_t* src;
  uint64_t* dst;
  std::size_t src_batch_stride;
  std::size_t dst_batch_stride;
  const uint64_t* twiddles;  // forward or inverse table, [num_primes][N][2]
  const uint64_t* twiddles_fp64;  // the same twiddles as doubles' bits, [num_primes][N]
  const uint64_t* scalars;     // [num_primes][4]
  const Modulus* moduli;
  uint32_t log_n;
  uint32_t limbs;
  NttDigitSkip skip;  // forward only; skipped (batch, limb) blocks exit at once
  // Forward chunk kernel with a skip only: when set, each skipped (batch, limb) block copies its
  // words from limb `limb` of this one polynomial ([limbs][N], limb-major) before it exits, so a
  // transform of ModUp'd digits writes their own limbs (already in NTT form there) itself.
  const uint64_t* skip_copy_from = nullptr;
  LimbMap map;
};

__device__ __forceinline__ LimbConsts limb_consts(const NttLaunch& p, uint32_t limb) {
  const uint32_t prime = p.map.prime[limb];
  LimbConsts c;
  c.n = 1u << p.log_n;
  c.log_n = p.log_n;
  c.q = p.moduli[prime].value;
  c.tw = p.twiddles + 2 * static_cast<std::size_t>(prime) * c.n;
  c.tw_fp64 = p.twiddles_fp64 + static_cast<std::size_t>(prime) * c.n;
  c.scal = p.scalars + 4 * static_cast<std::size_t>(prime);
  return c;
}

// Starts copies of `count` entries from global to shared memory with cp.async (sm_80+):
// dst[dst_index(i)] = src[src_index(i)]. Every copy of the thread is in flight at once and none
// occupies registers; a plain `sh[i] = src[j]` loop waits for each load before its store, so
// staging a chunk block's twiddles (8 entries per thread) that way cost 8 dependent global loads:
// Nsight Compute measured the chunk kernel 2 us slower with it than without staging. The caller
// waits (__pipeline_wait_prior(0)) and then __syncthreads() before reading what was copied.
template <uint32_t kBytes, typename T, typename DstIndex, typename SrcIndex>
__device__ __forceinline__ void copy_async(T* dst, const T* src, uint32_t count, uint32_t tid, uint32_t threads,
                                           DstIndex dst_index, SrcIndex src_index) {
  static_assert(sizeof(T) == kBytes, "one cp.async per element");
  for (uint32_t i = tid; i < count; i += threads) __pipeline_memcpy_async(dst + dst_index(i), src + src_index(i), kBytes);
  __pipeline_commit();
}

struct SameIndex {
  __device__ __forceinline__ uint32_t operator()(uint32_t i) const { return i; }
};
struct Swizzled {
  __device__ __forceinline__ uint32_t operator()(uint32_t i) const { return swz(i); }
};

// Starts staging `count` of the limb's twiddles into `staged` (staged entry e is table entry
// table_entry(e)) and points c.tw and c.tw_fp64 at the staged copy: (w, w_shoup) pairs for the
// integer path, 8-byte double bit patterns (in the first half of `staged`) for the double path.
// Readable after the caller's wait (__pipeline_wait_prior(0)) and barrier, as copy_async says.
template <typename TableEntry>
__device__ __forceinline__ void stage_twiddles(LimbConsts& c, ulonglong2* staged, uint32_t count, uint32_t tid,
                                               uint32_t threads, TableEntry table_entry) {
  if (uses_fp64_butterflies(c.q)) {
    copy_async<8>(reinterpret_cast<uint64_t*>(staged), c.tw_fp64, count, tid, threads, SameIndex{}, table_entry);
  } else {
    copy_async<16>(staged, reinterpret_cast<const ulonglong2*>(c.tw), count, tid, threads, SameIndex{}, table_entry);
  }
  c.tw = reinterpret_cast<const uint64_t*>(staged);
  c.tw_fp64 = c.tw;
}

// What the forward chunk kernel stores for element i (global index within the limb) of limb `limb`
// of batch element b, given its fully reduced NTT value: PlainStore stores the value; other
// epilogues fold in the elementwise step that follows the transform (rescale.cu,
// basis_conversion.cu), saving a kernel and a pass over memory. An epilogue runs after
// wait_for_producers(), so it may read what earlier work on the stream wrote.
// An epilogue has two steps: `fetch(b, limb, i)` does every global load the element needs and
// returns it as `Operands`; `operator()(operands, b, limb, i, v)` computes the stored word. The
// kernel fetches all of a thread's elements before it stores any: loads interleaved with stores
// to `dst` (which the compiler cannot prove apart from what the epilogue reads) would each wait
// for the one before, a memory latency per element at the end of the kernel (Nsight Compute on
// the H200: the rescale and ModDown chunk kernels took 12-13 us against 7.5 us for their column
// phases, reports/gpu/2026-12-03T1811-*).
struct PlainStore {
  struct Operands {};
  __device__ __forceinline__ Operands fetch(uint32_t, uint32_t, std::size_t) const { return {}; }
  __device__ __forceinline__ uint64_t operator()(const Operands&, uint32_t, uint32_t, std::size_t, uint64_t v) const {
    return v;
  }
};

// What the column kernel reads for element j (global index within the limb) of limb `limb` of
// batch element b in its first stage group: PlainLoad reads the input limb `src` (the transform's
// input); other loads fold in the elementwise step that produces that input (rescale.cu,
// basis_conversion.cu), saving a kernel and a pass over memory. A load runs after
// wait_for_producers().
struct PlainLoad {
  __device__ __forceinline__ uint64_t operator()(const uint64_t* src, uint32_t, uint32_t, uint32_t j) const {
    return src[j];
  }
};

// A load of the inverse chunk phase that also writes global memory (see TensorProductLoad in
// tensor_product_ntt.cu) splits like an epilogue: `fetch(b, limb, j)` does the element's global
// loads and returns them as `Operands`, `operator()(operands, b, limb, j)` does the rest and
// returns the word. The kernel fetches all of a thread's elements first: a load after a store the
// compiler cannot prove apart from it is not moved above the store, so each would wait a memory
// latency (see PlainStore). A load without `Operands` is called as PlainLoad is.
template <typename L, typename = void>
struct is_split_load : std::false_type {};
template <typename L>
struct is_split_load<L, std::void_t<typename L::Operands>> : std::true_type {};

// A split load may also give the inverse chunk kernel side work, elementwise work that its result
// does not depend on (TensorProductLoad: the product's other components): `side_rows` more rows
// of blocks, after the transform's, whose block (x, polys + r) calls `side_fetch(r, j)` and then
// `side(operands, r, j)` for each element j of the words a transform block at x would cover. The
// transform's threads are then not delayed by it, and the side blocks run beside them on SMs that
// a transform of a few limbs leaves idle.
template <typename L, typename = void>
struct has_side_rows : std::false_type {};
template <typename L>
struct has_side_rows<L, std::void_t<typename L::SideOperands>> : std::true_type {};

template <typename Load>
uint32_t side_rows(const Load& load) {
  if constexpr (has_side_rows<Load>::value) {
    return load.side_rows;
  } else {
    return 0;
  }
}

// Stores a thread's E elements after a stage group (window [lo, lo + log2 E)): to global memory
// when the group ends the phase there (`to_global`), else to shared memory followed by the block
// barrier that the next group's reads need. `to_global` is the same for the whole block. A store
// to global memory that ends the transform (`last`) writes words (value_word); one between the
// two phases of a transform, and every store to shared memory, writes the values' bits.
template <typename V, int E>
__device__ __forceinline__ void store_group(const V (&x)[E], bool to_global, bool last, uint64_t* dst, uint64_t* sh,
                                            const TileGeom& g, uint32_t t, uint32_t lo, const LimbConsts& c) {
  constexpr int R = slot_bits<E>();
  if (to_global) {
#pragma unroll
    for (int v = 0; v < E; ++v) dst[glob(g, slot_k<R>(t, v, lo))] = last ? value_word(x[v], c) : value_bits(x[v]);
  } else {
#pragma unroll
    for (int v = 0; v < E; ++v) sh[sh_addr(g, slot_k<R>(t, v, lo))] = value_bits(x[v]);
    __syncthreads();
  }
}

// Runs `body` with a zero of the limb's value type (uint64_t, or double for a prime below 2^45,
// see ntt_tile.h), after setting c.fp for the double path. The choice is the same for a whole
// block (one limb), so no warp diverges on it.
template <typename Body>
__device__ __forceinline__ void with_limb_arithmetic(LimbConsts& c, Body body) {
  if (uses_fp64_butterflies(c.q)) {
    c.fp = make_fp64_modulus(c.q);
    body(0.0);
  } else {
    body(uint64_t{0});
  }
}

// Column phase: tile = 2^S rows at stride 2^(log_n - S), 2048 >> S adjacent columns per block.
// Forward: the first S stages, output in [0, 4q). Inverse: the last S stages, output in [0, q).
// Reads and writes global memory directly in the first and last groups (each warp access covers
// runs of >= 32 contiguous bytes).
// kCols columns per block (columns_per_block(S), or narrow_columns_per_block(S) for few
// polynomials) with kCols << (S - R) threads of 2^R slots (kWideSlotBits or kNarrowSlotBits).
// 1024 resident threads per SM cap registers at 64; ptxas -v shows no spills.
template <bool kFwd, int S, uint32_t kCols, int R, typename Load>
__global__ void __launch_bounds__(kCols << (S - R), 1024 / (kCols << (S - R)))
    ntt_columns_kernel(NttLaunch p, Load load) {
  constexpr int kSlots = 1 << R;
  constexpr int kGroups = groups_for(S, R);
  constexpr uint32_t kThreadsHere = kCols << (S - R);
  __shared__ uint64_t sh[kCols << S];
  // The block's twiddles (column_twiddles(S) entries), staged once: read from global memory in
  // every stage they put one dependent load latency per stage group on the block's critical path,
  // which is most of the kernel's time when only a few limbs are transformed.
  __shared__ ulonglong2 sh_tw[column_twiddles(S)];
  const uint32_t tid = threadIdx.x;
  const uint32_t col = tid % kCols;
  const uint32_t t = tid / kCols;
  const uint32_t limb = blockIdx.y % p.limbs;
  const uint32_t b = blockIdx.y / p.limbs;
  const bool skipped = p.skip.skips(b, limb);
  LimbConsts c = limb_consts(p, limb);
  const uint64_t* src = p.src + b * p.src_batch_stride + static_cast<std::size_t>(limb) * c.n;
  uint64_t* dst = p.dst + b * p.dst_batch_stride + static_cast<std::size_t>(limb) * c.n;
  const TileGeom g{col, kCols, blockIdx.x * kCols + col, p.log_n - S};

  // The twiddle staging reads only the read-only table, so it goes out before the wait for the
  // producer kernel (dependent_launch.h); group 0's loads follow it, and both latencies overlap.
  if (!skipped) stage_twiddles(c, sh_tw, column_twiddles(S), tid, kThreadsHere, SameIndex{});
  wait_for_producers();
  if (skipped) return;
  // The forward's column phase reads the transform's input words; the inverse's reads the bits
  // its chunk phase stored (ntt_tile.h), and its last store ends the transform.
  with_limb_arithmetic(c, [&](auto zero) {
    using V = decltype(zero);
    V x[kSlots];
    {
      uint32_t lo;
      int q_lo, q_hi;
      group_bits<kFwd, S, R>(0, lo, q_lo, q_hi);
#pragma unroll
      for (int v = 0; v < kSlots; ++v) {
        const uint64_t word = load(src, b, limb, glob(g, slot_k<R>(t, v, lo)));
        x[v] = kFwd ? value_from_word<V>(word) : value_from_bits<V>(word);
      }
    }
    __pipeline_wait_prior(0);
    __syncthreads();
#pragma unroll
    for (int grp = 0; grp < kGroups; ++grp) {
      uint32_t lo;
      int q_lo, q_hi;
      group_bits<kFwd, S, R>(grp, lo, q_lo, q_hi);
      if (grp > 0) {
#pragma unroll
        for (int v = 0; v < kSlots; ++v) x[v] = value_from_bits<V>(sh[sh_addr(g, slot_k<R>(t, v, lo))]);
      }
      reg_stages<kFwd, ColumnTwiddles>(x, lo, q_lo, q_hi, t, g, c);
      store_group(x, grp == kGroups - 1, !kFwd, dst, sh, g, t, lo, c);
    }
  });
}

// Chunk phase: tile = 2^S contiguous elements, kTiles tiles per block. Forward: the last S stages
// (all of them when S = log_n), output fully reduced. Inverse: the first S stages, output in
// [0, 2q), or fully reduced when S = log_n (the last stage folds in N^{-1}). The low-bit group
// goes through shared memory on the global side so that global accesses stay coalesced. The
// forward stores through `epilogue`; the inverse reads its input through `load` (PlainLoad: a
// cp.async copy of src; any other functor forms each word, as the column kernel's loads do).
// kStageTw (the two-phase blocks of 1024 or 512 words): the block's twiddles are staged in shared
// memory at its start (ChunkTwiddles), overlapped with its first data loads. Nsight Compute on the
// H200 put this kernel at 6.4-6.9 us for 2-8 limbs at N = 2^14 against 4.7-5.3 us for the column
// phase, which already staged its twiddles: a dependent global load per stage group was most of
// a small transform's time. The single-kernel form (log_n <= 12, 4096 words) has no room for it
// in 48 KiB of static shared memory and keeps reading the global table.
template <bool kFwd, int S, int kTiles, bool kStageTw, int R, typename Epilogue, typename Load>
__global__ void __launch_bounds__(kTiles << (S - R), kStageTw ? 1024 / (kTiles << (S - R)) : 1)
    ntt_chunks_kernel(NttLaunch p, Epilogue epilogue, Load load) {
  constexpr int kSlots = 1 << R;
  constexpr uint32_t kWords = static_cast<uint32_t>(kTiles) << S;
  constexpr uint32_t kThreadsHere = static_cast<uint32_t>(kTiles) << (S - R);
  constexpr int kGroups = groups_for(S, R);
  using Tw = std::conditional_t<kStageTw, ChunkTwiddles<kWords>, GlobalTwiddles>;
  __shared__ uint64_t sh[kWords];
  __shared__ ulonglong2 sh_tw[kStageTw ? chunk_twiddles(kWords, S) : 1];
  const uint32_t tid = threadIdx.x;
  const std::size_t block_off = static_cast<std::size_t>(blockIdx.x) * kWords;
  // A thread handles kWords / kThreadsHere = kSlots words in the side, copy and epilogue loops
  // below, which load all of them before storing any (see PlainStore).
  constexpr uint32_t kWordsPerThread = kSlots;
  if constexpr (has_side_rows<Load>::value) {
    if (blockIdx.y >= gridDim.y - load.side_rows) {
      const uint32_t row = blockIdx.y - (gridDim.y - load.side_rows);
      wait_for_producers();
      typename Load::SideOperands operands[kWordsPerThread];
#pragma unroll
      for (uint32_t k = 0; k < kWordsPerThread; ++k) operands[k] = load.side_fetch(row, block_off + tid + k * kThreadsHere);
#pragma unroll
      for (uint32_t k = 0; k < kWordsPerThread; ++k) load.side(operands[k], row, block_off + tid + k * kThreadsHere);
      return;
    }
  }
  const uint32_t tile = tid >> (S - R);
  const uint32_t t = tid & ((1u << (S - R)) - 1u);
  const uint32_t limb = blockIdx.y % p.limbs;
  const uint32_t b = blockIdx.y / p.limbs;
  const bool skipped = p.skip.skips(b, limb);
  LimbConsts c = limb_consts(p, limb);
  const uint64_t* src = p.src + b * p.src_batch_stride + static_cast<std::size_t>(limb) * c.n;
  uint64_t* dst = p.dst + b * p.dst_batch_stride + static_cast<std::size_t>(limb) * c.n;
  const TileGeom g{tile << S, 1u, static_cast<uint32_t>(block_off) + (tile << S), 0u};

  // The twiddle staging reads only the read-only table, so it goes out before the wait for the
  // producer kernel (dependent_launch.h).
  if (kStageTw && !skipped) {
    c.tw_origin = static_cast<uint32_t>(block_off);
    const uint32_t origin_entry = c.n + c.tw_origin;
    stage_twiddles(c, sh_tw, chunk_twiddles(kWords, S), tid, kThreadsHere,
                   [origin_entry](uint32_t e) { return chunk_twiddle_entry<kWords>(e, origin_entry); });
  }
  wait_for_producers();
  if (skipped) {
    if (kFwd && p.skip_copy_from != nullptr) {
      const uint64_t* from = p.skip_copy_from + (static_cast<std::size_t>(limb) << p.log_n) + block_off;
      uint64_t words[kWordsPerThread];
#pragma unroll
      for (uint32_t k = 0; k < kWordsPerThread; ++k) words[k] = from[tid + k * kThreadsHere];
#pragma unroll
      for (uint32_t k = 0; k < kWordsPerThread; ++k) dst[block_off + tid + k * kThreadsHere] = words[k];
    }
    return;
  }
  // Only the forward of two phases reads its first group before the barrier below; the words
  // are kept as they are until the limb's value type is known.
  uint64_t first[kSlots];
  if (kFwd && kStageTw) {
    // Group 0 reads global memory directly; its loads overlap the twiddle staging.
    uint32_t lo;
    int q_lo, q_hi;
    group_bits<kFwd, S, R>(0, lo, q_lo, q_hi);
#pragma unroll
    for (int v = 0; v < kSlots; ++v) first[v] = src[glob(g, slot_k<R>(t, v, lo))];
  } else if (!kFwd) {
    if constexpr (std::is_same_v<Load, PlainLoad>) {
      copy_async<8>(sh, src + block_off, kWords, tid, kThreadsHere, Swizzled{}, SameIndex{});
    } else {
      // The inverse's input is formed by `load` (see PlainLoad), every word loaded before any is
      // stored (see PlainStore and is_split_load).
      uint64_t words[kWordsPerThread];
      if constexpr (is_split_load<Load>::value) {
        typename Load::Operands operands[kWordsPerThread];
#pragma unroll
        for (uint32_t k = 0; k < kWordsPerThread; ++k) operands[k] = load.fetch(b, limb, block_off + tid + k * kThreadsHere);
#pragma unroll
        for (uint32_t k = 0; k < kWordsPerThread; ++k) words[k] = load(operands[k], b, limb, block_off + tid + k * kThreadsHere);
      } else {
#pragma unroll
        for (uint32_t k = 0; k < kWordsPerThread; ++k) words[k] = load(src, b, limb, block_off + tid + k * kThreadsHere);
      }
#pragma unroll
      for (uint32_t k = 0; k < kWordsPerThread; ++k) sh[swz(tid + k * kThreadsHere)] = words[k];
    }
  }
  if (kStageTw || !kFwd) {
    __pipeline_wait_prior(0);
    __syncthreads();
  }
  // Group 0 reads words: the transform's input (a single-kernel transform, or an inverse, whose
  // input went to shared memory as words above), or for the forward of two phases the bits its
  // column phase stored. The inverse of two phases ends in the column phase, so its last store
  // here writes bits too.
  with_limb_arithmetic(c, [&](auto zero) {
    using V = decltype(zero);
    V x[kSlots];
    if (kFwd && kStageTw) {
#pragma unroll
      for (int v = 0; v < kSlots; ++v) x[v] = value_from_bits<V>(first[v]);
    }
#pragma unroll (kStageTw ? kGroups : 1)
    for (int grp = 0; grp < kGroups; ++grp) {
      uint32_t lo;
      int q_lo, q_hi;
      group_bits<kFwd, S, R>(grp, lo, q_lo, q_hi);
      if (!kFwd || !kStageTw || grp > 0) {
#pragma unroll
        for (int v = 0; v < kSlots; ++v) {
          const uint32_t k = slot_k<R>(t, v, lo);
          if (grp == 0) {
            x[v] = value_from_word<V>(kFwd ? src[glob(g, k)] : sh[sh_addr(g, k)]);
          } else {
            x[v] = value_from_bits<V>(sh[sh_addr(g, k)]);
          }
        }
      }
      reg_stages<kFwd, Tw>(x, lo, q_lo, q_hi, t, g, c);
      store_group(x, !kFwd && grp == kGroups - 1, !kStageTw, dst, sh, g, t, lo, c);
    }
  });
  if (kFwd) {
    typename Epilogue::Operands operands[kWordsPerThread];
#pragma unroll
    for (uint32_t k = 0; k < kWordsPerThread; ++k) operands[k] = epilogue.fetch(b, limb, block_off + tid + k * kThreadsHere);
#pragma unroll
    for (uint32_t k = 0; k < kWordsPerThread; ++k) {
      const uint32_t i = tid + k * kThreadsHere;
      dst[block_off + i] = epilogue(operands[k], b, limb, block_off + i, forward_result_word(sh[swz(i)], c));
    }
  }
}

// Every NTT kernel asks for one shared-memory carveout. Left to the driver, the chunk kernels
// (48 KiB of shared memory) and the column kernels (18 KiB) get different L1/shared splits, and a
// launch whose split differs from the running one is a device-side synchronization point: the
// SMs drain before the next kernel starts. Captured graphs did not pay it, eager work did: on the
// H200, eager multiply + relinearize + rescale at n14-l7 took 0.30-0.34 ms per call with the
// driver's choice and 0.19-0.20 ms with one carveout on one machine, 0.141 vs 0.134 ms on
// another (graph replay 0.108 ms either way). The price is a smaller L1: GPU-bound work at n16
// measured about 2% slower (n16-l35 multiply + relinearize 1128 vs 1105 us).
// FHELIUM_NTT_CARVEOUT overrides the percentage (0-100 of the largest shared memory), or
// `driver` leaves the choice to the driver; read once per process. Any other value is reported
// on stderr once and the default kept (a diagnostic knob must not fail a computation).
constexpr int kDriverCarveout = -1;

int ntt_carveout() {
  static const int carveout = [] {
    constexpr int kDefault = static_cast<int>(cudaSharedmemCarveoutMaxShared);
    const char* value = std::getenv("FHELIUM_NTT_CARVEOUT");
    if (value == nullptr || *value == '\0') return kDefault;
    if (std::strcmp(value, "driver") == 0) return kDriverCarveout;
    char* end = nullptr;
    const long percent = std::strtol(value, &end, 10);
    if (*end != '\0' || percent < 0 || percent > 100) {
      std::fprintf(stderr,
                   "fhelium: FHELIUM_NTT_CARVEOUT: expected a percentage in [0, 100] or 'driver', got '%s'; "
                   "using the largest shared-memory carveout\n",
                   value);
      return kDefault;
    }
    return static_cast<int>(percent);
  }();
  return carveout;
}

// Set once per kernel and device (the attribute belongs to the device's context), in relaxed
// capture mode since the first launch may come while this thread captures a graph. A failure
// only loses the preference: it is cleared, not thrown.
template <typename Kernel>
void prefer_shared_carveout(Kernel kernel) {
  const int carveout = ntt_carveout();
  if (carveout == kDriverCarveout) return;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carveout) != cudaSuccess) {
    cudaGetLastError();
  }
  cudaThreadExchangeStreamCaptureMode(&mode);
}

template <bool kFwd, int S, typename Load>
struct ntt_columns_kernel_tag {};
template <bool kFwd, int S, int kTiles, bool kStageTw, int R, typename Epilogue, typename Load>
struct ntt_chunks_kernel_tag {};

// Runs `set` once per device for the calling template instance (`Tag`). Precondition:
// 0 <= device < kMaxDevices (device_context.h), which every DeviceStream of the binding satisfies;
// any other index runs `set` on every launch, which is correct, only slower.
template <typename Tag, typename Set>
void once_per_device(int device, Set set) {
  static std::array<std::once_flag, kMaxDevices> flags;
  if (device < 0 || device >= kMaxDevices) {
    set();
    return;
  }
  std::call_once(flags[static_cast<std::size_t>(device)], set);
}

template <bool kFwd, int S, typename Load>
void launch_columns(const NttLaunch& p, uint32_t polys, int device, cudaStream_t stream, const Load& load) {
  constexpr uint32_t kCols = columns_per_block(S);
  constexpr uint32_t kNarrow = narrow_columns_per_block(S);
  constexpr auto wide = ntt_columns_kernel<kFwd, S, kCols, kWideSlotBits, Load>;
  constexpr auto narrow = ntt_columns_kernel<kFwd, S, kNarrow, kNarrowSlotBits, Load>;
  once_per_device<ntt_columns_kernel_tag<kFwd, S, Load>>(device, [] {
    prefer_shared_carveout(narrow);
    prefer_shared_carveout(wide);
  });
  const uint32_t columns = 1u << (p.log_n - S);
  if (polys * (columns / kCols) < kNarrowBelowBlocks) {
    launch_dependent(narrow, dim3(columns / kNarrow, polys), dim3(kNarrow << (S - kNarrowSlotBits)), 0, stream, p, load);
  } else {
    launch_dependent(wide, dim3(columns / kCols, polys), dim3(kCols << (S - kWideSlotBits)), 0, stream, p, load);
  }
}

template <bool kFwd, int S, int kTiles, bool kStageTw, int R, typename Epilogue, typename Load = PlainLoad>
void launch_chunks(const NttLaunch& p, uint32_t polys, int device, cudaStream_t stream, const Epilogue& epilogue,
                   const Load& load = {}) {
  constexpr auto kernel = ntt_chunks_kernel<kFwd, S, kTiles, kStageTw, R, Epilogue, Load>;
  once_per_device<ntt_chunks_kernel_tag<kFwd, S, kTiles, kStageTw, R, Epilogue, Load>>(
      device, [] { prefer_shared_carveout(kernel); });
  const uint32_t chunks = 1u << (p.log_n - S);
  launch_dependent(kernel, dim3(chunks / kTiles, polys + side_rows(load)), dim3(kTiles << (S - R)), 0, stream, p,
                   epilogue, load);
}

// The two-phase chunk launch: full-width blocks, or narrow ones when few polynomials leave SMs idle.
template <bool kFwd, int S, typename Epilogue, typename Load = PlainLoad>
void launch_chunks_two_phase(const NttLaunch& p, uint32_t polys, int device, cudaStream_t stream,
                             const Epilogue& epilogue, const Load& load = {}) {
  constexpr int kTiles = static_cast<int>(chunk_tiles_per_block(S, false));
  constexpr int kNarrow = static_cast<int>(narrow_chunk_tiles_per_block(S));
  if ((uint64_t{polys} << p.log_n) < kNarrowBelowWords) {
    launch_chunks<kFwd, S, kNarrow, true, kNarrowSlotBits>(p, polys, device, stream, epilogue, load);
  } else {
    launch_chunks<kFwd, S, kTiles, true, kWideSlotBits>(p, polys, device, stream, epilogue, load);
  }
}

// The column phase for 2^s-row columns; `load` supplies the first stage group's input (PlainLoad).
template <bool kFwd, typename Load = PlainLoad>
void dispatch_columns(uint32_t s, const NttLaunch& p, uint32_t polys, int device, cudaStream_t stream,
                      const Load& load = {}) {
  switch (s) {
    case 6: launch_columns<kFwd, 6>(p, polys, device, stream, load); break;
    case 7: launch_columns<kFwd, 7>(p, polys, device, stream, load); break;
    default: launch_columns<kFwd, 8>(p, polys, device, stream, load); break;
  }
}

// The chunk phase (or the whole transform when `single`, log_n <= 12) for 2^s-element chunks.
// `epilogue` applies to forward transforms only (see PlainStore), `load` to inverse ones only
// (see PlainLoad and ntt_chunks_kernel).
template <bool kFwd, typename Epilogue = PlainStore, typename Load = PlainLoad>
void dispatch_chunks(uint32_t s, bool single, const NttLaunch& p, uint32_t polys, int device,
                     cudaStream_t stream, const Epilogue& epilogue = {}, const Load& load = {}) {
  static_assert(kFwd || std::is_same_v<Epilogue, PlainStore>, "only forward transforms have an epilogue");
  static_assert(!kFwd || std::is_same_v<Load, PlainLoad>, "only inverse chunk phases take a load");
  if (single) {
    switch (s) {
      case 10: launch_chunks<kFwd, 10, 1, false, kWideSlotBits>(p, polys, device, stream, epilogue, load); break;
      case 11: launch_chunks<kFwd, 11, 1, false, kWideSlotBits>(p, polys, device, stream, epilogue, load); break;
      default: launch_chunks<kFwd, 12, 1, false, kWideSlotBits>(p, polys, device, stream, epilogue, load); break;
    }
    return;
  }
  switch (s) {
    case 7: launch_chunks_two_phase<kFwd, 7>(p, polys, device, stream, epilogue, load); break;
    case 8: launch_chunks_two_phase<kFwd, 8>(p, polys, device, stream, epilogue, load); break;
    default: launch_chunks_two_phase<kFwd, 9>(p, polys, device, stream, epilogue, load); break;
  }
}

// A launch of the forward or inverse transform over `limbs` limbs on table rows primes[0, limbs).
inline NttLaunch make_ntt_launch(const NttTablesView& t, bool forward, const uint64_t* src, std::size_t src_stride,
                                 uint64_t* dst, std::size_t dst_stride, uint32_t limbs, const uint32_t* primes) {
  NttLaunch p{};
  p.src = src;
  p.src_batch_stride = src_stride;
  p.dst = dst;
  p.dst_batch_stride = dst_stride;
  p.twiddles = forward ? t.forward : t.inverse;
  p.twiddles_fp64 = forward ? t.forward_fp64 : t.inverse_fp64;
  p.scalars = t.scalars;
  p.moduli = t.moduli;
  p.log_n = t.log_n;
  p.limbs = limbs;
  for (uint32_t i = 0; i < limbs; ++i) p.map.prime[i] = primes[i];
  return p;
}

// The forward transform of `p` over `polys` polynomials, storing through `epilogue`: the
// single-kernel transform (log_n <= 12), or the column phase, which reads p.src through `load`,
// then the chunk phase in place on p.dst. A load other than PlainLoad needs the column phase, so
// it is an Error(Internal) at log_n <= 12. Throws Error(Cuda) naming `where` when a launch fails.
template <typename Epilogue = PlainStore, typename Load = PlainLoad>
void run_forward(const char* where, NttLaunch p, uint32_t polys, int device, cudaStream_t stream,
                 const Epilogue& epilogue = {}, const Load& load = {}) {
  if (p.log_n <= 12) {
    FHELIUM_CHECK((std::is_same_v<Load, PlainLoad>), Internal,
                  std::string(where) + ": a forward load needs the two-phase transform (log_n >= 13)");
    dispatch_chunks<true>(p.log_n, true, p, polys, device, stream, epilogue);
  } else {
    dispatch_columns<true>(column_log(p.log_n), p, polys, device, stream, load);
    check_launch(where);
    p.src = p.dst;
    p.src_batch_stride = p.dst_batch_stride;
    dispatch_chunks<true>(chunk_log(p.log_n), false, p, polys, device, stream, epilogue);
  }
  check_launch(where);
}

// The inverse transform of `p` over `polys` polynomials, its first stage group reading p.src
// through `load` (PlainLoad: as it is): the single-kernel transform (log_n <= 12), or the chunk
// phase from p.src into p.dst, then the column phase in place on p.dst. Throws Error(Cuda) naming
// `where` when a launch fails.
template <typename Load = PlainLoad>
void run_inverse(const char* where, NttLaunch p, uint32_t polys, int device, cudaStream_t stream,
                 const Load& load = {}) {
  const bool single = p.log_n <= 12;
  dispatch_chunks<false>(single ? p.log_n : chunk_log(p.log_n), single, p, polys, device, stream, PlainStore{}, load);
  check_launch(where);
  if (single) return;
  p.src = p.dst;
  p.src_batch_stride = p.dst_batch_stride;
  dispatch_columns<false>(column_log(p.log_n), p, polys, device, stream);
  check_launch(where);
}

// The kernels stage twiddle pairs with 16-byte copies. Throws Error(Argument) naming `where`.
inline void require_aligned_twiddles(const char* where, const uint64_t* table) {
  require_argument(reinterpret_cast<uintptr_t>(table) % 16 == 0, where, "twiddle tables 16-byte aligned",
                   "a misaligned table pointer");
}

// The operands of a limb extension (run_limb_extension), with the strides the kernels use (a
// batch of one normalised to contiguous by the caller).
struct LimbExtension {
  const uint64_t* src;  // the first source limb of batch element 0 (NTT form)
  std::size_t src_stride;
  uint32_t src_limbs;
  const uint32_t* src_primes;  // HOST, src_limbs table rows
  uint64_t* scratch;           // src_limbs limbs per batch element
  std::size_t scratch_stride;
  uint64_t* out;  // dst_limbs limbs per batch element
  std::size_t out_stride;
  uint32_t dst_limbs;
  const uint32_t* dst_primes;  // HOST, dst_limbs table rows
  uint32_t batch;
};

// The batch stride the kernels index with: the stride of a batch of one never matters (callers may
// pass anything there), so it is normalised to the contiguous one, `batch_words` (the words of one
// batch element), which keeps every kernel's index arithmetic consistent.
inline std::size_t kernel_batch_stride(std::size_t batch, std::size_t stride, std::size_t batch_words) {
  return batch == 1 ? batch_words : stride;
}

// The extension that rescale_ntt and mod_down_ntt (one P limb) run: x's last limb (limb dst_limbs
// of the dst_limbs + 1 per batch element, limb i on table row map.prime[i]) to its first dst_limbs
// limbs, through one scratch limb per batch element into out. Strides go through
// kernel_batch_stride; e.src_stride is x's. `map` must outlive the result (src_primes and
// dst_primes point into it). Throws Error(Argument) naming `where` for misaligned twiddle tables.
inline LimbExtension last_limb_extension(const char* where, const NttTablesView& ntt, const uint64_t* x,
                                         std::size_t x_batch_stride, uint64_t* scratch, std::size_t scratch_batch_stride,
                                         uint64_t* out, std::size_t out_batch_stride, std::size_t batch,
                                         uint32_t dst_limbs, const LimbMap& map) {
  require_aligned_twiddles(where, ntt.forward);
  require_aligned_twiddles(where, ntt.inverse);
  const std::size_t n = std::size_t{1} << ntt.log_n;
  LimbExtension e{};
  e.src = x + dst_limbs * n;
  e.src_stride = kernel_batch_stride(batch, x_batch_stride, (dst_limbs + 1) * n);
  e.src_limbs = 1;
  e.src_primes = map.prime + dst_limbs;
  e.scratch = scratch;
  e.scratch_stride = kernel_batch_stride(batch, scratch_batch_stride, n);
  e.out = out;
  e.out_stride = kernel_batch_stride(batch, out_batch_stride, dst_limbs * n);
  e.dst_limbs = dst_limbs;
  e.dst_primes = map.prime;
  e.batch = static_cast<uint32_t>(batch);
  return e;
}

// The transforms of an operation that turns a few limbs (in NTT form) into others in NTT form, as
// rescale_ntt and mod_down_ntt (one P limb) do: the inverse NTT of the source limbs into scratch,
// then the forward NTT of the destination limbs into out, with the elementwise steps between and
// after folded into the forward's loads and stores:
// - log_n >= 13 (four kernels): the forward's column phase loads through `forward_load` (which
//   reads scratch itself); its chunk phase stores through `finish`;
// - log_n <= 12 (three kernels): after the single-kernel inverse, `coefficient_step()` enqueues
//   the kernel that writes out's input in coefficient form from scratch; the single-kernel forward
//   stores through `finish`.
// Arguments checked by the caller. Throws Error(Cuda) when a launch fails.
template <typename ForwardLoad, typename Finish, typename CoefficientStep>
void run_limb_extension(const char* where, DeviceStream ds, const NttTablesView& ntt, const LimbExtension& e,
                        const ForwardLoad& forward_load, const Finish& finish, CoefficientStep coefficient_step) {
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  run_inverse(where,
              make_ntt_launch(ntt, false, e.src, e.src_stride, e.scratch, e.scratch_stride, e.src_limbs, e.src_primes),
              e.batch * e.src_limbs, ds.device, stream);
  const NttLaunch forward =
      make_ntt_launch(ntt, true, e.out, e.out_stride, e.out, e.out_stride, e.dst_limbs, e.dst_primes);
  const uint32_t forward_polys = e.batch * e.dst_limbs;
  if (ntt.log_n <= 12) {
    coefficient_step();
    check_launch(where);
    run_forward(where, forward, forward_polys, ds.device, stream, finish);
    return;
  }
  // The column phase does not read out: forward_load reads scratch itself.
  run_forward(where, forward, forward_polys, ds.device, stream, finish, forward_load);
}

}  // namespace
}  // namespace fhelium::cuda
