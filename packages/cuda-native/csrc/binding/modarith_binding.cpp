// Element-wise modular arithmetic on uint64 RNS limbs (csrc/cpu/modarith.cpp,
// csrc/cuda/modarith.cu). Arguments: device (-1 CPU), raw pointers as BigInt, sizes as Numbers;
// TypeScript (src/modarith.ts) validates shapes, dtypes, devices, contiguity and overlaps before
// calling.
#include "binding/binding.h"
#include "cpu/modarith_kernels.h"

#if FHELIUM_WITH_CUDA
#include "cuda/modarith_kernels.h"
#endif

namespace fhelium::binding {
namespace {

// addMod / subMod / mulMod(device, out, a, b, bCount, bBatchStride, moduli, batch, limbs, n): b is
// read per batch element of a (common/modarith_operand.h): bBatchStride words apart, 0 to
// broadcast, zero from element bCount on.
struct BinaryArgs {
  int dev;
  uint64_t* out;
  const uint64_t* x;
  BatchedOperand y;
  const Modulus* moduli;
  int64_t batch, limbs, n;

  explicit BinaryArgs(const Args& a)
      : dev(a.i32(0)),
        out(a.ptr<uint64_t>(1)),
        x(a.ptr<const uint64_t>(2)),
        y{a.ptr<const uint64_t>(3), a.i64(4), a.i64(5)},
        moduli(a.ptr<const Modulus>(6)),
        batch(a.i64(7)),
        limbs(a.i64(8)),
        n(a.i64(9)) {}
};

napi_value add_mod(Args& a) {
  const BinaryArgs b(a);
  FHELIUM_RUN_ON(b.dev, add_mod, b.out, b.x, b.y, b.moduli, b.batch, b.limbs, b.n);
  return nullptr;
}
FHELIUM_BINDING("addMod", add_mod)

napi_value sub_mod(Args& a) {
  const BinaryArgs b(a);
  FHELIUM_RUN_ON(b.dev, sub_mod, b.out, b.x, b.y, b.moduli, b.batch, b.limbs, b.n);
  return nullptr;
}
FHELIUM_BINDING("subMod", sub_mod)

napi_value mul_mod(Args& a) {
  const BinaryArgs b(a);
  FHELIUM_RUN_ON(b.dev, mul_mod, b.out, b.x, b.y, b.moduli, b.batch, b.limbs, b.n);
  return nullptr;
}
FHELIUM_BINDING("mulMod", mul_mod)

// negMod(device, out, a, moduli, batch, limbs, n)
napi_value neg_mod(Args& a) {
  const int dev = a.i32(0);
  auto* out = a.ptr<uint64_t>(1);
  auto* x = a.ptr<const uint64_t>(2);
  auto* moduli = a.ptr<const Modulus>(3);
  const int64_t batch = a.i64(4), limbs = a.i64(5), n = a.i64(6);
  FHELIUM_RUN_ON(dev, neg_mod, out, x, moduli, batch, limbs, n);
  return nullptr;
}
FHELIUM_BINDING("negMod", neg_mod)

// mulModShoup(device, out, a, w, wShoup, moduli, batch, limbs, n)
napi_value mul_mod_shoup(Args& a) {
  const int dev = a.i32(0);
  auto* out = a.ptr<uint64_t>(1);
  auto* x = a.ptr<const uint64_t>(2);
  auto* w = a.ptr<const uint64_t>(3);
  auto* ws = a.ptr<const uint64_t>(4);
  auto* moduli = a.ptr<const Modulus>(5);
  const int64_t batch = a.i64(6), limbs = a.i64(7), n = a.i64(8);
  FHELIUM_RUN_ON(dev, mul_mod_shoup, out, x, w, ws, moduli, batch, limbs, n);
  return nullptr;
}
FHELIUM_BINDING("mulModShoup", mul_mod_shoup)

// shoupPrecompute(device, out, w, moduli, limbs, n): host only (128-bit division).
napi_value shoup_precompute(Args& a) {
  const int dev = a.i32(0);
  FHELIUM_CHECK(dev == kCpuDevice, Argument, "shoupPrecompute runs on CPU tensors only");
  cpu::shoup_precompute(a.ptr<uint64_t>(1), a.ptr<const uint64_t>(2), a.ptr<const Modulus>(3), a.i64(4), a.i64(5));
  return nullptr;
}
FHELIUM_BINDING("shoupPrecompute", shoup_precompute)

// polyEvalMod(device, out, coefficients, k, x, moduli, limbs, n)
napi_value poly_eval_mod(Args& a) {
  const int dev = a.i32(0);
  auto* out = a.ptr<uint64_t>(1);
  auto* coefficients = a.ptr<const uint64_t>(2);
  const int64_t k = a.i64(3);
  auto* x = a.ptr<const uint64_t>(4);
  auto* moduli = a.ptr<const Modulus>(5);
  const int64_t limbs = a.i64(6), n = a.i64(7);
  FHELIUM_RUN_ON(dev, poly_eval_mod, out, coefficients, k, x, moduli, limbs, n);
  return nullptr;
}
FHELIUM_BINDING("polyEvalMod", poly_eval_mod)

// tensorProductMod(device, out, a, b, moduli, limbs, n)
napi_value tensor_product_mod(Args& a) {
  const int dev = a.i32(0);
  auto* out = a.ptr<uint64_t>(1);
  auto* x = a.ptr<const uint64_t>(2);
  auto* y = a.ptr<const uint64_t>(3);
  auto* moduli = a.ptr<const Modulus>(4);
  const int64_t limbs = a.i64(5), n = a.i64(6);
  FHELIUM_RUN_ON(dev, tensor_product_mod, out, x, y, moduli, limbs, n);
  return nullptr;
}
FHELIUM_BINDING("tensorProductMod", tensor_product_mod)

}  // namespace
}  // namespace fhelium::binding
