// Host cost of enqueueing one 1 KiB pinned->device copy, by API (bursts of 16, sync between).
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
#define CK(x) do { auto e = (x); if (e != 0) { printf("err %d at %s\n", (int)e, #x); return 1; } } while (0)
typedef CUresult (*HtoD_t)(CUdeviceptr, const void*, size_t, CUstream);
typedef CUresult (*Memcpy_t)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
__global__ void empty_kernel(int) {}
template <class F> double burst_us(cudaStream_t s, F f, int burst, int bursts) {
  std::vector<double> v;
  for (int w = 0; w < 2000; ++w) { f(); if (w % burst == burst - 1) cudaStreamSynchronize(s); }
  cudaStreamSynchronize(s);
  for (int b = 0; b < bursts; ++b) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < burst; ++i) f();
    auto t1 = std::chrono::steady_clock::now();
    cudaStreamSynchronize(s);
    v.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / burst);
  }
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}
static std::vector<uint64_t> junk(64 * 1024);  // 512 KiB: more than L1 and L2 of a core
static volatile uint64_t sink;
static void pollute() {
  uint64_t acc = 0;
  for (size_t i = 0; i < junk.size(); i += 8) acc += junk[i];  // one line per 64 bytes
  sink = acc;
}
int main() {
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void* h; CK(cudaHostAlloc(&h, 1024, cudaHostAllocDefault));
  void* d; CK(cudaMalloc(&d, 1024));
  HtoD_t htod = nullptr; Memcpy_t mc = nullptr; cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuMemcpyHtoDAsync", (void**)&htod, 12000, cudaEnableDefault, &q));
  CK(cudaGetDriverEntryPointByVersion("cuMemcpyAsync", (void**)&mc, 12000, cudaEnableDefault, &q));
  for (int rep = 0; rep < 3; ++rep) {
    for (int burst : {16, 1}) {
      printf("burst %2d  cudaMemcpyAsync(Default) %.3f  ", burst, burst_us(s, [&] { cudaMemcpyAsync(d, h, 1024, cudaMemcpyDefault, s); }, burst, 400));
      printf("cudaMemcpyAsync(HtoD) %.3f  ", burst_us(s, [&] { cudaMemcpyAsync(d, h, 1024, cudaMemcpyHostToDevice, s); }, burst, 400));
      printf("cuMemcpyHtoDAsync %.3f  ", burst_us(s, [&] { htod((CUdeviceptr)d, h, 1024, (CUstream)s); }, burst, 400));
      printf("cuMemcpyAsync %.3f  ", burst_us(s, [&] { mc((CUdeviceptr)d, (CUdeviceptr)h, 1024, (CUstream)s); }, burst, 400));
      printf("pollute-only %.3f  ", burst_us(s, [&] { pollute(); }, burst, 400));
      printf("pollute+cudaMemcpyAsync %.3f  ", burst_us(s, [&] { pollute(); cudaMemcpyAsync(d, h, 1024, cudaMemcpyDefault, s); }, burst, 400));
      printf("pollute+cuMemcpyAsync %.3f  ", burst_us(s, [&] { pollute(); mc((CUdeviceptr)d, (CUdeviceptr)h, 1024, (CUstream)s); }, burst, 400));
      printf("launch %.3f\n", burst_us(s, [&] { empty_kernel<<<1, 32, 0, s>>>(0); }, burst, 400));
    }
  }
  return 0;
}
