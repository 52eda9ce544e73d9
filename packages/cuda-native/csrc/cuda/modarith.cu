#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>

#include "common/modarith.h"
#include "common/modarith_operand.h"
#include "cuda/cuda_check.h"
#include "cuda/dependent_launch.h"
#include "cuda/device_context.h"
#include "cuda/launch_check.h"
#include "cuda/modarith_kernels.h"

namespace fhelium::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxGridY = 65535;
// Blocks per launch to aim for: 16 per SM of an H100/H200 (2 resident rounds of 8). One element per
// thread at N = 2^16 made 256 blocks per row (12,288 for a 2-component ciphertext at 24 limbs),
// and scheduling that many short blocks, not memory, bounded the kernels.
constexpr int64_t kTargetBlocks = 132 * 16;

// Grid: x over the n coefficients of a row, y over rows (batch * limbs), both grid-strided so any
// size works. Row r is batch element r / limbs, limb r % limbs, and uses moduli[r % limbs].
struct RowGrid {
  dim3 grid;
  dim3 block;
};

RowGrid row_grid(int64_t rows, int64_t n) {
  const int64_t by = rows < kMaxGridY ? rows : kMaxGridY;
  const int64_t per_row = (n + kThreads - 1) / kThreads;  // one element per thread
  const int64_t budget = (kTargetBlocks + by - 1) / by;   // x-blocks per row within the target
  const int64_t bx = per_row < budget ? per_row : budget;
  return RowGrid{dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)), dim3(kThreads)};
}

// Where an element is: batch element, limb, the row's first word in a [batch, limbs, n] operand.
struct RowIndex {
  int64_t batch;
  int64_t limb;
  int64_t base;
};

template <typename Op>
__global__ void rows_kernel(Op op, const Modulus* moduli, int64_t rows, int64_t limbs, int64_t n) {
  wait_for_producers();
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const RowIndex row{r / limbs, r % limbs, r * n};
    const Modulus m = moduli[row.limb];
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      op(m, row, i, n);
    }
  }
}

struct NegOp {
  uint64_t* out;
  const uint64_t* a;
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t) const {
    out[row.base + i] = fhelium::neg_mod(a[row.base + i], m.value);
  }
};
struct MulShoupOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* w;
  const uint64_t* w_shoup;
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t n) const {
    const int64_t wi = row.limb * n + i;
    out[row.base + i] = fhelium::mul_mod_shoup(a[row.base + i], w[wi], w_shoup[wi], m.value);
  }
};
// Launched with batch 1: row.base = limb * n indexes each [limbs, n] block.
struct PolyEvalOp {
  uint64_t* out;
  const uint64_t* coefficients;
  int64_t k;
  const uint64_t* x;
  int64_t block;  // limbs * n: words between consecutive coefficients
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t) const {
    const int64_t j = row.base + i;
    out[j] = fhelium::poly_eval_mod(coefficients + j, block, k, x[j], m);
  }
};
struct TensorProductOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* b;
  int64_t block;  // limbs * n: words between consecutive components
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t) const {
    const int64_t j = row.base + i;
    fhelium::tensor_product_mod(out + j, a + j, b + j, block, m);
  }
};

// ── Binary ops (add, sub, mul with a batched operand): the hot path of the engine ──────────
// One kernel per op like the rest, but shaped for memory parallelism: each thread issues the
// loads of kUnroll elements (a and b) before computing any of them, indices are 32-bit, and the
// grid gives a thread several elements of a row. The generic rows_kernel above computes one
// element per iteration through the op's own loads and stores, so a thread had one pair of
// loads in flight: Nsight Compute measured it at 41% of DRAM bandwidth (mulMod, [2, 24, 2^16]),
// latency-bound, with 54 registers per thread.

struct AddFn {
  __device__ __forceinline__ uint64_t operator()(uint64_t x, uint64_t y, const Modulus& m) const {
    return fhelium::add_mod(x, y, m.value);
  }
};
struct SubFn {
  __device__ __forceinline__ uint64_t operator()(uint64_t x, uint64_t y, const Modulus& m) const {
    return fhelium::sub_mod(x, y, m.value);
  }
};
struct MulFn {
  __device__ __forceinline__ uint64_t operator()(uint64_t x, uint64_t y, const Modulus& m) const {
    return fhelium::mul_mod(x, y, m);
  }
};

