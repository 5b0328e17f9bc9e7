// ggml tensor element types: the codes of ggml.h's `enum ggml_type`, their names, and their block
// geometry from ggml.c's `type_traits` (blck_size = elements per block, type_size = bytes per
// block; F32/F16/BF16 are blocks of one element). llm0 reads F32, F16, BF16 and the quantized
// Q8_0, Q4_0, Q4_K and Q6_K (dequantized by io/gguf/dequant.h); it writes F32, F16 and BF16.
// Every other code ggml defines (Q4_1, Q5_0, Q2_K, IQ*, TQ*, MXFP4, ...) is known by name only,
// so that a file holding one is refused naming the type.
#pragma once
#include <cstdint>
#include <string>

namespace llm0 {

/// ggml tensor element types llm0 reads (ggml.h GGML_TYPE_*, on-disk codes).
enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, Q4_K = 12, Q6_K = 14, BF16 = 30,
};

/// The names of the types llm0 reads, for error messages: "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K".
inline constexpr const char* kGgmlTypesRead = "F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K";

/// gguf-py's name of a ggml type code ("Q5_K", "IQ2_XXS", "MXFP4"; removed codes such as 4 are
/// "Q4_2"), or "" for a code ggml never defined (as of the llama.cpp bundled in bench/peers).
std::string ggml_type_name(uint32_t code);

/// True for the codes of GgmlType (the types llm0 reads).
bool ggml_type_is_read(uint32_t code);

/// True for the block-quantized types (Q8_0, Q4_0, Q4_K, Q6_K).
bool ggml_type_is_quantized(GgmlType type);

/// Elements per block: 1 for F32/F16/BF16, 32 for Q8_0 and Q4_0, 256 (QK_K) for Q4_K and Q6_K.
int ggml_block_size(GgmlType type);

/// Bytes per block: 4 (F32), 2 (F16, BF16), 34 (Q8_0), 18 (Q4_0), 144 (Q4_K), 210 (Q6_K).
int ggml_type_size(GgmlType type);

/// Bytes of `numel` elements of `type`; numel must be a multiple of ggml_block_size(type)
/// (callers check it per row, naming the tensor). Throws llm0::Error if it is not.
uint64_t ggml_nbytes(GgmlType type, uint64_t numel);

}  // namespace llm0
