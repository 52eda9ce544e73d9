// L2 residency for the data that kernels read again on every call of an operation: the
// key-switching keys. A relinearization at n14-l7 streams its 18.9 MB key through L2 between
// ModUp's digits and ModDown's inputs; with the key marked persisting, repeated key switches
// (a replayed graph, a server's stream of multiplications) find it in L2 instead of HBM, and the
// key no longer evicts the chain's intermediate results.
//
// The set-aside: on the first eager call per device, the persisting L2 limit
// (cudaLimitPersistingL2CacheSize) is raised to the device's maximum unless the process set one
// already. Normal accesses may still use the set-aside while no persisting line occupies it.
// FHELIUM_L2_PERSIST=0 (read once per process) turns all of this off, for comparison and as an
// escape hatch.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace fhelium::cuda {

// Fills `attribute` with an access policy window that keeps [base, base + bytes) in L2 as far as
// the set-aside allows (the rest streams) and returns true; returns false and leaves `attribute`
// alone when the feature is off, the device has no persisting L2 (MIG slices, pre-Ampere GPUs),
// or the set-aside is not configured yet and `stream` is capturing (the limit is never changed
// during a capture: the next eager call configures it). Never throws.
// Precondition: `stream` belongs to the current device.
bool persisting_window(const void* base, std::size_t bytes, cudaStream_t stream,
                       cudaLaunchAttribute* attribute);

}  // namespace fhelium::cuda
