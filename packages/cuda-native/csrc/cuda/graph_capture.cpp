#include "cuda/graph_capture.h"

#include <algorithm>
#include <vector>

#include "common/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_context.h"

namespace fhelium::cuda {

namespace {
thread_local std::vector<GraphHandle*> t_open;

void close_open(GraphHandle* g) {
  t_open.erase(std::remove(t_open.begin(), t_open.end(), g), t_open.end());
  g->capturing = false;
}

// Ends the stream capture of `g`, returning the captured graph (or nullptr) and the error.
cudaError_t end_stream_capture(GraphHandle* g, cudaGraph_t* graph) {
  set_device(g->device);
  *graph = nullptr;
  const cudaError_t err = cudaStreamEndCapture(g->capture_stream, graph);
  if (err != cudaSuccess) cudaGetLastError();
  CachingAllocator::get(g->device).end_capture(g->capture_id);
  close_open(g);
  return err;
}

// Counts the nodes of a captured graph and, among them, the kernel nodes: what a replay launches
// in one go and what eager work would launch one by one.
cudaError_t count_nodes(cudaGraph_t graph, std::size_t& nodes, std::size_t& kernels) {
  std::size_t n = 0;
  cudaError_t err = cudaGraphGetNodes(graph, nullptr, &n);
  if (err != cudaSuccess) return err;
  std::vector<cudaGraphNode_t> list(n);
  if (n > 0) err = cudaGraphGetNodes(graph, list.data(), &n);
  if (err != cudaSuccess) return err;
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cudaGraphNodeType type;
    err = cudaGraphNodeGetType(list[i], &type);
    if (err != cudaSuccess) return err;
    if (type == cudaGraphNodeTypeKernel) ++k;
  }
  nodes = n;
  kernels = k;
  return cudaSuccess;
}

void discard(GraphHandle* g, cudaGraph_t graph) {
  if (graph != nullptr) cudaGraphDestroy(graph);
  cudaGetLastError();
  if (g->pool != nullptr) {
    CachingAllocator::get(g->device).release_pool(g->pool);
    g->pool = nullptr;
  }
  g->violation.clear();
  g->capture_stream = nullptr;
  g->capture_id = 0;
}
}  // namespace

bool any_capture_open() { return !t_open.empty(); }

void check_no_capture(const char* operation) {
  check_no_capture(operation, "it would synchronize with or read from work that is only being recorded");
}

void check_no_capture(const char* operation, const char* reason) {
  if (t_open.empty()) return;
  const std::string message = std::string(operation) +
                              " is not allowed while a CUDA graph capture is open on this thread: " + reason +
                              ". The capture has been invalidated and is discarded when capture() returns.";
  for (GraphHandle* g : t_open) {
    if (g->violation.empty()) g->violation = message;
  }
  fail(ErrorKind::CaptureViolation, message);
}

