// Forward and inverse negacyclic NTT (csrc/cpu/ntt.h, csrc/cuda/ntt.h) and their host-built
// twiddle tables (common/ntt_tables.h). TypeScript (src/ntt.ts) validates before calling; the
// kernels' own checks are the backstop. See kernel_binding_util.h for table layouts.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/ntt_layout.h"
#include "common/limb_map.h"
#include "common/ntt_digit_skip.h"
#include "common/ntt_tables.h"
#include "cpu/ntt.h"

#if FHELIUM_WITH_CUDA
#include "cuda/ntt.h"
#endif

namespace fhelium::binding {
namespace {

using kernels::NttLayout;
using kernels::ntt_view;

// nttTablesBuild(logN, primes: BigUint64Array) -> { words: BigUint64Array, layout, psi: BigUint64Array }
napi_value ntt_tables_build(Args& a) {
  const int32_t log_n = a.i32(0);
  FHELIUM_CHECK(log_n >= 1 && log_n <= 17, Argument, "nttTablesBuild: expected logN in [1, 17], got " + std::to_string(log_n));
  const std::vector<uint64_t> primes = kernels::u64_vector(a, 1, "a BigUint64Array of primes");
  const NttTables tables = NttTables::build(static_cast<uint32_t>(log_n), primes);
  const uint64_t* base = tables.words().data();
  const NttTablesView host = tables.host_view();
  auto* layout = new NttLayout();
  layout->offsets.log_n = host.log_n;
  layout->offsets.num_primes = host.num_primes;
  layout->offsets.moduli = kernels::as_offset<Modulus>(host.moduli, base);
  layout->offsets.forward = kernels::as_offset<uint64_t>(host.forward, base);
  layout->offsets.inverse = kernels::as_offset<uint64_t>(host.inverse, base);
  layout->offsets.scalars = kernels::as_offset<uint64_t>(host.scalars, base);
  layout->offsets.forward_fp64 = kernels::as_offset<uint64_t>(host.forward_fp64, base);
  layout->offsets.inverse_fp64 = kernels::as_offset<uint64_t>(host.inverse_fp64, base);
  layout->words = tables.words().size();
  napi_value external = make_external<NttLayout>(a.env(), layout, &kernels::delete_layout<NttLayout>);
  std::vector<uint64_t> psi(primes.size());
  for (std::size_t p = 0; p < primes.size(); ++p) psi[p] = tables.psi(static_cast<uint32_t>(p));
  napi_value out = object(a.env());
  set(a.env(), out, "words", kernels::biguint64_array(a.env(), base, tables.words().size()));
  set(a.env(), out, "layout", external);
  set(a.env(), out, "psi", kernels::biguint64_array(a.env(), psi.data(), psi.size()));
  return out;
}
FHELIUM_BINDING("nttTablesBuild", ntt_tables_build)

// nttForward / nttInverse(device, layout, tablesPtr, tablesWords, in, inBatchStride, out,
//                         outBatchStride, batch, limbs, limbToPrime: Uint32Array,
//                         skipDigitSize, skipQLimbs): the NttDigitSkip of the forward transform
//                         (0, 0 skips nothing; the inverse refuses any other).
template <bool Forward>
napi_value ntt_transform(Args& a) {
  const int dev = a.i32(0);
  const NttTablesView view = ntt_view(a, 1, 2, 3);
  const auto* in = a.ptr<const uint64_t>(4);
  const auto in_stride = static_cast<std::size_t>(a.i64(5));
  auto* out = a.ptr<uint64_t>(6);
  const auto out_stride = static_cast<std::size_t>(a.i64(7));
  const auto batch = static_cast<std::size_t>(a.i64(8));
  const auto limbs = static_cast<std::size_t>(a.i64(9));
  const auto map = kernels::typed_array<uint32_t>(a, 10, napi_uint32_array, "a Uint32Array limb map");
  FHELIUM_CHECK(map.length == limbs, Argument,
                "NTT kernels: the limb map has " + std::to_string(map.length) + " entries for " + std::to_string(limbs) +
                    " limbs");
  const int64_t skip_size = a.i64(11);
  const int64_t skip_limbs = a.i64(12);
  FHELIUM_CHECK(skip_size >= 0 && skip_limbs >= 0 && skip_size <= static_cast<int64_t>(kMaxLimbs) &&
                    skip_limbs <= static_cast<int64_t>(kMaxLimbs) && (Forward || skip_size == 0),
                Argument, "NTT kernels: a digit skip of the forward transform with sizes in [0, 128]");
  const NttDigitSkip skip{static_cast<uint32_t>(skip_size), static_cast<uint32_t>(skip_limbs)};
  if (Forward) {
    FHELIUM_RUN_ON(dev, ntt_forward, in, in_stride, out, out_stride, batch, limbs, map.data, view, skip);
  } else {
    FHELIUM_RUN_ON(dev, ntt_inverse, in, in_stride, out, out_stride, batch, limbs, map.data, view);
  }
  return nullptr;
}
FHELIUM_BINDING("nttForward", ntt_transform<true>)
FHELIUM_BINDING("nttInverse", ntt_transform<false>)

}  // namespace
}  // namespace fhelium::binding
