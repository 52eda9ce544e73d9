// Just enough unsigned big-integer arithmetic for exact CRT references in the tests: 64-bit
// little-endian words, schoolbook operations.
#pragma once

#include <cstdint>
#include <vector>

namespace fhelium::test {

class BigUint {
 public:
  BigUint() = default;
  explicit BigUint(uint64_t v) {
    if (v != 0) w_.push_back(v);
  }

  BigUint& operator+=(const BigUint& o) {
    if (w_.size() < o.w_.size()) w_.resize(o.w_.size(), 0);
    unsigned __int128 carry = 0;
    for (std::size_t i = 0; i < w_.size(); ++i) {
      carry += w_[i];
      if (i < o.w_.size()) carry += o.w_[i];
      w_[i] = static_cast<uint64_t>(carry);
      carry >>= 64;
    }
    if (carry != 0) w_.push_back(static_cast<uint64_t>(carry));
    return *this;
  }

  // Requires *this >= o.
  BigUint& operator-=(const BigUint& o) {
    uint64_t borrow = 0;
    for (std::size_t i = 0; i < w_.size(); ++i) {
      const uint64_t sub = i < o.w_.size() ? o.w_[i] : 0;
      const unsigned __int128 need = static_cast<unsigned __int128>(sub) + borrow;
      if (static_cast<unsigned __int128>(w_[i]) >= need) {
        w_[i] = static_cast<uint64_t>(w_[i] - need);
        borrow = 0;
      } else {
        w_[i] = static_cast<uint64_t>((static_cast<unsigned __int128>(1) << 64) + w_[i] - need);
        borrow = 1;
      }
    }
    trim();
    return *this;
  }

  BigUint mul(uint64_t m) const {
    BigUint r;
    unsigned __int128 carry = 0;
    for (uint64_t x : w_) {
      carry += static_cast<unsigned __int128>(x) * m;
      r.w_.push_back(static_cast<uint64_t>(carry));
      carry >>= 64;
    }
    if (carry != 0) r.w_.push_back(static_cast<uint64_t>(carry));
    r.trim();
    return r;
  }

  uint64_t mod(uint64_t m) const {
    unsigned __int128 r = 0;
    for (std::size_t i = w_.size(); i-- > 0;) r = ((r << 64) | w_[i]) % m;
    return static_cast<uint64_t>(r);
  }

  // Quotient of division by d (floor); the remainder is mod(d).
  BigUint div(uint64_t d) const {
    BigUint q;
    q.w_.assign(w_.size(), 0);
    unsigned __int128 r = 0;
    for (std::size_t i = w_.size(); i-- > 0;) {
      r = (r << 64) | w_[i];
      q.w_[i] = static_cast<uint64_t>(r / d);
      r %= d;
    }
    q.trim();
    return q;
  }

  friend bool operator<(const BigUint& a, const BigUint& b) {
    if (a.w_.size() != b.w_.size()) return a.w_.size() < b.w_.size();
    for (std::size_t i = a.w_.size(); i-- > 0;) {
      if (a.w_[i] != b.w_[i]) return a.w_[i] < b.w_[i];
    }
    return false;
  }

 private:
  void trim() {
    while (!w_.empty() && w_.back() == 0) w_.pop_back();
  }
  std::vector<uint64_t> w_;
};

inline BigUint product(const std::vector<uint64_t>& primes) {
  BigUint p(1);
  for (uint64_t q : primes) p = p.mul(q);
  return p;
}

// The CRT lift S = sum_i [r_i * â_i^{-1}]_{q_i} * â_i (S = x + u * Q with 0 <= u < count).
BigUint crt_sum(const std::vector<uint64_t>& residues, const std::vector<uint64_t>& primes);

// The exact CRT value in [0, Q).
BigUint crt_value(const std::vector<uint64_t>& residues, const std::vector<uint64_t>& primes);

}  // namespace fhelium::test
