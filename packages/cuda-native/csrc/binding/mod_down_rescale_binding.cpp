// ModDown followed by a rescale (csrc/cpu/mod_down_rescale.h, csrc/cuda/mod_down_rescale.h).
// TypeScript (src/mod-down-rescale.ts) validates before calling; the kernels' own checks are the
// backstop.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/ntt_layout.h"
#include "binding/table_views.h"
#include "cpu/mod_down_rescale.h"

#if FHELIUM_WITH_CUDA
#include "cuda/mod_down_rescale.h"
#endif

namespace fhelium::binding {
namespace {

// modDownRescaleNtt(device, nttLayout, nttPtr, nttWords, layout, tablesPtr, tablesWords, x,
//                   xBatchStride, scratch, scratchBatchStride, out, outBatchStride, batch,
//                   limbToPrime: Uint32Array, constants, addend, addendBatchStride, addendCount,
//                   rescaleLayout, rescalePtr, rescaleWords): addendCount 0 adds nothing.
napi_value mod_down_rescale_ntt(Args& a) {
  const int dev = a.i32(0);
  const NttTablesView ntt = kernels::ntt_view(a, 1, 2, 3);
  const BasisConversionView conv = conversion_view(a, a.at(4), a.u64(5), a.i64(6));
  const kernels::ScratchOperands s =
      kernels::scratch_operands(a, 7, std::size_t{conv.num_src} + conv.num_dst, "modDownRescaleNtt");
  const auto* constants = a.ptr<const uint64_t>(15);
  const BatchedOperand addend{a.ptr<const uint64_t>(16), a.i64(18), a.i64(17)};
  const RescaleView t = rescale_view(a, 19);
  FHELIUM_RUN_ON(dev, mod_down_rescale_ntt, s.x, s.x_stride, s.scratch, s.scratch_stride, s.out, s.out_stride,
                 s.batch, s.limb_to_prime, ntt, conv, constants, addend, t);
  return nullptr;
}
FHELIUM_BINDING("modDownRescaleNtt", mod_down_rescale_ntt)

}  // namespace
}  // namespace fhelium::binding
