// The CPU kernels' thread count (cpu/parallel.h).
#include <string>

#include "binding/binding.h"
#include "cpu/parallel.h"

namespace fhelium::binding {
namespace {

// cpuThreads(): threads the CPU kernels use. Throws (Argument) when FHELIUM_CPU_THREADS is bad.
napi_value cpu_threads(Args& a) { return number(a.env(), static_cast<double>(cpu::thread_count())); }
FHELIUM_BINDING("cpuThreads", cpu_threads)

// setCpuThreads(threads: number): 0 restores the default (FHELIUM_CPU_THREADS, else the CPUs this
// process may use). Internal, for tests and tuning.
napi_value set_cpu_threads(Args& a) {
  const int64_t threads = a.i64(0);
  FHELIUM_CHECK(threads >= 0 && static_cast<uint64_t>(threads) <= cpu::kMaxCpuThreads, Argument,
                "setCpuThreads: expected a thread count in [0, " + std::to_string(cpu::kMaxCpuThreads) +
                    "] (0: the default), got " + std::to_string(threads));
  cpu::set_thread_count(static_cast<std::size_t>(threads));
  return nullptr;
}
FHELIUM_BINDING("setCpuThreads", set_cpu_threads)

}  // namespace
}  // namespace fhelium::binding