constexpr uint32_t kUnroll = 4;

// Rows r = batch * limbs + limb of n words; b's row is BatchedOperand::row (nullptr reads zero).
// Preconditions (checked by the launcher): rows * n < 2^32, gridDim.y <= 65535.
template <typename F>
__global__ void binary_rows_kernel(F f, uint64_t* out, const uint64_t* a, const uint64_t* b_data, uint32_t b_count,
                                   uint32_t b_stride, const Modulus* moduli, uint32_t rows, uint32_t limbs, uint32_t n) {
  wait_for_producers();
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const uint32_t batch = r / limbs;
    const uint32_t limb = r - batch * limbs;
    const Modulus m = moduli[limb];
    const uint32_t base = r * n;
    const uint64_t* x = a + base;
    const uint64_t* y = batch < b_count ? b_data + batch * b_stride + limb * n : nullptr;
    uint64_t* o = out + base;
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (y != nullptr) {
      for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
        uint64_t xv[kUnroll], yv[kUnroll];
#pragma unroll
        for (uint32_t k = 0; k < kUnroll; ++k) {
          xv[k] = x[i + k * stride];
          yv[k] = y[i + k * stride];
        }
#pragma unroll
        for (uint32_t k = 0; k < kUnroll; ++k) o[i + k * stride] = f(xv[k], yv[k], m);
      }
      for (; i < n; i += stride) o[i] = f(x[i], y[i], m);
    } else {
      for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
        uint64_t xv[kUnroll];
#pragma unroll
        for (uint32_t k = 0; k < kUnroll; ++k) xv[k] = x[i + k * stride];
#pragma unroll
        for (uint32_t k = 0; k < kUnroll; ++k) o[i + k * stride] = f(xv[k], 0, m);
      }
      for (; i < n; i += stride) o[i] = f(x[i], 0, m);
    }
  }
}

// Threads per block and blocks per row: about kUnroll elements per thread on large inputs, but
// never fewer threads than about eight blocks per SM would keep busy, and small blocks for tiny rows (a
// one-element kernel in a graph then costs one warp, not eight).
RowGrid binary_grid(int64_t rows, int64_t n) {
  const int64_t threads = n >= kThreads ? kThreads : ((n + 31) / 32) * 32;
  const int64_t by = rows < kMaxGridY ? rows : kMaxGridY;
  const int64_t per_row = (n + threads - 1) / threads;                     // one element per thread
  const int64_t unrolled = (n + threads * kUnroll - 1) / (threads * kUnroll);  // kUnroll per thread
  // At least ~8 blocks per SM (132 SMs) when there is the work: Nsight Compute on the H200 showed
  // the n14-l7 add ([2, 8, 2^14]) at 23% occupancy with 2 blocks per SM.
  const int64_t floor_blocks = (8 * 132 + by - 1) / by;
  int64_t bx = unrolled > floor_blocks ? unrolled : floor_blocks;
  const int64_t budget = (kTargetBlocks + by - 1) / by;
  if (bx > budget) bx = budget;
  if (bx > per_row) bx = per_row;
  if (bx < 1) bx = 1;
  return RowGrid{dim3(static_cast<unsigned>(bx), static_cast<unsigned>(by)), dim3(static_cast<unsigned>(threads))};
}

// ── The paired form of the binary ops: rows of an even length with 16-byte aligned operands ──
// Nsight Compute on the H200 (multiplyPlain, [2, 16, 2^15] times a [16, 2^15] plaintext) showed
// binary_rows_kernel at 1.33 waves with a serial tail: its grid was sized for kUnroll elements per
// thread but 33 blocks per row left most threads with 3 elements, done one at a time. This form
// reads two words per 16-byte load, gives every thread exactly kPairs pairs of a row per tile with
// all loads issued before any arithmetic, and picks kPairs so that the whole grid is resident at
// once (one wave) when the input allows it.

constexpr int kPairThreads = 256;

