#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda_runtime_api.h"

namespace {
struct Work {
  void (*fn)(void*);
  void* state;
  void (*destroy)(void*);
  ~Work() {
    if (destroy != nullptr) destroy(state);
  }
};
using WorkList = std::vector<std::shared_ptr<Work>>;
}  // namespace

// Capture with fork and join, as CUDA does it: a stream that waits on an event recorded in a
// capture joins that capture (same id); its work goes into the graph of the stream that began the
// capture (the origin), and ending the capture there ends it on every joined stream. The fake runs
// captured work in the order it was enqueued, which respects every event dependency.
struct CUstream_st {
  bool busy = false;
  unsigned long long generation = 0;
  bool capturing = false;
  unsigned long long capture_id = 0;
  CUstream_st* capture_origin = nullptr;  // the origin of the capture this stream joined
  std::vector<CUstream_st*> joined;       // on an origin: the streams that joined its capture
  WorkList captured;
};
struct CUevent_st {
  CUstream_st* stream = nullptr;
  unsigned long long generation = 0;
  bool captured = false;
  CUstream_st* capture_origin = nullptr;  // when captured: the origin of that capture
  unsigned long long capture_id = 0;
};
struct CUgraph_st {
  WorkList work;
};
struct CUgraphExec_st {
  WorkList work;
};

namespace {
CUstream_st g_legacy;  // the legacy default stream (handle nullptr)
std::map<void*, size_t> g_device;
std::map<void*, size_t> g_host;
int g_malloc_calls = 0;
unsigned long long g_next_capture = 0;
thread_local cudaStreamCaptureMode t_mode = cudaStreamCaptureModeGlobal;
int g_open_captures = 0;

CUstream_st* resolve(cudaStream_t s) { return s == nullptr ? &g_legacy : s; }
// The stream whose capture `s` takes part in: its origin when it joined one, else itself.
CUstream_st* capture_origin_of(CUstream_st* s) { return s->capture_origin != nullptr ? s->capture_origin : s; }

struct FakeDevice {
  int major;
  int minor;
};
// FHELIUM_FAKE_COMPUTE_CAPABILITY: "major.minor" entries separated by ','; "9.0" when unset or empty.
const std::vector<FakeDevice>& fake_devices() {
  static const std::vector<FakeDevice> devices = [] {
    const char* env = std::getenv("FHELIUM_FAKE_COMPUTE_CAPABILITY");
    const std::string text = env == nullptr || *env == '\0' ? "9.0" : env;
    std::vector<FakeDevice> found;
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t end = std::min(text.find(',', at), text.size());
      FakeDevice d{};
      char tail = '\0';
      if (std::sscanf(text.substr(at, end - at).c_str(), "%d.%d%c", &d.major, &d.minor, &tail) != 2) {
        std::fprintf(stderr, "FHELIUM_FAKE_COMPUTE_CAPABILITY: expected entries like 9.0 separated by ',', got '%s'\n", text.c_str());
        std::abort();
      }
      found.push_back(d);
      at = end + 1;
    }
    return found;
  }();
  return devices;
}
bool is_fake_device(int device) { return device >= 0 && static_cast<std::size_t>(device) < fake_devices().size(); }

constexpr int kFakeRuntimeVersion = 13000;

// FHELIUM_FAKE_DRIVER_VERSION, or the runtime's own version when unset or empty.
int fake_driver_version() {
  static const int version = [] {
    const char* env = std::getenv("FHELIUM_FAKE_DRIVER_VERSION");
    if (env == nullptr || *env == '\0') return kFakeRuntimeVersion;
    int v = 0;
    char tail = '\0';
    if (std::sscanf(env, "%d%c", &v, &tail) != 1 || v < 0) {
      std::fprintf(stderr, "FHELIUM_FAKE_DRIVER_VERSION: expected a non-negative integer such as 12080, got '%s'\n", env);
      std::abort();
    }
    return v;
  }();
  return version;
}
}  // namespace

