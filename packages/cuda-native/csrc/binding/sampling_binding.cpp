// Sampling of RNS polynomials from a ChaCha20 keystream (csrc/cpu/sampling.h,
// csrc/cuda/sampling.h). TypeScript (src/sampling.ts) validates before calling; the kernels' own
// checks are the backstop. On CUDA both refuse to run while a graph capture is open: a replay
// would repeat the captured key, hence the very same samples.
#include <string>

#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "common/sampling_core.h"
#include "cpu/sampling.h"

#if FHELIUM_WITH_CUDA
#include "cuda/graph_capture.h"
#include "cuda/sampling.h"
#endif

namespace fhelium::binding {
namespace {

// The key (a Uint32Array of the 8 little-endian key words) and the stream number (a Number in
// [0, 2^32)) at arguments i and i + 1.
SamplingKey sampling_key(Args& a, std::size_t i) {
  const auto words = kernels::typed_array<uint32_t>(a, i, napi_uint32_array, "a Uint32Array of 8 key words");
  FHELIUM_CHECK(words.length == 8, Argument,
                "sampling: expected a key of 8 32-bit words, got " + std::to_string(words.length));
  const int64_t stream = a.i64(i + 1);
  FHELIUM_CHECK(stream >= 0 && stream <= 0xffffffffll, Argument,
                "sampling: expected a stream number in [0, 2^32), got " + std::to_string(stream));
  SamplingKey key{};
  for (int w = 0; w < 8; ++w) key.key[w] = words.data[w];
  key.stream = static_cast<uint32_t>(stream);
  return key;
}

// The arguments both samplers start with: (device, out, batchStride, batch, limbs, logN, moduli,
// key: Uint32Array, stream).
struct SamplerArgs {
  int dev;
  uint64_t* out;
  std::size_t batch_stride, batch, limbs;
  uint32_t log_n;
  const Modulus* moduli;
  SamplingKey key;

  explicit SamplerArgs(Args& a)
      : dev(a.i32(0)),
        out(a.ptr<uint64_t>(1)),
        batch_stride(static_cast<std::size_t>(a.i64(2))),
        batch(static_cast<std::size_t>(a.i64(3))),
        limbs(static_cast<std::size_t>(a.i64(4))),
        log_n(static_cast<uint32_t>(a.i32(5))),
        moduli(a.ptr<const Modulus>(6)),
        key(sampling_key(a, 7)) {}
};

#if FHELIUM_WITH_CUDA
void refuse_capture(const char* operation) {
  cuda::check_no_capture(operation, "a replay would draw the very same samples again");
}
#endif

// sampleUniformMod(device, out, batchStride, batch, limbs, logN, moduli, key: Uint32Array, stream)
napi_value sample_uniform_mod(Args& a) {
  const SamplerArgs s(a);
  if (s.dev != kCpuDevice) FHELIUM_CUDA_ONLY(refuse_capture("sampleUniformMod"));
  FHELIUM_RUN_ON_STREAM_LAST(s.dev, sample_uniform_mod, s.out, s.batch_stride, s.batch, s.limbs, s.log_n, s.moduli,
                             s.key);
  return nullptr;
}
FHELIUM_BINDING("sampleUniformMod", sample_uniform_mod)

// sampleSmallMod(device, out, batchStride, batch, limbs, logN, moduli, key: Uint32Array, stream,
//                thresholds: BigUint64Array, begins: Uint32Array (polys + 1), minimums: Int32Array (polys))
napi_value sample_small_mod(Args& a) {
  const SamplerArgs s(a);
  const auto thresholds = kernels::typed_array<uint64_t>(a, 9, napi_biguint64_array, "a BigUint64Array of thresholds");
  const auto begins = kernels::typed_array<uint32_t>(a, 10, napi_uint32_array, "a Uint32Array of distribution starts");
  const auto minimums = kernels::typed_array<int32_t>(a, 11, napi_int32_array, "an Int32Array of distribution minimums");
  FHELIUM_CHECK(minimums.length >= 1 && minimums.length <= kSamplingMaxPolys && begins.length == minimums.length + 1 &&
                    thresholds.length <= kSamplingMaxThresholds,
                Argument,
                "sampleSmallMod: expected 1 to " + std::to_string(kSamplingMaxPolys) + " distributions (" +
                    std::to_string(minimums.length) + " minimums, " + std::to_string(begins.length) +
                    " starts) over at most " + std::to_string(kSamplingMaxThresholds) + " thresholds (" +
                    std::to_string(thresholds.length) + ")");
  SmallDistributions d{};
  d.polys = static_cast<uint32_t>(minimums.length);
  for (std::size_t p = 0; p < minimums.length; ++p) d.minimum[p] = minimums.data[p];
  for (std::size_t p = 0; p < begins.length; ++p) d.begin[p] = begins.data[p];
  FHELIUM_CHECK(d.begin[d.polys] <= thresholds.length, Argument,
                "sampleSmallMod: the distributions end at threshold " + std::to_string(d.begin[d.polys]) + " of " +
                    std::to_string(thresholds.length));
  for (std::size_t j = 0; j < thresholds.length; ++j) d.thresholds[j] = thresholds.data[j];
  if (s.dev != kCpuDevice) FHELIUM_CUDA_ONLY(refuse_capture("sampleSmallMod"));
  FHELIUM_RUN_ON_STREAM_LAST(s.dev, sample_small_mod, s.out, s.batch_stride, s.batch, s.limbs, s.log_n, s.moduli,
                             s.key, d);
  return nullptr;
}
FHELIUM_BINDING("sampleSmallMod", sample_small_mod)

}  // namespace
}  // namespace fhelium::binding
