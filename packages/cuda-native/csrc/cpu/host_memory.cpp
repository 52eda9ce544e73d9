#include "cpu/host_memory.h"

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/error.h"

namespace fhelium::cpu {

namespace {

struct HostBlock {
  void* ptr = nullptr;
  size_t size = 0;  // the size class
  bool cached = false;
  // Least-recently-freed order of cached blocks (head: most recently freed).
  HostBlock* lru_prev = nullptr;
  HostBlock* lru_next = nullptr;
};

uint64_t limit_from_environment() {
  const char* text = std::getenv("FHELIUM_CPU_CACHE_LIMIT");
  if (text == nullptr || *text == '\0') return kDefaultHostCacheLimit;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  FHELIUM_CHECK(errno == 0 && end != text && *end == '\0' && text[0] != '-', Argument,
                std::string("FHELIUM_CPU_CACHE_LIMIT: expected a non-negative integer number of bytes, got '") + text +
                    "'");
  return static_cast<uint64_t>(v);
}

class HostCache {
 public:
  static HostCache& get() {
    // Never destroyed: finalizers may free storages while the process exits.
    static HostCache* cache = new HostCache(limit_from_environment());
    return *cache;
  }

  void* allocate(size_t nbytes) {
    const size_t size = host_size_class(nbytes);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end() && !it->second.empty()) {
        HostBlock* b = it->second.back();  // the most recently freed: likeliest still in CPU caches
        it->second.pop_back();
        lru_unlink(b);
        b->cached = false;
        cached_ -= size;
        allocated_ += size;
        return b->ptr;
      }
    }
    void* p = std::aligned_alloc(kHostAlignment, size);
    if (p == nullptr) {
      empty_cache();
      p = std::aligned_alloc(kHostAlignment, size);
      if (p == nullptr) {
        throw Error(ErrorKind::HostOutOfMemory, "could not allocate " + std::to_string(nbytes) + " bytes of host memory (a block of " +
                                                    std::to_string(size) + " bytes), even after releasing the cache");
      }
    }
    auto* b = new HostBlock();
    b->ptr = p;
    b->size = size;
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      blocks_.emplace(p, b);
      allocated_ += size;
      reserved_ += size;
    } catch (...) {
      delete b;
      std::free(p);
      throw;
    }
    return p;
  }

  void free(void* ptr, size_t nbytes) {
    std::vector<HostBlock*> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = blocks_.find(ptr);
      FHELIUM_CHECK(it != blocks_.end() && !it->second->cached, Internal,
                    "host_free: the pointer is not a live block of the host allocator");
      HostBlock* b = it->second;
      FHELIUM_CHECK(b->size == host_size_class(nbytes), Internal,
                    "host_free: the size given does not match the block's allocation size");
      allocated_ -= b->size;
      if (b->size > limit_) {
        blocks_.erase(it);
        reserved_ -= b->size;
        released.push_back(b);
      } else {
        // Evict before caching so the freed block (the hottest) survives.
        evict_until(limit_ - b->size, released);
        b->cached = true;
        free_[b->size].push_back(b);
        lru_push_front(b);
        cached_ += b->size;
      }
    }
    release(released);
  }

  void empty_cache() {
    std::vector<HostBlock*> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      evict_until(0, released);
    }
    release(released);
  }

  void set_limit(uint64_t bytes) {
    std::vector<HostBlock*> released;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      limit_ = bytes;
      evict_until(bytes, released);
    }
    release(released);
  }

  uint64_t limit() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return limit_;
  }
  uint64_t allocated() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return allocated_;
  }
  uint64_t reserved() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return reserved_;
  }

 private:
  explicit HostCache(uint64_t limit) : limit_(limit) {}

  // Moves least recently freed cached blocks into `out` until at most `target` bytes stay cached.
  // Caller holds mutex_.
  void evict_until(uint64_t target, std::vector<HostBlock*>& out) {
    while (cached_ > target && lru_tail_ != nullptr) {
      HostBlock* b = lru_tail_;
      lru_unlink(b);
      auto& list = free_[b->size];
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i] == b) {
          list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
      if (list.empty()) free_.erase(b->size);
      blocks_.erase(b->ptr);
      cached_ -= b->size;
      reserved_ -= b->size;
      out.push_back(b);
    }
  }

  // Returns blocks to the C library, outside the mutex (free() of a large block unmaps pages).
  static void release(std::vector<HostBlock*>& blocks) {
    for (HostBlock* b : blocks) {
      std::free(b->ptr);
      delete b;
    }
  }

  void lru_push_front(HostBlock* b) {
    b->lru_prev = nullptr;
    b->lru_next = lru_head_;
    if (lru_head_ != nullptr) lru_head_->lru_prev = b;
    lru_head_ = b;
    if (lru_tail_ == nullptr) lru_tail_ = b;
  }

  void lru_unlink(HostBlock* b) {
    if (b->lru_prev != nullptr) b->lru_prev->lru_next = b->lru_next;
    else lru_head_ = b->lru_next;
    if (b->lru_next != nullptr) b->lru_next->lru_prev = b->lru_prev;
    else lru_tail_ = b->lru_prev;
    b->lru_prev = b->lru_next = nullptr;
  }

  mutable std::mutex mutex_;
  std::unordered_map<void*, HostBlock*> blocks_;                  // live and cached blocks
  std::unordered_map<size_t, std::vector<HostBlock*>> free_;      // cached blocks by size class
  HostBlock* lru_head_ = nullptr;
  HostBlock* lru_tail_ = nullptr;
  uint64_t allocated_ = 0;
  uint64_t reserved_ = 0;
  uint64_t cached_ = 0;
  uint64_t limit_;
};

}  // namespace

size_t host_size_class(size_t nbytes) {
  const size_t granularity = nbytes <= kHostSmallLimit ? kHostSmallGranularity : kHostPageGranularity;
  FHELIUM_CHECK(nbytes <= SIZE_MAX - granularity, Argument,
                "host allocation of " + std::to_string(nbytes) + " bytes overflows the size type");
  const size_t n = nbytes == 0 ? 1 : nbytes;
  return (n + granularity - 1) / granularity * granularity;
}

void* host_alloc(size_t nbytes) { return HostCache::get().allocate(nbytes); }

void host_free(void* ptr, size_t nbytes) {
  if (ptr == nullptr) return;
  HostCache::get().free(ptr, nbytes);
}

uint64_t host_bytes_allocated() { return HostCache::get().allocated(); }
uint64_t host_bytes_reserved() { return HostCache::get().reserved(); }
void host_empty_cache() { HostCache::get().empty_cache(); }
uint64_t host_cache_limit() { return HostCache::get().limit(); }
void set_host_cache_limit(uint64_t bytes) { HostCache::get().set_limit(bytes); }

}  // namespace fhelium::cpu