cudaError_t cudaDriverGetVersion(int* version) {
  *version = fake_driver_version();
  return cudaSuccess;
}
cudaError_t cudaRuntimeGetVersion(int* version) {
  *version = kFakeRuntimeVersion;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* count) {
  if (fake_driver_version() < kFakeRuntimeVersion) {
    *count = 0;
    return cudaErrorInsufficientDriver;
  }
  *count = static_cast<int>(fake_devices().size());
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return is_fake_device(device) ? cudaSuccess : cudaErrorInvalidValue; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!is_fake_device(device)) return cudaErrorInvalidValue;
  std::strcpy(prop->name, "fake");
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!is_fake_device(device)) return cudaErrorInvalidValue;
  const FakeDevice& d = fake_devices()[static_cast<std::size_t>(device)];
  switch (attr) {
    case cudaDevAttrComputeCapabilityMajor: *value = d.major; return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor: *value = d.minor; return cudaSuccess;
  }
  return cudaErrorInvalidValue;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
const char* cudaGetErrorName(cudaError_t err) {
  switch (err) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    default: return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t err) { return cudaGetErrorName(err); }

// cudaMalloc and cudaHostAlloc while this thread captures are only legal in relaxed mode (as
// with a real capture begun in thread-local mode); the fake refuses them otherwise.
cudaError_t cudaMalloc(void** ptr, size_t size) {
  if (g_open_captures > 0 && t_mode != cudaStreamCaptureModeRelaxed) return cudaErrorStreamCaptureUnsupported;
  ++g_malloc_calls;
  *ptr = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (*ptr == nullptr) return cudaErrorMemoryAllocation;
  g_device[*ptr] = size;
  return cudaSuccess;
}
cudaError_t cudaFree(void* ptr) {
  if (g_open_captures > 0) return cudaErrorStreamCaptureUnsupported;  // implicitly synchronizes
  auto it = g_device.find(ptr);
  if (it == g_device.end()) return cudaErrorInvalidValue;
  g_device.erase(it);
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned) {
  if (g_open_captures > 0 && t_mode != cudaStreamCaptureModeRelaxed) return cudaErrorStreamCaptureUnsupported;
  *ptr = std::aligned_alloc(256, (size + 255) / 256 * 256);
  if (*ptr == nullptr) return cudaErrorMemoryAllocation;
  g_host[*ptr] = size;
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void* ptr) {
  auto it = g_host.find(ptr);
  if (it == g_host.end()) return cudaErrorInvalidValue;
  g_host.erase(it);
  std::free(ptr);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize() {
  if (g_open_captures > 0) return cudaErrorStreamCaptureUnsupported;
  fake_cuda::finish(nullptr);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;
  *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned, int) {
  *stream = new CUstream_st();
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  if (g_open_captures > 0) return cudaErrorStreamCaptureUnsupported;
  fake_cuda::finish(stream);
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) { return resolve(stream)->busy ? cudaErrorNotReady : cudaSuccess; }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new CUevent_st();
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  CUstream_st* s = resolve(stream);
  // Recorded into a graph: such an event cannot be queried or waited on by the host afterwards.
  event->captured = s->capturing;
  event->capture_origin = s->capturing ? capture_origin_of(s) : nullptr;
  event->capture_id = s->capturing ? s->capture_id : 0;
  event->stream = s->busy ? s : nullptr;
  event->generation = s->generation;
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  if (g_open_captures > 0 || event->captured) return cudaErrorStreamCaptureUnsupported;
  if (event->stream == nullptr) return cudaSuccess;
  return event->stream->busy && event->stream->generation == event->generation ? cudaErrorNotReady : cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
  const cudaStreamCaptureMode old = t_mode;
  t_mode = *mode;
  *mode = old;
  return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode) {
  if (stream == nullptr) return cudaErrorStreamCaptureUnsupported;
  stream->capturing = true;
  stream->capture_id = ++g_next_capture;
  stream->capture_origin = nullptr;
  ++g_open_captures;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  if (stream == nullptr || !stream->capturing) return cudaErrorInvalidValue;
  stream->capturing = false;
  for (CUstream_st* joined : stream->joined) {
    joined->capturing = false;
    joined->capture_id = 0;
    joined->capture_origin = nullptr;
  }
  stream->joined.clear();
  --g_open_captures;
  *graph = new CUgraph_st();
  (*graph)->work.swap(stream->captured);
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
  *status = resolve(stream)->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status, unsigned long long* id) {
  CUstream_st* s = resolve(stream);
  *status = s->capturing ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
  if (id != nullptr) *id = s->capturing ? s->capture_id : 0;
  return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long) {
  *exec = new CUgraphExec_st();
  (*exec)->work = graph->work;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  delete graph;
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec) {
  delete exec;
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream) {
  CUstream_st* s = resolve(stream);
  if (s->capturing) return cudaErrorStreamCaptureUnsupported;
  for (const auto& w : exec->work) w->fn(w->state);
  return cudaSuccess;
}

