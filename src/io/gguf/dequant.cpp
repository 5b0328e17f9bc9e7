// ggml block dequantization (see dequant.h). One block at a time, one element at a time:
// element e of a block is found from e by bit arithmetic, which states the packing directly.
//   Q8_0 [34 B / 32]:  fp16 d | int8 q[32]                        x_e = d * q_e
//   Q4_0 [18 B / 32]:  fp16 d | uint8 qs[16]                      x_e = d * (nibble_e - 8),
//                      nibble_e = low nibble of qs[e] (e < 16), high nibble of qs[e - 16]
//   Q4_K [144 B / 256]: fp16 d | fp16 dmin | scales[12] | qs[128]  x_e = d*sc_j*q_e - dmin*m_j,
//                      8 sub-blocks j of 32 with 6-bit sc_j, m_j; element e: 64-chunk c = e/64,
//                      j = e/32, q_e = nibble (low if j even) of qs[32c + e%32]
//   Q6_K [210 B / 256]: ql[128] | qh[64] | int8 scales[16] | fp16 d  x_e = d * sc_{e/16} * q_e,
//                      q_e = (4 low bits | 2 high bits << 4) - 32 (layout in dequant_q6_k)
#include "io/gguf/dequant.h"

#include <cstring>

#include "core/check.h"
#include "core/half.h"

namespace llm0 {

namespace {

float half_at(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return fp16_to_float(h);
}

void dequant_q8_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int e = 0; e < 32; ++e) y[e] = d * (float)(int8_t)b[2 + e];
}

void dequant_q4_0(const uint8_t* b, float* y) {
  const float d = half_at(b);
  for (int e = 0; e < 32; ++e) {
    const int nibble = (b[2 + e % 16] >> (4 * (e / 16))) & 0xF;
    y[e] = d * (float)(nibble - 8);
  }
}

// Q4_K's 12 scale bytes hold 8 six-bit scales and 8 six-bit mins (ggml's get_scale_min_k4):
// bytes 0-3 and 4-7 carry sc_0..3 and m_0..3 in their low 6 bits and, in their top 2 bits, the
// high bits of sc_4..7 and m_4..7, whose low 4 bits are the nibbles of bytes 8-11.
void q4_k_scale_min(const uint8_t* s, int j, int& sc, int& m) {
  if (j < 4) {
    sc = s[j] & 63;
    m = s[4 + j] & 63;
  } else {
    sc = (s[4 + j] & 0xF) | ((s[j - 4] >> 6) << 4);
    m = (s[4 + j] >> 4) | ((s[j] >> 6) << 4);
  }
}

void dequant_q4_k(const uint8_t* b, float* y) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const uint8_t* scales = b + 4;
  const uint8_t* qs = b + 16;
  for (int j = 0; j < 8; ++j) {
    int sc, m;
    q4_k_scale_min(scales, j, sc, m);
    const float dl = d * (float)sc, ml = dmin * (float)m;  // exact: 11 + 6 significant bits
    const uint8_t* q = qs + 32 * (j / 2);
    for (int l = 0; l < 32; ++l) y[32 * j + l] = dl * (float)((q[l] >> (4 * (j % 2))) & 0xF) - ml;
  }
}

// Q6_K: each 128-element half h uses ql[64h..64h+63], qh[32h..32h+31] and scales[8h..8h+7].
// Within a half, the quarter g = r/32 of element r (l = r % 32) takes its 4 low bits from
// ql[l + 32*(g%2)] (low nibble for g < 2, high for g >= 2), its 2 high bits from bits 2g..2g+1
// of qh[l], and scale 2g + l/16: sixteen scales of 16 elements each, in element order.
void dequant_q6_k(const uint8_t* b, float* y) {
  const uint8_t* ql = b;
  const uint8_t* qh = b + 128;
  const int8_t* scales = reinterpret_cast<const int8_t*>(b + 192);
  const float d = half_at(b + 208);
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, r = e % 128, g = r / 32, l = r % 32;
    const int low = (ql[64 * h + l + 32 * (g % 2)] >> (4 * (g / 2))) & 0xF;
    const int high = (qh[32 * h + l] >> (2 * g)) & 3;
    const int sc = scales[8 * h + 2 * g + l / 16];
    y[e] = d * (float)sc * (float)((low | (high << 4)) - 32);  // exact: 11 + 7 + 5 bits
  }
}

using BlockFn = void (*)(const uint8_t*, float*);

BlockFn block_fn(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0: return dequant_q8_0;
    case GgmlType::Q4_0: return dequant_q4_0;
    case GgmlType::Q4_K: return dequant_q4_k;
    case GgmlType::Q6_K: return dequant_q6_k;
    default: return nullptr;
  }
}

}  // namespace

void ggml_dequantize(GgmlType type, const uint8_t* src, uint64_t numel, float* dst) {
  const uint64_t bytes = ggml_nbytes(type, numel);  // throws on a partial block
  if (type == GgmlType::F32) {
    if (numel > 0) std::memcpy(dst, src, bytes);
    return;
  }
  if (type == GgmlType::F16 || type == GgmlType::BF16) {
    for (uint64_t k = 0; k < numel; ++k) {
      uint16_t h;
      std::memcpy(&h, src + 2 * k, 2);
      dst[k] = type == GgmlType::BF16 ? bf16_to_float(h) : fp16_to_float(h);
    }
    return;
  }
  const BlockFn fn = block_fn(type);
  LLM0_CHECK(fn != nullptr, "ggml type {} cannot be dequantized", ggml_type_name((uint32_t)type));
  const uint64_t block = (uint64_t)ggml_block_size(type), block_bytes = (uint64_t)ggml_type_size(type);
  for (uint64_t k = 0; k < numel / block; ++k) fn(src + k * block_bytes, dst + k * block);
}

}  // namespace llm0
