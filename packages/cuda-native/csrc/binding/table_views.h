// The device views of tables that the binding builds (basisConversionTablesBuild,
// rescaleTablesBuild), rebased on their uploaded table tensors, and the operands of a ModDown:
// shared by the bindings of operations that take both kinds (mod_down_rescale_binding.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "common/basis_conversion_tables.h"
#include "common/modarith_operand.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::binding {

// The conversion view of `layout_value` (from basisConversionTablesBuild or modUpTablesBuild),
// rebased on the table tensor at `ptr` holding `words` words. Throws Error(Argument) for another
// external or too few words.
BasisConversionView conversion_view(Args& a, napi_value layout_value, uint64_t ptr, int64_t words);

// The rescale view of the layout at argument `at` (from rescaleTablesBuild), rebased on the table
// tensor at `at + 1` holding `at + 2` words. Throws Error(Argument) as conversion_view does.
RescaleView rescale_view(Args& a, std::size_t at = 1);

// The operands of a ModDown in NTT form, arguments 1-18 of modDownNtt and modDownRescaleNtt:
// nttLayout, nttPtr, nttWords, layout, tablesPtr, tablesWords, x, xBatchStride, scratch,
// scratchBatchStride, out, outBatchStride, batch, limbToPrime (q + p entries), constants, addend,
// addendBatchStride, addendCount (0: no addend). Throws Error(Argument) naming `op` as the parsers
// above do.
struct ModDownOperands {
  NttTablesView ntt;
  BasisConversionView conversion;
  kernels::ScratchOperands buffers;
  const uint64_t* constants;
  BatchedOperand addend;
};
ModDownOperands mod_down_operands(Args& a, const char* op);

}  // namespace fhelium::binding
