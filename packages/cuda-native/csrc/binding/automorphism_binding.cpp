// Galois automorphisms X -> X^g (csrc/cpu/automorphism.h, csrc/cuda/automorphism.h). TypeScript
// (src/automorphism.ts) validates before calling; the kernels' own checks are the backstop.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "cpu/automorphism.h"

#if FHELIUM_WITH_CUDA
#include "cuda/automorphism.h"
#endif

namespace fhelium::binding {
namespace {

// automorphismNtt(device, in, out, batch, limbs, logN, galoisElement: BigInt)
napi_value automorphism_ntt(Args& a) {
  const int dev = a.i32(0);
  const auto* in = a.ptr<const uint64_t>(1);
  auto* out = a.ptr<uint64_t>(2);
  const auto batch = static_cast<std::size_t>(a.i64(3));
  const auto limbs = static_cast<std::size_t>(a.i64(4));
  const auto log_n = static_cast<uint32_t>(a.i32(5));
  const uint64_t g = a.u64(6);
  FHELIUM_RUN_ON_STREAM_LAST(dev, automorphism_ntt, in, out, batch, limbs, log_n, g);
  return nullptr;
}
FHELIUM_BINDING("automorphismNtt", automorphism_ntt)

// automorphismCoeff(device, in, out, batch, limbs, logN, galoisElement: BigInt,
//                   limbToPrime: Uint32Array, moduli, numPrimes)
napi_value automorphism_coeff(Args& a) {
  const int dev = a.i32(0);
  const auto* in = a.ptr<const uint64_t>(1);
  auto* out = a.ptr<uint64_t>(2);
  const auto batch = static_cast<std::size_t>(a.i64(3));
  const auto limbs = static_cast<std::size_t>(a.i64(4));
  const auto log_n = static_cast<uint32_t>(a.i32(5));
  const uint64_t g = a.u64(6);
  const auto map = kernels::typed_array<uint32_t>(a, 7, napi_uint32_array, "a Uint32Array limb map");
  FHELIUM_CHECK(map.length == limbs, Argument,
                "automorphismCoeff: the limb map has " + std::to_string(map.length) + " entries for " +
                    std::to_string(limbs) + " limbs");
  const auto* moduli = a.ptr<const Modulus>(8);
  const auto num_primes = static_cast<std::size_t>(a.i64(9));
  FHELIUM_RUN_ON_STREAM_LAST(dev, automorphism_coeff, in, out, batch, limbs, log_n, g, map.data, moduli, num_primes);
  return nullptr;
}
FHELIUM_BINDING("automorphismCoeff", automorphism_coeff)

}  // namespace
}  // namespace fhelium::binding
