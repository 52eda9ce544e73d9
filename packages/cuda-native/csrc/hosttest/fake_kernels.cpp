// The CUDA kernel entry points of csrc/cuda/modarith.cu, sampling.cu, mul_accumulate.cu,
// strided_copy.cu and copy_tensors.cu, run on the host through the fake runtime
// (fake_cuda::enqueue), for the fake-CUDA addon (see CMakeLists.txt). Each op enqueues the CPU
// kernel with a copy of its arguments, so it is captured into graphs and replayed like a real launch.
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/kernel_args.h"
#include "common/sampling_checks.h"
#include "cpu/copy_tensors.h"
#include "cpu/modarith_kernels.h"
#include "cpu/mul_accumulate.h"
#include "cpu/sampling.h"
#include "cpu/strided_copy.h"
#include "cuda/copy_tensors.h"
#include "cuda/memory_ops.h"
#include "cuda/modarith_kernels.h"
#include "cuda/mul_accumulate.h"
#include "cuda/sampling.h"
#include "cuda_runtime_api.h"

namespace fhelium::cuda {

namespace {

template <typename F>
void enqueue(DeviceStream ds, F&& f) {
  using Fn = std::decay_t<F>;
  fake_cuda::enqueue(
      static_cast<cudaStream_t>(ds.stream), [](void* p) { (*static_cast<Fn*>(p))(); }, new Fn(std::forward<F>(f)),
      [](void* p) { delete static_cast<Fn*>(p); });
}

}  // namespace

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::add_mod(out, a, b, moduli, batch, limbs, n); });
}

void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::sub_mod(out, a, b, moduli, batch, limbs, n); });
}

void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  enqueue(ds, [=] { cpu::neg_mod(out, a, moduli, batch, limbs, n); });
}

void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::mul_mod(out, a, b, moduli, batch, limbs, n); });
}

void mul_mod_shoup(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::mul_mod_shoup(out, a, w, w_shoup, moduli, batch, limbs, n); });
}

// The arguments are checked at the call, as the real entry points do before launching.
void sample_uniform_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch, std::size_t limbs,
                        uint32_t log_n, const Modulus* moduli, const SamplingKey& key, cudaStream_t stream) {
  check_sample_uniform_mod("cuda::sample_uniform_mod", out, batch_stride, batch, limbs, log_n, moduli);
  const SamplingKey k = key;
  enqueue(DeviceStream{0, stream}, [=] { cpu::sample_uniform_mod(out, batch_stride, batch, limbs, log_n, moduli, k); });
}

void sample_small_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch, std::size_t limbs,
                      uint32_t log_n, const Modulus* moduli, const SamplingKey& key,
                      const SmallDistributions& distributions, cudaStream_t stream) {
  check_sample_small_mod("cuda::sample_small_mod", out, batch_stride, batch, limbs, log_n, moduli, distributions);
  const SamplingKey k = key;
  const SmallDistributions d = distributions;
  enqueue(DeviceStream{0, stream}, [=] { cpu::sample_small_mod(out, batch_stride, batch, limbs, log_n, moduli, k, d); });
}

void mul_accumulate_mod(DeviceStream ds, uint64_t* out, const MulAccumulateTerms& terms, std::size_t count,
                        const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, uint64_t galois_elt,
                        bool accumulate) {
  // Checked now, as the real launcher does, so a bad call throws instead of failing on the queue.
  check_mul_accumulate("cuda::mul_accumulate_mod", out, terms, count, moduli, batch, limbs, n, galois_elt);
  const MulAccumulateTerms t = terms;
  enqueue(ds, [=] { cpu::mul_accumulate_mod(out, t, count, moduli, batch, limbs, n, galois_elt, accumulate); });
}

void poly_eval_mod(DeviceStream ds, uint64_t* out, const uint64_t* coefficients, int64_t k, const uint64_t* x,
                   const Modulus* moduli, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::poly_eval_mod(out, coefficients, k, x, moduli, limbs, n); });
}

void tensor_product_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
                        int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::tensor_product_mod(out, a, b, moduli, limbs, n); });
}

void strided_copy(DeviceStream ds, void* dst, const void* src, const StridedCopy& desc) {
  const StridedCopy d = desc;
  enqueue(ds, [=] { cpu::strided_copy(dst, src, d); });
}

void copy_tensors(DeviceStream ds, const CopyPair* pairs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (pairs[i].bytes <= kCopyKernelMaxPairBytes) continue;  // the message is built on failure only
    require_argument(false, "cuda::copy_tensors", "pairs of at most " + std::to_string(kCopyKernelMaxPairBytes) + " bytes",
                     std::to_string(pairs[i].bytes) + " bytes in pair " + std::to_string(i));
  }
  if (count == 0) return;
  std::vector<CopyPair> copy(pairs, pairs + count);
  enqueue(ds, [copy = std::move(copy)] { cpu::copy_tensors(copy.data(), copy.size()); });
}

}  // namespace fhelium::cuda
