// One thread per (coefficient, limb, group of up to kBatchPerThread batch entries): each b_i residue
// is loaded once and multiplied into the 128-bit accumulators of every batch entry of its group.
// Consecutive threads write consecutive coefficients; with an automorphism they read a permutation
// of the same aligned block of 32 positions (the NTT-domain permutation maps aligned blocks of 2^b
// positions onto aligned blocks of 2^b), so loads stay coalesced.
#include "cuda/mul_accumulate.h"

#include <cuda_runtime.h>

#include "common/acc128.h"
#include "common/galois_index.h"
#include "cuda/dependent_launch.h"
#include "cuda/launch_check.h"

namespace fhelium::cuda {
namespace {

constexpr int kThreads = 256;
// Two batch entries (a ciphertext's components) per thread and four terms' loads ahead keep the
// kernel at 64 registers (four 256-thread blocks per SM); four entries with four terms ahead took
// 102 and halved the resident threads.
constexpr int kBatchPerThread = 2;
constexpr uint32_t kTermsAhead = 4;
constexpr int64_t kMaxGrid = 65535;

__global__ void __launch_bounds__(kThreads)
    mul_accumulate_kernel(uint64_t* __restrict__ out, const MulAccumulateTerms terms, uint32_t count,
                          const Modulus* __restrict__ moduli, int64_t batch, int64_t limbs, int64_t n,
                          uint32_t log_n, uint64_t galois_elt, bool accumulate) {
  wait_for_producers();
  const int64_t k = static_cast<int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n) return;  // no block-wide synchronization below
  const int64_t s = galois_elt == 1 ? k : automorphism_ntt_source(static_cast<uint32_t>(k), log_n, galois_elt);
  const int64_t batch_stride = limbs * n;
  for (int64_t l = blockIdx.y; l < limbs; l += gridDim.y) {
    const Modulus m = moduli[l];
    // The residue already in out counts as one more term of the single-reduction bound.
    const bool single = fits_single_reduction(count + (accumulate ? 1u : 0u), m.value);
    for (int64_t c0 = static_cast<int64_t>(blockIdx.z) * kBatchPerThread; c0 < batch;
         c0 += static_cast<int64_t>(gridDim.z) * kBatchPerThread) {
      const int64_t group = batch - c0 < kBatchPerThread ? batch - c0 : kBatchPerThread;
      uint64_t* dst = out + (c0 * limbs + l) * n + k;
      // Fully unrolled over the group with compile-time indices, so acc[] stays in registers.
      Acc128 acc[kBatchPerThread];
#pragma unroll
      for (int c = 0; c < kBatchPerThread; ++c) acc[c] = Acc128{accumulate && c < group ? dst[c * batch_stride] : 0, 0};
      uint32_t terms_since_fold = 0;
      // One product per term and batch entry; folds after every kFoldTerms products (exact, so
      // where the folds fall does not change the result).
      const auto add_term = [&](uint64_t b, const uint64_t (&av)[kBatchPerThread]) {
#pragma unroll
        for (int c = 0; c < kBatchPerThread; ++c) {
          if (c < group) acc_mul_add(acc[c], av[c], b);
        }
        if (!single && ++terms_since_fold == kFoldTerms) {
#pragma unroll
          for (int c = 0; c < kBatchPerThread; ++c) acc[c] = Acc128{acc_reduce(acc[c], m), 0};
          terms_since_fold = 0;
        }
      };
      const auto load_term = [&](uint32_t i, uint64_t& b, uint64_t (&av)[kBatchPerThread]) {
        // Evict-first: in a matrixVector each plaintext diagonal is read once, and kept in L2 the
        // normal way the diagonals pushed out the baby-step rotations that every giant step reads
        // again. On the H200 (reports/gpu/2026-12-04T0245-*) a 16-term giant step at n14-l7 took
        // 9.8 against 14.1 us as a graph node, and the replayed 256x256 matrixVector 1.35 against
        // 1.37 ms.
        b = __ldcs(terms.b[i] + l * n + s);
        const uint64_t* a = terms.a[i] + (c0 * limbs + l) * n + s;
#pragma unroll
        for (int c = 0; c < kBatchPerThread; ++c) av[c] = c < group ? __ldg(a + c * batch_stride) : 0;
      };
      // kTermsAhead terms' loads are issued before any of their products: one term at a time,
      // each iteration waited for its own loads, and Nsight Compute put a 16-term accumulation
      // of [2, 8, 2^14] operands (a matrixVector giant step at n14-l7) at 24 us on the H200.
      uint32_t i = 0;
      for (; i + kTermsAhead <= count; i += kTermsAhead) {
        uint64_t bv[kTermsAhead];
        uint64_t av[kTermsAhead][kBatchPerThread];
#pragma unroll
        for (uint32_t u = 0; u < kTermsAhead; ++u) load_term(i + u, bv[u], av[u]);
#pragma unroll
        for (uint32_t u = 0; u < kTermsAhead; ++u) add_term(bv[u], av[u]);
      }
      for (; i < count; ++i) {
        uint64_t b;
        uint64_t av[kBatchPerThread];
        load_term(i, b, av);
        add_term(b, av);
      }
#pragma unroll
      for (int c = 0; c < kBatchPerThread; ++c) {
        if (c < group) dst[c * batch_stride] = single ? acc_reduce_small(acc[c], m) : acc_reduce(acc[c], m);
      }
    }
  }
}

}  // namespace

void mul_accumulate_mod(DeviceStream ds, uint64_t* out, const MulAccumulateTerms& terms, std::size_t count,
                        const Modulus* moduli, int64_t batch, int64_t limbs, int64_t n, uint64_t galois_elt,
                        bool accumulate) {
  const char* where = "cuda::mul_accumulate_mod";
  check_mul_accumulate(where, out, terms, count, moduli, batch, limbs, n, galois_elt);
  if (batch == 0 || limbs == 0 || n == 0) return;
  const int64_t blocks_x = (n + kThreads - 1) / kThreads;
  require_argument(blocks_x <= 0x7fffffff, where, "n below 2^39", std::to_string(n));
  const int64_t groups = (batch + kBatchPerThread - 1) / kBatchPerThread;
  // y and z are grid-strided in the kernel, so any limb count and batch fit.
  const dim3 grid(static_cast<unsigned>(blocks_x), static_cast<unsigned>(limbs < kMaxGrid ? limbs : kMaxGrid),
                  static_cast<unsigned>(groups < kMaxGrid ? groups : kMaxGrid));
  launch_dependent(mul_accumulate_kernel, grid, kThreads, 0, static_cast<cudaStream_t>(ds.stream), out, terms,
      static_cast<uint32_t>(count), moduli, batch, limbs, n, mul_accumulate_log_n(n), galois_elt, accumulate);
  check_launch(where);
}

}  // namespace fhelium::cuda
