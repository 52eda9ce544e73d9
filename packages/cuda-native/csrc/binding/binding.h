// Node-API glue shared by every csrc/binding/*.cpp file.
//
// A binding is a plain function `napi_value fn(Args&)` registered under its JavaScript name with
// FHELIUM_BINDING("jsName", fn). Registration happens at load time through a static registrar, so
// a new binding file needs no central list. Arguments are read into a fixed stack array (no
// per-call allocation); native errors are turned into JavaScript errors of the class named by the
// error kind (see src/errors.ts). Argument checks here are the backstop: the TypeScript layer
// validates first and gives the user-facing messages.
//
// Adding a kernel binding:
//   napi_value my_op(Args& a) {
//     const int dev = a.i32(0);
//     auto* out = a.ptr<uint64_t>(1);
//     ...
//     FHELIUM_RUN_ON(dev, my_op, out, ...);  // cpu::my_op(out, ...) or cuda::my_op(stream, out, ...)
//     // (CUDA entry points taking the cudaStream_t last: FHELIUM_RUN_ON_STREAM_LAST)
//     return nullptr;  // undefined
//   }
//   FHELIUM_BINDING("myOp", my_op)
#pragma once

#include <node_api.h>

#include <cstdint>
#include <string>

#include "common/cuda_stream.h"
#include "common/device_stream.h"
#include "common/error.h"

#if FHELIUM_WITH_CUDA
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {

// The most arguments a binding function reads (modDownRescaleNtt takes 22); napi_get_cb_info fills the
// slots past the actual arguments with undefined.
constexpr size_t kMaxArgs = 24;

class Args {
 public:
  Args(napi_env env, napi_callback_info info);

  napi_env env() const { return env_; }
  size_t size() const { return argc_; }
  napi_value at(size_t i) const;
  bool is_nullish(size_t i) const;

  int32_t i32(size_t i) const;
  int64_t i64(size_t i) const;  // from a Number holding an integer
  double f64(size_t i) const;
  bool boolean(size_t i) const;
  uint64_t u64(size_t i) const;  // from a BigInt (lossless)
  template <typename T>
  T* ptr(size_t i) const {
    return reinterpret_cast<T*>(static_cast<uintptr_t>(u64(i)));
  }
  // The native object of an external created by make_external<T>; checks its tag.
  template <typename T>
  T* external(size_t i, const char* what) const {
    void* p = external_raw(i, what);
    T* obj = static_cast<T*>(p);
    if (obj == nullptr || obj->tag != T::kTag) bad_arg(i, what);
    return obj;
  }
  template <typename T>
  T* optional_external(size_t i, const char* what) const {
    return is_nullish(i) ? nullptr : external<T>(i, what);
  }

 private:
  [[noreturn]] void bad_arg(size_t i, const char* expected) const;
  void* external_raw(size_t i, const char* what) const;

  napi_env env_;
  size_t argc_ = kMaxArgs;
  napi_value argv_[kMaxArgs];
};

// Return-value helpers.
napi_value undefined(napi_env env);
napi_value boolean(napi_env env, bool v);
napi_value number(napi_env env, double v);
napi_value bigint(napi_env env, uint64_t v);
napi_value string(napi_env env, const std::string& v);
napi_value object(napi_env env);
void set(napi_env env, napi_value obj, const char* key, napi_value v);

// Wraps `obj` in an external whose finalizer calls `finalize(obj)` (the safety net when JS never
// disposed it). `finalize` must tolerate objects already released explicitly.
template <typename T>
napi_value make_external(napi_env env, T* obj, void (*finalize)(T*)) {
  napi_value out = nullptr;
  struct Thunk {
    static void run(napi_env, void* data, void* hint) {
      reinterpret_cast<void (*)(T*)>(hint)(static_cast<T*>(data));
    }
  };
  if (napi_create_external(env, obj, &Thunk::run, reinterpret_cast<void*>(finalize), &out) != napi_ok) {
    finalize(obj);
    fail(ErrorKind::Internal, "napi_create_external failed");
  }
  return out;
}

// Reports `delta` bytes of native memory to V8 (napi_adjust_external_memory), including deltas
// queued by finalizers, which must not call into JavaScript engine APIs themselves.
void adjust_external_memory(napi_env env, int64_t delta);
void queue_external_memory_delta(int64_t delta);

// Throws `e` as a JavaScript error built by the factory registered from TypeScript
// (setErrorFactory), or as a plain Error before one is registered.
void throw_js(napi_env env, const Error& e);

using Binding = napi_value (*)(Args&);

template <Binding F>
napi_value invoke(napi_env env, napi_callback_info info) {
  try {
    Args args(env, info);
    return F(args);
  } catch (const Error& e) {
    throw_js(env, e);
  } catch (const std::bad_alloc&) {
    throw_js(env, Error(ErrorKind::HostOutOfMemory, "host out of memory (a native allocation failed)"));
  } catch (const std::exception& e) {
    throw_js(env, Error(ErrorKind::Internal, e.what()));
  }
  return nullptr;
}

struct Registrar {
  Registrar(const char* name, napi_callback callback);
};

struct Registration {
  const char* name;
  napi_callback callback;
};
const Registration* registrations(size_t* count);

[[noreturn]] void cuda_not_built();

// The current stream of CUDA device `dev` (made current): what a kernel launch needs.
inline DeviceStream device_stream(int dev) {
#if FHELIUM_WITH_CUDA
  if (dev < 0 || dev >= cuda::kMaxDevices) fail(ErrorKind::Argument, "invalid CUDA device index");
  return cuda::current_device_stream(dev);
#else
  (void)dev;
  cuda_not_built();
#endif
}

// The same, as the cudaStream_t that kernel entry points taking a stream expect.
inline cudaStream_t cuda_stream(int dev) { return static_cast<cudaStream_t>(device_stream(dev).stream); }

}  // namespace fhelium::binding

