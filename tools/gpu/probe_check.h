// CHECK(call) for the standalone probes of tools/gpu. They are built with nvcc alone, without the
// addon's objects, so the library's FHELIUM_CUDA_CHECK (which throws fhelium::Error, defined in
// cuda_check.cpp) is not available to them. On an error CHECK prints the call's file, line and
// CUDA's message on stderr and exits with status 1.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)
