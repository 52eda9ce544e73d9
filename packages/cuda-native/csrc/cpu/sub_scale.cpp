#include "cpu/sub_scale.h"

#include "common/basis_conversion_core.h"
#include "cpu/parallel.h"

namespace fhelium::cpu::detail {

void sub_scale(const uint64_t* x, std::size_t x_stride, const uint64_t* c, std::size_t c_stride,
               uint64_t* out, std::size_t out_stride, std::size_t batch, std::size_t limbs,
               uint32_t log_n, const uint64_t* constants, BatchedOperand addend) {
  // Threads take whole rows (limb l of batch element b). The sizes are locals of each range:
  // captured ones could alias the uint64 outputs and would be reloaded after every store.
  parallel_for(batch * limbs, grain_for(std::size_t{6} << log_n), [&](std::size_t begin, std::size_t end) {
    const std::size_t n = std::size_t{1} << log_n, row_limbs = limbs;
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t b = r / row_limbs, l = r % row_limbs;
      const uint64_t q = constants[3 * l], s = constants[3 * l + 1], s_shoup = constants[3 * l + 2];
      const uint64_t* xl = x + b * x_stride + l * n;
      const uint64_t* cl = c + b * c_stride + l * n;
      uint64_t* ol = out + b * out_stride + l * n;
      const uint64_t* al = addend.row(static_cast<int64_t>(b), static_cast<int64_t>(l), static_cast<int64_t>(n));
      for (std::size_t i = 0; i < n; ++i) ol[i] = sub_scale_add(xl[i], cl[i], al, static_cast<uint32_t>(i), q, s, s_shoup);
    }
  });
}

}  // namespace fhelium::cpu::detail
