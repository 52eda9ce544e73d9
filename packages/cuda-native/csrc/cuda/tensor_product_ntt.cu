// The tensor product feeds the inverse transform of its last component: the inverse's first kernel
// (the chunk phase, or the whole transform for log_n <= 12) forms each input word a1·b1 itself and
// stores it on its way, and its side blocks form and store the product's other two components
// (TensorProductLoad), so the product is computed in that kernel and never read back.
#include "cuda/tensor_product_ntt.h"

#include <cuda_runtime.h>

#include "common/modarith.h"
#include "common/tensor_product_ntt_checks.h"
#include "cuda/launch_check.h"
#include "cuda/ntt_kernels.h"

namespace fhelium::cuda {
namespace {

// The inverse chunk phase's load, a split load with side rows (see is_split_load and
// has_side_rows): element j of limb `limb` is d2 = a1·b1, stored to `product` as it is formed;
// side row r (one per limb: the batch is one ciphertext pair) stores d0 = a0·b0 and
// d1 = a0·b1 + a1·b0 of limb r. With all three components formed in the load, the transform's
// threads took as long as the separate kernel had (H200, reports/gpu/2026-12-03T2231-*); now three
// of the four Barrett products per element are off their path.
struct TensorProductLoad {
  const uint64_t* a;  // [2][limbs][N]
  const uint64_t* b;
  uint64_t* product;        // [3][limbs][N]
  const Modulus* moduli;    // the NTT tables' moduli, indexed by table row
  std::size_t component;    // limbs * N: words between components
  uint32_t log_n;
  uint32_t side_rows;         // = limbs
  uint32_t prime[kMaxLimbs];  // table row of each limb

  __device__ __forceinline__ std::size_t at(uint32_t limb, uint32_t j) const {
    return (static_cast<std::size_t>(limb) << log_n) + j;
  }
  struct Operands {
    uint64_t a1, b1;
  };
  __device__ __forceinline__ Operands fetch(uint32_t, uint32_t limb, uint32_t j) const {
    const std::size_t k = at(limb, j);
    return {__ldg(a + component + k), __ldg(b + component + k)};
  }
  __device__ __forceinline__ uint64_t operator()(const Operands& in, uint32_t, uint32_t limb, uint32_t j) const {
    const uint64_t d2 = mul_mod(in.a1, in.b1, moduli[prime[limb]]);
    product[2 * component + at(limb, j)] = d2;
    return d2;
  }
  struct SideOperands {
    uint64_t a0, a1, b0, b1;
  };
  __device__ __forceinline__ SideOperands side_fetch(uint32_t limb, std::size_t j) const {
    const std::size_t k = at(limb, static_cast<uint32_t>(j));
    return {__ldg(a + k), __ldg(a + component + k), __ldg(b + k), __ldg(b + component + k)};
  }
  __device__ __forceinline__ void side(const SideOperands& in, uint32_t limb, std::size_t j) const {
    const std::size_t k = at(limb, static_cast<uint32_t>(j));
    const Modulus m = moduli[prime[limb]];
    product[k] = mul_mod(in.a0, in.b0, m);
    product[component + k] = add_mod(mul_mod(in.a0, in.b1, m), mul_mod(in.a1, in.b0, m), m.value);
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
  require_grid_y(where, 2 * limbs);  // the transform's rows, then as many side rows
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
  load.side_rows = polys;
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
