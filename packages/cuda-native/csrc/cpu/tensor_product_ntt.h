// The tensor product of two ciphertexts together with the inverse NTT of its last component: what
// a relinearization of the product starts from (csrc/cuda/tensor_product_ntt.h is its CUDA twin).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ntt_tables.h"

namespace fhelium::cpu {

// product = [a0·b0, a0·b1 + a1·b0, a1·b1] mod q (tensor_product_mod's words) and coefficients =
// the inverse NTT of product's last component (ntt_inverse's words). a, b: [2][limbs][N] in NTT
// form; product: [3][limbs][N]; coefficients: [limbs][N]; all contiguous. Limb l works modulo the
// NTT table row limb_to_prime[l] (HOST memory, limbs entries). The outputs are disjoint from the
// inputs and from each other. Throws Error(Argument) before writing anything.
void tensor_product_inverse_ntt(const uint64_t* a, const uint64_t* b, uint64_t* product, uint64_t* coefficients,
                                std::size_t limbs, const uint32_t* limb_to_prime, const NttTablesView& tables);

}  // namespace fhelium::cpu
