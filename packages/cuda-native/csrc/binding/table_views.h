// The device views of tables that the binding builds (basisConversionTablesBuild,
// rescaleTablesBuild), rebased on their uploaded table tensors: shared by the bindings of
// operations that take both kinds (mod_down_rescale_binding.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "binding/binding.h"
#include "common/basis_conversion_tables.h"
#include "common/rescale_tables.h"

namespace fhelium::binding {

// The conversion view of `layout_value` (from basisConversionTablesBuild or modUpTablesBuild),
// rebased on the table tensor at `ptr` holding `words` words. Throws Error(Argument) for another
// external or too few words.
BasisConversionView conversion_view(Args& a, napi_value layout_value, uint64_t ptr, int64_t words);

// The rescale view of the layout at argument `at` (from rescaleTablesBuild), rebased on the table
// tensor at `at + 1` holding `at + 2` words. Throws Error(Argument) as conversion_view does.
RescaleView rescale_view(Args& a, std::size_t at = 1);

}  // namespace fhelium::binding
