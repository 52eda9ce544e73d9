#include "cpu/rescale.h"

#include "common/rescale_checks.h"
#include "common/rescale_core.h"
#include "cpu/ntt.h"
#include "cpu/parallel.h"
#include "cpu/sub_scale.h"

namespace fhelium::cpu {

void rescale_prepare(const uint64_t* last, std::size_t last_batch_stride, uint64_t* out,
                     std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                     const RescaleView& t) {
  check_rescale_prepare("cpu::rescale_prepare", last, last_batch_stride, out, out_batch_stride,
                        batch, log_n, t);
  // Threads take whole output rows (limb i of batch element b). n is a local of each range: a
  // captured one could alias the uint64 outputs and would be reloaded after every store.
  parallel_for(batch * t.num_dst, grain_for(std::size_t{8} << log_n), [&](std::size_t begin, std::size_t end) {
    const std::size_t n = std::size_t{1} << log_n;
    for (std::size_t r = begin; r < end; ++r) {
      const std::size_t b = r / t.num_dst;
      const uint32_t i = static_cast<uint32_t>(r % t.num_dst);
      const uint64_t* xl = last + b * last_batch_stride;
      uint64_t* o = out + b * out_batch_stride + i * n;
      for (std::size_t k = 0; k < n; ++k) o[k] = rescale_term(rescale_shifted(xl[k], t), t, i);
    }
  });
}

void rescale_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* t_ntt,
                    std::size_t t_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                    std::size_t batch, uint32_t log_n, const RescaleView& t) {
  const char* where = "cpu::rescale_finish";
  check_rescale_view(where, t);
  check_sub_scale(where, x, x_batch_stride, t_ntt, t_batch_stride, out, out_batch_stride, batch,
                  t.num_dst, log_n, t.finish);
  detail::sub_scale(x, x_batch_stride, t_ntt, t_batch_stride, out, out_batch_stride, batch,
                    t.num_dst, log_n, t.finish, kNoAddend);
}

void rescale_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch,
                 std::size_t scratch_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                 std::size_t batch, const uint32_t* limb_to_prime, const NttTablesView& ntt,
                 const RescaleView& t) {
  const LimbMap map = check_rescale_ntt("cpu::rescale_ntt", x, x_batch_stride, scratch, scratch_batch_stride, out,
                                        out_batch_stride, batch, limb_to_prime, ntt, t);
  const std::size_t l = t.num_dst;
  const uint32_t log_n = ntt.log_n;
  ntt_inverse(x + (l << log_n), x_batch_stride, scratch, scratch_batch_stride, batch, 1, map.prime + l, ntt);
  rescale_prepare(scratch, scratch_batch_stride, out, out_batch_stride, batch, log_n, t);
  ntt_forward(out, out_batch_stride, out, out_batch_stride, batch, l, map.prime, ntt);
  rescale_finish(x, x_batch_stride, out, out_batch_stride, out, out_batch_stride, batch, log_n, t);
}

}  // namespace fhelium::cpu
