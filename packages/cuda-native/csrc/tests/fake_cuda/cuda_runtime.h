// A host-only stand-in for the few CUDA runtime calls kernel_selftest.cu makes, so that the
// self-test's harness (shapes, strides, argument checks, comparisons, JSON) can be exercised on
// a machine without a GPU: build it with fake_cuda_backend.cpp, which forwards fhelium::cuda::*
// to fhelium::cpu::*. It proves nothing about the CUDA kernels themselves.
#pragma once

// Lets kernel_selftest.cu skip what the stand-in cannot model (graph capture).
#define FHELIUM_FAKE_CUDA 1

#include <chrono>
#include <cstdlib>
#include <cstring>

struct CUstream_st {};
typedef CUstream_st* cudaStream_t;
struct CUevent_st {
  std::chrono::steady_clock::time_point t;
};
typedef CUevent_st* cudaEvent_t;

enum cudaError_t { cudaSuccess = 0 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
constexpr unsigned cudaStreamNonBlocking = 1;

struct cudaDeviceProp {
  char name[256];
  int major;
  int minor;
};

inline const char* cudaGetErrorName(cudaError_t) { return "cudaSuccess"; }
inline const char* cudaGetErrorString(cudaError_t) { return "no error"; }
inline cudaError_t cudaMalloc(void* p, std::size_t bytes) {
  *static_cast<void**>(p) = std::malloc(bytes);
  return cudaSuccess;
}
template <typename T>
cudaError_t cudaMalloc(T** p, std::size_t bytes) {
  *p = static_cast<T*>(std::malloc(bytes));
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void* d, const void* s, std::size_t bytes, cudaMemcpyKind) {
  std::memcpy(d, s, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* d, int value, std::size_t bytes, cudaStream_t) {
  std::memset(d, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaEventCreate(cudaEvent_t* e) {
  *e = new CUevent_st{};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  e->t = std::chrono::steady_clock::now();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = std::chrono::duration<float, std::milli>(b->t - a->t).count();
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = new CUstream_st{};
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  delete s;
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int) {
  std::strcpy(p->name, "host stand-in (no GPU)");
  p->major = 0;
  p->minor = 0;
  return cudaSuccess;
}
