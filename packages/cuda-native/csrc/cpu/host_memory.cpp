#include "cpu/host_memory.h"

#include <atomic>
#include <cstdlib>
#include <new>

#include "common/error.h"

namespace fhelium::cpu {

namespace {
std::atomic<uint64_t> g_host_bytes{0};

size_t rounded(size_t nbytes) {
  FHELIUM_CHECK(nbytes <= SIZE_MAX - kHostAlignment, Argument, "host allocation size overflows");
  const size_t n = nbytes == 0 ? kHostAlignment : nbytes;
  return (n + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
}
}  // namespace

void* host_alloc(size_t nbytes) {
  const size_t size = rounded(nbytes);
  void* p = std::aligned_alloc(kHostAlignment, size);
  if (p == nullptr) throw std::bad_alloc();
  g_host_bytes.fetch_add(size, std::memory_order_relaxed);
  return p;
}

void host_free(void* ptr, size_t nbytes) {
  if (ptr == nullptr) return;
  std::free(ptr);
  g_host_bytes.fetch_sub(rounded(nbytes), std::memory_order_relaxed);
}

uint64_t host_bytes_allocated() { return g_host_bytes.load(std::memory_order_relaxed); }

}  // namespace fhelium::cpu
