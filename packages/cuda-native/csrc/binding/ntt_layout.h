// The NTT tables' layout external (kernel_binding_util.h) and its view rebased on a table tensor,
// shared by the bindings whose kernels run transforms: ntt, rescale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "common/ntt_tables.h"

namespace fhelium::binding::kernels {

using NttLayout = Layout<NttTablesView, 0x4e54544cu>;  // 'NTTL'

// The view of the layout at argument `layout_arg` rebased on the table tensor at `ptr_arg` holding
// `words_arg` words. Throws as Args::external does when the argument is not an NTT layout, and
// Error(Argument) when the tensor holds fewer words than the tables.
inline NttTablesView ntt_view(Args& a, std::size_t layout_arg, std::size_t ptr_arg, std::size_t words_arg) {
  const NttLayout* layout = a.external<NttLayout>(layout_arg, "NTT tables (from nttTablesBuild)");
  const auto* base = a.ptr<const uint64_t>(ptr_arg);
  const int64_t words = a.i64(words_arg);
  FHELIUM_CHECK(words >= 0 && static_cast<std::size_t>(words) >= layout->words, Argument,
                "NTT kernels: the table tensor holds " + std::to_string(words) + " words, the tables need " +
                    std::to_string(layout->words));
  NttTablesView v = layout->offsets;
  v.moduli = rebase(base, layout->offsets.moduli);
  v.forward = rebase(base, layout->offsets.forward);
  v.inverse = rebase(base, layout->offsets.inverse);
  v.scalars = rebase(base, layout->offsets.scalars);
  v.forward_fp64 = rebase(base, layout->offsets.forward_fp64);
  v.inverse_fp64 = rebase(base, layout->offsets.inverse_fp64);
  return v;
}

}  // namespace fhelium::binding::kernels
