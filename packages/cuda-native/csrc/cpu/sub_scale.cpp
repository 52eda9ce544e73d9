#include "cpu/sub_scale.h"

#include "common/basis_conversion_core.h"

namespace fhelium::cpu::detail {

void sub_scale(const uint64_t* x, std::size_t x_stride, const uint64_t* c, std::size_t c_stride,
               uint64_t* out, std::size_t out_stride, std::size_t batch, std::size_t limbs,
               uint32_t log_n, const uint64_t* constants) {
  const std::size_t n = std::size_t{1} << log_n;
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t l = 0; l < limbs; ++l) {
      const uint64_t q = constants[3 * l], s = constants[3 * l + 1], s_shoup = constants[3 * l + 2];
      const uint64_t* xl = x + b * x_stride + l * n;
      const uint64_t* cl = c + b * c_stride + l * n;
      uint64_t* ol = out + b * out_stride + l * n;
      for (std::size_t i = 0; i < n; ++i) ol[i] = sub_then_scale(xl[i], cl[i], q, s, s_shoup);
    }
  }
}

}  // namespace fhelium::cpu::detail
