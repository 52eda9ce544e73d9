// Streams, events and CUDA graphs. In a CPU-only build every entry point throws
// Error(CudaUnavailable) (TypeScript refuses CUDA devices before getting here).
#include "binding/binding.h"
#include "binding/storage.h"

#if FHELIUM_WITH_CUDA
#include <cuda_runtime_api.h>

#include "cuda/device_context.h"
#include "cuda/event_handle.h"
#include "cuda/graph_capture.h"
#include "cuda/stream_registry.h"
#endif

namespace fhelium::binding {
namespace {

#if FHELIUM_WITH_CUDA
using cuda::EventHandle;
using cuda::GraphHandle;
using cuda::StreamHandle;

StreamHandle* live_stream(Args& a, size_t i) {
  auto* s = a.external<StreamHandle>(i, "a stream");
  FHELIUM_CHECK(!s->destroyed, Disposed, "the stream was disposed");
  return s;
}

EventHandle* live_event(Args& a, size_t i) {
  auto* e = a.external<EventHandle>(i, "an event");
  FHELIUM_CHECK(!e->destroyed, Disposed, "the event was disposed");
  return e;
}

GraphHandle* live_graph(Args& a, size_t i) {
  auto* g = a.external<GraphHandle>(i, "a CUDA graph");
  FHELIUM_CHECK(!g->destroyed, Disposed, "the CudaGraph was disposed");
  return g;
}

void no_finalize_stream(StreamHandle*) {}
void finalize_stream(StreamHandle* s) {
  // Safety net only (Stream.dispose() is the normal path). Destroying synchronizes the stream;
  // while a capture is open that is illegal, so the stream is then left to the driver.
  if (!s->destroyed && cuda::any_capture_open()) return;
  try {
    cuda::stream_destroy(s);
  } catch (...) {
    return;
  }
  delete s;
}
void finalize_event(EventHandle* e) {
  try {
    cuda::event_destroy(e);
  } catch (...) {
  }
  delete e;
}
void finalize_graph(GraphHandle* g) {
  try {
    if (!g->capturing) cuda::graph_reset(g);
  } catch (...) {
  }
  if (!g->capturing) delete g;
}

void check_device(int device) { cuda::require_device(device); }
#endif

// streamDefault(device): External (the device's legacy default stream)
napi_value stream_default(Args& a) {
#if FHELIUM_WITH_CUDA
  const int device = a.i32(0);
  check_device(device);
  return make_external(a.env(), cuda::default_stream(device), &no_finalize_stream);
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamDefault", stream_default)

// streamCreate(device, priority): External
napi_value stream_create(Args& a) {
#if FHELIUM_WITH_CUDA
  const int device = a.i32(0);
  check_device(device);
  return make_external(a.env(), cuda::stream_create(device, a.i32(1)), &finalize_stream);
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamCreate", stream_create)

// streamInfo(stream): { device, priority, handle: bigint }
napi_value stream_info(Args& a) {
#if FHELIUM_WITH_CUDA
  StreamHandle* s = live_stream(a, 0);
  napi_value o = object(a.env());
  set(a.env(), o, "device", number(a.env(), s->device));
  set(a.env(), o, "priority", number(a.env(), s->priority));
  set(a.env(), o, "handle", bigint(a.env(), reinterpret_cast<uintptr_t>(s->stream)));
  return o;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamInfo", stream_info)

// streamPriorityRange(device): [least, greatest]
napi_value stream_priority_range(Args& a) {
#if FHELIUM_WITH_CUDA
  int least = 0, greatest = 0;
  cuda::stream_priority_range(a.i32(0), &least, &greatest);
  napi_value arr;
  napi_create_array_with_length(a.env(), 2, &arr);
  napi_set_element(a.env(), arr, 0, number(a.env(), least));
  napi_set_element(a.env(), arr, 1, number(a.env(), greatest));
  return arr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamPriorityRange", stream_priority_range)

// streamDestroy(stream)
napi_value stream_destroy(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::stream_destroy(a.external<StreamHandle>(0, "a stream"));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamDestroy", stream_destroy)

// streamSetCurrent(device, stream|null)
napi_value stream_set_current(Args& a) {
#if FHELIUM_WITH_CUDA
  const int device = a.i32(0);
  check_device(device);
  cuda::set_current_stream(device, a.is_nullish(1) ? nullptr : live_stream(a, 1));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamSetCurrent", stream_set_current)

napi_value stream_query(Args& a) {
#if FHELIUM_WITH_CUDA
  return boolean(a.env(), cuda::stream_query(live_stream(a, 0)));
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamQuery", stream_query)

napi_value stream_synchronize(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::stream_synchronize(live_stream(a, 0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamSynchronize", stream_synchronize)

// streamWaitEvent(stream, event)
napi_value stream_wait_event(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::stream_wait_event(live_stream(a, 0), live_event(a, 1));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("streamWaitEvent", stream_wait_event)

// eventCreate(enableTiming, blocking): External (the CUDA event is created at first record)
napi_value event_create(Args& a) {
#if FHELIUM_WITH_CUDA
  auto* e = new EventHandle();
  e->timing = a.boolean(0);
  e->blocking = a.boolean(1);
  return make_external(a.env(), e, &finalize_event);
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventCreate", event_create)

napi_value event_record(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::event_record(live_event(a, 0), live_stream(a, 1));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventRecord", event_record)

napi_value event_query(Args& a) {
#if FHELIUM_WITH_CUDA
  return boolean(a.env(), cuda::event_query(live_event(a, 0)));
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventQuery", event_query)

napi_value event_synchronize(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::event_synchronize(live_event(a, 0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventSynchronize", event_synchronize)

napi_value event_elapsed(Args& a) {
#if FHELIUM_WITH_CUDA
  return number(a.env(), cuda::event_elapsed_ms(live_event(a, 0), live_event(a, 1)));
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventElapsedMs", event_elapsed)

napi_value event_destroy(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::event_destroy(a.external<EventHandle>(0, "an event"));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("eventDestroy", event_destroy)

// graphCreate(): External
napi_value graph_create(Args& a) {
#if FHELIUM_WITH_CUDA
  return make_external(a.env(), new GraphHandle(), &finalize_graph);
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphCreate", graph_create)

napi_value graph_capture_begin(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::capture_begin(live_graph(a, 0), live_stream(a, 1));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphCaptureBegin", graph_capture_begin)

napi_value graph_capture_end(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::capture_end(live_graph(a, 0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphCaptureEnd", graph_capture_end)

napi_value graph_capture_abort(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::capture_abort(live_graph(a, 0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphCaptureAbort", graph_capture_abort)

napi_value graph_replay(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::graph_replay(live_graph(a, 0), live_stream(a, 1));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphReplay", graph_replay)

napi_value graph_reset(Args& a) {
#if FHELIUM_WITH_CUDA
  cuda::graph_reset(live_graph(a, 0));
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphReset", graph_reset)

napi_value graph_node_counts(Args& a) {
#if FHELIUM_WITH_CUDA
  const cuda::GraphNodeCounts counts = cuda::graph_node_counts(live_graph(a, 0));
  napi_value o = object(a.env());
  set(a.env(), o, "nodes", number(a.env(), static_cast<double>(counts.nodes)));
  set(a.env(), o, "kernels", number(a.env(), static_cast<double>(counts.kernels)));
  return o;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphNodeCounts", graph_node_counts)

// graphPoolHolds(graph, storage): whether the storage was allocated in the graph's private pool
// (during its capture). False for host storage, storage of another device, and a graph holding no
// pool. Throws Error(Disposed) for a disposed graph or a released storage.
napi_value graph_pool_holds(Args& a) {
#if FHELIUM_WITH_CUDA
  const GraphHandle* g = live_graph(a, 0);
  const Storage* s = storage_arg(a, 1);
  const bool same_device = s->device >= 0 && s->device == g->device;
  return boolean(a.env(), same_device && cuda::graph_pool_holds(g, static_cast<const cuda::Block*>(s->block)));
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphPoolHolds", graph_pool_holds)

// graphDestroy(graph): reset, then mark destroyed (idempotent). Throws Error(Graph) while capturing.
napi_value graph_destroy(Args& a) {
#if FHELIUM_WITH_CUDA
  auto* g = a.external<GraphHandle>(0, "a CUDA graph");
  if (g->destroyed) return nullptr;
  cuda::graph_reset(g);
  g->destroyed = true;
  return nullptr;
#else
  (void)a;
  cuda_not_built();
#endif
}
FHELIUM_BINDING("graphDestroy", graph_destroy)

// captureOpen(): whether a graph capture is open on this thread.
napi_value capture_open(Args& a) {
#if FHELIUM_WITH_CUDA
  return boolean(a.env(), cuda::any_capture_open());
#else
  return boolean(a.env(), false);
#endif
}
FHELIUM_BINDING("captureOpen", capture_open)

}  // namespace
}  // namespace fhelium::binding
