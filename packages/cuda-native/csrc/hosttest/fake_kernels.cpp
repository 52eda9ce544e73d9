// The CUDA kernel entry points of csrc/cuda/modarith.cu, strided_copy.cu and copy_tensors.cu, run on the host
// through the fake runtime (fake_cuda::enqueue), for the fake-CUDA addon (see CMakeLists.txt).
// Each op enqueues the CPU kernel with a copy of its arguments, so it is captured into graphs and
// replayed like a real launch.
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "common/kernel_args.h"
#include "cpu/copy_tensors.h"
#include "cpu/modarith_kernels.h"
#include "cpu/strided_copy.h"
#include "cuda/copy_tensors.h"
#include "cuda/memory_ops.h"
#include "cuda/modarith_kernels.h"
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

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::add_mod(out, a, b, moduli, batch, limbs, n); });
}

void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::sub_mod(out, a, b, moduli, batch, limbs, n); });
}

void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  enqueue(ds, [=] { cpu::neg_mod(out, a, moduli, batch, limbs, n); });
}

void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::mul_mod(out, a, b, moduli, batch, limbs, n); });
}

void mul_mod_shoup(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  enqueue(ds, [=] { cpu::mul_mod_shoup(out, a, w, w_shoup, moduli, batch, limbs, n); });
}

void strided_copy(DeviceStream ds, void* dst, const void* src, const StridedCopy& desc) {
  const StridedCopy d = desc;
  enqueue(ds, [=] { cpu::strided_copy(dst, src, d); });
}

void copy_tensors(DeviceStream ds, const CopyPair* pairs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (pairs[i].bytes <= kCopyTensorsMaxPairBytes) continue;  // the message is built on failure only
    require_argument(false, "cuda::copy_tensors", "pairs of at most " + std::to_string(kCopyTensorsMaxPairBytes) + " bytes",
                     std::to_string(pairs[i].bytes) + " bytes in pair " + std::to_string(i));
  }
  if (count == 0) return;
  std::vector<CopyPair> copy(pairs, pairs + count);
  enqueue(ds, [copy = std::move(copy)] { cpu::copy_tensors(copy.data(), copy.size()); });
}

}  // namespace fhelium::cuda
