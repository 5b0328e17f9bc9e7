// `llm0 lesson shapes`: the shapes of one attention head (Vaswani et al., arXiv:1706.03762,
// eq. 1) for a real config and for the teaching world:
//   Q_h = X W_Q,h [T, d_h],  K_h = X W_K,h [T, d_h],  V_h = X W_V,h [T, d_v]
//   S_h = Q_h K_hᵀ / √d_h [T, T],  A_h = softmax(S_h + causal mask) [T, T],  O_h = A_h V_h [T, d_v]
// and which dimension each product contracts. For MLA configs (DeepSeek-V2/V3, arXiv:2405.04434)
// the per-head query/key width is qk_nope_head_dim + qk_rope_head_dim and the value width
// v_head_dim. Shapes are row-major, outermost first.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lesson/lesson_world.h"

namespace llm0::lesson {

/// One step of the head's computation: result = left · right (right empty for element-wise).
struct ShapeStep {
  std::string name;                  ///< "Q_h", "S_h", ...
  std::string formula;               ///< "Q_h = X W_Q,h"
  std::vector<int64_t> left, right;  ///< operand shapes (right empty when not a product)
  std::vector<int64_t> result;       ///< result shape
  std::string contracts;             ///< contracted dimension's name ("" when none)
  int64_t contracted = 0;            ///< its size
  uint64_t multiply_adds = 0;        ///< product of the three sizes (full matrix, no causal skip)
};

/// The most tokens T a shapes lesson takes: keeps T·T·d_h multiply-adds far inside 64 bits.
inline constexpr int64_t kShapesMaxTokens = int64_t{1} << 24;

/// The shapes of one head for one source.
struct ShapesLesson {
  std::string source;                ///< config path or teaching-world path
  std::string kind;                  ///< "config" or "teaching world"
  int64_t T = 0;                     ///< tokens
  int64_t d_model = 0;               ///< hidden_size
  int64_t num_attention_heads = 0, num_key_value_heads = 0;
  int64_t d_qk = 0, d_v = 0;         ///< per-head query/key and value widths
  bool mla = false;
  std::vector<ShapeStep> steps;
};

/// Shapes for one head given the sizes. Throws llm0::Error if any size is < 1 or T > 2^24.
ShapesLesson shapes_for(int64_t T, int64_t d_model, int64_t H, int64_t Hkv, int64_t d_qk,
                        int64_t d_v);

/// Shapes from a Hugging Face config.json (hidden_size, num_attention_heads,
/// num_key_value_heads, head_dim or hidden_size / num_attention_heads; MLA fields when
/// kv_lora_rank is present). `tokens` < 0 means max_position_embeddings. Throws llm0::Error
/// naming the file and field: missing file, missing/invalid field, hidden_size not divisible by
/// num_attention_heads without head_dim, tokens = 0, or no tokens and no max_position_embeddings.
ShapesLesson shapes_from_config(const std::string& path, int64_t tokens);

/// Shapes of the teaching world's heads (T = its sentence length, H·d_head heads).
ShapesLesson shapes_from_world(const TeachingWorld& world);

/// The lesson as JSON (field names as in the structs).
nlohmann::json to_json(const ShapesLesson& lesson);

/// One band per lesson: Q_h × K_hᵀ = S_h/A_h, A_h × V_h = O_h drawn as rectangles whose edge
/// lengths are 14 + 28·log2(size) px (a log scale, so T = 8192 and d_h = 5 fit one picture),
/// labelled with the real sizes and the contracted dimension. Throws llm0::Error when empty.
std::string shapes_svg(const std::vector<ShapesLesson>& lessons);

/// "[8192, 128]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace llm0::lesson
