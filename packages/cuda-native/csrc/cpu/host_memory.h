// Pageable host memory for CPU tensors: 64-byte aligned (a cache line, and enough for AVX-512
// loads), counted so that memoryAllocated('cpu') can report it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fhelium::cpu {

constexpr size_t kHostAlignment = 64;

// Returns memory for `nbytes` bytes (a unique non-null pointer even for 0 bytes). Throws
// Error(Argument) for sizes that overflow and std::bad_alloc when the host is out of memory.
void* host_alloc(size_t nbytes);
void host_free(void* ptr, size_t nbytes);
uint64_t host_bytes_allocated();

}  // namespace fhelium::cpu
