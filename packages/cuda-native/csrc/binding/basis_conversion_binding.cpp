// Basis conversions of hybrid key switching (csrc/cpu/basis_conversion.h,
// csrc/cuda/basis_conversion.h) and their host-built tables (common/basis_conversion_tables.h).
// TypeScript (src/basis-conversion.ts) validates before calling; the kernels' own checks are the
// backstop. See kernel_binding_util.h for table layouts.
#include "binding/binding.h"
#include "binding/kernel_binding_util.h"
#include "binding/ntt_layout.h"
#include "binding/table_views.h"
#include "common/basis_conversion_tables.h"
#include "cpu/basis_conversion.h"

#if FHELIUM_WITH_CUDA
#include "cuda/basis_conversion.h"
#endif

namespace fhelium::binding {
namespace {

using kernels::Layout;
using ConversionLayout = Layout<BasisConversionView, 0x42434e56u>;  // 'BCNV'

// Most digits one mod_up_digits call accepts (the CUDA kernel takes up to 32 per launch and
// splits larger counts itself; the host array here is on the stack).
constexpr std::size_t kMaxDigits = 128;

napi_value conversion_result(Args& a, const BasisConversionTables& tables) {
  const uint64_t* base = tables.words().data();
  const BasisConversionView host = tables.host_view();
  auto* layout = new ConversionLayout();
  layout->offsets = host;
  layout->offsets.src_moduli = kernels::as_offset<Modulus>(host.src_moduli, base);
  layout->offsets.src_qhat_inv = kernels::as_offset<uint64_t>(host.src_qhat_inv, base);
  layout->offsets.dst_moduli = kernels::as_offset<Modulus>(host.dst_moduli, base);
  layout->offsets.qhat_mod_dst = kernels::as_offset<uint64_t>(host.qhat_mod_dst, base);
  layout->offsets.neg_src_product_mod_dst = kernels::as_offset<uint64_t>(host.neg_src_product_mod_dst, base);
  layout->offsets.src_inverse = kernels::as_offset<double>(host.src_inverse, base);
  layout->words = tables.words().size();
  napi_value external = make_external<ConversionLayout>(a.env(), layout, &kernels::delete_layout<ConversionLayout>);
  napi_value out = object(a.env());
  set(a.env(), out, "words", kernels::biguint64_array(a.env(), base, tables.words().size()));
  set(a.env(), out, "layout", external);
  set(a.env(), out, "numSrc", number(a.env(), host.num_src));
  set(a.env(), out, "numDst", number(a.env(), host.num_dst));
  return out;
}

// basisConversionTablesBuild(srcPrimes: BigUint64Array, dstPrimes: BigUint64Array)
//   -> { words, layout, numSrc, numDst }
napi_value basis_conversion_tables_build(Args& a) {
  const auto src = kernels::u64_vector(a, 0, "a BigUint64Array of source primes");
  const auto dst = kernels::u64_vector(a, 1, "a BigUint64Array of destination primes");
  return conversion_result(a, BasisConversionTables::build(src, dst));
}
FHELIUM_BINDING("basisConversionTablesBuild", basis_conversion_tables_build)

// modUpTablesBuild(qPrimes: BigUint64Array, pPrimes: BigUint64Array, digitBegin, digitEnd)
napi_value mod_up_tables_build(Args& a) {
  const auto q = kernels::u64_vector(a, 0, "a BigUint64Array of Q primes");
  const auto p = kernels::u64_vector(a, 1, "a BigUint64Array of P primes");
  const int64_t begin = a.i64(2), end = a.i64(3);
  FHELIUM_CHECK(begin >= 0 && begin < end && static_cast<std::size_t>(end) <= q.size(), Argument,
                "modUpTablesBuild: expected 0 <= digitBegin < digitEnd <= " + std::to_string(q.size()) + ", got [" +
                    std::to_string(begin) + ", " + std::to_string(end) + ")");
  return conversion_result(a, BasisConversionTables::build_mod_up(q, p, static_cast<std::size_t>(begin),
                                                                  static_cast<std::size_t>(end)));
}
FHELIUM_BINDING("modUpTablesBuild", mod_up_tables_build)

// modDownConstantsBuild(qPrimes, pPrimes) -> BigUint64Array [limbs][3]
napi_value mod_down_constants_build(Args& a) {
  const auto q = kernels::u64_vector(a, 0, "a BigUint64Array of Q primes");
  const auto p = kernels::u64_vector(a, 1, "a BigUint64Array of P primes");
  const std::vector<uint64_t> c = mod_down_constants(q, p);
  return kernels::biguint64_array(a.env(), c.data(), c.size());
}
FHELIUM_BINDING("modDownConstantsBuild", mod_down_constants_build)

}  // namespace

BasisConversionView conversion_view(Args& a, napi_value layout_value, uint64_t ptr, int64_t words) {
  void* raw = nullptr;
  if (napi_get_value_external(a.env(), layout_value, &raw) != napi_ok || raw == nullptr ||
      static_cast<ConversionLayout*>(raw)->tag != ConversionLayout::kTag) {
    fail(ErrorKind::Argument, "basis conversion: expected tables from basisConversionTablesBuild/modUpTablesBuild");
  }
  const auto* layout = static_cast<const ConversionLayout*>(raw);
  FHELIUM_CHECK(words >= 0 && static_cast<std::size_t>(words) >= layout->words, Argument,
                "basis conversion: the table tensor holds " + std::to_string(words) + " words, the tables need " +
                    std::to_string(layout->words));
  const auto* base = reinterpret_cast<const uint64_t*>(static_cast<uintptr_t>(ptr));
  BasisConversionView v = layout->offsets;
  v.src_moduli = kernels::rebase(base, layout->offsets.src_moduli);
  v.src_qhat_inv = kernels::rebase(base, layout->offsets.src_qhat_inv);
  v.dst_moduli = kernels::rebase(base, layout->offsets.dst_moduli);
  v.qhat_mod_dst = kernels::rebase(base, layout->offsets.qhat_mod_dst);
  v.neg_src_product_mod_dst = kernels::rebase(base, layout->offsets.neg_src_product_mod_dst);
  v.src_inverse = kernels::rebase(base, layout->offsets.src_inverse);
  return v;
}

ModDownOperands mod_down_operands(Args& a, const char* op) {
  ModDownOperands m{};
  m.ntt = kernels::ntt_view(a, 1, 2, 3);
  m.conversion = conversion_view(a, a.at(4), a.u64(5), a.i64(6));
  m.buffers = kernels::scratch_operands(a, 7, std::size_t{m.conversion.num_src} + m.conversion.num_dst, op);
  m.constants = a.ptr<const uint64_t>(15);
  m.addend = BatchedOperand{a.ptr<const uint64_t>(16), a.i64(18), a.i64(17)};
  return m;
}

namespace {

// basisConvert(device, layout, tablesPtr, tablesWords, in, inBatchStride, out, outBatchStride, batch, logN)
napi_value basis_convert(Args& a) {
  const int dev = a.i32(0);
  const BasisConversionView t = conversion_view(a, a.at(1), a.u64(2), a.i64(3));
  const auto* in = a.ptr<const uint64_t>(4);
  const auto in_stride = static_cast<std::size_t>(a.i64(5));
  auto* out = a.ptr<uint64_t>(6);
  const auto out_stride = static_cast<std::size_t>(a.i64(7));
  const auto batch = static_cast<std::size_t>(a.i64(8));
  const auto log_n = static_cast<uint32_t>(a.i32(9));
  FHELIUM_RUN_ON_STREAM_LAST(dev, basis_convert, in, in_stride, out, out_stride, batch, log_n, t);
  return nullptr;
}
FHELIUM_BINDING("basisConvert", basis_convert)

// modUp(device, layout, tablesPtr, tablesWords, in, inBatchStride, inLimbs, digitBegin, out,
//       outBatchStride, batch, logN)
napi_value mod_up(Args& a) {
  const int dev = a.i32(0);
  const BasisConversionView t = conversion_view(a, a.at(1), a.u64(2), a.i64(3));
  const auto* in = a.ptr<const uint64_t>(4);
  const auto in_stride = static_cast<std::size_t>(a.i64(5));
  const auto in_limbs = static_cast<std::size_t>(a.i64(6));
  const auto digit_begin = static_cast<std::size_t>(a.i64(7));
  auto* out = a.ptr<uint64_t>(8);
  const auto out_stride = static_cast<std::size_t>(a.i64(9));
  const auto batch = static_cast<std::size_t>(a.i64(10));
  const auto log_n = static_cast<uint32_t>(a.i32(11));
  FHELIUM_RUN_ON_STREAM_LAST(dev, mod_up, in, in_stride, in_limbs, digit_begin, out, out_stride, batch, log_n, t);
  return nullptr;
}
FHELIUM_BINDING("modUp", mod_up)

// The ModUp tables of every digit: arguments 1-3 (layouts: external[], tablesPtrs: BigUint64Array,
// tablesWords: Float64Array) as views in `views`. Returns the digit count. `op` names the binding
// in messages.
uint32_t digit_views(Args& a, const char* op, BasisConversionView (&views)[kMaxDigits]) {
  napi_value layouts = a.at(1);
  bool is_array = false;
  napi_is_array(a.env(), layouts, &is_array);
  FHELIUM_CHECK(is_array, Argument, std::string(op) + ": expected an array of ModUp tables");
  uint32_t num_digits = 0;
  napi_get_array_length(a.env(), layouts, &num_digits);
  FHELIUM_CHECK(num_digits >= 1 && num_digits <= kMaxDigits, Argument,
                std::string(op) + ": expected 1 to " + std::to_string(kMaxDigits) + " digits, got " +
                    std::to_string(num_digits));
  const auto ptrs = kernels::typed_array<uint64_t>(a, 2, napi_biguint64_array, "a BigUint64Array of table pointers");
  const auto words = kernels::typed_array<double>(a, 3, napi_float64_array, "a Float64Array of table sizes");
  FHELIUM_CHECK(ptrs.length == num_digits && words.length == num_digits, Argument,
                std::string(op) + ": expected one table pointer and size per digit");
  for (uint32_t d = 0; d < num_digits; ++d) {
    napi_value element = nullptr;
    napi_get_element(a.env(), layouts, d, &element);
    views[d] = conversion_view(a, element, ptrs.data[d], static_cast<int64_t>(words.data[d]));
  }
  return num_digits;
}

// Arguments 4-10 of modUpDigits and modUpDigitsNtt: in, inLimbs, digitSize, out, outDigitStride,
// logN, ownFrom.
struct DigitOperands {
  const uint64_t* in;
  std::size_t in_limbs;
  std::size_t digit_size;
  uint64_t* out;
  std::size_t out_digit_stride;
  uint32_t log_n;
  const uint64_t* own_from;
};

DigitOperands digit_operands(Args& a) {
  DigitOperands d{};
  d.in = a.ptr<const uint64_t>(4);
  d.in_limbs = static_cast<std::size_t>(a.i64(5));
  d.digit_size = static_cast<std::size_t>(a.i64(6));
  d.out = a.ptr<uint64_t>(7);
  d.out_digit_stride = static_cast<std::size_t>(a.i64(8));
  d.log_n = static_cast<uint32_t>(a.i32(9));
  d.own_from = a.ptr<const uint64_t>(10);
  return d;
}

// modUpDigits(device, layouts: external[], tablesPtrs: BigUint64Array, tablesWords: Float64Array,
//             in, inLimbs, digitSize, out, outDigitStride, logN, ownFrom): ownFrom 0 copies the
//             digits' own limbs from `in`.
napi_value mod_up_digits(Args& a) {
  const int dev = a.i32(0);
  BasisConversionView views[kMaxDigits];
  const uint32_t num_digits = digit_views(a, "modUpDigits", views);
  const DigitOperands d = digit_operands(a);
  FHELIUM_RUN_ON_STREAM_LAST(dev, mod_up_digits, d.in, d.own_from, d.in_limbs, d.digit_size, num_digits, d.out,
                             d.out_digit_stride, d.log_n, views);
  return nullptr;
}
FHELIUM_BINDING("modUpDigits", mod_up_digits)

// modUpDigitsNtt(device, layouts, tablesPtrs, tablesWords, in, inLimbs, digitSize, out,
//                outDigitStride, logN, ownFrom, nttLayout, nttPtr, nttWords, limbToPrime: Uint32Array)
napi_value mod_up_digits_ntt(Args& a) {
  const int dev = a.i32(0);
  BasisConversionView views[kMaxDigits];
  const uint32_t num_digits = digit_views(a, "modUpDigitsNtt", views);
  const DigitOperands d = digit_operands(a);
  const NttTablesView ntt = kernels::ntt_view(a, 11, 12, 13);
  const auto map = kernels::typed_array<uint32_t>(a, 14, napi_uint32_array, "a Uint32Array limb map");
  const std::size_t out_limbs = static_cast<std::size_t>(views[0].num_src) + views[0].num_dst;
  FHELIUM_CHECK(map.length == out_limbs, Argument,
                "modUpDigitsNtt: the limb map has " + std::to_string(map.length) + " entries for " +
                    std::to_string(out_limbs) + " limbs");
  FHELIUM_RUN_ON(dev, mod_up_digits_ntt, d.in, d.own_from, d.in_limbs, d.digit_size, num_digits, d.out,
                 d.out_digit_stride, d.log_n, views, ntt, map.data);
  return nullptr;
}
FHELIUM_BINDING("modUpDigitsNtt", mod_up_digits_ntt)

// modDownFinish(device, x, xBatchStride, conv, convBatchStride, out, outBatchStride, batch, limbs,
//               logN, constants, addend, addendBatchStride, addendCount): addendCount 0 adds nothing.
napi_value mod_down_finish(Args& a) {
  const int dev = a.i32(0);
  const auto* x = a.ptr<const uint64_t>(1);
  const auto x_stride = static_cast<std::size_t>(a.i64(2));
  const auto* conv = a.ptr<const uint64_t>(3);
  const auto conv_stride = static_cast<std::size_t>(a.i64(4));
  auto* out = a.ptr<uint64_t>(5);
  const auto out_stride = static_cast<std::size_t>(a.i64(6));
  const auto batch = static_cast<std::size_t>(a.i64(7));
  const auto limbs = static_cast<std::size_t>(a.i64(8));
  const auto log_n = static_cast<uint32_t>(a.i32(9));
  const auto* constants = a.ptr<const uint64_t>(10);
  const BatchedOperand addend{a.ptr<const uint64_t>(11), a.i64(13), a.i64(12)};
  FHELIUM_RUN_ON_STREAM_LAST(dev, mod_down_finish, x, x_stride, conv, conv_stride, out, out_stride, batch, limbs,
                             log_n, constants, addend);
  return nullptr;
}
FHELIUM_BINDING("modDownFinish", mod_down_finish)

// modDownNtt(device, nttLayout, nttPtr, nttWords, layout, tablesPtr, tablesWords, x, xBatchStride,
//            scratch, scratchBatchStride, out, outBatchStride, batch, limbToPrime: Uint32Array,
//            constants, addend, addendBatchStride, addendCount): addendCount 0 adds nothing.
napi_value mod_down_ntt(Args& a) {
  const int dev = a.i32(0);
  const ModDownOperands m = mod_down_operands(a, "modDownNtt");
  const kernels::ScratchOperands& s = m.buffers;
  FHELIUM_RUN_ON(dev, mod_down_ntt, s.x, s.x_stride, s.scratch, s.scratch_stride, s.out, s.out_stride, s.batch,
                 s.limb_to_prime, m.ntt, m.conversion, m.constants, m.addend);
  return nullptr;
}
FHELIUM_BINDING("modDownNtt", mod_down_ntt)

}  // namespace
}  // namespace fhelium::binding
