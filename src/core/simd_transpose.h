// A 16 × 16 transpose of SIMD vectors (core/simd.h), for kernels that need lanes across the rows
// of a row-major array — paged attention's keys (ops/attention_paged.cpp), read 16 keys × 16 dims
// at a time and stored as key lanes, instead of one scalar copy per number.
#pragma once

#include "core/simd.h"

namespace llm0::simd {

namespace detail {
// One butterfly level of transpose16: rows i and i + B (bit B of i clear) exchange, in every
// 2B-wide segment, the B columns past the diagonal block: new row i = (seg of i [0, B), seg of
// i + B [0, B)), new row i + B = (seg of i [B, 2B), seg of i + B [B, 2B)).
template <int B>
[[gnu::always_inline]] inline void level(f32x16 (&r)[16], i32x16 lo, i32x16 hi) {
  for (int i = 0; i < 16; ++i)
    if (!(i & B)) {
      const f32x16 a = r[i], b = r[i + B];
      r[i] = __builtin_shuffle(a, b, lo);
      r[i + B] = __builtin_shuffle(a, b, hi);
    }
}
}  // namespace detail

/// Transposes a 16 × 16 block held as 16 vectors (rows) in place: afterwards lane j of r[i] is
/// lane i of the old r[j]. Four butterfly levels (off-diagonal blocks of 8, 4, 2, 1 exchanged),
/// 64 two-input shuffles — with AVX-512 one permute each. Exact (values only move).
[[gnu::always_inline]] inline void transpose16(f32x16 (&r)[16]) {
  using detail::level;
  level<8>(r, i32x16{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
           i32x16{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31});
  level<4>(r, i32x16{0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27},
           i32x16{4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31});
  level<2>(r, i32x16{0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29},
           i32x16{2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31});
  level<1>(r, i32x16{0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30},
           i32x16{1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31});
}

}  // namespace llm0::simd
