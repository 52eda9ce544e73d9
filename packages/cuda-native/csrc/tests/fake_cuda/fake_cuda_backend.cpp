// fhelium::cuda::* forwarded to fhelium::cpu::* for the host-only harness check of
// kernel_selftest.cu (see cuda_runtime.h beside this file). The CUDA-only argument checks
// (grid limits, table alignment) are repeated here so the harness also meets them.
#include <cstdint>

#include "common/limb_map.h"
#include "cpu/automorphism.h"
#include "cpu/basis_conversion.h"
#include "cpu/keyswitch.h"
#include "cpu/mul_accumulate.h"
#include "cpu/ntt.h"
#include "cpu/rescale.h"
#include "cpu/sampling.h"
#include "cuda/automorphism.h"
#include "cuda/basis_conversion.h"
#include "cuda/keyswitch.h"
#include "cuda/mul_accumulate.h"
#include "cuda/ntt.h"
#include "cuda/rescale.h"
#include "cuda/sampling.h"

namespace fhelium::cuda {
namespace {
void grid_y(std::size_t count) {
  require_argument(count >= 1 && count <= 65535, "fake cuda", "grid y <= 65535", std::to_string(count));
}
void aligned(const uint64_t* twiddles) {
  require_argument(reinterpret_cast<uintptr_t>(twiddles) % 16 == 0, "fake cuda", "aligned", "misaligned");
}
}  // namespace

void ntt_forward(DeviceStream, const uint64_t* in, std::size_t a, uint64_t* out, std::size_t b,
                 std::size_t batch, std::size_t limbs, const uint32_t* map, const NttTablesView& t,
                 NttDigitSkip skip) {
  grid_y(batch * limbs);
  aligned(t.forward);
  cpu::ntt_forward(in, a, out, b, batch, limbs, map, t, skip);
}
void ntt_inverse(DeviceStream, const uint64_t* in, std::size_t a, uint64_t* out, std::size_t b,
                 std::size_t batch, std::size_t limbs, const uint32_t* map, const NttTablesView& t) {
  grid_y(batch * limbs);
  aligned(t.inverse);
  cpu::ntt_inverse(in, a, out, b, batch, limbs, map, t);
}
void automorphism_ntt(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, uint64_t g, cudaStream_t) {
  grid_y(batch * limbs);
  cpu::automorphism_ntt(in, out, batch, limbs, log_n, g);
}
void automorphism_coeff(const uint64_t* in, uint64_t* out, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, uint64_t g, const uint32_t* map, const Modulus* m,
                        std::size_t np, cudaStream_t) {
  grid_y(batch * limbs);
  cpu::automorphism_coeff(in, out, batch, limbs, log_n, g, map, m, np);
}
void basis_convert(const uint64_t* in, std::size_t a, uint64_t* out, std::size_t b, std::size_t batch,
                   uint32_t log_n, const BasisConversionView& t, cudaStream_t) {
  cpu::basis_convert(in, a, out, b, batch, log_n, t);
}
void mod_up(const uint64_t* in, std::size_t a, std::size_t in_limbs, std::size_t digit_begin,
            uint64_t* out, std::size_t b, std::size_t batch, uint32_t log_n,
            const BasisConversionView& t, cudaStream_t) {
  cpu::mod_up(in, a, in_limbs, digit_begin, out, b, batch, log_n, t);
}
void mod_up_digits(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                   std::size_t num_digits, uint64_t* out, std::size_t stride, uint32_t log_n,
                   const BasisConversionView* tables, cudaStream_t) {
  cpu::mod_up_digits(in, own_from, in_limbs, digit_size, num_digits, out, stride, log_n, tables);
}
// Both CUDA paths (fused one-limb digits, or mod_up_digits then ntt_forward) launch
// num_digits * out_limbs forward transforms. A null or empty `tables` is left to the CPU checks.
void mod_up_digits_ntt(DeviceStream, const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs,
                       std::size_t digit_size, std::size_t num_digits, uint64_t* out, std::size_t stride,
                       uint32_t log_n, const BasisConversionView* tables, const NttTablesView& ntt,
                       const uint32_t* map) {
  if (tables != nullptr && num_digits >= 1) grid_y(num_digits * (tables[0].num_src + tables[0].num_dst));
  aligned(ntt.forward);
  cpu::mod_up_digits_ntt(in, own_from, in_limbs, digit_size, num_digits, out, stride, log_n, tables, ntt, map);
}
void mod_down_finish(const uint64_t* x, std::size_t a, const uint64_t* c, std::size_t b, uint64_t* out,
                     std::size_t o, std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* k, BatchedOperand addend, cudaStream_t) {
  grid_y(batch * limbs);
  cpu::mod_down_finish(x, a, c, b, out, o, batch, limbs, log_n, k, addend);
}
// The grid spans every limb of x (q over Q_l, then p over P); both transforms run.
void mod_down_ntt(DeviceStream, const uint64_t* x, std::size_t a, uint64_t* scratch, std::size_t s,
                  uint64_t* out, std::size_t o, std::size_t batch, const uint32_t* map, const NttTablesView& ntt,
                  const BasisConversionView& conv, const uint64_t* k, BatchedOperand addend) {
  grid_y(batch * (conv.num_dst + conv.num_src));
  aligned(ntt.forward);
  aligned(ntt.inverse);
  cpu::mod_down_ntt(x, a, scratch, s, out, o, batch, map, ntt, conv, k, addend);
}
void rescale_prepare(const uint64_t* last, std::size_t a, uint64_t* out, std::size_t b,
                     std::size_t batch, uint32_t log_n, const RescaleView& t, cudaStream_t) {
  cpu::rescale_prepare(last, a, out, b, batch, log_n, t);
}
void rescale_finish(const uint64_t* x, std::size_t a, const uint64_t* t_ntt, std::size_t b,
                    uint64_t* out, std::size_t o, std::size_t batch, uint32_t log_n,
                    const RescaleView& t, cudaStream_t) {
  grid_y(batch * t.num_dst);
  cpu::rescale_finish(x, a, t_ntt, b, out, o, batch, log_n, t);
}
// The grid spans the l = t.num_dst output limbs; both transforms run.
void rescale_ntt(DeviceStream, const uint64_t* x, std::size_t a, uint64_t* scratch, std::size_t s,
                 uint64_t* out, std::size_t o, std::size_t batch, const uint32_t* map, const NttTablesView& ntt,
                 const RescaleView& t) {
  grid_y(batch * t.num_dst);
  aligned(ntt.forward);
  aligned(ntt.inverse);
  cpu::rescale_ntt(x, a, scratch, s, out, o, batch, map, ntt, t);
}
void keyswitch_inner_product(const uint64_t* d, std::size_t nd, std::size_t limbs, const uint64_t* k,
                             const uint32_t* map, const Modulus* m, std::size_t np, uint32_t log_n,
                             uint64_t g, bool accumulate, uint64_t* out, cudaStream_t) {
  cpu::keyswitch_inner_product(d, nd, limbs, k, map, m, np, log_n, g, accumulate, out);
}

void mul_accumulate_mod(DeviceStream, uint64_t* out, const MulAccumulateTerms& terms, std::size_t count,
                        const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, uint64_t g,
                        bool accumulate) {
  cpu::mul_accumulate_mod(out, terms, count, moduli, batch, limbs, n, g, accumulate);
}
void sample_uniform_mod(uint64_t* out, std::size_t stride, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, const Modulus* m, const SamplingKey& key, cudaStream_t) {
  cpu::sample_uniform_mod(out, stride, batch, limbs, log_n, m, key);
}
void sample_small_mod(uint64_t* out, std::size_t stride, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, const Modulus* m, const SamplingKey& key,
                      const SmallDistributions& d, cudaStream_t) {
  cpu::sample_small_mod(out, stride, batch, limbs, log_n, m, key, d);
}

}  // namespace fhelium::cuda
