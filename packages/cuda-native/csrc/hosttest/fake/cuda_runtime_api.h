// A host-only model of the CUDA runtime calls made by the allocator, the pinned cache, streams and
// graph capture (csrc/cuda/*.cpp), so their bookkeeping can be tested on a machine without a GPU.
// Memory comes from malloc; a stream is "busy" until the test finishes it, and an event recorded
// on a busy stream completes when that stream is finished; capture only tracks its status. It
// models no timing; copies and the kernels of csrc/hosttest/fake_kernels.cpp run on the host,
// immediately or, while a stream is captured, into the graph that a launch replays.
#pragma once

#include <cstddef>

#define FHELIUM_FAKE_CUDA_RUNTIME 1
#define CUDART_VERSION 0

enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorNotReady = 600,
  cudaErrorStreamCaptureUnsupported = 900,
  cudaErrorStreamCaptureInvalidated = 901,
};
typedef enum cudaError cudaError_t;

struct CUstream_st;
typedef CUstream_st* cudaStream_t;
struct CUevent_st;
typedef CUevent_st* cudaEvent_t;
struct CUgraph_st;
typedef CUgraph_st* cudaGraph_t;
struct CUgraphExec_st;
typedef CUgraphExec_st* cudaGraphExec_t;
// A node of a captured graph: one enqueued piece of work (see fake_cuda::enqueue).
struct CUgraphNode_st;
typedef CUgraphNode_st* cudaGraphNode_t;
enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0x00,
  cudaGraphNodeTypeMemcpy = 0x01,
};

enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2,
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaDriverEntryPointQueryResult {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2,
};

#define cudaEnableDefault 0x0
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaStreamNonBlocking 0x01
#define cudaHostAllocPortable 0x01

struct cudaDeviceProp {
  char name[256];
};
enum cudaDeviceAttr {
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
};

cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
// The fake's devices and their compute capabilities come from FHELIUM_FAKE_COMPUTE_CAPABILITY
// ("9.0" when unset or empty; "8.6,9.0" makes two devices), read once; a malformed value aborts.
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
// The fake runtime is CUDA 13.0. FHELIUM_FAKE_DRIVER_VERSION (CUDA's integer form, 12080 for 12.8;
// 0 for no driver) plays a machine whose driver is that old: cudaGetDeviceCount then answers
// cudaErrorInsufficientDriver. Unset, the driver is as new as the runtime.
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);
cudaError_t cudaGetLastError();
const char* cudaGetErrorName(cudaError_t err);
const char* cudaGetErrorString(cudaError_t err);
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned flags);
cudaError_t cudaFreeHost(void* ptr);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id = nullptr);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec);
cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream);
// Copies are memcpy nodes; every other piece of enqueued work counts as a kernel node.
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device, size_t n,
                                cudaStream_t stream);
// Resolves cuMemcpyAsync (a fake that enqueues like cudaMemcpyAsync); any other symbol is not found.
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** fn, unsigned int version, unsigned long long flags,
                                             cudaDriverEntryPointQueryResult* status = nullptr);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned flags = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end);

// Test controls.
namespace fake_cuda {
// Runs `work` now, or appends it to the graph being captured on `stream`; a replay runs the
// captured work again. Work never runs concurrently, so streams are trivially ordered.
void enqueue(cudaStream_t stream, void (*fn)(void*), void* state, void (*destroy)(void*));
void set_busy(cudaStream_t stream);    // work queued on `stream` is not complete
void finish(cudaStream_t stream);      // all work queued so far on `stream` completes
size_t device_bytes();                 // bytes currently cudaMalloc'ed
size_t host_bytes();                   // bytes currently cudaHostAlloc'ed
int malloc_calls();
cudaStreamCaptureMode capture_mode();  // this thread's current capture mode
}  // namespace fake_cuda
