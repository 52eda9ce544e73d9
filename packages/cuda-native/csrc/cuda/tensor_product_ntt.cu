// The tensor product feeds the inverse transform of its last component: the inverse's first kernel
// (the chunk phase, or the whole transform for log_n <= 12) forms each input word a1·b1 itself,
// and writes the three product words of that position on its way (TensorProductLoad), so the
// product is read from a and b once and never read back.
#include "cuda/tensor_product_ntt.h"

#include <cuda_runtime.h>

#include "common/modarith.h"
#include "common/tensor_product_ntt_checks.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_kernels.h"

namespace fhelium::cuda {
namespace {

// The inverse chunk phase's load (a split load, see is_split_load): element j of limb `limb` is
// d2 = a1·b1; d0, d1 and d2 are stored to `product` at the same position.
struct TensorProductLoad {
  const uint64_t* a;  // [2][limbs][N]
  const uint64_t* b;
  uint64_t* product;        // [3][limbs][N]
  const Modulus* moduli;    // the NTT tables' moduli, indexed by table row
  std::size_t component;    // limbs * N: words between components
  uint32_t log_n;
  uint32_t prime[kMaxLimbs];  // table row of each limb

  struct Operands {
    uint64_t a0, a1, b0, b1;
  };
  __device__ __forceinline__ std::size_t at(uint32_t limb, uint32_t j) const {
    return (static_cast<std::size_t>(limb) << log_n) + j;
  }
  __device__ __forceinline__ Operands fetch(uint32_t, uint32_t limb, uint32_t j) const {
    const std::size_t k = at(limb, j);
    return {__ldg(a + k), __ldg(a + component + k), __ldg(b + k), __ldg(b + component + k)};
  }
  __device__ __forceinline__ uint64_t operator()(const Operands& in, uint32_t, uint32_t limb, uint32_t j) const {
    const std::size_t k = at(limb, j);
    const Modulus m = moduli[prime[limb]];
    const uint64_t d2 = mul_mod(in.a1, in.b1, m);
    product[k] = mul_mod(in.a0, in.b0, m);
    product[component + k] = add_mod(mul_mod(in.a0, in.b1, m), mul_mod(in.a1, in.b0, m), m.value);
    product[2 * component + k] = d2;
    return d2;
  }
};
static_assert(sizeof(NttLaunch) + sizeof(TensorProductLoad) <= 4096, "chunk launch parameters exceed 4 KiB");

}  // namespace

void tensor_product_inverse_ntt(DeviceStream ds, const uint64_t* a, const uint64_t* b, uint64_t* product,
                                uint64_t* coefficients, std::size_t limbs, const uint32_t* limb_to_prime,
                                const NttTablesView& tables) {
  const char* where = "cuda::tensor_product_inverse_ntt";
  const LimbMap map =
      check_tensor_product_inverse_ntt(where, a, b, product, coefficients, limbs, limb_to_prime, tables);
  require_grid_y(where, limbs);
  require_aligned_twiddles(where, tables.inverse);
  const uint32_t log_n = tables.log_n;
  const std::size_t poly = limbs << log_n;
  const uint32_t polys = static_cast<uint32_t>(limbs);
  const int device = ds.device;
  const auto stream = static_cast<cudaStream_t>(ds.stream);
  TensorProductLoad load{};
  load.a = a;
  load.b = b;
  load.product = product;
  load.moduli = tables.moduli;
  load.component = poly;
  load.log_n = log_n;
  for (std::size_t l = 0; l < limbs; ++l) load.prime[l] = map.prime[l];
  // `src` (product's last component) is not read by the first kernel: the load forms it.
  NttLaunch p = make_ntt_launch(tables, false, product + 2 * poly, poly, coefficients, poly, polys, map.prime);
  if (log_n <= 12) {
    dispatch_chunks<false>(log_n, true, p, polys, device, stream, PlainStore{}, load);
    check_launch(where);
    return;
  }
  dispatch_chunks<false>(chunk_log(log_n), false, p, polys, device, stream, PlainStore{}, load);
  check_launch(where);
  p.src = coefficients;
  dispatch_columns<false>(column_log(log_n), p, polys, device, stream);
  check_launch(where);
}

}  // namespace fhelium::cuda
