// Host test of the CUDA-side bookkeeping (caching allocator, private pools, graph capture guard,
// pinned cache, stream hand-over) against the fake runtime in fake/: runs on any machine.
// Exit status 0 when every check passed; each failure prints its line.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "cuda/caching_allocator.h"
#include "cuda/graph_capture.h"
#include "cuda/pinned_host_cache.h"
#include "cuda/stream_registry.h"
#include "cuda_runtime_api.h"

using namespace fhelium;
using namespace fhelium::cuda;

namespace {
int g_failures = 0;
int g_checks = 0;

#define CHECK(cond)                                                       \
  do {                                                                    \
    ++g_checks;                                                           \
    if (!(cond)) {                                                        \
      ++g_failures;                                                       \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                     \
  } while (0)

template <typename F>
bool throws_kind(ErrorKind kind, F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.kind() == kind;
  }
  return false;
}

cudaStream_t new_stream() {
  cudaStream_t s = nullptr;
  cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0);
  return s;
}

CachingAllocator& alloc() { return CachingAllocator::get(0); }

void test_rounding_reuse_and_merge() {
  alloc().empty_cache();
  const uint64_t r0 = alloc().reserved();
  Block* a = alloc().allocate(1000, nullptr);
  CHECK(a->size == 1024);
  CHECK(alloc().allocated() == 1024);
  CHECK(alloc().reserved() == r0 + (2u << 20));
  void* pa = a->ptr;
  alloc().free(a);
  CHECK(alloc().allocated() == 0);
  Block* again = alloc().allocate(900, nullptr);
  CHECK(again->ptr == pa);
  alloc().free(again);

  Block* x = alloc().allocate(1000, nullptr);
  Block* y = alloc().allocate(1000, nullptr);
  Block* z = alloc().allocate(1000, nullptr);
  CHECK(static_cast<char*>(y->ptr) == static_cast<char*>(x->ptr) + 1024);
  void* px = x->ptr;
  alloc().free(y);
  alloc().free(x);
  Block* merged = alloc().allocate(2048, nullptr);
  CHECK(merged->ptr == px);
  alloc().free(merged);
  alloc().free(z);
  CHECK(alloc().allocated() == 0);
  alloc().empty_cache();
  CHECK(alloc().reserved() == r0);

  Block* big = alloc().allocate(3u << 20, nullptr);
  CHECK(alloc().reserved() == r0 + (20u << 20));
  Block* huge = alloc().allocate(12u << 20, nullptr);
  CHECK(huge->size == (12u << 20));
  alloc().free(big);
  alloc().free(huge);
  alloc().empty_cache();
  CHECK(alloc().reserved() == r0);
}

void test_cycles_return_to_baseline() {
  alloc().empty_cache();
  const uint64_t r0 = alloc().reserved();
  const size_t sizes[] = {1, 511, 512, 513, 4096, 1u << 20, (1u << 20) + 1, 3u << 20, 12u << 20};
  for (size_t n : sizes) alloc().free(alloc().allocate(n, nullptr));
  const uint64_t warm = alloc().reserved();
  const int calls = fake_cuda::malloc_calls();
  for (int i = 0; i < 10000; ++i) {
    Block* b = alloc().allocate(sizes[i % 9], nullptr);
    Block* c = alloc().allocate(sizes[(i * 7) % 9], nullptr);
    alloc().free(b);
    alloc().free(c);
  }
  CHECK(alloc().allocated() == 0);
  CHECK(alloc().reserved() <= warm + (20u << 20) + (12u << 20) + (2u << 20));
  const uint64_t after = alloc().reserved();
  for (int i = 0; i < 1000; ++i) {
    Block* b = alloc().allocate(sizes[i % 9], nullptr);
    Block* c = alloc().allocate(sizes[(i * 7) % 9], nullptr);
    alloc().free(b);
    alloc().free(c);
  }
  CHECK(alloc().reserved() == after);  // steady state: no growth
  CHECK(fake_cuda::malloc_calls() - calls < 10);
  alloc().empty_cache();
  CHECK(alloc().reserved() == r0);
  CHECK(fake_cuda::device_bytes() == r0);
}

