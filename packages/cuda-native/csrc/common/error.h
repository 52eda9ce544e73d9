// Errors thrown by the native code. The binding turns each into a JavaScript error of the class
// named by its kind (see src/errors.ts), so that callers can rely on a stable `name`.
#pragma once

#include <stdexcept>
#include <string>

namespace fhelium {

enum class ErrorKind {
  Argument,          // bad argument reaching native code (TS validates first; this is the backstop)
  Disposed,          // use of a freed storage, stream, event or graph
  CudaUnavailable,   // CUDA asked for where the addon has no CUDA backend, driver or device
  Cuda,              // a CUDA runtime call failed
  CudaOutOfMemory,   // cudaMalloc / cudaHostAlloc failed even after releasing cached memory
  HostOutOfMemory,   // pageable host memory could not be allocated, even after releasing cached memory
  CaptureViolation,  // an operation that is illegal while a CUDA graph capture is open
  Graph,             // misuse of a CUDA graph (replay before capture, capture twice, ...)
  Internal,          // a broken invariant: a bug in this library
};

inline const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Argument: return "Argument";
    case ErrorKind::Disposed: return "Disposed";
    case ErrorKind::CudaUnavailable: return "CudaUnavailable";
    case ErrorKind::Cuda: return "Cuda";
    case ErrorKind::CudaOutOfMemory: return "CudaOutOfMemory";
    case ErrorKind::HostOutOfMemory: return "HostOutOfMemory";
    case ErrorKind::CaptureViolation: return "CaptureViolation";
    case ErrorKind::Graph: return "Graph";
    case ErrorKind::Internal: return "Internal";
  }
  return "Internal";
}

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, int cuda_code = 0, std::string cuda_name = {})
      : std::runtime_error(message), kind_(kind), cuda_code_(cuda_code), cuda_name_(std::move(cuda_name)) {}
  ErrorKind kind() const { return kind_; }
  int cuda_code() const { return cuda_code_; }
  const std::string& cuda_name() const { return cuda_name_; }

 private:
  ErrorKind kind_;
  int cuda_code_;
  std::string cuda_name_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }

}  // namespace fhelium

#define FHELIUM_CHECK(cond, kind, message)                         \
  do {                                                             \
    if (!(cond)) ::fhelium::fail(::fhelium::ErrorKind::kind, (message)); \
  } while (0)
