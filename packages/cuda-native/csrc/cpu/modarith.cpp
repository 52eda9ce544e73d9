#include <string>

#include "common/error.h"
#include "common/modarith.h"

#include "cpu/modarith_kernels.h"
#include "cpu/parallel.h"

namespace fhelium::cpu {

namespace {

// Applies op(q-or-modulus, i) over every row; the per-row modulus is hoisted out of the inner loop
// so the compiler can vectorize the additive kernels. Threads take whole rows. row_fn captures by
// value and each range works on its own copy: captures by reference would be reached through
// the loop's escaped context, and the compiler would reload `n` after every uint64 store.
template <typename RowFn>
void for_rows(const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, RowFn row_fn) {
  parallel_for(static_cast<std::size_t>(batch * limbs), grain_for(static_cast<std::size_t>(n)),
               [&](std::size_t begin, std::size_t end) {
                 const RowFn fn = row_fn;
                 const int64_t rows_limbs = limbs, row_n = n;
                 for (int64_t r = static_cast<int64_t>(begin); r < static_cast<int64_t>(end); ++r) {
                   const int64_t l = r % rows_limbs;
                   fn(moduli[l], r * row_n, l * row_n);
                 }
               });
}

// out = op(a, b) over every row, b read through its batch geometry (a zero row where it has none).
// Full rows go through row(o, x, y, n, m), which may be a vectorized form of op. Threads take whole
// rows; the range works on copies of the operands (see for_rows).
template <typename Op, typename RowOp>
void binary_rows(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch,
                 int64_t limbs, int64_t n, Op op, RowOp row) {
  parallel_for(static_cast<std::size_t>(batch * limbs), grain_for(static_cast<std::size_t>(n)),
               [&](std::size_t begin, std::size_t end) {
                 const BatchedOperand bo = b;
                 const int64_t rows_limbs = limbs, row_n = n;
                 for (int64_t r = static_cast<int64_t>(begin); r < static_cast<int64_t>(end); ++r) {
                   const int64_t bi = r / rows_limbs, l = r % rows_limbs;
                   const Modulus m = moduli[l];
                   uint64_t* o = out + r * row_n;
                   const uint64_t* x = a + r * row_n;
                   const uint64_t* y = bo.row(bi, l, row_n);
                   if (y != nullptr) {
                     row(o, x, y, row_n, m);
                   } else {
                     for (int64_t i = 0; i < row_n; ++i) o[i] = op(x[i], uint64_t{0}, m);
                   }
                 }
               });
}

// The row form of an element op, for ops without a vectorized one.
template <typename Op>
auto element_rows(Op op) {
  return [op](uint64_t* o, const uint64_t* x, const uint64_t* y, int64_t n, const Modulus& m) {
    for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i], m);
  };
}

// Rows of add_mod and sub_mod written as minimums, which compilers vectorize (the conditional
// subtraction of add_mod/sub_mod does not, for want of an unsigned 64-bit compare before AVX-512):
//   add: s = x + y < 2q; min(s, s - q) is s - q when s >= q, and s when s < q (s - q wraps above s);
//   sub: d = x - y;      min(d, d + q) is d when x >= y, and d + q when x < y (d wraps above d + q).
// Both equal add_mod/sub_mod bit for bit. On x86-64 Linux the functions are also compiled for AVX2
// and the loader picks that clone on CPUs that have it.
#if defined(__x86_64__) && defined(__GNUC__) && defined(__linux__)
#define FHELIUM_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define FHELIUM_AVX2_CLONES
#endif

FHELIUM_AVX2_CLONES void add_row(uint64_t* o, const uint64_t* x, const uint64_t* y, int64_t n, uint64_t q) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t s = x[i] + y[i];
    const uint64_t t = s - q;
    o[i] = t < s ? t : s;
  }
}

FHELIUM_AVX2_CLONES void sub_row(uint64_t* o, const uint64_t* x, const uint64_t* y, int64_t n, uint64_t q) {
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t d = x[i] - y[i];
    const uint64_t t = d + q;
    o[i] = t < d ? t : d;
  }
}

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  binary_rows(out, a, b, moduli, batch, limbs, n,
              [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::add_mod(x, y, m.value); },
              [](uint64_t* o, const uint64_t* x, const uint64_t* y, int64_t len, const Modulus& m) {
                add_row(o, x, y, len, m.value);
              });
}

void sub_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  binary_rows(out, a, b, moduli, batch, limbs, n,
              [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::sub_mod(x, y, m.value); },
              [](uint64_t* o, const uint64_t* x, const uint64_t* y, int64_t len, const Modulus& m) {
                sub_row(o, x, y, len, m.value);
              });
}

void neg_mod(uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  for_rows(moduli, batch, limbs, n, [&](const Modulus& m, int64_t base, int64_t) {
    const uint64_t q = m.value;
    for (int64_t i = base; i < base + n; ++i) out[i] = fhelium::neg_mod(a[i], q);
  });
}

void mul_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  const auto op = [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::mul_mod(x, y, m); };
  binary_rows(out, a, b, moduli, batch, limbs, n, op, element_rows(op));
}

void mul_mod_shoup(uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  for_rows(moduli, batch, limbs, n, [&](const Modulus& m, int64_t base, int64_t wbase) {
    const uint64_t q = m.value;
    for (int64_t i = 0; i < n; ++i) {
      out[base + i] = fhelium::mul_mod_shoup(a[base + i], w[wbase + i], w_shoup[wbase + i], q);
    }
  });
}

// Throws (Argument) for a modulus outside [2, 2^62) or an unreduced w: the quotient divides by q
// (0 would end the process with SIGFPE) and must fit a word (w < q). Other kernels take any table
// without harm to the process, so this one checks what it divides by.
void shoup_precompute(uint64_t* out, const uint64_t* w, const Modulus* moduli, int64_t limbs, int64_t n) {
  for (int64_t l = 0; l < limbs; ++l) {
    const uint64_t q = moduli[l].value;
    FHELIUM_CHECK(q >= 2 && q < (uint64_t{1} << 62), Argument,
                  "shoupPrecompute: moduli[" + std::to_string(l) + "]: expected a modulus in [2, 2^62), found " + std::to_string(q));
    for (int64_t i = l * n; i < (l + 1) * n; ++i) {
      if (w[i] >= q) {
        fail(ErrorKind::Argument, "shoupPrecompute: w[" + std::to_string(l) + "][" + std::to_string(i - l * n) + "] = " + std::to_string(w[i]) +
                                      " is not reduced modulo moduli[" + std::to_string(l) + "] = " + std::to_string(q));
      }
      out[i] = fhelium::shoup_precompute(w[i], q);
    }
  }
}

void poly_eval_mod(uint64_t* out, const uint64_t* coefficients, int64_t k, const uint64_t* x, const Modulus* moduli,
                   int64_t limbs, int64_t n) {
  if (k <= 0) return;
  const int64_t block = limbs * n;
  for (int64_t l = 0; l < limbs; ++l) {
    const Modulus m = moduli[l];
    for (int64_t i = l * n; i < (l + 1) * n; ++i) {
      out[i] = fhelium::poly_eval_mod(coefficients + i, block, k, x[i], m);
    }
  }
}

void tensor_product_mod(uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli, int64_t limbs,
                        int64_t n) {
  const int64_t block = limbs * n;
  for (int64_t l = 0; l < limbs; ++l) {
    const Modulus m = moduli[l];
    for (int64_t i = l * n; i < (l + 1) * n; ++i) {
      fhelium::tensor_product_mod(out + i, a + i, b + i, block, m);
    }
  }
}

}  // namespace fhelium::cpu
