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
  const ModDownOperands m = mod_down_operands(a, "modDownRescaleNtt");
  const kernels::ScratchOperands& s = m.buffers;
  const RescaleView t = rescale_view(a, 19);
  FHELIUM_RUN_ON(dev, mod_down_rescale_ntt, s.x, s.x_stride, s.scratch, s.scratch_stride, s.out, s.out_stride,
                 s.batch, s.limb_to_prime, m.ntt, m.conversion, m.constants, m.addend, t);
  return nullptr;
}
FHELIUM_BINDING("modDownRescaleNtt", mod_down_rescale_ntt)

}  // namespace
}  // namespace fhelium::binding
