// Parallel loops for the CPU kernels: a small pool of persistent worker threads.
//
// parallel_for(count, grain, fn) calls fn(begin, end) on disjoint ranges that together cover
// [0, count) exactly once, on the calling thread and the pool's workers, and returns when every
// call has returned. A kernel stays bit-identical to its serial form as long as each output
// element is computed by the same operations whatever range it falls in (only the partition of
// the loop changes).
//
// - Threads: thread_count(), by default the CPUs this process may run on; FHELIUM_CPU_THREADS
//   (a positive integer, read once at first use) overrides it, and FHELIUM_CPU_THREADS=1 runs
//   every loop on the calling thread. Workers (thread_count() - 1 of them; the caller is the
//   last) start at the first loop that needs them and then wait for work.
// - No split below `grain`: a range holds at least `grain` indices (except when count < grain,
//   then one range holds them all), so callers choose grain as the work worth a hand-off
//   (a few tens of microseconds). Ranges are handed out dynamically, so a worker that starts
//   late (a busy machine) just takes fewer of them.
// - Inline: a loop runs serially on the calling thread when it is nested in another parallel_for
//   (on a worker or on the caller), or when another thread (e.g. another JavaScript worker
//   thread) is running a loop on the pool at that moment.
// - Exceptions: the first exception thrown by fn is rethrown on the calling thread once every
//   range in flight has returned; ranges not yet started are skipped.
#pragma once

#include <cstddef>

namespace fhelium::cpu {

// The number of threads parallel_for uses (>= 1). Throws Error(Argument) when
// FHELIUM_CPU_THREADS is set but is not an integer in [1, kMaxCpuThreads].
std::size_t thread_count();

// Replaces the thread count (tests and tools; 0 restores the default of FHELIUM_CPU_THREADS or
// the hardware). Waits for a loop running on the pool to finish, then stops the workers; new ones
// start at the next loop that needs them. Throws Error(Argument) above kMaxCpuThreads.
void set_thread_count(std::size_t threads);

constexpr std::size_t kMaxCpuThreads = 1024;

// The thread count that FHELIUM_CPU_THREADS = value (nullptr: unset) asks for on a machine with
// `hardware` usable CPUs. Throws Error(Argument) naming the variable when value is not an integer
// in [1, kMaxCpuThreads].
std::size_t threads_from_env(const char* value, std::size_t hardware);

namespace detail {
using RangeFn = void (*)(const void* ctx, std::size_t begin, std::size_t end);
void run_parallel(std::size_t count, std::size_t grain, RangeFn fn, const void* ctx);
}  // namespace detail

// fn(begin, end) is called concurrently from several threads: it must only write what its range
// owns. fn must not call back into JavaScript. grain 0 counts as 1.
template <typename Fn>
void parallel_for(std::size_t count, std::size_t grain, const Fn& fn) {
  detail::run_parallel(
      count, grain,
      [](const void* ctx, std::size_t begin, std::size_t end) { (*static_cast<const Fn*>(ctx))(begin, end); },
      &fn);
}

// The grain for a loop whose indices each cost about `work_per_index` units, a unit being one
// simple word operation (an add of two words, about a nanosecond): every range then holds at least
// kMinParallelWork units. Below about this much work a hand-off to another thread costs more than
// it saves (an element-wise add of 2^14 words takes a few microseconds).
constexpr std::size_t kMinParallelWork = std::size_t{1} << 15;
constexpr std::size_t grain_for(std::size_t work_per_index) {
  return work_per_index >= kMinParallelWork ? 1
         : work_per_index == 0           ? kMinParallelWork
                                         : (kMinParallelWork + work_per_index - 1) / work_per_index;
}

}  // namespace fhelium::cpu