namespace {
struct CopyState {
  void* dst;
  const void* src;
  size_t n;
};
void run_copy(void* p) {
  auto* c = static_cast<CopyState*>(p);
  std::memmove(c->dst, c->src, c->n);
}
void delete_copy(void* p) { delete static_cast<CopyState*>(p); }
}  // namespace

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind, cudaStream_t stream) {
  fake_cuda::enqueue(stream, &run_copy, new CopyState{dst, src, n}, &delete_copy);
  return cudaSuccess;
}
cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t n, cudaStream_t stream) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, stream);
}
namespace {
int fake_cu_memcpy_async(unsigned long long dst, unsigned long long src, size_t n, cudaStream_t stream) {
  cudaMemcpyAsync(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), n, cudaMemcpyDefault, stream);
  return 0;
}
}  // namespace
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  *fn = nullptr;
  if (std::strcmp(symbol, "cuMemcpyAsync") == 0) *fn = reinterpret_cast<void*>(&fake_cu_memcpy_async);
  if (status != nullptr) *status = *fn != nullptr ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
  if (graph == nullptr || count == nullptr) return cudaErrorInvalidValue;
  if (nodes != nullptr) {
    const size_t n = std::min(*count, graph->work.size());
    for (size_t i = 0; i < n; ++i) nodes[i] = reinterpret_cast<cudaGraphNode_t>(graph->work[i].get());
  }
  *count = graph->work.size();
  return cudaSuccess;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
  if (node == nullptr || type == nullptr) return cudaErrorInvalidValue;
  const auto* work = reinterpret_cast<const Work*>(node);
  *type = work->fn == &run_copy ? cudaGraphNodeTypeMemcpy : cudaGraphNodeTypeKernel;
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned) {
  if (!event->captured) return cudaSuccess;
  CUstream_st* origin = event->capture_origin;
  if (g_open_captures == 0 || origin == nullptr || !origin->capturing || origin->capture_id != event->capture_id) {
    return cudaErrorStreamCaptureUnsupported;  // an event of a capture that has ended
  }
  CUstream_st* s = resolve(stream);
  if (!s->capturing) {
    s->capturing = true;
    s->capture_id = event->capture_id;
    s->capture_origin = origin;
    origin->joined.push_back(s);
  }
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (g_open_captures > 0 || event->captured) return cudaErrorStreamCaptureUnsupported;
  if (event->stream != nullptr) fake_cuda::finish(event->stream);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (start->captured || end->captured) return cudaErrorStreamCaptureUnsupported;
  *ms = 0.001f;
  return cudaSuccess;
}

namespace fake_cuda {
void enqueue(cudaStream_t stream, void (*fn)(void*), void* state, void (*destroy)(void*)) {
  std::shared_ptr<Work> work(new Work{fn, state, destroy});
  CUstream_st* s = resolve(stream);
  if (s->capturing) {
    capture_origin_of(s)->captured.push_back(std::move(work));
  } else {
    work->fn(work->state);
  }
}
void set_busy(cudaStream_t stream) { resolve(stream)->busy = true; }
void finish(cudaStream_t stream) {
  CUstream_st* s = resolve(stream);
  s->busy = false;
  ++s->generation;
}
size_t device_bytes() {
  size_t n = 0;
  for (const auto& [p, size] : g_device) n += size;
  return n;
}
size_t host_bytes() {
  size_t n = 0;
  for (const auto& [p, size] : g_host) n += size;
  return n;
}
int malloc_calls() { return g_malloc_calls; }
cudaStreamCaptureMode capture_mode() { return t_mode; }
}  // namespace fake_cuda
