// GGUF export for llama.cpp's qwen3next. See export_qwen3next.h.
#include "io/gguf/export_qwen3next.h"

#include <cmath>

#include "core/check.h"
#include "io/gguf/export_moe.h"
#include "io/gguf/tensor_names.h"

namespace llm0 {

namespace {

// The n with layer il full attention iff (il + 1) % n == 0 for every layer (llama.cpp's rule
// when no attention.recurrent_layers array is given); 0 when no n fits. n = L + 1: all linear.
int full_attention_interval(const ModelConfig& c) {
  const int L = c.num_hidden_layers;
  for (int n = 1; n <= L + 1; ++n) {
    bool fits = true;
    for (int il = 0; il < L && fits; ++il)
      fits = c.layer(il).is_linear_attention() == ((il + 1) % n != 0);
    if (fits) return n;
  }
  return 0;
}

// "model.layers.{il}.<rest>" -> il and rest; false for a name outside the layers.
bool split_layer_name(const std::string& name, std::string& il, std::string& rest) {
  const std::string pre = "model.layers.";
  if (name.rfind(pre, 0) != 0) return false;
  const size_t dot = name.find('.', pre.size());
  il = name.substr(pre.size(), dot - pre.size());
  rest = name.substr(dot + 1);
  return true;
}

// in_proj_qkvz [nk·(2·dk + 2·r·dv), C] grouped by key head -> attn_qkv [all q | all k | all v]
// and attn_gate [all z] (value heads in order g·r … g·r + r − 1 within key head g).
void add_qkvz_split(GgufWriter& g, const ModelConfig& c, const std::string& blk, const float* w,
                    GgmlType dtype) {
  const GatedDeltaNetConfig& d = c.linear;
  const int nk = d.linear_num_key_heads, dk = d.linear_key_head_dim;
  const int rv = d.value_dim() / nk;  // r·dv rows of v (and of z) per key head
  const size_t C = (size_t)c.hidden_size, group = (size_t)(2 * dk + 2 * rv);
  std::vector<float> qkv((size_t)d.conv_channels() * C), z((size_t)d.value_dim() * C);
  const auto rows = [&](std::vector<float>& dst, size_t dst_row, size_t src_row, size_t n) {
    std::copy_n(w + src_row * C, n * C, dst.begin() + (ptrdiff_t)(dst_row * C));
  };
  for (int h = 0; h < nk; ++h) {
    const size_t src = (size_t)h * group;
    rows(qkv, (size_t)h * dk, src, (size_t)dk);                                    // q_h
    rows(qkv, (size_t)(d.key_dim() + h * dk), src + dk, (size_t)dk);               // k_h
    rows(qkv, (size_t)(2 * d.key_dim() + h * rv), src + 2 * dk, (size_t)rv);       // v of group h
    rows(z, (size_t)h * rv, src + 2 * dk + rv, (size_t)rv);                        // z of group h
  }
  g.add_tensor(blk + "attn_qkv.weight", {d.conv_channels(), c.hidden_size}, dtype, qkv.data());
  g.add_tensor(blk + "attn_gate.weight", {d.value_dim(), c.hidden_size}, dtype, z.data());
}

void add_linear_attn(GgufWriter& g, const ModelConfig& c, const std::string& blk,
                     const std::string& rest, const ParamInfo& p, const float* w, GgmlType dtype) {
  const GatedDeltaNetConfig& d = c.linear;
  const int nv = d.linear_num_value_heads;
  if (rest == "in_proj_qkvz.weight") {
    add_qkvz_split(g, c, blk, w, dtype);
  } else if (rest == "in_proj_ba.weight") {
    g.add_tensor(blk + "ssm_ba.weight", p.shape.dims, dtype, w);
  } else if (rest == "conv1d.weight") {  // ggml_ssm_conv wants float32 [Cc, K]
    g.add_tensor(blk + "ssm_conv1d.weight", {d.conv_channels(), d.linear_conv_kernel_dim},
                 GgmlType::F32, w);
  } else if (rest == "dt_bias") {
    g.add_tensor(blk + "ssm_dt.bias", {nv}, GgmlType::F32, w);
  } else if (rest == "A_log") {  // llama.cpp multiplies softplus(a + dt_bias) by ssm_a
    std::vector<float> a((size_t)nv);
    for (int j = 0; j < nv; ++j) a[(size_t)j] = -std::exp(w[j]);
    g.add_tensor(blk + "ssm_a", {nv}, GgmlType::F32, a.data());
  } else if (rest == "norm.weight") {  // the gated norm: plain w in both
    g.add_tensor(blk + "ssm_norm.weight", p.shape.dims, GgmlType::F32, w);
  } else if (rest == "out_proj.weight") {
    g.add_tensor(blk + "ssm_out.weight", p.shape.dims, dtype, w);
  } else {
    LLM0_FAIL("GGUF export: parameter {} has no llama.cpp qwen3next tensor name", p.name);
  }
}

}  // namespace

std::string qwen3next_architecture(const ModelConfig& c) {
  const GatedDeltaNetConfig& d = c.linear;
  LLM0_CHECK(!d.enabled() || d.linear_value_head_dim == d.linear_key_head_dim, "GGUF export: "
             "linear_value_head_dim {} != linear_key_head_dim {} cannot be represented: "
             "llama.cpp's qwen3next sizes the Gated DeltaNet state as dk × dk",
             d.linear_value_head_dim, d.linear_key_head_dim);
  LLM0_CHECK(full_attention_interval(c) > 0, "GGUF export: the layer_types of this model follow "
             "no full_attention_interval (layer i full attention iff (i + 1) % n == 0), the only "
             "pattern llm0 writes for llama.cpp's qwen3next");
  LLM0_CHECK(c.position == PositionKind::Rope && c.norm == NormKind::RMSNorm &&
             c.mlp() == MlpKind::SwiGLU && c.use_qk_norm && c.attn_output_gate,
             "GGUF export: llama.cpp's qwen3next needs RoPE, RMSNorm, SwiGLU, QK-norm and the "
             "attention output gate, as Qwen3-Next has");
  LLM0_CHECK(!c.attention_bias && !c.mlp_bias, "GGUF export: {} biases are not supported for "
             "llama.cpp's qwen3next architecture", c.attention_bias ? "attention" : "MLP");
  LLM0_CHECK(c.sliding_window == 0 && !c.attention_sinks, "GGUF export: {} cannot be "
             "represented in llama.cpp's qwen3next architecture", c.attention_sinks ?
             "attention sinks" : "sliding-window layers");
  check_gguf_moe(c, "qwen3next");
  return "qwen3next";
}

void add_qwen3next_metadata(GgufWriter& g, const ModelConfig& c) {
  const auto u32 = [](int v) { return GgufValue::of_u32((uint32_t)v); };
  const GatedDeltaNetConfig& d = c.linear;
  g.add("qwen3next.full_attention_interval", u32(full_attention_interval(c)));
  if (!d.enabled()) return;
  g.add("qwen3next.ssm.conv_kernel", u32(d.linear_conv_kernel_dim));
  g.add("qwen3next.ssm.state_size", u32(d.linear_key_head_dim));
  g.add("qwen3next.ssm.group_count", u32(d.linear_num_key_heads));
  g.add("qwen3next.ssm.time_step_rank", u32(d.linear_num_value_heads));
  g.add("qwen3next.ssm.inner_size", u32(d.value_dim()));
}

bool add_qwen3next_tensor(GgufWriter& g, const Model& model, const ParamInfo& p, GgmlType dtype) {
  const ModelConfig& c = model.config();
  const float* w = model.params().value(p.name);
  std::string il, rest;
  const bool in_layer = split_layer_name(p.name, il, rest);
  if (in_layer && rest.rfind("linear_attn.", 0) == 0) {
    add_linear_attn(g, c, "blk." + il + ".", rest.substr(12), p, w, dtype);
    return true;
  }
  const bool unit_offset = p.name == "model.norm.weight" ||
      (in_layer && (rest == "input_layernorm.weight" || rest == "post_attention_layernorm.weight" ||
                    rest == "self_attn.q_norm.weight" || rest == "self_attn.k_norm.weight"));
  if (!unit_offset) return false;
  std::vector<float> one_plus(w, w + p.numel);
  for (float& x : one_plus) x += 1.0f;
  // llama.cpp's qwen3next reads the post-attention norm as attn_post_norm.
  const std::string name = rest == "post_attention_layernorm.weight"
                               ? "blk." + il + ".post_attention_norm.weight"
                               : gguf_tensor_name(p.name);
  g.add_tensor(name, p.shape.dims, GgmlType::F32, one_plus.data());
  return true;
}

}  // namespace llm0
