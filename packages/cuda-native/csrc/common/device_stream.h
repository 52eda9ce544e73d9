// Where a kernel runs: device -1 is the CPU; otherwise a CUDA device index and the cudaStream_t
// (held as void* so that headers declaring kernel launchers need no CUDA include and can be used
// by the CPU-only build).
#pragma once

namespace fhelium {

constexpr int kCpuDevice = -1;

struct DeviceStream {
  int device;
  void* stream;  // cudaStream_t; nullptr is the legacy default stream
};

}  // namespace fhelium
