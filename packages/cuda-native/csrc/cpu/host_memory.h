// Pageable host memory for CPU tensors, from a process-wide caching allocator.
//
// Why a cache: the CKKS engine allocates fresh multi-megabyte temporaries for every operation, and
// fresh memory from the C library (mmap-backed for large sizes) page-faults on first touch — at
// N = 2^14 with 7 limbs a basis extension into fresh memory takes 4-8x longer than into a reused
// buffer. Freed blocks are therefore kept in free lists keyed by their size class and handed out
// again for requests of the same class.
//
// Size classes: requests up to kHostSmallLimit round up to a multiple of 512 bytes, larger ones to
// a multiple of the 4 KiB page. A request is served only by a cached block of exactly its class.
// Every block is kHostAlignment (64-byte) aligned: a cache line, enough for AVX-512 loads and for
// every kernel's tables (16-byte uint128 / Modulus rows).
//
// Cap: at most host_cache_limit() bytes stay cached (default kDefaultHostCacheLimit, or the
// environment variable FHELIUM_CPU_CACHE_LIMIT in bytes, read once at first use). A free that
// would exceed it releases the least recently freed cached blocks first; a block larger than the
// limit is released at once. host_empty_cache() releases every cached block.
//
// Reuse safety: CPU kernels run synchronously, so a block freed by its last tensor is no longer
// touched by CPU work. The only asynchronous users of pageable host memory could be CUDA copies,
// and cuda::copy_bytes waits (cudaStreamSynchronize) for every copy to or from pageable memory
// before returning — CUDA itself promises only that such copies "might be synchronous". Copies
// that overlap use pinned memory, whose cache tracks them with events. So a freed pageable block
// is free at once and may be handed out again immediately.
//
// Thread-safe (one mutex): finalizers and worker threads may free concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fhelium::cpu {

constexpr size_t kHostAlignment = 64;
constexpr size_t kHostSmallLimit = size_t{1} << 20;  // 1 MiB: up to here, 512-byte classes
constexpr size_t kHostSmallGranularity = 512;
constexpr size_t kHostPageGranularity = 4096;
constexpr uint64_t kDefaultHostCacheLimit = uint64_t{1} << 30;  // 1 GiB

// The size class (bytes actually reserved) of a request of `nbytes` (0 counts as 1). Throws
// Error(Argument) when rounding would overflow.
size_t host_size_class(size_t nbytes);

// Returns memory for `nbytes` bytes (a unique non-null pointer even for 0 bytes), a cached block of
// the same size class when there is one. Throws Error(Argument) for sizes that overflow and
// std::bad_alloc when the host is out of memory even after releasing the cache.
void* host_alloc(size_t nbytes);

// Returns a block of host_alloc(nbytes) to the cache. `nbytes` must be the size it was allocated
// with; throws Error(Internal) (and changes nothing) for a pointer the allocator does not hold as
// live or a mismatching size. nullptr is ignored.
void host_free(void* ptr, size_t nbytes);

// Bytes held by live blocks (size classes), i.e. memoryAllocated('cpu').
uint64_t host_bytes_allocated();
// Bytes held from the C library: live plus cached blocks, i.e. memoryReserved('cpu').
uint64_t host_bytes_reserved();
// Releases every cached (free) block to the C library.
void host_empty_cache();
// The cap on cached bytes; setting it releases cached blocks beyond the new cap.
uint64_t host_cache_limit();
void set_host_cache_limit(uint64_t bytes);

}  // namespace fhelium::cpu