bool stream_is_capturing(cudaStream_t stream) {
  if (t_open.empty()) return false;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

void capture_begin(GraphHandle* g, StreamHandle* stream) {
  FHELIUM_CHECK(!g->destroyed, Disposed, "the CudaGraph was disposed");
  FHELIUM_CHECK(!g->capturing, Graph, "this CudaGraph is already capturing");
  FHELIUM_CHECK(g->exec == nullptr, Graph, "this CudaGraph already holds a captured graph; call reset() first");
  FHELIUM_CHECK(!stream->destroyed, Disposed, "the capture stream was disposed");
  FHELIUM_CHECK(stream->stream != nullptr, Graph,
                "cannot capture on the default stream of cuda:" + std::to_string(stream->device) +
                    "; capture on a stream created with new Stream()");
  set_device(stream->device);
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  FHELIUM_CUDA_CHECK(cudaStreamIsCapturing(stream->stream, &status));
  FHELIUM_CHECK(status == cudaStreamCaptureStatusNone, Graph, "the stream is already being captured");

  CachingAllocator& alloc = CachingAllocator::get(stream->device);
  PrivatePool* pool = alloc.create_pool();
  const cudaError_t err = cudaStreamBeginCapture(stream->stream, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess) {
    alloc.release_pool(pool);
    throw_cuda_error(err, "cudaStreamBeginCapture");
  }
  unsigned long long id = 0;
  const cudaError_t info_err = cudaStreamGetCaptureInfo(stream->stream, &status, &id);
  g->device = stream->device;
  g->capture_stream = stream->stream;
  g->pool = pool;
  g->capturing = true;
  t_open.push_back(g);
  if (info_err != cudaSuccess) {
    capture_abort(g);
    throw_cuda_error(info_err, "cudaStreamGetCaptureInfo");
  }
  g->capture_id = id;
  alloc.begin_capture(pool, id);
}

void capture_end(GraphHandle* g) {
  FHELIUM_CHECK(g->capturing, Graph, "this CudaGraph is not capturing");
  cudaGraph_t graph = nullptr;
  const cudaError_t err = end_stream_capture(g, &graph);
  if (!g->violation.empty()) {
    const std::string message = g->violation;
    discard(g, graph);
    fail(ErrorKind::CaptureViolation, message);
  }
  if (err != cudaSuccess) {
    discard(g, graph);
    throw_cuda_error(err, "cudaStreamEndCapture");
  }
  std::size_t nodes = 0, kernels = 0;
  const cudaError_t count_err = count_nodes(graph, nodes, kernels);
  if (count_err != cudaSuccess) {
    discard(g, graph);
    throw_cuda_error(count_err, "cudaGraphGetNodes");
  }
  cudaGraphExec_t exec = nullptr;
  const cudaError_t inst_err = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  if (inst_err != cudaSuccess) {
    discard(g, nullptr);
    throw_cuda_error(inst_err, "cudaGraphInstantiate");
  }
  g->exec = exec;
  g->nodes = nodes;
  g->kernel_nodes = kernels;
  g->violation.clear();
}

void capture_abort(GraphHandle* g) {
  if (!g->capturing) return;
  cudaGraph_t graph = nullptr;
  end_stream_capture(g, &graph);
  discard(g, graph);
}

void graph_replay(GraphHandle* g, StreamHandle* stream) {
  FHELIUM_CHECK(!g->destroyed, Disposed, "the CudaGraph was disposed");
  FHELIUM_CHECK(!g->capturing, Graph, "cannot replay a CudaGraph while it is capturing");
  FHELIUM_CHECK(g->exec != nullptr, Graph, "nothing to replay: the CudaGraph has not captured anything (or was reset)");
  FHELIUM_CHECK(stream->device == g->device, Argument,
                "cannot replay a graph captured on cuda:" + std::to_string(g->device) + " on a stream of cuda:" +
                    std::to_string(stream->device));
  set_device(g->device);
  FHELIUM_CUDA_CHECK(cudaGraphLaunch(g->exec, stream->stream));
}

void graph_reset(GraphHandle* g) {
  FHELIUM_CHECK(!g->capturing, Graph, "cannot reset a CudaGraph while it is capturing");
  if (g->exec != nullptr) {
    set_device(g->device);
    FHELIUM_CUDA_CHECK(cudaGraphExecDestroy(g->exec));
    g->exec = nullptr;
    g->nodes = 0;
    g->kernel_nodes = 0;
  }
  if (g->pool != nullptr) {
    CachingAllocator::get(g->device).release_pool(g->pool);
    g->pool = nullptr;
  }
}

bool graph_pool_holds(const GraphHandle* g, const Block* block) {
  if (g->pool == nullptr || block == nullptr) return false;
  return CachingAllocator::get(g->device).pool_holds(g->pool, block);
}

GraphNodeCounts graph_node_counts(const GraphHandle* g) {
  FHELIUM_CHECK(!g->destroyed, Disposed, "the CudaGraph was disposed");
  FHELIUM_CHECK(g->exec != nullptr, Graph, "no nodes to count: the CudaGraph has not captured anything (or was reset)");
  return GraphNodeCounts{g->nodes, g->kernel_nodes};
}

}  // namespace fhelium::cuda