// Rows as in binary_rows_kernel; a row holds n / 2 pairs. Tile t of a row covers pairs
// [t * kPairThreads * kPairs, (t + 1) * kPairThreads * kPairs); thread k of the block handles pairs
// tile_base + k + j * kPairThreads (j < kPairs), so every load instruction of a warp covers 512
// contiguous bytes. Preconditions (checked by the launcher): n even, every row start and b's batch
// stride 16-byte aligned, rows * n < 2^32, gridDim.y <= 65535.
template <typename F, uint32_t kPairs>
__global__ void __launch_bounds__(kPairThreads) binary_pairs_kernel(F f, ulonglong2* out, const ulonglong2* a,
                                                                    const uint64_t* b_data, uint32_t b_count,
                                                                    uint32_t b_stride, const Modulus* moduli,
                                                                    uint32_t rows, uint32_t limbs, uint32_t n) {
  wait_for_producers();
  const uint32_t pairs = n / 2;
  const uint32_t tile = kPairThreads * kPairs;
  for (uint32_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const uint32_t batch = r / limbs;
    const uint32_t limb = r - batch * limbs;
    const Modulus m = moduli[limb];
    const ulonglong2* x = a + r * pairs;
    const ulonglong2* y =
        batch < b_count ? reinterpret_cast<const ulonglong2*>(b_data + batch * b_stride + limb * n) : nullptr;
    ulonglong2* o = out + r * pairs;
    for (uint32_t base = blockIdx.x * tile; base < pairs; base += gridDim.x * tile) {
      ulonglong2 xv[kPairs];
      ulonglong2 yv[kPairs];
#pragma unroll
      for (uint32_t j = 0; j < kPairs; ++j) {
        const uint32_t i = base + threadIdx.x + j * kPairThreads;
        if (i < pairs) {
          xv[j] = x[i];
          yv[j] = y != nullptr ? y[i] : make_ulonglong2(0, 0);
        }
      }
#pragma unroll
      for (uint32_t j = 0; j < kPairs; ++j) {
        const uint32_t i = base + threadIdx.x + j * kPairThreads;
        if (i < pairs) o[i] = make_ulonglong2(f(xv[j].x, yv[j].x, m), f(xv[j].y, yv[j].y, m));
      }
    }
  }
}

// Blocks of binary_pairs_kernel<F, kPairs> resident at once on `device` (SMs times blocks per SM),
// queried once per device and instantiation. Throws Error(Cuda) if the queries fail.
template <typename F, uint32_t kPairs>
int64_t pair_kernel_capacity(int device) {
  static std::atomic<int64_t> cache[kMaxDevices] = {};
  const bool cached = device >= 0 && device < kMaxDevices;
  if (cached) {
    const int64_t known = cache[device].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int sms = 0;
  int per_sm = 0;
  FHELIUM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  FHELIUM_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, binary_pairs_kernel<F, kPairs>, kPairThreads, 0));
  const int64_t capacity = std::max<int64_t>(1, static_cast<int64_t>(sms) * per_sm);
  if (cached) cache[device].store(capacity, std::memory_order_relaxed);
  return capacity;
}

template <typename F, uint32_t kPairs>
void launch_pairs(DeviceStream ds, F f, uint64_t* out, const uint64_t* a, BatchedOperand b, uint32_t count,
                  const Modulus* moduli, int64_t rows, int64_t limbs, int64_t n, int64_t tiles_per_row) {
  const int64_t by = rows < kMaxGridY ? rows : kMaxGridY;
  launch_dependent(binary_pairs_kernel<F, kPairs>,
      dim3(static_cast<unsigned>(tiles_per_row), static_cast<unsigned>(by)), dim3(kPairThreads), 0,
      static_cast<cudaStream_t>(ds.stream), f, reinterpret_cast<ulonglong2*>(out),
      reinterpret_cast<const ulonglong2*>(a), b.data, count, static_cast<uint32_t>(b.batch_stride), moduli,
      static_cast<uint32_t>(rows), static_cast<uint32_t>(limbs), static_cast<uint32_t>(n));
}

