#include "common/modarith.h"

#include "cpu/modarith_kernels.h"

namespace fhelium::cpu {

namespace {

// Applies op(q-or-modulus, i) over every row; the per-row modulus is hoisted out of the inner loop
// so the compiler can vectorize the additive kernels.
template <typename RowFn>
void for_rows(const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, RowFn row_fn) {
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t l = 0; l < limbs; ++l) {
      const int64_t base = (bi * limbs + l) * n;
      row_fn(moduli[l], base, l * n);
    }
  }
}

// out = op(a, b) over every row, b read through its batch geometry (a zero row where it has none).
template <typename Op>
void binary_rows(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch,
                 int64_t limbs, int64_t n, Op op) {
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t l = 0; l < limbs; ++l) {
      const Modulus m = moduli[l];
      uint64_t* o = out + (bi * limbs + l) * n;
      const uint64_t* x = a + (bi * limbs + l) * n;
      const uint64_t* y = b.row(bi, l, n);
      if (y != nullptr) {
        for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], y[i], m);
      } else {
        for (int64_t i = 0; i < n; ++i) o[i] = op(x[i], uint64_t{0}, m);
      }
    }
  }
}

}  // namespace

void add_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  binary_rows(out, a, b, moduli, batch, limbs, n,
              [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::add_mod(x, y, m.value); });
}

void sub_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  binary_rows(out, a, b, moduli, batch, limbs, n,
              [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::sub_mod(x, y, m.value); });
}

void neg_mod(uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n) {
  for_rows(moduli, batch, limbs, n, [&](const Modulus& m, int64_t base, int64_t) {
    const uint64_t q = m.value;
    for (int64_t i = base; i < base + n; ++i) out[i] = fhelium::neg_mod(a[i], q);
  });
}

void mul_mod(uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n) {
  binary_rows(out, a, b, moduli, batch, limbs, n,
              [](uint64_t x, uint64_t y, const Modulus& m) { return fhelium::mul_mod(x, y, m); });
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

void shoup_precompute(uint64_t* out, const uint64_t* w, const Modulus* moduli, int64_t limbs, int64_t n) {
  for (int64_t l = 0; l < limbs; ++l) {
    const uint64_t q = moduli[l].value;
    for (int64_t i = l * n; i < (l + 1) * n; ++i) out[i] = fhelium::shoup_precompute(w[i], q);
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
