// Raw CUDA host costs on the GPU machine (a diagnostic beside tools/gpu/host-probe.mjs): what a
// launch (with parameter blocks of several sizes), an event record, a small pinned copy (through
// the runtime, and through the driver's unified cuMemcpyAsync and its cuMemcpyHtoDAsync) and a
// graph launch cost from C++, on the legacy default stream and on a created non-blocking stream,
// and what the addon's own add_mod wrapper and caching allocator add. Build here (nvcc), run there:
//   nvcc -O2 -std=c++17 -arch=sm_90 -I packages/cuda-native/csrc tools/gpu/launch-probe.cu \
//     packages/cuda-native/csrc/cuda/{modarith.cu,caching_allocator.cpp,cuda_check.cpp,device_context.cpp} \
//     -o launch-probe
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "common/modarith_operand.h"
#include "cuda/caching_allocator.h"
#include "cuda/modarith_kernels.h"

using namespace fhelium;

__global__ void empty_kernel() {}
// Parameter blocks of the sizes copy_tensors passes (its 8-, 32- and 128-pair launches).
template <int Bytes>
struct Block {
  unsigned char b[Bytes];
};
template <int Bytes>
__global__ void block_kernel(const __grid_constant__ Block<Bytes> p, unsigned char* out) {
  if (threadIdx.x == 0 && out == nullptr) out[0] = p.b[0];
}
__global__ void params_kernel(uint64_t* out, const uint64_t* a, const uint64_t* b, int64_t c, int64_t s, const void* m, int64_t rows,
                              int64_t limbs, int64_t n) {
  if (threadIdx.x == 0 && blockIdx.x == 0 && rows < 0) out[0] = a[0] + b[0] + c + s + n + limbs + (m != nullptr);
}

template <typename F>
double host_us(F f, int burst, cudaStream_t s, int samples = 200) {
  std::vector<double> v;
  for (int k = 0; k < samples + 3; ++k) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < burst; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    if (k >= 3) v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / burst);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

