// Rescale by the last prime (csrc/cpu/rescale.h, csrc/cuda/rescale.h) and its host-built
// constants (common/rescale_tables.h). TypeScript (src/rescale.ts) validates before calling; the
// kernels' own checks are the backstop. See kernel_binding_util.h for table layouts.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/ntt_layout.h"
#include "binding/table_views.h"
#include "common/rescale_tables.h"
#include "cpu/rescale.h"

#if FHELIUM_WITH_CUDA
#include "cuda/rescale.h"
#endif

namespace fhelium::binding {
namespace {

using kernels::Layout;
using RescaleLayout = Layout<RescaleView, 0x5253434cu>;  // 'RSCL'

// rescaleTablesBuild(primes: BigUint64Array) -> { words, layout, numDst }
napi_value rescale_tables_build(Args& a) {
  const auto primes = kernels::u64_vector(a, 0, "a BigUint64Array of primes");
  const RescaleTables tables = RescaleTables::build(primes);
  const uint64_t* base = tables.words().data();
  const RescaleView host = tables.host_view();
  auto* layout = new RescaleLayout();
  layout->offsets = host;
  layout->offsets.prepare = kernels::as_offset<uint64_t>(host.prepare, base);
  layout->offsets.finish = kernels::as_offset<uint64_t>(host.finish, base);
  layout->words = tables.words().size();
  napi_value external = make_external<RescaleLayout>(a.env(), layout, &kernels::delete_layout<RescaleLayout>);
  napi_value out = object(a.env());
  set(a.env(), out, "words", kernels::biguint64_array(a.env(), base, tables.words().size()));
  set(a.env(), out, "layout", external);
  set(a.env(), out, "numDst", number(a.env(), host.num_dst));
  return out;
}
FHELIUM_BINDING("rescaleTablesBuild", rescale_tables_build)

}  // namespace

// The rescale view of the layout at argument `at`, rebased on the table tensor at `at + 1` holding
// `at + 2` words.
RescaleView rescale_view(Args& a, std::size_t at) {
  const RescaleLayout* layout = a.external<RescaleLayout>(at, "rescale tables (from rescaleTablesBuild)");
  const auto* base = a.ptr<const uint64_t>(at + 1);
  const int64_t words = a.i64(at + 2);
  FHELIUM_CHECK(words >= 0 && static_cast<std::size_t>(words) >= layout->words, Argument,
                "rescale: the table tensor holds " + std::to_string(words) + " words, the tables need " +
                    std::to_string(layout->words));
  RescaleView v = layout->offsets;
  v.prepare = kernels::rebase(base, layout->offsets.prepare);
  v.finish = kernels::rebase(base, layout->offsets.finish);
  return v;
}

namespace {

// rescalePrepare(device, layout, tablesPtr, tablesWords, last, lastBatchStride, out, outBatchStride, batch, logN)
napi_value rescale_prepare(Args& a) {
  const int dev = a.i32(0);
  const RescaleView t = rescale_view(a);
  const auto* last = a.ptr<const uint64_t>(4);
  const auto last_stride = static_cast<std::size_t>(a.i64(5));
  auto* out = a.ptr<uint64_t>(6);
  const auto out_stride = static_cast<std::size_t>(a.i64(7));
  const auto batch = static_cast<std::size_t>(a.i64(8));
  const auto log_n = static_cast<uint32_t>(a.i32(9));
  FHELIUM_RUN_ON_STREAM_LAST(dev, rescale_prepare, last, last_stride, out, out_stride, batch, log_n, t);
  return nullptr;
}
FHELIUM_BINDING("rescalePrepare", rescale_prepare)

// rescaleFinish(device, layout, tablesPtr, tablesWords, x, xBatchStride, tNtt, tBatchStride, out,
//               outBatchStride, batch, logN)
napi_value rescale_finish(Args& a) {
  const int dev = a.i32(0);
  const RescaleView t = rescale_view(a);
  const auto* x = a.ptr<const uint64_t>(4);
  const auto x_stride = static_cast<std::size_t>(a.i64(5));
  const auto* tn = a.ptr<const uint64_t>(6);
  const auto t_stride = static_cast<std::size_t>(a.i64(7));
  auto* out = a.ptr<uint64_t>(8);
  const auto out_stride = static_cast<std::size_t>(a.i64(9));
  const auto batch = static_cast<std::size_t>(a.i64(10));
  const auto log_n = static_cast<uint32_t>(a.i32(11));
  FHELIUM_RUN_ON_STREAM_LAST(dev, rescale_finish, x, x_stride, tn, t_stride, out, out_stride, batch, log_n, t);
  return nullptr;
}
FHELIUM_BINDING("rescaleFinish", rescale_finish)

// rescaleNtt(device, nttLayout, nttPtr, nttWords, layout, tablesPtr, tablesWords, x, xBatchStride,
//            scratch, scratchBatchStride, out, outBatchStride, batch, limbToPrime: Uint32Array)
napi_value rescale_ntt(Args& a) {
  const int dev = a.i32(0);
  const NttTablesView ntt = kernels::ntt_view(a, 1, 2, 3);
  const RescaleView t = rescale_view(a, 4);
  const kernels::ScratchOperands s = kernels::scratch_operands(a, 7, std::size_t{t.num_dst} + 1, "rescaleNtt");
  FHELIUM_RUN_ON(dev, rescale_ntt, s.x, s.x_stride, s.scratch, s.scratch_stride, s.out, s.out_stride, s.batch,
                 s.limb_to_prime, ntt, t);
  return nullptr;
}
FHELIUM_BINDING("rescaleNtt", rescale_ntt)

}  // namespace
}  // namespace fhelium::binding
