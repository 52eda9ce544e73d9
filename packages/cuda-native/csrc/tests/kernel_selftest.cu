// GPU self-test and micro-benchmark of the CKKS kernel families.
//
// For each benchmark parameter set of DESIGN.md (one 60-bit base prime, L 40-bit scale primes,
// K 60-bit special primes, dnum = (L+1)/K) it runs every kernel on the CPU and on CUDA over the
// same random data, compares the outputs bit for bit, and times the CUDA kernel with CUDA events
// (median of --reps runs, default 101). It also runs and times the whole hybrid key-switching
// core of one polynomial (INTT, ModUp of every digit, NTT, inner product, ModDown) as a sequence.
//
// Usage: kernel_selftest [--reps R] [--json PATH] [--sets n14-l7,n15-l15,...]
// Exit status: 0 when every comparison matched, 1 on a mismatch, 2 on a CUDA or argument error.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/basis_conversion_tables.h"
#include "common/galois.h"
#include "common/ntt_tables.h"
#include "common/rescale_tables.h"
#include "cpu/automorphism.h"
#include "cpu/basis_conversion.h"
#include "cpu/keyswitch.h"
#include "cpu/mul_accumulate.h"
#include "cpu/ntt.h"
#include "cpu/rescale.h"
#include "cpu/sampling.h"
#include "cuda/automorphism.h"
#include "cuda/basis_conversion.h"
#include "cuda/keyswitch.h"
#include "cuda/mul_accumulate.h"
#include "cuda/ntt.h"
#include "cuda/rescale.h"
#include "cuda/sampling.h"
#include "tests/test_util.h"

namespace {

using namespace fhelium;

void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
  }
}
#define CUDA_CHECK(call) cuda_check((call), #call)

