// Basis conversions of hybrid key switching on the CPU (tables: common/basis_conversion_tables.h).
//
// Layout: batch element b of a buffer starts at ptr + b * batch_stride (words); within it, limbs
// of N = 2^log_n contiguous words. Inputs are in COEFFICIENT form and reduced; outputs are
// reduced. in and out must not overlap. Every function throws Error(Argument) before writing
// anything when an argument is wrong.
//
// ModDown division of responsibility: the caller composes
//   1. ntt_inverse of the P limbs of x (into scratch),
//   2. basis_convert P -> Q_l (BasisConversionTables::build(P, Q_l)),
//   3. ntt_forward of the converted limbs,
//   4. mod_down_finish: out_i = (x_i - conv_i) * P^{-1} mod q_i,
// so that the NTT kernels stay the only transforms and every step is graph-capturable. The
// conversion is centered (conv ≡ [x]_P in [-P/2, P/2]), so the result is (x - conv) / P, x / P
// rounded to the nearest integer.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/basis_conversion_tables.h"
#include "common/modarith_operand.h"
#include "common/ntt_tables.h"

namespace fhelium::cpu {

// in: t.num_src limbs (basis A), out: t.num_dst limbs (basis B).
void basis_convert(const uint64_t* in, std::size_t in_batch_stride, uint64_t* out,
                   std::size_t out_batch_stride, std::size_t batch, uint32_t log_n,
                   const BasisConversionView& t);

// ModUp of one digit. in: a polynomial over Q_l (in_limbs limbs); its limbs
// [digit_begin, digit_begin + t.num_src) are the digit. out: over Q_l u P, t.num_src + t.num_dst
// limbs: out limb o equals in limb o inside the digit, and is the conversion's destination
// o (o < digit_begin) or o - t.num_src (after the digit) elsewhere. Build t with
// BasisConversionTables::build_mod_up.
void mod_up(const uint64_t* in, std::size_t in_batch_stride, std::size_t in_limbs,
            std::size_t digit_begin, uint64_t* out, std::size_t out_batch_stride,
            std::size_t batch, uint32_t log_n, const BasisConversionView& t);

// ModUp of every digit of one polynomial in one call (what hybrid key switching needs): in over
// Q_l (in_limbs limbs, coefficient form); digit d is limbs [d * digit_size, min((d + 1) *
// digit_size, in_limbs)) and tables[d] (a HOST array of num_digits views) is its
// BasisConversionTables::build_mod_up. Block d of the output, at out + d * out_digit_stride, is
// what mod_up writes for that digit (all blocks have in_limbs + |P| limbs), except that with
// own_from (in_limbs limbs, or nullptr) the digit's own limbs are copied from own_from instead of
// in: from the NTT form of the polynomial, they are the digit's NTT form already, and the forward
// transform can skip them (NttDigitSkip). own_from must not overlap out.
void mod_up_digits(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                   std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride,
                   uint32_t log_n, const BasisConversionView* tables);

// ModUp straight to NTT form: mod_up_digits with the own limbs from own_from (required: the NTT
// form of the polynomial whose coefficient form is `in`), then the forward NTT of every digit's
// other limbs in place, output limb i of every digit on table row limb_to_prime[i] (HOST, out_limbs
// = num_src + num_dst entries) of `ntt`. The same result as those two calls, bit for bit, on both
// backends; on CUDA, one-limb digits (digit_size 1, log_n >= 13) skip the conversion kernel and
// its pass over the digits (cuda/basis_conversion.h). Throws Error(Argument) as mod_up_digits and
// ntt_forward do, and for a null own_from or tables of another log N.
void mod_up_digits_ntt(const uint64_t* in, const uint64_t* own_from, std::size_t in_limbs, std::size_t digit_size,
                       std::size_t num_digits, uint64_t* out, std::size_t out_digit_stride, uint32_t log_n,
                       const BasisConversionView* tables, const NttTablesView& ntt, const uint32_t* limb_to_prime);

// out_i = (x_i - conv_i) * constants[i].s mod constants[i].q for limbs i < limbs, with
// constants = mod_down_constants(Q_l, P) ([limbs][3] words: q, s, shoup(s)), plus a reduced
// addend in the same pass: batch element b < addend.count also adds the addend's [limbs, N] entry
// b (the other components of a ciphertext after a key switch: both of a relinearized one,
// component 0 of a rotated one); later elements add nothing, and an addend of count 0 (kNoAddend)
// none. Works in either domain (NTT form in hybrid key switching). out may equal x, conv or the
// addend's entry. Throws Error(Argument) for bad geometry, and for an addend with more entries
// than batch, a null pointer, or a stride below limbs * N.
void mod_down_finish(const uint64_t* x, std::size_t x_batch_stride, const uint64_t* conv,
                     std::size_t conv_batch_stride, uint64_t* out, std::size_t out_batch_stride,
                     std::size_t batch, std::size_t limbs, uint32_t log_n,
                     const uint64_t* constants, BatchedOperand addend);

// The whole ModDown of x over Q_l u P in NTT form: steps 1-4 above, out = (x - conv) * P^{-1}
// (+ addend) over Q_l in NTT form. x: q + p limbs per batch element (q = conv.num_dst over Q_l,
// then p = conv.num_src over P; conv = BasisConversionTables::build(P, Q_l)), limb i on NTT table
// row limb_to_prime[i] (HOST memory, q + p entries). scratch: p limbs per batch element,
// overwritten. out: q limbs. constants: [q][3] (mod_down_constants). x, scratch, out and the addend
// are pairwise disjoint. Throws Error(Argument) before writing anything.
void mod_down_ntt(const uint64_t* x, std::size_t x_batch_stride, uint64_t* scratch, std::size_t scratch_batch_stride,
                  uint64_t* out, std::size_t out_batch_stride, std::size_t batch, const uint32_t* limb_to_prime,
                  const NttTablesView& ntt, const BasisConversionView& conv, const uint64_t* constants,
                  BatchedOperand addend);

}  // namespace fhelium::cpu
