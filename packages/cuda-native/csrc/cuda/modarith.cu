#include <cuda_runtime.h>

#include "common/modarith.h"
#include "common/modarith_operand.h"
#include "cuda/cuda_check.h"
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
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const RowIndex row{r / limbs, r % limbs, r * n};
    const Modulus m = moduli[row.limb];
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      op(m, row, i, n);
    }
  }
}

// The second operand's word for (row, i): zero where it has no batch element (zero extension).
__device__ __forceinline__ uint64_t operand_at(const BatchedOperand& b, const RowIndex& row, int64_t i, int64_t n) {
  const uint64_t* y = b.row(row.batch, row.limb, n);
  return y != nullptr ? y[i] : 0;
}

struct AddOp {
  uint64_t* out;
  const uint64_t* a;
  BatchedOperand b;
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t n) const {
    out[row.base + i] = fhelium::add_mod(a[row.base + i], operand_at(b, row, i, n), m.value);
  }
};
struct SubOp {
  uint64_t* out;
  const uint64_t* a;
  BatchedOperand b;
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t n) const {
    out[row.base + i] = fhelium::sub_mod(a[row.base + i], operand_at(b, row, i, n), m.value);
  }
};
struct MulOp {
  uint64_t* out;
  const uint64_t* a;
  BatchedOperand b;
  __device__ void operator()(const Modulus& m, const RowIndex& row, int64_t i, int64_t n) const {
    out[row.base + i] = fhelium::mul_mod(a[row.base + i], operand_at(b, row, i, n), m);
  }
};
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

template <typename Op>
void launch(DeviceStream ds, Op op, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  const int64_t rows = batch * limbs;
  if (rows == 0 || n == 0) return;
  const RowGrid g = row_grid(rows, n);
  rows_kernel<Op><<<g.grid, g.block, 0, static_cast<cudaStream_t>(ds.stream)>>>(op, moduli, rows, limbs, n);
  FHELIUM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, AddOp{out, a, b}, moduli, batch, limbs, n);
}

void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, SubOp{out, a, b}, moduli, batch, limbs, n);
}

void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  launch(ds, NegOp{out, a}, moduli, batch, limbs, n);
}

void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, MulOp{out, a, b}, moduli, batch, limbs, n);
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
