// The key-switching inner product (csrc/cpu/keyswitch.h, csrc/cuda/keyswitch.h). TypeScript
// (src/keyswitch.ts) validates before calling; the kernels' own checks are the backstop.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "cpu/keyswitch.h"

#if FHELIUM_WITH_CUDA
#include "cuda/keyswitch.h"
#endif

namespace fhelium::binding {
namespace {

// keyswitchInnerProduct(device, digits, numDigits, limbs, keys, limbToPrime: Uint32Array, moduli,
//                       numPrimes, logN, galoisElement: BigInt (1 = none), accumulate: boolean, out)
napi_value keyswitch_inner_product(Args& a) {
  const int dev = a.i32(0);
  const auto* digits = a.ptr<const uint64_t>(1);
  const auto num_digits = static_cast<std::size_t>(a.i64(2));
  const auto limbs = static_cast<std::size_t>(a.i64(3));
  const auto* keys = a.ptr<const uint64_t>(4);
  const auto map = kernels::typed_array<uint32_t>(a, 5, napi_uint32_array, "a Uint32Array limb map");
  FHELIUM_CHECK(map.length == limbs, Argument,
                "keyswitchInnerProduct: the limb map has " + std::to_string(map.length) + " entries for " +
                    std::to_string(limbs) + " limbs");
  const auto* moduli = a.ptr<const Modulus>(6);
  const auto num_primes = static_cast<std::size_t>(a.i64(7));
  const auto log_n = static_cast<uint32_t>(a.i32(8));
  const uint64_t galois_elt = a.u64(9);
  const bool accumulate = a.boolean(10);
  auto* out = a.ptr<uint64_t>(11);
  FHELIUM_RUN_ON_STREAM_LAST(dev, keyswitch_inner_product, digits, num_digits, limbs, keys, map.data, moduli,
                             num_primes, log_n, galois_elt, accumulate, out);
  return nullptr;
}
FHELIUM_BINDING("keyswitchInnerProduct", keyswitch_inner_product)

}  // namespace
}  // namespace fhelium::binding