void test_streams_and_record_stream() {
  cudaStream_t s1 = new_stream();
  Block* on_s1 = alloc().allocate(4096, s1);
  void* p1 = on_s1->ptr;
  alloc().free(on_s1);
  Block* on_default = alloc().allocate(4096, nullptr);
  CHECK(on_default->ptr != p1);  // blocks stay with their stream

  void* pd = on_default->ptr;
  alloc().record_stream(on_default, s1);
  fake_cuda::set_busy(s1);
  alloc().free(on_default);
  CHECK(alloc().allocated() == 0);
  Block* while_busy = alloc().allocate(4096, nullptr);
  CHECK(while_busy->ptr != pd);  // s1 has not passed the free yet
  fake_cuda::finish(s1);
  alloc().free(while_busy);
  Block* after = alloc().allocate(4096, nullptr);
  CHECK(after->ptr == pd);
  alloc().free(after);

  // Destroying s1 hands its cached blocks to the default stream.
  alloc().empty_cache();
  Block* keep = alloc().allocate(8192, s1);
  void* pk = keep->ptr;
  alloc().free(keep);
  alloc().on_stream_destroyed(s1);
  cudaStreamDestroy(s1);
  Block* reused = alloc().allocate(8192, nullptr);
  CHECK(reused->ptr == pk);
  alloc().free(reused);
  alloc().empty_cache();
}

void test_graph_capture_private_pool() {
  alloc().empty_cache();
  const uint64_t a0 = alloc().allocated();
  const uint64_t r0 = alloc().reserved();
  StreamHandle* s = stream_create(0, 0);
  Block* outside = alloc().allocate(1000, s->stream);

  GraphHandle g;
  capture_begin(&g, s);
  CHECK(any_capture_open());
  Block* tmp = alloc().allocate(1000, s->stream);
  CHECK(tmp->pool->owner == g.pool);
  CHECK(alloc().reserved() == r0 + (4u << 20));  // general segment + the pool's segment
  void* ptmp = tmp->ptr;
  alloc().free(tmp);
  Block* out = alloc().allocate(1000, s->stream);
  CHECK(out->ptr == ptmp);  // reuse inside the capture, same stream
  Block* general = alloc().allocate(1000, nullptr);  // another stream: general pool
  CHECK(general->pool->owner == nullptr);
  CHECK(alloc().pool_holds(g.pool, out) && graph_pool_holds(&g, out));
  CHECK(!alloc().pool_holds(g.pool, general) && !graph_pool_holds(&g, general));
  CHECK(!graph_pool_holds(&g, outside));
  CHECK(!alloc().pool_holds(nullptr, out) && !graph_pool_holds(&g, nullptr));
  alloc().free(general);
  CHECK(!alloc().pool_holds(g.pool, general));  // a freed block is not looked at
  // cudaMalloc during capture must run in relaxed mode; the mode is restored afterwards.
  CHECK(fake_cuda::capture_mode() == cudaStreamCaptureModeGlobal);
  // Recorded uses freed during capture are deferred (no event on a capturing stream).
  Block* shared = alloc().allocate(2048, nullptr);
  alloc().record_stream(shared, s->stream);
  alloc().free(shared);
  capture_end(&g);
  CHECK(!any_capture_open());
  CHECK(g.exec != nullptr);
  graph_replay(&g, s);

  CHECK(graph_pool_holds(&g, out));
  GraphHandle other;
  CHECK(!graph_pool_holds(&other, out));  // no pool before a capture
  capture_begin(&other, s);
  Block* other_out = alloc().allocate(1000, s->stream);
  capture_end(&other);
  CHECK(graph_pool_holds(&other, other_out) && !graph_pool_holds(&g, other_out) && !graph_pool_holds(&other, out));
  alloc().free(other_out);
  graph_reset(&other);

  graph_reset(&g);
  CHECK(!graph_pool_holds(&g, out));  // the pool was released, though `out` still lives in it
  // General segments of s and of the default stream, plus the pool's: `out` still lives in it.
  CHECK(alloc().reserved() == r0 + (6u << 20));
  alloc().free(out);
  CHECK(alloc().reserved() == r0 + (4u << 20));  // the pool's segment went back to CUDA
  alloc().free(outside);
  CHECK(alloc().allocated() == a0);
  alloc().empty_cache();
  CHECK(alloc().reserved() == r0);
  stream_destroy(s);
  delete s;
}

