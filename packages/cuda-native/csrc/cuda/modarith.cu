#include <cuda_runtime.h>

#include "common/modarith.h"
#include "cuda/cuda_check.h"
#include "cuda/modarith_kernels.h"

namespace fhelium::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxGridY = 65535;

// Grid: x over the n coefficients of a row, y over rows (batch * limbs), both grid-strided so any
// size works. Row r uses moduli[r % limbs]; w operands are indexed by (limb, coefficient).
struct RowGrid {
  dim3 grid;
  dim3 block;
};

RowGrid row_grid(int64_t rows, int64_t n) {
  const int64_t bx = (n + kThreads - 1) / kThreads;
  const int64_t by = rows < kMaxGridY ? rows : kMaxGridY;
  return RowGrid{dim3(static_cast<unsigned>(bx < 65535 * 64 ? bx : 65535 * 64), static_cast<unsigned>(by)),
                 dim3(kThreads)};
}

template <typename Op>
__global__ void rows_kernel(Op op, const Modulus* moduli, int64_t rows, int64_t limbs, int64_t n) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const int64_t limb = r % limbs;
    const Modulus m = moduli[limb];
    const int64_t base = r * n;
    const int64_t wbase = limb * n;
    for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
      op(m, base + i, wbase + i);
    }
  }
}

struct AddOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* b;
  __device__ void operator()(const Modulus& m, int64_t i, int64_t) const { out[i] = fhelium::add_mod(a[i], b[i], m.value); }
};
struct SubOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* b;
  __device__ void operator()(const Modulus& m, int64_t i, int64_t) const { out[i] = fhelium::sub_mod(a[i], b[i], m.value); }
};
struct NegOp {
  uint64_t* out;
  const uint64_t* a;
  __device__ void operator()(const Modulus& m, int64_t i, int64_t) const { out[i] = fhelium::neg_mod(a[i], m.value); }
};
struct MulOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* b;
  __device__ void operator()(const Modulus& m, int64_t i, int64_t) const { out[i] = fhelium::mul_mod(a[i], b[i], m); }
};
struct MulShoupOp {
  uint64_t* out;
  const uint64_t* a;
  const uint64_t* w;
  const uint64_t* w_shoup;
  __device__ void operator()(const Modulus& m, int64_t i, int64_t wi) const {
    out[i] = fhelium::mul_mod_shoup(a[i], w[wi], w_shoup[wi], m.value);
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

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, AddOp{out, a, b}, moduli, batch, limbs, n);
}

void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, SubOp{out, a, b}, moduli, batch, limbs, n);
}

void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  launch(ds, NegOp{out, a}, moduli, batch, limbs, n);
}

void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, MulOp{out, a, b}, moduli, batch, limbs, n);
}

void mul_mod_shoup(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  launch(ds, MulShoupOp{out, a, w, w_shoup}, moduli, batch, limbs, n);
}

}  // namespace fhelium::cuda
