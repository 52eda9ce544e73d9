// Sampling of RNS polynomials from a ChaCha20 keystream on the CPU (the keystream, the samplers
// and the distribution tables: common/sampling_core.h). The host draws only the 32-byte key of a
// call; every sample is a pure function of (key, stream, position), so cuda/sampling.h produces
// the same bits.
//
// Layout: `out` holds `batch` polynomials of `limbs` limbs of N = 2^log_n words, limb-contiguous,
// `batch_stride` words apart; limb l is reduced modulo moduli[l] (the `[limbs, 3]` table of
// common/modarith.h). Positions in the keystream are logical, independent of batch_stride:
//   sample_uniform_mod: residue i of limb l of polynomial b is the 128-bit value of keystream
//     words 2j (low) and 2j + 1 (high), j = (b * limbs + l) * N + i, reduced mod q_l;
//   sample_small_mod: coefficient i of polynomial b is drawn from distribution b with keystream
//     word b * N + i, and the same signed value is written mod q_l to every limb l.
// Both throw Error(Argument) (common/sampling_checks.h) before writing anything.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/modarith.h"
#include "common/sampling_core.h"

namespace fhelium::cpu {

void sample_uniform_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                        std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                        const SamplingKey& key);

void sample_small_mod(uint64_t* out, std::size_t batch_stride, std::size_t batch,
                      std::size_t limbs, uint32_t log_n, const Modulus* moduli,
                      const SamplingKey& key, const SmallDistributions& distributions);

}  // namespace fhelium::cpu