// Device buffer of uint64 words (RAII).
class DeviceWords {
 public:
  explicit DeviceWords(std::size_t words) : words_(words) {
    CUDA_CHECK(cudaMalloc(&ptr_, std::max<std::size_t>(words, 1) * sizeof(uint64_t)));
  }
  explicit DeviceWords(const std::vector<uint64_t>& host) : DeviceWords(host.size()) {
    upload(host);
  }
  ~DeviceWords() { cudaFree(ptr_); }
  DeviceWords(const DeviceWords&) = delete;
  DeviceWords& operator=(const DeviceWords&) = delete;
  uint64_t* get() const { return ptr_; }
  // The kernels run on a non-blocking stream, which does not order with the legacy stream that
  // cudaMemcpy uses (and a pageable upload may return before its DMA ends): synchronize the
  // device around every transfer.
  void upload(const std::vector<uint64_t>& host) {
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(uint64_t), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<uint64_t> download() const {
    CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<uint64_t> host(words_);
    CUDA_CHECK(cudaMemcpy(host.data(), ptr_, words_ * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  uint64_t* ptr_ = nullptr;
  std::size_t words_;
};

struct ParamSet {
  const char* name;
  uint32_t log_n;
  uint32_t L;
  uint32_t K;
};

struct Result {
  std::string set;
  std::string op;
  std::string shape;
  bool match;
  double median_us;
  double min_us;
};

struct Options {
  int reps = 101;
  std::string json_path;
  std::vector<std::string> sets;
};

std::vector<Result> g_results;
bool g_all_match = true;

// Times `launch` (which only enqueues on `stream`) with events: median and min of `reps` runs.
std::pair<double, double> time_kernel(const std::function<void()>& launch, cudaStream_t stream,
                                      int reps) {
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) launch();
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us;
  for (int i = 0; i < reps; ++i) {
    CUDA_CHECK(cudaEventRecord(start, stream));
    launch();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    us.push_back(ms * 1000.0);
  }
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  std::sort(us.begin(), us.end());
  return {us[us.size() / 2], us.front()};
}

// Compares the CUDA output with the CPU one and records the timing.
void record(const ParamSet& ps, const std::string& op, const std::string& shape,
            const std::vector<uint64_t>& cpu_out, const DeviceWords& gpu_out,
            const std::function<void()>& launch, cudaStream_t stream, int reps,
            std::size_t compare_words = 0) {
  const std::vector<uint64_t> got = gpu_out.download();
  const std::size_t words = compare_words ? compare_words : cpu_out.size();
  std::size_t mismatches = 0, first = words;
  for (std::size_t i = 0; i < words; ++i) {
    if (got[i] != cpu_out[i]) {
      if (first == words) first = i;
      ++mismatches;
    }
  }
  if (mismatches != 0) {
    std::printf("MISMATCH %s %s: %zu of %zu words differ; first at %zu: cpu %llu cuda %llu\n",
                ps.name, op.c_str(), mismatches, words, first,
                static_cast<unsigned long long>(cpu_out[first]),
                static_cast<unsigned long long>(got[first]));
    g_all_match = false;
  }
  const auto t = time_kernel(launch, stream, reps);
  g_results.push_back(Result{ps.name, op, shape, mismatches == 0, t.first, t.second});
  std::printf("  %-8s %-28s %-26s %-8s %10.2f us (min %.2f)\n", ps.name, op.c_str(), shape.c_str(),
              mismatches == 0 ? "match" : "MISMATCH", t.first, t.second);
  std::fflush(stdout);
}

std::string shape_of(std::size_t batch, std::size_t limbs, uint32_t log_n) {
  return "[" + std::to_string(batch) + "," + std::to_string(limbs) + ",2^" +
         std::to_string(log_n) + "]";
}

void run_set(const ParamSet& ps, cudaStream_t stream, int reps) {
  using test::ntt_primes;
  const DeviceStream ds{0, stream};
  const uint32_t log_n = ps.log_n;
  const std::size_t n = std::size_t{1} << log_n;
  const std::size_t lq = ps.L + 1, lp = ps.K, lall = lq + lp;
  const std::size_t dnum = lq / lp;
  const std::size_t alpha = lp;  // limbs per digit
  // Primes: q_0 60-bit, q_1..q_L 40-bit, p_0..p_{K-1} 60-bit (distinct from q_0).
  std::vector<uint64_t> q = ntt_primes(60, log_n, 1);
  for (uint64_t p : ntt_primes(40, log_n, ps.L)) q.push_back(p);
  const std::vector<uint64_t> p_primes = ntt_primes(60, log_n, lp, q);
  std::vector<uint64_t> all(q);
  all.insert(all.end(), p_primes.begin(), p_primes.end());
  std::printf("%s: log N %u, %zu Q primes, %zu P primes, dnum %zu\n", ps.name, log_n, lq, lp, dnum);

  const NttTables ntt = NttTables::build(log_n, all);
  DeviceWords d_ntt(ntt.words());
  const NttTablesView hv = ntt.host_view();
  const NttTablesView dv = ntt.view(d_ntt.get());
  std::vector<uint32_t> map_all(lall), map_q(lq), map_p(lp);
  for (std::size_t i = 0; i < lall; ++i) map_all[i] = static_cast<uint32_t>(i);
  for (std::size_t i = 0; i < lq; ++i) map_q[i] = static_cast<uint32_t>(i);
  for (std::size_t i = 0; i < lp; ++i) map_p[i] = static_cast<uint32_t>(lq + i);

  // A ciphertext-shaped input [2, lq, N] and an extended [1, lall, N] polynomial, reduced.
  std::vector<uint64_t> ct;
  test::fill_random(ct, 2, lq, n, all, map_q.data());
  std::vector<uint64_t> ext;
  test::fill_random(ext, 1, lall, n, all, map_all.data());
  DeviceWords d_ct(ct), d_ext(ext);

  // NTT forward / inverse over Q (batch 2) and over Q u P.
  {
    DeviceWords d_out(ct.size());
    std::vector<uint64_t> out(ct.size());
    cpu::ntt_forward(ct.data(), lq * n, out.data(), lq * n, 2, lq, map_q.data(), hv);
    auto launch = [&] {
      cuda::ntt_forward(ds, d_ct.get(), lq * n, d_out.get(), lq * n, 2, lq, map_q.data(), dv);
    };
    launch();
    record(ps, "ntt_forward", shape_of(2, lq, log_n), out, d_out, launch, stream, reps);
    cpu::ntt_inverse(ct.data(), lq * n, out.data(), lq * n, 2, lq, map_q.data(), hv);
    auto launch_inv = [&] {
      cuda::ntt_inverse(ds, d_ct.get(), lq * n, d_out.get(), lq * n, 2, lq, map_q.data(), dv);
    };
    launch_inv();
    record(ps, "ntt_inverse", shape_of(2, lq, log_n), out, d_out, launch_inv, stream, reps);
  }
  {
    DeviceWords d_out(ext.size());
    std::vector<uint64_t> out(ext.size());
    cpu::ntt_forward(ext.data(), 0, out.data(), 0, 1, lall, map_all.data(), hv);
    auto launch = [&] {
      cuda::ntt_forward(ds, d_ext.get(), 0, d_out.get(), 0, 1, lall, map_all.data(), dv);
    };
    launch();
    record(ps, "ntt_forward QP", shape_of(1, lall, log_n), out, d_out, launch, stream, reps);
    cpu::ntt_inverse(ext.data(), 0, out.data(), 0, 1, lall, map_all.data(), hv);
    auto launch_inv = [&] {
      cuda::ntt_inverse(ds, d_ext.get(), 0, d_out.get(), 0, 1, lall, map_all.data(), dv);
    };
    launch_inv();
    record(ps, "ntt_inverse QP", shape_of(1, lall, log_n), out, d_out, launch_inv, stream, reps);
  }
  // A lower level over an extended basis: limbs q_0..q_{l}, p_0..p_{K-1} (non-contiguous rows).
  {
    const std::size_t l = lq / 2;
    std::vector<uint32_t> map_lvl;
    for (std::size_t i = 0; i < l; ++i) map_lvl.push_back(static_cast<uint32_t>(i));
    for (std::size_t i = 0; i < lp; ++i) map_lvl.push_back(static_cast<uint32_t>(lq + i));
    std::vector<uint64_t> x;
    test::fill_random(x, 1, map_lvl.size(), n, all, map_lvl.data());
    DeviceWords d_x(x), d_out(x.size());
    std::vector<uint64_t> out(x.size());
    cpu::ntt_forward(x.data(), 0, out.data(), 0, 1, map_lvl.size(), map_lvl.data(), hv);
    auto launch = [&] {
      cuda::ntt_forward(ds, d_x.get(), 0, d_out.get(), 0, 1, map_lvl.size(), map_lvl.data(), dv);
    };
    launch();
    record(ps, "ntt_forward level-map", shape_of(1, map_lvl.size(), log_n), out, d_out, launch,
           stream, reps);
  }
  // Automorphisms on a ciphertext: rotation by 1 (NTT domain), conjugation (coefficient domain).
  {
    const uint64_t g = galois_element_for_rotation(1, uint64_t{1} << log_n);
    DeviceWords d_out(ct.size());
    std::vector<uint64_t> out(ct.size());
    cpu::automorphism_ntt(ct.data(), out.data(), 2, lq, log_n, g);
    auto launch = [&] { cuda::automorphism_ntt(d_ct.get(), d_out.get(), 2, lq, log_n, g, stream); };
    launch();
    record(ps, "automorphism_ntt rot1", shape_of(2, lq, log_n), out, d_out, launch, stream, reps);
    const uint64_t gc = galois_element_for_conjugation(uint64_t{1} << log_n);
    cpu::automorphism_coeff(ct.data(), out.data(), 2, lq, log_n, gc, map_q.data(), hv.moduli,
                            all.size());
    auto launch_c = [&] {
      cuda::automorphism_coeff(d_ct.get(), d_out.get(), 2, lq, log_n, gc, map_q.data(), dv.moduli,
                               all.size(), stream);
    };
    launch_c();
    record(ps, "automorphism_coeff conj", shape_of(2, lq, log_n), out, d_out, launch_c, stream,
           reps);
  }
  // Sampling as encryption uses it: the public-key encryption's small polynomials (ternary v and
  // two wide ones like e0, e1) over Q in one launch, and a uniform polynomial over Q (the secret-key
  // encryption's a). The moduli are the first lq rows of the NTT tables' modulus table.
  {
    SamplingKey key{};
    for (uint32_t w = 0; w < 8; ++w) key.key[w] = 0x9e3779b9u * (w + 1) + log_n;
    key.stream = 0;
    SmallDistributions d{};
    d.polys = 3;
    const unsigned __int128 two64 = static_cast<unsigned __int128>(1) << 64;
    d.thresholds[0] = static_cast<uint64_t>((two64 + 2) / 3);
    d.thresholds[1] = static_cast<uint64_t>((2 * two64 + 2) / 3);
    for (uint32_t j = 0; j < 40; ++j) d.thresholds[2 + j] = d.thresholds[42 + j] = (uint64_t{j} + 1) << 57;
    d.begin[0] = 0;
    d.begin[1] = 2;
    d.begin[2] = 42;
    d.begin[3] = 82;
    d.minimum[0] = -1;
    d.minimum[1] = d.minimum[2] = -20;
    std::vector<uint64_t> small(3 * lq * n);
    cpu::sample_small_mod(small.data(), lq * n, 3, lq, log_n, hv.moduli, key, d);
    DeviceWords d_small(small.size());
    auto launch = [&] {
      cuda::sample_small_mod(d_small.get(), lq * n, 3, lq, log_n, dv.moduli, key, d, stream);
    };
    launch();
    record(ps, "sample_small_mod", shape_of(3, lq, log_n), small, d_small, launch, stream, reps);
    key.stream = 1;
    std::vector<uint64_t> uniform(lq * n);
    cpu::sample_uniform_mod(uniform.data(), lq * n, 1, lq, log_n, hv.moduli, key);
    DeviceWords d_uniform(uniform.size());
    auto launch_u = [&] {
      cuda::sample_uniform_mod(d_uniform.get(), lq * n, 1, lq, log_n, dv.moduli, key, stream);
    };
    launch_u();
    record(ps, "sample_uniform_mod", shape_of(1, lq, log_n), uniform, d_uniform, launch_u, stream, reps);
  }
  // ModUp of every digit of one polynomial over Q (coefficient form).
  std::vector<BasisConversionTables> up_tables;
  for (std::size_t j = 0; j < dnum; ++j) {
    up_tables.push_back(BasisConversionTables::build_mod_up(q, p_primes, j * alpha, (j + 1) * alpha));
  }
  std::vector<std::unique_ptr<DeviceWords>> d_up;
  for (const auto& t : up_tables) d_up.push_back(std::make_unique<DeviceWords>(t.words()));
  std::vector<BasisConversionView> up_host_views, up_device_views;
  for (std::size_t j = 0; j < dnum; ++j) {
    up_host_views.push_back(up_tables[j].host_view());
    up_device_views.push_back(up_tables[j].view(d_up[j]->get()));
  }
  {
    // One digit alone (batch 2: both ciphertext components).
    std::vector<uint64_t> out(2 * lall * n);
    cpu::mod_up(ct.data(), lq * n, lq, 0, out.data(), lall * n, 2, log_n, up_host_views[0]);
    DeviceWords d_out(out.size());
    auto launch = [&] {
      cuda::mod_up(d_ct.get(), lq * n, lq, 0, d_out.get(), lall * n, 2, log_n, up_device_views[0],
                   stream);
    };
    launch();
    record(ps, "mod_up (digit 0)", shape_of(2, lall, log_n), out, d_out, launch, stream, reps);
  }
  {
    std::vector<uint64_t> out(dnum * lall * n);
    for (std::size_t j = 0; j < dnum; ++j) {
      cpu::mod_up(ct.data(), lq * n, lq, j * alpha, out.data() + j * lall * n, 0, 1, log_n,
                  up_tables[j].host_view());
    }
    DeviceWords d_out(out.size());
    auto launch = [&] {
      cuda::mod_up_digits(d_ct.get(), nullptr, lq, alpha, dnum, d_out.get(), lall * n, log_n,
                          up_device_views.data(), stream);
    };
    launch();
    record(ps, "mod_up_digits (all digits)", std::to_string(dnum) + "x" + shape_of(1, lall, log_n), out,
           d_out, launch, stream, reps);
  }
  // ModDown pieces on a ciphertext-shaped pair: convert P -> Q, then finish.
  const BasisConversionTables down = BasisConversionTables::build(p_primes, q);
  DeviceWords d_down(down.words());
  const std::vector<uint64_t> down_consts = mod_down_constants(q, p_primes);
  DeviceWords d_down_consts(down_consts);
  {
    std::vector<uint64_t> x2;  // [2, lall, N]
    test::fill_random(x2, 2, lall, n, all, map_all.data());
    DeviceWords d_x2(x2);
    std::vector<uint64_t> conv(2 * lq * n);
    cpu::basis_convert(x2.data() + lq * n, lall * n, conv.data(), lq * n, 2, log_n,
                       down.host_view());
    DeviceWords d_conv(conv.size());
    auto launch = [&] {
      cuda::basis_convert(d_x2.get() + lq * n, lall * n, d_conv.get(), lq * n, 2, log_n,
                          down.view(d_down.get()), stream);
    };
    launch();
    record(ps, "basis_convert P->Q", shape_of(2, lp, log_n) + "->" + std::to_string(lq), conv,
           d_conv, launch, stream, reps);
    std::vector<uint64_t> fin(2 * lq * n);
    cpu::mod_down_finish(x2.data(), lall * n, conv.data(), lq * n, fin.data(), lq * n, 2, lq,
                         log_n, down_consts.data(), kNoAddend);
    DeviceWords d_fin(fin.size());
    auto launch_f = [&] {
      cuda::mod_down_finish(d_x2.get(), lall * n, d_conv.get(), lq * n, d_fin.get(), lq * n, 2, lq,
                            log_n, d_down_consts.get(), kNoAddend, stream);
    };
    launch_f();
    record(ps, "mod_down_finish", shape_of(2, lq, log_n), fin, d_fin, launch_f, stream, reps);

    // The whole ModDown of the pair (x2 read as NTT form): the sequence of six kernels, and
    // mod_down_ntt's four, both checked against the CPU sequence.
    std::vector<uint64_t> p_coeff(2 * lp * n), seq(2 * lq * n);
    cpu::ntt_inverse(x2.data() + lq * n, lall * n, p_coeff.data(), lp * n, 2, lp, map_p.data(), hv);
    cpu::basis_convert(p_coeff.data(), lp * n, seq.data(), lq * n, 2, log_n, down.host_view());
    cpu::ntt_forward(seq.data(), lq * n, seq.data(), lq * n, 2, lq, map_q.data(), hv);
    cpu::mod_down_finish(x2.data(), lall * n, seq.data(), lq * n, seq.data(), lq * n, 2, lq, log_n,
                         down_consts.data(), kNoAddend);
    DeviceWords g_pc(p_coeff.size()), g_seq(seq.size()), g_scratch(p_coeff.size()), g_fused(seq.size());
    auto launch_seq = [&] {
      cuda::ntt_inverse(ds, d_x2.get() + lq * n, lall * n, g_pc.get(), lp * n, 2, lp, map_p.data(), dv);
      cuda::basis_convert(g_pc.get(), lp * n, g_seq.get(), lq * n, 2, log_n, down.view(d_down.get()), stream);
      cuda::ntt_forward(ds, g_seq.get(), lq * n, g_seq.get(), lq * n, 2, lq, map_q.data(), dv);
      cuda::mod_down_finish(d_x2.get(), lall * n, g_seq.get(), lq * n, g_seq.get(), lq * n, 2, lq, log_n,
                            d_down_consts.get(), kNoAddend, stream);
    };
    launch_seq();
    record(ps, "mod_down (sequence)", shape_of(2, lall, log_n) + "->" + std::to_string(lq), seq, g_seq,
           launch_seq, stream, reps);
    auto launch_fused = [&] {
      cuda::mod_down_ntt(ds, d_x2.get(), lall * n, g_scratch.get(), lp * n, g_fused.get(), lq * n, 2,
                         map_all.data(), dv, down.view(d_down.get()), d_down_consts.get(), kNoAddend);
    };
    launch_fused();
    record(ps, "mod_down_ntt (fused)", shape_of(2, lall, log_n) + "->" + std::to_string(lq), seq, g_fused,
           launch_fused, stream, reps);
  }
  // Rescale pieces on a ciphertext: prepare from the last limb, finish.
  {
    const RescaleTables rs = RescaleTables::build(q);
    DeviceWords d_rs(rs.words());
    const std::size_t l = lq - 1;
    std::vector<uint64_t> t(2 * l * n);
    cpu::rescale_prepare(ct.data() + l * n, lq * n, t.data(), l * n, 2, log_n, rs.host_view());
    DeviceWords d_t(t.size());
    auto launch = [&] {
      cuda::rescale_prepare(d_ct.get() + l * n, lq * n, d_t.get(), l * n, 2, log_n,
                            rs.view(d_rs.get()), stream);
    };
    launch();
    record(ps, "rescale_prepare", shape_of(2, 1, log_n) + "->" + std::to_string(l), t, d_t, launch,
           stream, reps);
    std::vector<uint64_t> out(2 * l * n);
    cpu::rescale_finish(ct.data(), lq * n, t.data(), l * n, out.data(), l * n, 2, log_n,
                        rs.host_view());
    DeviceWords d_out(out.size());
    auto launch_f = [&] {
      cuda::rescale_finish(d_ct.get(), lq * n, d_t.get(), l * n, d_out.get(), l * n, 2, log_n,
                           rs.view(d_rs.get()), stream);
    };
    launch_f();
    record(ps, "rescale_finish", shape_of(2, l, log_n), out, d_out, launch_f, stream, reps);

    // The whole rescale of a ciphertext in NTT form (what the engine composes): INTT of the last
    // limb of both components, prepare, NTT over q_0..q_{l-1}, finish.
    std::vector<uint64_t> last(2 * n), tt(2 * l * n), res(2 * l * n);
    cpu::ntt_inverse(ct.data() + l * n, lq * n, last.data(), n, 2, 1, map_q.data() + l, hv);
    cpu::rescale_prepare(last.data(), n, tt.data(), l * n, 2, log_n, rs.host_view());
    cpu::ntt_forward(tt.data(), l * n, tt.data(), l * n, 2, l, map_q.data(), hv);
    cpu::rescale_finish(ct.data(), lq * n, tt.data(), l * n, res.data(), l * n, 2, log_n,
                        rs.host_view());
    DeviceWords g_last(last.size()), g_tt(tt.size()), g_res(res.size());
    auto launch_seq = [&] {
      cuda::ntt_inverse(ds, d_ct.get() + l * n, lq * n, g_last.get(), n, 2, 1, map_q.data() + l, dv);
      cuda::rescale_prepare(g_last.get(), n, g_tt.get(), l * n, 2, log_n, rs.view(d_rs.get()),
                            stream);
      cuda::ntt_forward(ds, g_tt.get(), l * n, g_tt.get(), l * n, 2, l, map_q.data(), dv);
      cuda::rescale_finish(d_ct.get(), lq * n, g_tt.get(), l * n, g_res.get(), l * n, 2, log_n,
                           rs.view(d_rs.get()), stream);
    };
    launch_seq();
    record(ps, "rescale (sequence)", shape_of(2, lq, log_n) + "->" + std::to_string(l), res, g_res,
           launch_seq, stream, reps);

    // The same in one call: rescale_ntt (four kernels) against the sequence (six), checked
    // against the sequence's CPU result.
    DeviceWords g_scratch(2 * n), g_fused(res.size());
    auto launch_fused = [&] {
      cuda::rescale_ntt(ds, d_ct.get(), lq * n, g_scratch.get(), n, g_fused.get(), l * n, 2, map_q.data(), dv,
                        rs.view(d_rs.get()));
    };
    launch_fused();
    record(ps, "rescale_ntt (fused)", shape_of(2, lq, log_n) + "->" + std::to_string(l), res, g_fused,
           launch_fused, stream, reps);
  }
  // Key-switching inner product over Q u P with dnum digits; random keys over the full basis.
  std::vector<uint64_t> keys;
  {
    std::vector<uint32_t> rows(lall);
    for (std::size_t i = 0; i < lall; ++i) rows[i] = static_cast<uint32_t>(i);
    test::fill_random(keys, 2 * dnum, lall, n, all, rows.data());
  }
  DeviceWords d_keys(keys);
  {
    std::vector<uint64_t> digits;
    test::fill_random(digits, dnum, lall, n, all, map_all.data());
    DeviceWords d_digits(digits);
    std::vector<uint64_t> out(2 * lall * n);
    cpu::keyswitch_inner_product(digits.data(), dnum, lall, keys.data(), map_all.data(), hv.moduli,
                                 all.size(), log_n, 1, false, out.data());
    DeviceWords d_out(out.size());
    auto launch = [&] {
      cuda::keyswitch_inner_product(d_digits.get(), dnum, lall, d_keys.get(), map_all.data(),
                                    dv.moduli, all.size(), log_n, 1, false, d_out.get(), stream);
    };
    launch();
    record(ps, "keyswitch_inner_product", std::to_string(dnum) + "x" + shape_of(1, lall, log_n),
           out, d_out, launch, stream, reps);
    // Fused: the digits read through a rotation's automorphism (hoisted rotations), added to what
    // out holds (lazy ModDown of summed key switches). Timed from a fixed out: each timed run adds
    // once more, which changes the values but not the work.
    const uint64_t g = galois_element_for_rotation(3, n);
    std::vector<uint64_t> acc;
    test::fill_random(acc, 2, lall, n, all, map_all.data());
    std::vector<uint64_t> fused = acc;
    cpu::keyswitch_inner_product(digits.data(), dnum, lall, keys.data(), map_all.data(), hv.moduli,
                                 all.size(), log_n, g, true, fused.data());
    DeviceWords d_fused(acc);
    auto launch_fused = [&] {
      cuda::keyswitch_inner_product(d_digits.get(), dnum, lall, d_keys.get(), map_all.data(),
                                    dv.moduli, all.size(), log_n, g, true, d_fused.get(), stream);
    };
    launch_fused();
    record(ps, "keyswitch_inner_product rot3+acc", std::to_string(dnum) + "x" + shape_of(1, lall, log_n),
           fused, d_fused, launch_fused, stream, reps);
  }
  // Multiply-accumulate of 16 ciphertext x plaintext pairs (one giant step of a 256x256
  // matrix-vector product), plain and through a rotation's automorphism.
  {
    const std::size_t count = 16;
    std::vector<std::vector<uint64_t>> a(count), b(count);
    std::vector<std::unique_ptr<DeviceWords>> d_a, d_b;
    MulAccumulateTerms host_terms{}, device_terms{};
    for (std::size_t i = 0; i < count; ++i) {
      test::fill_random(a[i], 2, lq, n, all, map_q.data());
      test::fill_random(b[i], 1, lq, n, all, map_q.data());
      d_a.push_back(std::make_unique<DeviceWords>(a[i]));
      d_b.push_back(std::make_unique<DeviceWords>(b[i]));
      host_terms.a[i] = a[i].data();
      host_terms.b[i] = b[i].data();
      device_terms.a[i] = d_a[i]->get();
      device_terms.b[i] = d_b[i]->get();
    }
    // The NTT tables' moduli are in prime-index order, so their first lq rows are Q's, in limb order.
    for (const uint64_t g : {uint64_t{1}, galois_element_for_rotation(16, n)}) {
      std::vector<uint64_t> out(2 * lq * n);
      cpu::mul_accumulate_mod(out.data(), host_terms, count, hv.moduli, 2, static_cast<int64_t>(lq),
                              static_cast<int64_t>(n), g, false);
      DeviceWords d_out(out.size());
      auto launch = [&] {
        cuda::mul_accumulate_mod(ds, d_out.get(), device_terms, count, dv.moduli, 2, static_cast<int64_t>(lq),
                                 static_cast<int64_t>(n), g, false);
      };
      launch();
      record(ps, g == 1 ? "mul_accumulate_mod" : "mul_accumulate_mod rot16",
             std::to_string(count) + "x" + shape_of(2, lq, log_n), out, d_out, launch, stream, reps);
    }
  }
  // The hybrid key-switching core of one polynomial d (NTT form over Q), as the engine runs it:
  // INTT, ModUp of every digit to NTT form (mod_up_digits_ntt), inner product, ModDown
  // (mod_down_ntt). Output [2, lq, N], checked against the CPU composition.
  {
    const std::vector<uint64_t>& d = ct;  // first lq limbs: one polynomial
    std::vector<uint64_t> d_coeff(lq * n), up(dnum * lall * n), ks(2 * lall * n), pc(2 * lp * n),
        conv(2 * lq * n), out(2 * lq * n);
    cpu::ntt_inverse(d.data(), 0, d_coeff.data(), 0, 1, lq, map_q.data(), hv);
    cpu::mod_up_digits(d_coeff.data(), nullptr, lq, alpha, dnum, up.data(), lall * n, log_n,
                       up_host_views.data());
    cpu::ntt_forward(up.data(), lall * n, up.data(), lall * n, dnum, lall, map_all.data(), hv);
    cpu::keyswitch_inner_product(up.data(), dnum, lall, keys.data(), map_all.data(), hv.moduli,
                                 all.size(), log_n, 1, false, ks.data());
    cpu::ntt_inverse(ks.data() + lq * n, lall * n, pc.data(), lp * n, 2, lp, map_p.data(), hv);
    cpu::basis_convert(pc.data(), lp * n, conv.data(), lq * n, 2, log_n, down.host_view());
    cpu::ntt_forward(conv.data(), lq * n, conv.data(), lq * n, 2, lq, map_q.data(), hv);
    cpu::mod_down_finish(ks.data(), lall * n, conv.data(), lq * n, out.data(), lq * n, 2, lq,
                         log_n, down_consts.data(), kNoAddend);

    DeviceWords g_coeff(d_coeff.size()), g_up(up.size()), g_ks(ks.size()), g_pc(pc.size()), g_out(out.size());
    // ModUp and the forward NTT of the digits; with `skip`, each digit's own limbs are copied from
    // the NTT-form polynomial and the transform leaves them.
    auto mod_up_ntt = [&](bool skip) {
      cuda::mod_up_digits(g_coeff.get(), skip ? d_ct.get() : nullptr, lq, alpha, dnum, g_up.get(), lall * n,
                          log_n, up_device_views.data(), stream);
      const NttDigitSkip digit_skip{skip ? static_cast<uint32_t>(alpha) : 0u, static_cast<uint32_t>(lq)};
      cuda::ntt_forward(ds, g_up.get(), lall * n, g_up.get(), lall * n, dnum, lall, map_all.data(), dv, digit_skip);
    };
    cuda::ntt_inverse(ds, d_ct.get(), 0, g_coeff.get(), 0, 1, lq, map_q.data(), dv);
    for (const bool skip : {false, true}) {
      auto launch_up = [&] { mod_up_ntt(skip); };
      // Cleared first, so that limbs a skip failed to write cannot pass with the previous bits.
      CUDA_CHECK(cudaMemsetAsync(g_up.get(), 0, up.size() * sizeof(uint64_t), stream));
      launch_up();
      record(ps, skip ? "mod_up_digits + ntt_forward skip own" : "mod_up_digits + ntt_forward",
             std::to_string(dnum) + "x" + shape_of(1, lall, log_n), up, g_up, launch_up, stream, reps);
    }
    // The same in one call (what the engine runs): one-limb digits convert inside the transform.
    auto launch_fused_up = [&] {
      cuda::mod_up_digits_ntt(ds, g_coeff.get(), d_ct.get(), lq, alpha, dnum, g_up.get(), lall * n, log_n,
                              up_device_views.data(), dv, map_all.data());
    };
    CUDA_CHECK(cudaMemsetAsync(g_up.get(), 0, up.size() * sizeof(uint64_t), stream));
    launch_fused_up();
    record(ps, "mod_up_digits_ntt (fused)", std::to_string(dnum) + "x" + shape_of(1, lall, log_n), up, g_up,
           launch_fused_up, stream, reps);
    auto launch = [&] {
      cuda::ntt_inverse(ds, d_ct.get(), 0, g_coeff.get(), 0, 1, lq, map_q.data(), dv);
      launch_fused_up();
      cuda::keyswitch_inner_product(g_up.get(), dnum, lall, d_keys.get(), map_all.data(),
                                    dv.moduli, all.size(), log_n, 1, false, g_ks.get(), stream);
      cuda::mod_down_ntt(ds, g_ks.get(), lall * n, g_pc.get(), lp * n, g_out.get(), lq * n, 2, map_all.data(), dv,
                         down.view(d_down.get()), d_down_consts.get(), kNoAddend);
    };
    launch();
    record(ps, "keyswitch core (sequence)", std::to_string(dnum) + " digits, " + shape_of(2, lq, log_n),
           out, g_out, launch, stream, reps);
#if !defined(FHELIUM_FAKE_CUDA)
    // The same sequence captured into a CUDA Graph: capture fails if any kernel synchronizes or
    // touches another stream; replays must give the same bits.
    CUDA_CHECK(cudaMemsetAsync(g_out.get(), 0, out.size() * sizeof(uint64_t), stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    launch();
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    auto replay = [&] { CUDA_CHECK(cudaGraphLaunch(exec, stream)); };
    replay();
    record(ps, "keyswitch core (CUDA graph)", std::to_string(dnum) + " digits, " + shape_of(2, lq, log_n),
           out, g_out, replay, stream, reps);
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
#endif
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

void write_json(const std::string& path, const std::string& device) {
  FILE* f = path.empty() ? nullptr : std::fopen(path.c_str(), "w");
  FILE* outs[2] = {stdout, f};
  for (FILE* o : outs) {
    if (!o) continue;
    std::fprintf(o, "{\n  \"device\": \"%s\",\n  \"all_match\": %s,\n  \"results\": [\n",
                 device.c_str(), g_all_match ? "true" : "false");
    for (std::size_t i = 0; i < g_results.size(); ++i) {
      const Result& r = g_results[i];
      std::fprintf(o,
                   "    {\"set\": \"%s\", \"op\": \"%s\", \"shape\": \"%s\", \"match\": %s, "
                   "\"median_us\": %.3f, \"min_us\": %.3f}%s\n",
                   r.set.c_str(), r.op.c_str(), r.shape.c_str(), r.match ? "true" : "false",
                   r.median_us, r.min_us, i + 1 < g_results.size() ? "," : "");
    }
    std::fprintf(o, "  ]\n}\n");
  }
  if (f) std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      opt.reps = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json" && i + 1 < argc) {
      opt.json_path = argv[++i];
    } else if (a == "--sets" && i + 1 < argc) {
      std::string s = argv[++i];
      std::size_t pos = 0;
      while (pos <= s.size()) {
        const std::size_t comma = s.find(',', pos);
        opt.sets.push_back(s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else {
      std::fprintf(stderr, "usage: %s [--reps R] [--json PATH] [--sets n14-l7,n15-l15,n16-l23,n16-l35]\n",
                   argv[0]);
      return 2;
    }
  }
  const ParamSet sets[] = {
      {"n14-l7", 14, 7, 1}, {"n15-l15", 15, 15, 2}, {"n16-l23", 16, 23, 8}, {"n16-l35", 16, 35, 4}};
  try {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (sm_%d%d), reps %d\n", prop.name, prop.major, prop.minor, opt.reps);
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    for (const ParamSet& ps : sets) {
      if (!opt.sets.empty() && std::find(opt.sets.begin(), opt.sets.end(), ps.name) == opt.sets.end()) {
        continue;
      }
      run_set(ps, stream, opt.reps);
    }
    CUDA_CHECK(cudaStreamDestroy(stream));
    write_json(opt.json_path, prop.name);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel_selftest: %s\n", e.what());
    return 2;
  }
  std::printf("%s\n", g_all_match ? "ALL MATCH" : "MISMATCHES FOUND");
  return g_all_match ? 0 : 1;
}
