// The tensor product with the inverse NTT of its last component (csrc/cpu/tensor_product_ntt.h,
// csrc/cuda/tensor_product_ntt.h). TypeScript (src/tensor-product-ntt.ts) validates before
// calling; the kernels' own checks are the backstop.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/ntt_layout.h"
#include "cpu/tensor_product_ntt.h"

#if FHELIUM_WITH_CUDA
#include "cuda/tensor_product_ntt.h"
#endif

namespace fhelium::binding {
namespace {

// tensorProductInverseNtt(device, layout, tablesPtr, tablesWords, a, b, product, coefficients,
//                         limbs, limbToPrime: Uint32Array)
napi_value tensor_product_inverse_ntt(Args& a) {
  const int dev = a.i32(0);
  const NttTablesView view = kernels::ntt_view(a, 1, 2, 3);
  const auto* x = a.ptr<const uint64_t>(4);
  const auto* y = a.ptr<const uint64_t>(5);
  auto* product = a.ptr<uint64_t>(6);
  auto* coefficients = a.ptr<uint64_t>(7);
  const auto limbs = static_cast<std::size_t>(a.i64(8));
  const auto map = kernels::typed_array<uint32_t>(a, 9, napi_uint32_array, "a Uint32Array limb map");
  FHELIUM_CHECK(map.length == limbs, Argument,
                "tensorProductInverseNtt: the limb map has " + std::to_string(map.length) + " entries for " +
                    std::to_string(limbs) + " limbs");
  FHELIUM_RUN_ON(dev, tensor_product_inverse_ntt, x, y, product, coefficients, limbs, map.data, view);
  return nullptr;
}
FHELIUM_BINDING("tensorProductInverseNtt", tensor_product_inverse_ntt)

}  // namespace
}  // namespace fhelium::binding
