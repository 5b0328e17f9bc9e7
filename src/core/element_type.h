// The element type of stored numbers — one enum for the KV caches (`--kv-dtype`) and the KV
// ledger (`llm0 kv --dtype`): float32, float16 (IEEE 754 binary16), bfloat16 and an 8-bit float
// (which the ledger counts; no cache stores it yet). Sizes are given per block, as llama.cpp's
// ggml type traits give them (blck_size, type_size), so block types such as q8_0 (32 numbers in
// 34 bytes) fit beside the float types, whose blocks hold one number.
#pragma once
#include <cstdint>
#include <string_view>

namespace llm0 {

/// Element type of cached numbers.
enum class ElementType { F32, F16, BF16, FP8 };

/// One storage block: `numbers` values in `bytes` bytes (f32 {1, 4}, f16 and bf16 {1, 2},
/// fp8 {1, 1}).
struct ElementBlock {
  int numbers = 1;
  int bytes = 4;
};

/// The block of `type`.
ElementBlock element_block(ElementType type);

/// Bytes of `n` numbers of `type` (n / numbers per block × bytes per block). Throws llm0::Error
/// when `n` is not a whole number of blocks.
uint64_t element_bytes(ElementType type, uint64_t n);

/// The engine's spelling (`--kv-dtype`, the caches' messages, `llm0 bench`): "f32" (as llama.cpp
/// writes its cache types), "fp16", "bf16", "fp8". Each parses with parse_element_type.
const char* element_type_name(ElementType type);

/// The KV ledger's spelling (`llm0 kv --dtype`, its text and JSON): "fp32", "fp16", "bf16", "fp8"
/// — the float types written "fp" as in the papers; kept so the ledger's output stays as it was.
const char* element_type_ledger_name(ElementType type);

/// Parses "f32" | "fp32" | "fp16" | "bf16" | "fp8" (what `llm0 kv --dtype` accepts; `--kv-dtype`
/// takes f32 or bf16 of them). Throws llm0::Error naming the bad value and the accepted ones.
ElementType parse_element_type(std::string_view name);

}  // namespace llm0
