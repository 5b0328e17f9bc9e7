// gguf_tensor_name and the RoPE row permutation (see tensor_names.h).
#include "io/gguf/tensor_names.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "core/check.h"

namespace llm0 {

std::string gguf_tensor_name(const std::string& n) {
  if (n == "model.embed_tokens.weight") return "token_embd.weight";
  if (n == "model.norm.weight") return "output_norm.weight";
  if (n == "lm_head.weight") return "output.weight";
  const std::string pre = "model.layers.";
  if (n.rfind(pre, 0) == 0) {
    const size_t dot = n.find('.', pre.size());
    if (dot != std::string::npos) {
      const std::string il = n.substr(pre.size(), dot - pre.size()), rest = n.substr(dot + 1);
      static const std::pair<const char*, const char*> kMap[] = {
          {"input_layernorm.weight", "attn_norm.weight"},
          {"self_attn.q_proj.weight", "attn_q.weight"},
          {"self_attn.k_proj.weight", "attn_k.weight"},
          {"self_attn.v_proj.weight", "attn_v.weight"},
          {"self_attn.o_proj.weight", "attn_output.weight"},
          {"self_attn.q_norm.weight", "attn_q_norm.weight"},
          {"self_attn.k_norm.weight", "attn_k_norm.weight"},
          {"self_attn.q_a_proj.weight", "attn_q_a.weight"},
          {"self_attn.q_a_layernorm.weight", "attn_q_a_norm.weight"},
          {"self_attn.q_b_proj.weight", "attn_q_b.weight"},
          {"self_attn.kv_a_proj_with_mqa.weight", "attn_kv_a_mqa.weight"},
          {"self_attn.kv_a_layernorm.weight", "attn_kv_a_norm.weight"},
          {"post_attention_layernorm.weight", "ffn_norm.weight"},
          {"mlp.gate_proj.weight", "ffn_gate.weight"},
          {"mlp.up_proj.weight", "ffn_up.weight"},
          {"mlp.down_proj.weight", "ffn_down.weight"},
      };
      for (const auto& [from, to] : kMap)
        if (rest == from) return "blk." + il + "." + to;
    }
  }
  LLM0_FAIL("GGUF: parameter {} has no llama.cpp tensor name", n);
}

namespace {
// out row h*D + 2i + j <-> in row h*D + j*D/2 + i; `to_interleaved` picks the direction.
std::vector<float> permute_rope_rows(const float* w, int n_head, int D, int cols,
                                     bool to_interleaved) {
  LLM0_CHECK(D % 2 == 0, "RoPE row permutation needs an even head_dim, got {}", D);
  std::vector<float> out((size_t)n_head * D * cols);
  for (int h = 0; h < n_head; ++h)
    for (int i = 0; i < D / 2; ++i)
      for (int j = 0; j < 2; ++j) {
        const size_t inter = (size_t)h * D + 2 * i + j, half = (size_t)h * D + j * (D / 2) + i;
        const size_t dst = to_interleaved ? inter : half, src = to_interleaved ? half : inter;
        std::copy(w + src * cols, w + (src + 1) * cols, out.begin() + (ptrdiff_t)(dst * cols));
      }
  return out;
}
}  // namespace

std::vector<float> rope_rows_to_interleaved(const float* w, int n_head, int D, int cols) {
  return permute_rope_rows(w, n_head, D, cols, true);
}

std::vector<float> rope_rows_to_rotate_half(const float* w, int n_head, int D, int cols) {
  return permute_rope_rows(w, n_head, D, cols, false);
}

}  // namespace llm0
