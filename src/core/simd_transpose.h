// A 16 × 16 transpose of SIMD vectors (core/simd.h), for kernels that need lanes across the rows
// of a row-major array — paged attention's keys (ops/attention_paged.cpp), read 16 keys × 16 dims
// at a time and stored as key lanes, instead of one scalar copy per number.
#pragma once

#include <utility>

#include "core/simd.h"

namespace llm0::simd {

namespace detail {
// Lane j of butterfly level B's two outputs, as an index into the 32 lanes of (a, b): in every
// 2B-wide segment (start s, offset o = j - s) the low output takes a's first B lanes then b's,
// the high output a's last B lanes then b's.
constexpr int lo_lane(int B, int j) {
  const int s = j / (2 * B) * (2 * B), o = j - s;
  return o < B ? s + o : 16 + s + o - B;
}
constexpr int hi_lane(int B, int j) {
  const int s = j / (2 * B) * (2 * B), o = j - s;
  return o < B ? s + o + B : 16 + s + o;
}

// One butterfly level of transpose16: rows i and i + B (bit B of i clear) exchange, in every
// 2B-wide segment, the B columns past the diagonal block: new row i = (seg of i [0, B), seg of
// i + B [0, B)), new row i + B = (seg of i [B, 2B), seg of i + B [B, 2B)). The lane indices are
// constants (__builtin_shufflevector, which g++ ≥ 12 and clang both take).
template <int B, int... J>
[[gnu::always_inline]] inline void level(f32x16 (&r)[16], std::integer_sequence<int, J...>) {
  for (int i = 0; i < 16; ++i)
    if (!(i & B)) {
      const f32x16 a = r[i], b = r[i + B];
      r[i] = __builtin_shufflevector(a, b, lo_lane(B, J)...);
      r[i + B] = __builtin_shufflevector(a, b, hi_lane(B, J)...);
    }
}
}  // namespace detail

/// Transposes a 16 × 16 block held as 16 vectors (rows) in place: afterwards lane j of r[i] is
/// lane i of the old r[j]. Four butterfly levels (off-diagonal blocks of 8, 4, 2, 1 exchanged),
/// 64 two-input shuffles — with AVX-512 one permute each. Exact (values only move).
[[gnu::always_inline]] inline void transpose16(f32x16 (&r)[16]) {
  constexpr auto lanes = std::make_integer_sequence<int, 16>{};
  detail::level<8>(r, lanes);
  detail::level<4>(r, lanes);
  detail::level<2>(r, lanes);
  detail::level<1>(r, lanes);
}

}  // namespace llm0::simd
