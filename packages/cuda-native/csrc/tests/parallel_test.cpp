// The CPU thread pool (cpu/parallel.h): coverage of every index, range sizes, exceptions, nested
// and concurrent loops, the FHELIUM_CPU_THREADS parser and the one-thread path.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "cpu/parallel.h"
#include "tests/test_util.h"

namespace fhelium::test {
namespace {

// Runs one loop and checks that every index was visited exactly once, by ranges of at least
// `grain` indices (or one range over everything), at most threads * 8 of them.
bool covers_exactly_once(std::size_t count, std::size_t grain, std::size_t threads, std::string& why) {
  std::vector<std::atomic<int>> visits(count);
  std::atomic<std::size_t> ranges{0}, short_ranges{0};
  cpu::parallel_for(count, grain, [&](std::size_t begin, std::size_t end) {
    ranges.fetch_add(1);
    if (end - begin < (grain == 0 ? 1 : grain) && !(begin == 0 && end == count)) short_ranges.fetch_add(1);
    for (std::size_t i = begin; i < end; ++i) visits[i].fetch_add(1);
  });
  for (std::size_t i = 0; i < count; ++i) {
    if (visits[i].load() != 1) {
      why = "index " + std::to_string(i) + " visited " + std::to_string(visits[i].load()) + " times";
      return false;
    }
  }
  if (count == 0 && ranges.load() != 0) {
    why = "fn called for an empty loop";
    return false;
  }
  if (short_ranges.load() != 0) {
    why = std::to_string(short_ranges.load()) + " ranges below the grain";
    return false;
  }
  if (ranges.load() > threads * 8) {
    why = std::to_string(ranges.load()) + " ranges for " + std::to_string(threads) + " threads";
    return false;
  }
  return true;
}

// Waits (at most 10 s) until `entered` reaches `target`: lets a test see two threads inside one
// loop at the same time without depending on timing.
bool wait_for(const std::atomic<int>& entered, int target) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (entered.load() < target) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::yield();
  }
  return true;
}

void coverage_tests(Counter& c) {
  const std::size_t counts[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 100, 1000, 4097};
  const std::size_t grains[] = {0, 1, 2, 3, 7, 64, 5000};
  for (std::size_t threads : {1u, 2u, 3u, 4u, 7u}) {
    cpu::set_thread_count(threads);
    c.check(cpu::thread_count() == threads, "set_thread_count(" + std::to_string(threads) + ") is read back");
    bool ok = true;
    std::string why;
    for (std::size_t count : counts) {
      for (std::size_t grain : grains) {
        std::string w;
        if (!covers_exactly_once(count, grain, threads, w) && ok) {
          ok = false;
          why = "count " + std::to_string(count) + ", grain " + std::to_string(grain) + ": " + w;
        }
      }
    }
    c.check(ok, "every index exactly once, ranges >= grain, " + std::to_string(threads) + " threads " + why);
  }
}

void concurrency_tests(Counter& c) {
  // Two threads inside one loop at once: the first range waits for a second one to start.
  cpu::set_thread_count(2);
  {
    std::atomic<int> entered{0};
    std::atomic<bool> met{true};
    cpu::parallel_for(2, 1, [&](std::size_t, std::size_t) {
      entered.fetch_add(1);
      if (!wait_for(entered, 2)) met = false;
    });
    c.check(met.load() && entered.load() == 2, "2 threads: two ranges run at the same time");
  }
  // One thread: everything on the calling thread, in one call.
  cpu::set_thread_count(1);
  {
    const auto caller = std::this_thread::get_id();
    std::atomic<int> calls{0};
    std::atomic<bool> same{true};
    cpu::parallel_for(1000, 1, [&](std::size_t begin, std::size_t end) {
      calls.fetch_add(1);
      if (std::this_thread::get_id() != caller || begin != 0 || end != 1000) same = false;
    });
    c.check(same.load() && calls.load() == 1, "1 thread: one call on the calling thread");
  }
  // Below the grain: one call on the calling thread even with many threads.
  cpu::set_thread_count(4);
  {
    const auto caller = std::this_thread::get_id();
    std::atomic<int> calls{0};
    std::atomic<bool> same{true};
    cpu::parallel_for(100, 64, [&](std::size_t begin, std::size_t end) {
      calls.fetch_add(1);
      if (std::this_thread::get_id() != caller || begin != 0 || end != 100) same = false;
    });
    c.check(same.load() && calls.load() == 1, "count < 2 * grain: not split");
  }
  // Nested loops run inline on the thread of the outer range, in one call.
  {
    std::atomic<bool> inline_ok{true};
    std::vector<std::atomic<int>> visits(64 * 50);
    cpu::parallel_for(64, 1, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        const auto outer = std::this_thread::get_id();
        int calls = 0;
        cpu::parallel_for(50, 1, [&](std::size_t b, std::size_t e) {
          ++calls;
          if (std::this_thread::get_id() != outer || b != 0 || e != 50) inline_ok = false;
          for (std::size_t k = b; k < e; ++k) visits[i * 50 + k].fetch_add(1);
        });
        if (calls != 1) inline_ok = false;
      }
    });
    bool once = true;
    for (auto& v : visits) once = once && v.load() == 1;
    c.check(inline_ok.load() && once, "nested parallel_for runs inline, every index once");
  }
  // Several threads calling at once (as JavaScript worker threads would): each loop complete.
  {
    std::atomic<int> failures{0};
    std::vector<std::thread> callers;
    for (int t = 0; t < 4; ++t) {
      callers.emplace_back([&failures, t] {
        for (int rep = 0; rep < 200; ++rep) {
          std::string why;
          if (!covers_exactly_once(static_cast<std::size_t>(37 + 13 * t + rep % 7), 1, 4, why)) failures.fetch_add(1);
        }
      });
    }
    for (auto& th : callers) th.join();
    c.check(failures.load() == 0, "4 calling threads x 200 loops: every index exactly once");
  }
}