static int probe_main() {
  cudaSetDevice(0);
  cudaFree(nullptr);
  cudaStream_t nb = nullptr;
  cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
  const int n = 1 << 14, limbs = 8, batch = 2;
  const size_t words = size_t(batch) * limbs * n;
  uint64_t *a, *b, *out;
  cudaMalloc(&a, words * 8);
  cudaMalloc(&b, words * 8);
  cudaMalloc(&out, words * 8);
  cudaMemset(a, 0, words * 8);
  cudaMemset(b, 0, words * 8);
  Modulus* moduli;
  cudaMalloc(&moduli, limbs * sizeof(Modulus));
  std::vector<Modulus> hm(limbs);
  for (auto& m : hm) m = Modulus{(1ull << 59) - 55, 0, 0};
  cudaMemcpy(moduli, hm.data(), limbs * sizeof(Modulus), cudaMemcpyHostToDevice);
  cudaEvent_t ev;
  cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  cudaEvent_t evt;
  cudaEventCreate(&evt);
  void* pinned;
  cudaMallocHost(&pinned, 1024);
  void* dev1k;
  cudaMalloc(&dev1k, 1024);
  auto* dev1k_bytes = static_cast<unsigned char*>(dev1k);
  // A driver entry point (CUDA 12.0 ABI), or null where the driver lacks it.
  auto driver_entry = [](const char* symbol) -> void* {
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(symbol, &entry, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      return nullptr;
    return entry;
  };
  // The driver's own cuMemcpyAsync, without the runtime's layer.
  using DriverMemcpy = int (*)(uintptr_t, uintptr_t, size_t, cudaStream_t);
  const auto driver_memcpy = reinterpret_cast<DriverMemcpy>(driver_entry("cuMemcpyAsync"));
  // The direction-specific cuMemcpyHtoDAsync: the driver is told the destination is device memory,
  // where cuMemcpyAsync classifies both pointers (unified addressing) on every call.
  using DriverMemcpyHtoD = int (*)(uintptr_t, const void*, size_t, cudaStream_t);
  const auto driver_memcpy_htod = reinterpret_cast<DriverMemcpyHtoD>(driver_entry("cuMemcpyHtoDAsync"));
  for (cudaStream_t s : {static_cast<cudaStream_t>(nullptr), nb}) {
    const char* name = s == nullptr ? "legacy" : "nonblocking";
    auto add = [&] { cuda::add_mod(DeviceStream{0, s}, out, a, BatchedOperand{b, batch, limbs * n}, moduli, batch, limbs, n); };
    for (int i = 0; i < 100; ++i) add();
    cudaDeviceSynchronize();
    std::printf("%-12s empty<<<1,1>>>          burst1 %6.2f  burst20 %6.2f us\n", name, host_us([&] { empty_kernel<<<1, 1, 0, s>>>(); }, 1, s),
                host_us([&] { empty_kernel<<<1, 1, 0, s>>>(); }, 20, s));
    std::printf("%-12s params<<<(64,16),256>>> burst1 %6.2f  burst20 %6.2f us\n", name,
                host_us([&] { params_kernel<<<dim3(64, 16), 256, 0, s>>>(out, a, b, 2, 1, moduli, 16, 8, n); }, 1, s),
                host_us([&] { params_kernel<<<dim3(64, 16), 256, 0, s>>>(out, a, b, 2, 1, moduli, 16, 8, n); }, 20, s));
    std::printf("%-12s cuda::add_mod            burst1 %6.2f  burst20 %6.2f us\n", name, host_us(add, 1, s), host_us(add, 20, s));
    std::printf("%-12s params 0.2/0.8/3 KiB     burst16 %6.2f %6.2f %6.2f us\n", name,
                host_us([&] { block_kernel<200><<<1, 32, 0, s>>>(Block<200>{}, dev1k_bytes); }, 16, s),
                host_us([&] { block_kernel<776><<<1, 32, 0, s>>>(Block<776>{}, dev1k_bytes); }, 16, s),
                host_us([&] { block_kernel<3080><<<1, 32, 0, s>>>(Block<3080>{}, dev1k_bytes); }, 16, s));
    if (driver_memcpy != nullptr) {
      std::printf("%-12s cuMemcpyAsync 1KiB (drv) burst16 %6.2f us\n", name,
                  host_us([&] { driver_memcpy(reinterpret_cast<uintptr_t>(dev1k), reinterpret_cast<uintptr_t>(pinned), 1024, s); }, 16, s));
    }
    if (driver_memcpy_htod != nullptr) {
      std::printf("%-12s cuMemcpyHtoDAsync 1KiB   burst16 %6.2f us\n", name,
                  host_us([&] { driver_memcpy_htod(reinterpret_cast<uintptr_t>(dev1k), pinned, 1024, s); }, 16, s));
    }
    {
      // One call for many small copies (CUDA 12.8+), beside one launch of the gather kernel.
      std::vector<void*> dsts(16), srcs(16);
      std::vector<size_t> sizes(16, 64);
      for (int i = 0; i < 16; ++i) {
        dsts[i] = static_cast<unsigned char*>(dev1k) + 64 * i;
        srcs[i] = static_cast<unsigned char*>(pinned) + 64 * i;
      }
      cudaMemcpyAttributes attr{};
      attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
      size_t attr_index = 0;
      // The legacy default stream refuses batches (invalid argument): report that once.
      cudaError_t batch_error = cudaSuccess;
      auto batch = [&](size_t count) {
        const cudaError_t e = cudaMemcpyBatchAsync(dsts.data(), srcs.data(), sizes.data(), count, &attr, &attr_index, 1, s);
        if (e != cudaSuccess) {
          batch_error = e;
          cudaGetLastError();
        }
      };
      const double one = host_us([&] { batch(1); }, 16, s);
      const double sixteen = host_us([&] { batch(16); }, 16, s);
      if (batch_error != cudaSuccess) std::printf("%-12s memcpyBatchAsync refused: %s\n", name, cudaGetErrorString(batch_error));
      else std::printf("%-12s memcpyBatchAsync 1/16    burst16 %6.2f %6.2f us\n", name, one, sixteen);
    }
    std::printf("%-12s cudaEventRecord (notime) burst20 %6.2f us\n", name, host_us([&] { cudaEventRecord(ev, s); }, 20, s));
    std::printf("%-12s cudaEventRecord (timing) burst20 %6.2f us\n", name, host_us([&] { cudaEventRecord(evt, s); }, 20, s));
    std::printf("%-12s cudaStreamWaitEvent      burst20 %6.2f us\n", name, host_us([&] { cudaStreamWaitEvent(s, ev, 0); }, 20, s));
    std::printf("%-12s memcpyAsync 1KiB H2D pin burst1 %6.2f  burst16 %6.2f us\n", name,
                host_us([&] { cudaMemcpyAsync(dev1k, pinned, 1024, cudaMemcpyHostToDevice, s); }, 1, s),
                host_us([&] { cudaMemcpyAsync(dev1k, pinned, 1024, cudaMemcpyHostToDevice, s); }, 16, s));
    // cudaMemcpyDefault makes the runtime classify both pointers (unified addressing) per call.
    std::printf("%-12s memcpyAsync 1KiB Default pin burst16 %6.2f us\n", name,
                host_us([&] { cudaMemcpyAsync(dev1k, pinned, 1024, cudaMemcpyDefault, s); }, 16, s));
    std::printf("%-12s memcpyAsync 1KiB D2D     burst16 %6.2f us\n", name,
                host_us([&] { cudaMemcpyAsync(dev1k, a, 1024, cudaMemcpyDeviceToDevice, s); }, 16, s));
    std::printf("%-12s cudaPeekAtLastError      burst20 %6.3f us\n", name, host_us([&] { (void)cudaPeekAtLastError(); }, 20, s));
    std::printf("%-12s cudaStreamQuery          burst20 %6.2f us\n", name, host_us([&] { (void)cudaStreamQuery(s); }, 20, s));
    if (s != nullptr) {
      cudaGraph_t g;
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      add();
      cudaStreamEndCapture(s, &g);
      cudaGraphExec_t ge;
      cudaGraphInstantiate(&ge, g, 0);
      std::printf("%-12s cudaGraphLaunch 1 node   burst1 %6.2f  burst20 %6.2f us\n", name, host_us([&] { cudaGraphLaunch(ge, s); }, 1, s),
                  host_us([&] { cudaGraphLaunch(ge, s); }, 20, s));
      // A graph of one copy node (1 KiB pinned to device), as a cached copy graph would replay.
      cudaGraph_t gc;
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      cudaMemcpyAsync(dev1k, pinned, 1024, cudaMemcpyHostToDevice, s);
      cudaStreamEndCapture(s, &gc);
      cudaGraphExec_t gce;
      cudaGraphInstantiate(&gce, gc, 0);
      std::printf("%-12s cudaGraphLaunch 1 copy   burst1 %6.2f  burst16 %6.2f us\n", name, host_us([&] { cudaGraphLaunch(gce, s); }, 1, s),
                  host_us([&] { cudaGraphLaunch(gce, s); }, 16, s));
      cudaGraph_t g16;
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      for (int i = 0; i < 16; ++i) add();
      cudaStreamEndCapture(s, &g16);
      cudaGraphExec_t ge16;
      cudaGraphInstantiate(&ge16, g16, 0);
      std::printf("%-12s cudaGraphLaunch 16 nodes burst1 %6.2f  burst20 %6.2f us\n", name, host_us([&] { cudaGraphLaunch(ge16, s); }, 1, s),
                  host_us([&] { cudaGraphLaunch(ge16, s); }, 20, s));
      float ms = 0;
      cudaEventRecord(evt, s);
      for (int i = 0; i < 100; ++i) cudaGraphLaunch(ge16, s);
      cudaEvent_t e2;
      cudaEventCreate(&e2);
      cudaEventRecord(e2, s);
      cudaEventSynchronize(e2);
      cudaEventElapsedTime(&ms, evt, e2);
      std::printf("%-12s 16-node graph GPU time   %6.2f us per launch (%6.2f per node)\n", name, ms * 1000 / 100, ms * 1000 / 1600);
      cudaEventRecord(evt, s);
      for (int i = 0; i < 1600; ++i) add();
      cudaEventRecord(e2, s);
      cudaEventSynchronize(e2);
      cudaEventElapsedTime(&ms, evt, e2);
      std::printf("%-12s add_mod eager GPU time   %6.2f us per kernel\n", name, ms * 1000 / 1600);
    }
    auto& alloc = cuda::CachingAllocator::get(0);
    std::printf("%-12s allocator alloc+free 2MiB burst20 %6.2f us\n", name,
                host_us([&] { alloc.free(alloc.allocate(words * 8, s)); }, 20, s));
  }
  return 0;
}

#ifdef FHELIUM_PROBE_ADDON
// Built as a Node-API module (-DFHELIUM_PROBE_ADDON -shared), the same probe runs inside node
// (`node -e "require('./launch-probe.node')"`), to compare the costs inside and outside a Node process.
#include <node_api.h>
extern "C" napi_value napi_register_module_v1(napi_env, napi_value exports) {
  probe_main();
  return exports;
}
#else
int main() { return probe_main(); }
#endif
