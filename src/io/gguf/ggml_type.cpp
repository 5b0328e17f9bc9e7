// ggml type codes, names and block geometry (see ggml_type.h; ggml.h and ggml.c type_traits).
#include "io/gguf/ggml_type.h"

#include <array>

#include "core/check.h"

namespace llm0 {

namespace {

// gguf-py's GGMLQuantizationType names by code; the removed codes keep their old names.
constexpr std::array<const char*, 43> kNames = {
    "F32",     "F16",     "Q4_0",    "Q4_1",       "Q4_2",       "Q4_3",       "Q5_0",
    "Q5_1",    "Q8_0",    "Q8_1",    "Q2_K",       "Q3_K",       "Q4_K",       "Q5_K",
    "Q6_K",    "Q8_K",    "IQ2_XXS", "IQ2_XS",     "IQ3_XXS",    "IQ1_S",      "IQ4_NL",
    "IQ3_S",   "IQ2_S",   "IQ4_XS",  "I8",         "I16",        "I32",        "I64",
    "F64",     "IQ1_M",   "BF16",    "Q4_0_4_4",   "Q4_0_4_8",   "Q4_0_8_8",   "TQ1_0",
    "TQ2_0",   "IQ4_NL_4_4", "IQ4_NL_4_8", "IQ4_NL_8_8", "MXFP4", "NVFP4",     "Q1_0",
    "Q2_0",
};

}  // namespace

std::string ggml_type_name(uint32_t code) { return code < kNames.size() ? kNames[code] : ""; }

bool ggml_type_is_read(uint32_t code) {
  switch ((GgmlType)code) {
    case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: case GgmlType::Q8_0:
    case GgmlType::Q4_0: case GgmlType::Q4_K: case GgmlType::Q6_K: return true;
  }
  return false;
}

bool ggml_type_is_quantized(GgmlType type) { return ggml_block_size(type) > 1; }

int ggml_block_size(GgmlType type) {
  switch (type) {
    case GgmlType::F32: case GgmlType::F16: case GgmlType::BF16: return 1;
    case GgmlType::Q8_0: case GgmlType::Q4_0: return 32;   // QK8_0, QK4_0
    case GgmlType::Q4_K: case GgmlType::Q6_K: return 256;  // QK_K
  }
  LLM0_FAIL("unknown ggml type {}", (uint32_t)type);
}

int ggml_type_size(GgmlType type) {
  switch (type) {
    case GgmlType::F32: return 4;
    case GgmlType::F16: case GgmlType::BF16: return 2;
    case GgmlType::Q8_0: return 2 + 32;            // fp16 d, int8 qs[32]
    case GgmlType::Q4_0: return 2 + 16;            // fp16 d, uint8 qs[16] (two nibbles each)
    case GgmlType::Q4_K: return 2 + 2 + 12 + 128;  // fp16 d, dmin, 6-bit scales/mins, nibbles
    case GgmlType::Q6_K: return 128 + 64 + 16 + 2; // ql (low 4 bits), qh (high 2), int8 scales, d
  }
  LLM0_FAIL("unknown ggml type {}", (uint32_t)type);
}

uint64_t ggml_nbytes(GgmlType type, uint64_t numel) {
  const uint64_t block = (uint64_t)ggml_block_size(type);
  LLM0_CHECK(numel % block == 0, "{} elements are not whole {}-element blocks of {}", numel, block,
             ggml_type_name((uint32_t)type));
  return numel / block * (uint64_t)ggml_type_size(type);
}

}  // namespace llm0
