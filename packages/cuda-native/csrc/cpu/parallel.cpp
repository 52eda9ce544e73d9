#include "cpu/parallel.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

#include "common/error.h"

namespace fhelium::cpu {
namespace {

// Ranges per thread: more than one, so that a thread that starts late or is slowed by another
// process takes fewer ranges instead of holding up the loop; few, so that per-range costs stay
// small.
constexpr std::size_t kRangesPerThread = 8;

// How long a worker keeps polling for the next loop after finishing one, and the caller for the
// workers still inside its loop, before sleeping on a condition variable. Kernels come in bursts
// (an engine operation runs tens of them, a few microseconds of JavaScript apart); waking a
// sleeping thread costs tens of microseconds (more in a virtual machine), as much as a small
// kernel's whole run.
constexpr std::chrono::microseconds kSpin{100};

// Polls pred until it holds or `budget` has passed; returns its last value.
template <typename Pred>
bool spin_until(const Pred& pred, std::chrono::microseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (unsigned i = 1;; ++i) {
    if (pred()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
    if ((i & 63) == 0 && std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

// True on the pool's workers, and on a calling thread while it runs its own loop: a parallel_for
// there runs inline (nested loops never wait for the pool they are part of).
thread_local bool t_inside_loop = false;

std::size_t hardware_threads() {
#if defined(__linux__)
  // The CPUs this process may run on (taskset, cgroup cpusets), not every CPU of the machine.
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<std::size_t>(n);
  }
#endif
  const unsigned n = std::thread::hardware_concurrency();
  return n > 0 ? n : 1;
}

struct Job {
  detail::RangeFn fn;
  const void* ctx;
  std::size_t count;
  std::size_t ranges;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // written once, by the thread that set `failed`

  // Claims ranges until none is left. Never throws.
  void run() {
    const std::size_t base = count / ranges, extra = count % ranges;
    for (;;) {
      const std::size_t r = next.fetch_add(1, std::memory_order_relaxed);
      if (r >= ranges) return;
      if (failed.load(std::memory_order_relaxed)) continue;  // skip what has not started
      // Range r: `base` indices, plus one for the first `extra` ranges.
      const std::size_t begin = r * base + std::min(r, extra);
      const std::size_t end = begin + base + (r < extra ? 1 : 0);
      try {
        fn(ctx, begin, end);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  }
};

class Pool {
 public:
  // Configured thread count; reads FHELIUM_CPU_THREADS at the first call (and again after a
  // failed read, so a bad value keeps failing with the same message).
  std::size_t threads() {
    const std::size_t t = threads_.load(std::memory_order_acquire);
    if (t != 0) return t;
    std::lock_guard<std::mutex> lock(config_);
    if (threads_.load(std::memory_order_relaxed) == 0) {
      threads_.store(threads_from_env(std::getenv("FHELIUM_CPU_THREADS"), hardware_threads()),
                     std::memory_order_release);
    }
    return threads_.load(std::memory_order_relaxed);
  }

  void set_threads(std::size_t threads) {
    if (threads > kMaxCpuThreads) {
      fail(ErrorKind::Argument, "set_thread_count: expected a thread count in [0, " +
                                    std::to_string(kMaxCpuThreads) + "], got " +
                                    std::to_string(threads));
    }
    std::lock_guard<std::mutex> submit(submit_);  // no loop is running on the pool now
    stop_workers();
    std::lock_guard<std::mutex> lock(config_);
    threads_.store(threads, std::memory_order_release);  // 0: read the environment again
  }

  // Runs job on the pool with up to `threads` threads (the caller being one). Returns false,
  // having run nothing, when another thread is running a loop on the pool.
  bool try_run(Job& job, std::size_t threads) {
    std::unique_lock<std::mutex> submit(submit_, std::try_to_lock);
    if (!submit.owns_lock()) return false;
    start_workers(std::min(threads - 1, job.ranges - 1));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = &job;
      published_.store(++generation_, std::memory_order_release);
    }
    work_cv_.notify_all();  // no system call when every worker is polling
    t_inside_loop = true;
    job.run();
    t_inside_loop = false;
    // Close the job (a worker waking now finds nothing) and wait for the workers inside it: job
    // lives on the caller's stack. Every range is claimed, so they are finishing their last one.
    spin_until([this] { return active_.load(std::memory_order_acquire) == 0; }, kSpin);
    std::unique_lock<std::mutex> lock(mutex_);
    job_ = nullptr;
    done_cv_.wait(lock, [this] { return active_.load(std::memory_order_relaxed) == 0; });
    return true;
  }

 private:
  // Called with submit_ held. A worker that cannot be created (thread limits) is simply not
  // there: the threads that exist run the loop.
  void start_workers(std::size_t wanted) {
    std::uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      generation = generation_;
    }
    while (workers_.size() < wanted) {
      try {
        // The worker joins jobs opened after `generation`, including the one about to be opened
        // (it may first take the lock after that).
        workers_.emplace_back([this, generation] { work(generation); });
      } catch (const std::system_error&) {
        return;
      }
    }
  }

  // Called with submit_ held (no job is open).
  void stop_workers() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      stopping_.store(true, std::memory_order_release);
    }
    work_cv_.notify_all();
    for (std::thread& w : workers_) w.join();
    workers_.clear();
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = false;
    stopping_.store(false, std::memory_order_release);
  }

  void work(std::uint64_t seen) {
    t_inside_loop = true;
    for (;;) {
      spin_until([&] { return published_.load(std::memory_order_acquire) != seen || stopping_.load(std::memory_order_acquire); },
                 kSpin);
      std::unique_lock<std::mutex> lock(mutex_);
      if (!stop_ && job_ == nullptr && generation_ != seen) {
        seen = generation_;  // a loop that closed before this worker got to it: poll for the next
        continue;
      }
      work_cv_.wait(lock, [&] { return stop_ || (job_ != nullptr && generation_ != seen); });
      if (stop_) return;
      seen = generation_;
      Job* job = job_;
      active_.fetch_add(1, std::memory_order_relaxed);
      lock.unlock();
      job->run();
      lock.lock();
      if (active_.fetch_sub(1, std::memory_order_acq_rel) == 1 && job_ == nullptr) done_cv_.notify_one();
    }
  }

  std::mutex config_;                       // first read of the thread count
  std::atomic<std::size_t> threads_{0};     // 0: not read yet
  std::mutex submit_;                       // held by the one caller running a loop on the pool
  std::mutex mutex_;                        // guards what follows
  std::condition_variable work_cv_;         // a job was opened, or stop_
  std::condition_variable done_cv_;         // active_ dropped to 0 after the job was closed
  Job* job_ = nullptr;                      // the open job, null when none
  std::uint64_t generation_ = 0;            // counts opened jobs
  std::atomic<std::size_t> active_{0};      // workers inside a job (changed under mutex_)
  bool stop_ = false;
  // Copies of generation_ and stop_ that polling threads read without the lock.
  std::atomic<std::uint64_t> published_{0};
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;        // touched only with submit_ held
};

// Never destroyed: worker threads blocked on the pool may outlive static destruction at exit.
Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

}  // namespace

std::size_t threads_from_env(const char* value, std::size_t hardware) {
  if (value == nullptr || *value == '\0') return std::clamp<std::size_t>(hardware, 1, kMaxCpuThreads);
  std::size_t n = 0;
  const char* p = value;
  for (; *p >= '0' && *p <= '9' && n <= kMaxCpuThreads; ++p) n = n * 10 + static_cast<std::size_t>(*p - '0');
  if (p == value || *p != '\0' || n < 1 || n > kMaxCpuThreads) {
    fail(ErrorKind::Argument, "FHELIUM_CPU_THREADS: expected an integer in [1, " +
                                  std::to_string(kMaxCpuThreads) + "] (the CPU kernels' thread count), got '" +
                                  std::string(value) + "'");
  }
  return n;
}

std::size_t thread_count() { return pool().threads(); }

void set_thread_count(std::size_t threads) { pool().set_threads(threads); }

namespace detail {

void run_parallel(std::size_t count, std::size_t grain, RangeFn fn, const void* ctx) {
  if (count == 0) return;
  if (grain == 0) grain = 1;
  const std::size_t threads = t_inside_loop ? 1 : thread_count();
  const std::size_t ranges = std::min(count / grain, threads * kRangesPerThread);
  if (threads <= 1 || ranges <= 1) {
    fn(ctx, 0, count);
    return;
  }
  Job job;
  job.fn = fn;
  job.ctx = ctx;
  job.count = count;
  job.ranges = ranges;
  if (!pool().try_run(job, threads)) {
    fn(ctx, 0, count);
    return;
  }
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace detail
}  // namespace fhelium::cpu
