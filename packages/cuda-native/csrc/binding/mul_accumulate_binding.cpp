// The multiply-accumulate of several operand pairs (csrc/cpu/mul_accumulate.h,
// csrc/cuda/mul_accumulate.h). TypeScript (src/mul-accumulate.ts) validates before calling; the
// kernels' own checks are the backstop.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "cpu/mul_accumulate.h"

#if FHELIUM_WITH_CUDA
#include "cuda/mul_accumulate.h"
#endif

namespace fhelium::binding {
namespace {

// mulAccumulateMod(device, out, a: BigUint64Array of pointers, b: BigUint64Array of pointers, moduli,
//                  batch, limbs, n, galoisElement: BigInt (1 = none), accumulate: boolean)
napi_value mul_accumulate_mod(Args& a) {
  const int dev = a.i32(0);
  auto* out = a.ptr<uint64_t>(1);
  const auto as = kernels::typed_array<uint64_t>(a, 2, napi_biguint64_array, "a BigUint64Array of operand pointers");
  const auto bs = kernels::typed_array<uint64_t>(a, 3, napi_biguint64_array, "a BigUint64Array of operand pointers");
  FHELIUM_CHECK(as.length == bs.length && as.length >= 1 && as.length <= kMulAccumulateMaxTerms, Argument,
                "mulAccumulateMod: expected 1 to " + std::to_string(kMulAccumulateMaxTerms) +
                    " pointers in each of a and b, got " + std::to_string(as.length) + " and " +
                    std::to_string(bs.length));
  MulAccumulateTerms terms{};
  for (std::size_t i = 0; i < as.length; ++i) {
    terms.a[i] = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(as.data[i]));
    terms.b[i] = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(bs.data[i]));
  }
  auto* moduli = a.ptr<const Modulus>(4);
  const int64_t batch = a.i64(5), limbs = a.i64(6), n = a.i64(7);
  const uint64_t galois_elt = a.u64(8);
  const bool accumulate = a.boolean(9);
  FHELIUM_RUN_ON(dev, mul_accumulate_mod, out, terms, as.length, moduli, batch, limbs, n, galois_elt, accumulate);
  return nullptr;
}
FHELIUM_BINDING("mulAccumulateMod", mul_accumulate_mod)

}  // namespace
}  // namespace fhelium::binding