void test_capture_violation_discards() {
  alloc().empty_cache();
  const uint64_t r0 = alloc().reserved();
  StreamHandle* s = stream_create(0, 0);
  GraphHandle g;
  capture_begin(&g, s);
  Block* tmp = alloc().allocate(1000, s->stream);
  alloc().free(tmp);
  CHECK(throws_kind(ErrorKind::CaptureViolation, [&] { stream_synchronize(s); }));
  CHECK(throws_kind(ErrorKind::CaptureViolation, [&] { device_synchronize(0); }));
  CHECK(throws_kind(ErrorKind::CaptureViolation, [&] { alloc().empty_cache(); }));
  CHECK(throws_kind(ErrorKind::CaptureViolation, [&] { stream_destroy(s); }));
  CHECK(throws_kind(ErrorKind::CaptureViolation, [&] { capture_end(&g); }));
  CHECK(!any_capture_open());
  CHECK(g.exec == nullptr && g.pool == nullptr);
  CHECK(alloc().reserved() == r0);  // the pool was released with the discarded capture
  // The stream and graph work again.
  stream_synchronize(s);
  capture_begin(&g, s);
  capture_end(&g);
  CHECK(g.exec != nullptr);
  CHECK(throws_kind(ErrorKind::Graph, [&] { capture_begin(&g, s); }));
  graph_reset(&g);
  CHECK(throws_kind(ErrorKind::Graph, [&] { graph_replay(&g, s); }));
  // An aborted capture (the captured function threw) is discarded too.
  capture_begin(&g, s);
  Block* leaked = alloc().allocate(4096, s->stream);
  capture_abort(&g);
  CHECK(!any_capture_open());
  CHECK(alloc().reserved() == r0 + (2u << 20));  // held by the block still alive
  alloc().free(leaked);
  CHECK(alloc().reserved() == r0);
  CHECK(throws_kind(ErrorKind::Graph, [&] { capture_begin(&g, default_stream(0)); }));
  stream_destroy(s);
  delete s;
}

void test_pinned_cache() {
  PinnedHostCache& cache = PinnedHostCache::get();
  cache.empty_cache();
  const uint64_t r0 = cache.reserved();
  cudaStream_t s = new_stream();
  HostBlock* a = cache.allocate(1000);
  CHECK(a->size == 1024);
  CHECK(cache.allocated() == 1024);
  void* pa = a->ptr;
  cache.record_use(a, 0, s);
  fake_cuda::set_busy(s);
  cache.free(a);
  CHECK(cache.allocated() == 0);
  CHECK(cache.reserved() == r0 + 1024);
  HostBlock* b = cache.allocate(1000);
  CHECK(b->ptr != pa);  // the copy using `a` may still run
  fake_cuda::finish(s);
  cache.free(b);
  HostBlock* c = cache.allocate(1000);
  CHECK(c->ptr == pa);
  cache.free(c);
  CHECK(cache.reserved() == r0 + 2048);
  cache.empty_cache();
  CHECK(cache.reserved() == r0);
  CHECK(fake_cuda::host_bytes() == r0);
  cudaStreamDestroy(s);
}
// record_uses (copyTensors: one lock for every pinned source of a batch) delays reuse of every
// block it names, like record_use one by one.
void test_pinned_cache_record_uses() {
  PinnedHostCache& cache = PinnedHostCache::get();
  cache.empty_cache();
  const uint64_t r0 = cache.reserved();
  cudaStream_t s = new_stream();
  HostBlock* blocks[2] = {cache.allocate(600), cache.allocate(600)};
  void* ptrs[2] = {blocks[0]->ptr, blocks[1]->ptr};
  cache.record_uses(blocks, 2, 0, s);
  cache.record_uses(blocks, 2, 0, s);  // recorded once per (device, stream)
  CHECK(blocks[0]->uses.size() == 1 && blocks[1]->uses.size() == 1);
  fake_cuda::set_busy(s);
  cache.free(blocks[0]);
  cache.free(blocks[1]);
  HostBlock* busy = cache.allocate(600);
  CHECK(busy->ptr != ptrs[0] && busy->ptr != ptrs[1]);
  fake_cuda::finish(s);
  HostBlock* again[2] = {cache.allocate(600), cache.allocate(600)};
  CHECK((again[0]->ptr == ptrs[0] || again[0]->ptr == ptrs[1]) && (again[1]->ptr == ptrs[0] || again[1]->ptr == ptrs[1]));
  for (HostBlock* b : {busy, again[0], again[1]}) cache.free(b);
  cache.empty_cache();
  CHECK(cache.reserved() == r0);
  cudaStreamDestroy(s);
}

}  // namespace

int main() {
  const std::vector<std::pair<const char*, std::function<void()>>> tests = {
      {"rounding, reuse and merging", test_rounding_reuse_and_merge},
      {"alloc/free cycles return to baseline", test_cycles_return_to_baseline},
      {"stream ownership and recordStream", test_streams_and_record_stream},
      {"graph capture private pools", test_graph_capture_private_pool},
      {"capture violations discard the capture", test_capture_violation_discards},
      {"pinned host cache", test_pinned_cache},
      {"pinned host cache, record_uses", test_pinned_cache_record_uses},
  };
  for (const auto& [name, fn] : tests) {
    const int before = g_failures;
    try {
      fn();
    } catch (const std::exception& e) {
      ++g_failures;
      std::fprintf(stderr, "%s: unexpected exception: %s\n", name, e.what());
    }
    std::printf("%s %s\n", g_failures == before ? "ok  " : "FAIL", name);
  }
  std::printf("%d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}
