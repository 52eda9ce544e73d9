// Lets the CUDA kernel declarations name cudaStream_t without including the CUDA headers, so that
// the CPU-only build (and the Node-API binding) can include them. Redeclaring the alias is valid
// C++ even when cuda_runtime.h has declared the same typedef.
#pragma once

struct CUstream_st;
using cudaStream_t = CUstream_st*;