// The fewest pairs per thread (1, 2 or 4) whose grid fits in one wave; beyond that, 4 pairs per
// thread and as many tiles per row as the device holds, each thread looping over later tiles.
template <typename F>
void launch_binary_pairs(DeviceStream ds, F f, uint64_t* out, const uint64_t* a, BatchedOperand b, uint32_t count,
                         const Modulus* moduli, int64_t rows, int64_t limbs, int64_t n) {
  const int64_t pairs = n / 2;
  const int64_t by = rows < kMaxGridY ? rows : kMaxGridY;
  const auto tiles = [&](int64_t per_thread) { return (pairs + kPairThreads * per_thread - 1) / (kPairThreads * per_thread); };
  if (tiles(1) * by <= pair_kernel_capacity<F, 1>(ds.device)) {
    launch_pairs<F, 1>(ds, f, out, a, b, count, moduli, rows, limbs, n, tiles(1));
  } else if (tiles(2) * by <= pair_kernel_capacity<F, 2>(ds.device)) {
    launch_pairs<F, 2>(ds, f, out, a, b, count, moduli, rows, limbs, n, tiles(2));
  } else {
    const int64_t fit = std::max<int64_t>(1, pair_kernel_capacity<F, 4>(ds.device) / by);
    launch_pairs<F, 4>(ds, f, out, a, b, count, moduli, rows, limbs, n, std::min(tiles(4), fit));
  }
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

template <typename F>
void launch_binary(DeviceStream ds, F f, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
                   int64_t batch, int64_t limbs, int64_t n) {
  const int64_t rows = batch * limbs;
  if (rows == 0 || n == 0) return;
  // 32-bit indices: a tensor of 2^32 words (32 GiB) is beyond any CKKS operand; b's offsets are
  // below a's size (its rows have a's length and it has at most a's batch).
  require_argument(rows * n < (int64_t{1} << 32) && n < (int64_t{1} << 28) && b.batch_stride >= 0 &&
                       b.batch_stride * batch < (int64_t{1} << 32),
                   "cuda::modarith", "operands of fewer than 2^32 words, rows of fewer than 2^28",
                   std::to_string(rows) + " rows of " + std::to_string(n) + " words");
  const uint32_t count = b.count < batch ? static_cast<uint32_t>(b.count > 0 ? b.count : 0) : static_cast<uint32_t>(batch);
  // Rows shorter than a block's 512 words would leave most of its threads idle: those keep the
  // word-wise kernel, which sizes its blocks to the row.
  const bool paired = n % 2 == 0 && n >= 2 * kPairThreads && aligned16(out) && aligned16(a) &&
                      (count == 0 || (aligned16(b.data) && b.batch_stride % 2 == 0));
  if (paired) {
    launch_binary_pairs(ds, f, out, a, b, count, moduli, rows, limbs, n);
  } else {
    const RowGrid g = binary_grid(rows, n);
    launch_dependent(binary_rows_kernel<F>, g.grid, g.block, 0, static_cast<cudaStream_t>(ds.stream), f, out,
        a, b.data, count, static_cast<uint32_t>(b.batch_stride), moduli, static_cast<uint32_t>(rows),
        static_cast<uint32_t>(limbs), static_cast<uint32_t>(n));
  }
  check_launch("cuda::modarith");
}

template <typename Op>
void launch(DeviceStream ds, Op op, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  const int64_t rows = batch * limbs;
  if (rows == 0 || n == 0) return;
  const RowGrid g = row_grid(rows, n);
  launch_dependent(rows_kernel<Op>, g.grid, g.block, 0, static_cast<cudaStream_t>(ds.stream), op, moduli,
      rows, limbs, n);
  FHELIUM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch_binary(ds, AddFn{}, out, a, b, moduli, batch, limbs, n);
}

void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch_binary(ds, SubFn{}, out, a, b, moduli, batch, limbs, n);
}

void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  launch(ds, NegOp{out, a}, moduli, batch, limbs, n);
}

void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch_binary(ds, MulFn{}, out, a, b, moduli, batch, limbs, n);
}

void mul_mod_shoup(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, MulShoupOp{out, a, w, w_shoup}, moduli, batch, limbs, n);
}

void poly_eval_mod(DeviceStream ds, uint64_t* out, const uint64_t* coefficients, int64_t k, const uint64_t* x,
                   const Modulus* moduli, int64_t limbs, int64_t n) {
  if (k <= 0) return;
  launch(ds, PolyEvalOp{out, coefficients, k, x, limbs * n}, moduli, 1, limbs, n);
}

void tensor_product_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
                        int64_t limbs, int64_t n) {
  launch(ds, TensorProductOp{out, a, b, limbs * n}, moduli, 1, limbs, n);
}

}  // namespace fhelium::cuda
