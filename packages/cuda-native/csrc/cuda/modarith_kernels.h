// CUDA launchers of the element-wise modular arithmetic kernels; same operations, argument order
// and layout as csrc/cpu/modarith_kernels.h, plus the stream to enqueue on. Each launcher checks
// the launch (Error(Cuda) on failure) and never synchronizes.
#pragma once

#include <cstdint>

#include "common/device_stream.h"
#include "common/modarith.h"
#include "common/modarith_operand.h"

namespace fhelium::cuda {

void add_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n);
void sub_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n);
void neg_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const Modulus* moduli, int64_t batch, int64_t limbs,
             int64_t n);
void mul_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, BatchedOperand b, const Modulus* moduli,
             int64_t batch, int64_t limbs, int64_t n);
void mul_mod_shoup(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* w, const uint64_t* w_shoup,
                   const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n);

void poly_eval_mod(DeviceStream ds, uint64_t* out, const uint64_t* coefficients, int64_t k, const uint64_t* x,
                   const Modulus* moduli, int64_t limbs, int64_t n);
void tensor_product_mod(DeviceStream ds, uint64_t* out, const uint64_t* a, const uint64_t* b, const Modulus* moduli,
                        int64_t limbs, int64_t n);

}  // namespace fhelium::cuda