void exception_tests(Counter& c) {
  for (std::size_t threads : {1u, 2u, 4u}) {
    cpu::set_thread_count(threads);
    const std::string t = " (" + std::to_string(threads) + " threads)";
    // A fhelium::Error keeps its kind and message.
    bool caught = false;
    try {
      cpu::parallel_for(1000, 1, [](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          if (i == 637) fail(ErrorKind::Argument, "index 637 is bad");
        }
      });
    } catch (const Error& e) {
      caught = e.kind() == ErrorKind::Argument && std::string(e.what()) == "index 637 is bad";
    }
    c.check(caught, "an Error thrown in a range reaches the caller with its kind and message" + t);
    // Any exception type; when every range throws, one exception comes out.
    int thrown = 0;
    try {
      cpu::parallel_for(64, 1, [](std::size_t, std::size_t) { throw 42; });
    } catch (int v) {
      thrown = v;
    }
    c.check(thrown == 42, "a non-std exception reaches the caller" + t);
    // The pool works normally afterwards.
    std::string why;
    c.check(covers_exactly_once(4097, 1, threads, why), "loops after an exception are complete" + t + " " + why);
  }
  // Thrown on a worker (both ranges wait until two threads are inside, so one range is a
  // worker's), caught on the calling thread.
  cpu::set_thread_count(2);
  {
    const auto caller = std::this_thread::get_id();
    std::atomic<int> entered{0};
    std::atomic<bool> worker_threw{false};
    bool caught = false;
    try {
      cpu::parallel_for(2, 1, [&](std::size_t, std::size_t) {
        entered.fetch_add(1);
        wait_for(entered, 2);
        if (std::this_thread::get_id() != caller) {
          worker_threw = true;
          fail(ErrorKind::Internal, "thrown on a worker");
        }
      });
    } catch (const Error& e) {
      caught = e.kind() == ErrorKind::Internal && std::string(e.what()) == "thrown on a worker";
    }
    c.check(worker_threw.load() && caught, "an exception thrown on a worker reaches the calling thread");
  }
}

bool throws_argument(const char* value) {
  try {
    cpu::threads_from_env(value, 8);
  } catch (const Error& e) {
    return e.kind() == ErrorKind::Argument && std::string(e.what()).find("FHELIUM_CPU_THREADS") != std::string::npos;
  }
  return false;
}

void environment_tests(Counter& c) {
  c.check(cpu::threads_from_env(nullptr, 8) == 8, "unset FHELIUM_CPU_THREADS: the hardware's count");
  c.check(cpu::threads_from_env("", 3) == 3, "empty FHELIUM_CPU_THREADS: the hardware's count");
  c.check(cpu::threads_from_env(nullptr, 0) == 1, "no hardware count: 1 thread");
  c.check(cpu::threads_from_env("1", 8) == 1, "FHELIUM_CPU_THREADS=1");
  c.check(cpu::threads_from_env("12", 2) == 12, "FHELIUM_CPU_THREADS=12 on 2 CPUs: 12");
  c.check(cpu::threads_from_env("1024", 2) == 1024, "FHELIUM_CPU_THREADS=1024 (the maximum)");
  bool all = true;
  for (const char* bad : {"0", "-1", "+2", " 2", "2 ", "two", "2x", "1025", "99999999999999999999999"}) {
    all = all && throws_argument(bad);
  }
  c.check(all, "bad FHELIUM_CPU_THREADS values throw Error(Argument) naming the variable");

  // The environment is read when the count is reset to the default (0).
  const char* saved = std::getenv("FHELIUM_CPU_THREADS");
  const std::string saved_value = saved ? saved : "";
  setenv("FHELIUM_CPU_THREADS", "1", 1);
  cpu::set_thread_count(0);
  c.check(cpu::thread_count() == 1, "FHELIUM_CPU_THREADS=1 is read at the first loop");
  {
    const auto caller = std::this_thread::get_id();
    std::atomic<bool> same{true};
    cpu::parallel_for(1 << 16, 1, [&](std::size_t, std::size_t) {
      if (std::this_thread::get_id() != caller) same = false;
    });
    c.check(same.load(), "FHELIUM_CPU_THREADS=1: loops run on the calling thread");
  }
  setenv("FHELIUM_CPU_THREADS", "3", 1);
  cpu::set_thread_count(0);
  c.check(cpu::thread_count() == 3, "FHELIUM_CPU_THREADS=3 is read");
  setenv("FHELIUM_CPU_THREADS", "lots", 1);
  cpu::set_thread_count(0);
  bool loop_throws = false;
  try {
    cpu::parallel_for(1 << 16, 1, [](std::size_t, std::size_t) {});
  } catch (const Error& e) {
    loop_throws = e.kind() == ErrorKind::Argument;
  }
  c.check(loop_throws, "FHELIUM_CPU_THREADS=lots: a loop throws Error(Argument)");
  bool too_many = false;
  try {
    cpu::set_thread_count(cpu::kMaxCpuThreads + 1);
  } catch (const Error& e) {
    too_many = e.kind() == ErrorKind::Argument;
  }
  c.check(too_many, "set_thread_count above the maximum throws Error(Argument)");
  if (saved) {
    setenv("FHELIUM_CPU_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("FHELIUM_CPU_THREADS");
  }
  cpu::set_thread_count(0);
}

}  // namespace

void run_parallel_tests(Counter& c) {
  coverage_tests(c);
  concurrency_tests(c);
  exception_tests(c);
  environment_tests(c);
}

}  // namespace fhelium::test