#define FHELIUM_BINDING_CAT2(a, b) a##b
#define FHELIUM_BINDING_CAT(a, b) FHELIUM_BINDING_CAT2(a, b)
#define FHELIUM_BINDING(js_name, fn)                                                          \
  static const ::fhelium::binding::Registrar FHELIUM_BINDING_CAT(fhelium_registrar_, __LINE__)( \
      js_name, &::fhelium::binding::invoke<fn>);

// Evaluates a CUDA-backend expression, or throws Error(CudaUnavailable) in a CPU-only build.
#if FHELIUM_WITH_CUDA
#define FHELIUM_CUDA_ONLY(expr) (expr)
#else
#define FHELIUM_CUDA_ONLY(expr) ::fhelium::binding::cuda_not_built()
#endif

// Runs kernel `fn` with these arguments on device `dev`: cpu::fn(args...) for the CPU (-1),
// else cuda::fn(device_stream(dev), args...) on the current stream of CUDA device `dev` (in a
// CPU-only build, Error(CudaUnavailable)). The dispatch of the kernels whose CUDA entry point
// takes a DeviceStream first (modarith, mul-accumulate).
#define FHELIUM_RUN_ON(dev, fn, ...)                                                   \
  do {                                                                                 \
    if ((dev) == ::fhelium::kCpuDevice) {                                              \
      ::fhelium::cpu::fn(__VA_ARGS__);                                                 \
    } else {                                                                           \
      FHELIUM_CUDA_ONLY(::fhelium::cuda::fn(::fhelium::binding::device_stream(dev), __VA_ARGS__)); \
    }                                                                                  \
  } while (false)

// The same dispatch for kernels whose CUDA entry point takes the cudaStream_t last (ntt,
// automorphism, basis conversion, rescale, keyswitch, sampling): cpu::fn(args...), else
// cuda::fn(args..., cuda_stream(dev)).
#define FHELIUM_RUN_ON_STREAM_LAST(dev, fn, ...)                                       \
  do {                                                                                 \
    if ((dev) == ::fhelium::kCpuDevice) {                                              \
      ::fhelium::cpu::fn(__VA_ARGS__);                                                 \
    } else {                                                                           \
      FHELIUM_CUDA_ONLY(::fhelium::cuda::fn(__VA_ARGS__, ::fhelium::binding::cuda_stream(dev))); \
    }                                                                                  \
  } while (false)
