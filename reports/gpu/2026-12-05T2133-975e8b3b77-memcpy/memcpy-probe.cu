// Host cost of one small pinned host-to-device copy, by API variant (probe, not shipped).
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <vector>
#include <algorithm>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void copy1k(uint4* d, const uint4* s, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) d[i] = s[i]; }

typedef CUresult (*HtoD)(CUdeviceptr, const void*, size_t, CUstream);
typedef CUresult (*Cpy)(CUdeviceptr, CUdeviceptr, size_t, CUstream);

template <class F> double bench(cudaStream_t s, F f, int per_burst = 64, int bursts = 400) {
  for (int i = 0; i < 3000; ++i) { f(); if (i % per_burst == 0) cudaStreamSynchronize(s); }
  cudaStreamSynchronize(s);
  std::vector<double> us;
  for (int b = 0; b < bursts; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_burst; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_burst);
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

int main() {
  CK(cudaSetDevice(0));
  cudaStream_t s; CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0));
  const size_t n = 1024;
  void* h; CK(cudaHostAlloc(&h, 1 << 20, cudaHostAllocDefault));
  void* h2; CK(cudaMallocHost(&h2, 1 << 20));
  void* d; CK(cudaMalloc(&d, 1 << 20));
  HtoD htod = nullptr; Cpy cpy = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuMemcpyHtoDAsync", (void**)&htod, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", (void**)&cpy, 12000, cudaEnableDefault, &q));
  cudaEvent_t ev; CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
  for (int rep = 0; rep < 2; ++rep) {
    printf("rep %d\n", rep);
    printf("  cudaMemcpyAsync Default        %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, h, n, cudaMemcpyDefault, s); }));
    printf("  cudaMemcpyAsync HostToDevice   %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice, s); }));
    printf("  cuMemcpyHtoDAsync (entry pt)   %.3f us\n", bench(s, [&] { htod((CUdeviceptr)d, h, n, (CUstream)s); }));
    printf("  cuMemcpyAsync (entry pt)       %.3f us\n", bench(s, [&] { cpy((CUdeviceptr)d, (CUdeviceptr)h, n, (CUstream)s); }));
    printf("  Default, 16 KiB                %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, h, 16384, cudaMemcpyDefault, s); }));
    printf("  Default, 64 B                  %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, h, 64, cudaMemcpyDefault, s); }));
    printf("  kernel launch copy1k           %.3f us\n", bench(s, [&] { copy1k<<<1, 64, 0, s>>>((uint4*)d, (const uint4*)h, 64); }));
    printf("  cudaEventRecord                %.3f us\n", bench(s, [&] { cudaEventRecord(ev, s); }));
    printf("  cudaStreamQuery (idle)         %.3f us\n", bench(s, [&] { cudaStreamQuery(s); }));
    printf("  Default + EventRecord          %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, h, n, cudaMemcpyDefault, s); cudaEventRecord(ev, s); }));
    printf("  cudaMemcpyAsync D2D 1 KiB      %.3f us\n", bench(s, [&] { cudaMemcpyAsync(d, (char*)d + 4096, n, cudaMemcpyDeviceToDevice, s); }));
  }
  CK(cudaGetLastError());
  printf("ok\n");
  return 0;
}
