// llm0 checkpoint -> GGUF for llama.cpp (see export.h). Metadata keys follow gguf-py's
// constants.py (LLM_KV_*); the tokenizer keys: io/gguf/export_tokenizer.h.
#include "io/gguf/export.h"

#include <cmath>
#include <filesystem>
#include <memory>

#include "chat/chat_template.h"
#include "core/check.h"
#include "io/checkpoint.h"
#include "io/gguf/export_moe.h"
#include "io/gguf/export_qwen3next.h"
#include "io/gguf/export_tokenizer.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

namespace fs = std::filesystem;

namespace {
// llama.cpp's deepseek2 (src/models/deepseek2.cpp at 80fb11a): MLA with the absorbed kv_b split
// into attn_k_b / attn_v_b, no attention biases, the latent norms at the model's rms_norm_eps.
std::string deepseek2_architecture(const ModelConfig& c) {
  LLM0_CHECK(c.mla.enabled(), "GGUF export: model_type {} without kv_lora_rank", c.model_type);
  LLM0_CHECK(!c.attention_bias && !c.mlp_bias, "GGUF export: llama.cpp's deepseek2 architecture "
             "has no attention or MLP biases");
  LLM0_CHECK(std::fabs(c.rms_norm_eps - 1e-6) < 1e-12, "GGUF export: rms_norm_eps={} cannot be "
             "represented: llama.cpp's deepseek2 normalises the MLA latents with rms_norm_eps, "
             "Hugging Face (and llm0) with 1e-6 — use rms_norm_eps 1e-6, as every published "
             "DeepSeek config does", c.rms_norm_eps);
  LLM0_CHECK(c.mlp() == MlpKind::SwiGLU, "GGUF export: deepseek2 needs a SwiGLU MLP");
  check_gguf_moe(c, "deepseek2");
  return "deepseek2";
}
}  // namespace

std::string gguf_architecture(const ModelConfig& c) {
  // The layer kinds some llama.cpp architecture has (full and sliding attention, MLA, Gated
  // DeltaNet); any other kind is refused by its name here, before anything is read or written.
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const LayerKindInfo& info = layer_kind_info(c.layer(il).kind);
    LLM0_CHECK(info.in_llama_cpp, "GGUF export: layer {} is {} (layer_types \"{}\"), which "
               "llama.cpp has in no architecture: a GGUF file cannot hold this model", il,
               info.display, info.layer_type);
  }
  const std::string& t = c.model_type;
  if (t == "deepseek_v2" || t == "deepseek_v3") return deepseek2_architecture(c);
  if (t == "qwen3_next") return qwen3next_architecture(c);
  LLM0_CHECK(t == "llama" || t == "qwen3" || t == "qwen3_moe", "GGUF export: model_type \"{}\" "
             "is not supported (llama.cpp architectures llama, qwen3, qwen3moe, qwen3next and "
             "deepseek2 only)", t);
  LLM0_CHECK(!c.attn_output_gate && !c.has_linear_layers(), "GGUF export: {} cannot be "
             "represented in llama.cpp's {} architecture (only in its qwen3next: model_type "
             "qwen3_next with mixture-of-experts layers)", c.has_linear_layers() ?
             "linear-attention (Gated DeltaNet) layers" : "the attention output gate "
             "(attn_output_gate)", t);
  LLM0_CHECK(c.position == PositionKind::Rope, "GGUF export: {} positions cannot be represented: "
             "llama.cpp's {} architecture uses RoPE", c.position == PositionKind::Learned ?
             "learned absolute" : "no (NoPE)", t);
  LLM0_CHECK(c.norm == NormKind::RMSNorm, "GGUF export: LayerNorm cannot be represented: "
             "llama.cpp's {} architecture uses RMSNorm", t);
  LLM0_CHECK(c.mlp() == MlpKind::SwiGLU, "GGUF export: a GELU MLP (hidden_act \"{}\") cannot be "
             "represented: llama.cpp's {} architecture uses SwiGLU", c.hidden_act, t);
  LLM0_CHECK(!c.attention_bias && !c.mlp_bias, "GGUF export: {} biases are not supported for "
             "llama.cpp's {} architecture", c.attention_bias ? "attention" : "MLP", t);
  LLM0_CHECK(c.sliding_window == 0 && !c.attention_sinks, "GGUF export: {} cannot be "
             "represented in llama.cpp's {} architecture", c.attention_sinks ?
             "attention sinks" : "sliding-window layers", t);
  LLM0_CHECK(c.rotary_dim() == c.head_dim, "GGUF export: partial rotary (rotary dim {} < "
             "head_dim {}) cannot be represented: llama.cpp's {} architecture rotates all of "
             "head_dim", c.rotary_dim(), c.head_dim, t);
  if (t == "llama")
    LLM0_CHECK(!c.use_qk_norm, "GGUF export: QK-norm cannot be represented in llama.cpp's llama "
               "architecture (use model_type qwen3)");
  else
    LLM0_CHECK(c.use_qk_norm, "GGUF export: llama.cpp's qwen3 architecture requires QK-norm "
               "(use_qk_norm)");
  if (t == "qwen3_moe") {
    check_gguf_moe(c, "qwen3moe");
    return "qwen3moe";
  }
  return t;
}

namespace {

void add_model_metadata(GgufWriter& g, const ModelConfig& c, const std::string& arch,
                        const std::string& name, GgmlType dtype) {
  const auto u32 = [](int v) { return GgufValue::of_u32((uint32_t)v); };
  g.add("general.architecture", GgufValue::of_string(arch));
  g.add("general.name", GgufValue::of_string(name));
  // llama_ftype ALL_F32 / MOSTLY_F16 / MOSTLY_BF16
  g.add("general.file_type", u32(dtype == GgmlType::F32 ? 0 : dtype == GgmlType::F16 ? 1 : 32));
  g.add("general.alignment", GgufValue::of_u32(kGgufDefaultAlignment));
  const std::string a = arch + ".";
  g.add(a + "vocab_size", u32(c.vocab_size));
  g.add(a + "context_length", u32(c.max_position_embeddings));
  g.add(a + "embedding_length", u32(c.hidden_size));
  g.add(a + "block_count", u32(c.num_hidden_layers));
  g.add(a + "feed_forward_length", u32(c.intermediate_size));
  g.add(a + "attention.head_count", u32(c.num_attention_heads));
  if (arch == "deepseek2") {
    // MLA as llama.cpp runs it: MQA over [c_kv | k_pe] (one KV head of r + dr, values r), the
    // per-head sizes after decompression in the *_mla keys; every MLP layer dense.
    const MlaConfig& m = c.mla;
    g.add(a + "attention.head_count_kv", u32(1));
    g.add(a + "attention.key_length", u32(m.kv_lora_rank + m.qk_rope_head_dim));
    g.add(a + "attention.value_length", u32(m.kv_lora_rank));
    g.add(a + "attention.key_length_mla", u32(m.qk_head_dim()));
    g.add(a + "attention.value_length_mla", u32(m.v_head_dim));
    g.add(a + "attention.q_lora_rank", u32(m.q_lora_rank));  // 0: q_proj (no compression)
    g.add(a + "attention.kv_lora_rank", u32(m.kv_lora_rank));
    if (!c.moe.enabled()) {  // every MLP layer dense
      g.add(a + "leading_dense_block_count", u32(c.num_hidden_layers));
      g.add(a + "expert_feed_forward_length", u32(c.intermediate_size));
      g.add(a + "expert_shared_count", u32(0));
    }
  } else {
    g.add(a + "attention.head_count_kv", u32(c.num_key_value_heads));
    if (c.head_dim * c.num_attention_heads != c.hidden_size) {
      g.add(a + "attention.key_length", u32(c.head_dim));
      g.add(a + "attention.value_length", u32(c.head_dim));
    }
  }
  g.add(a + "rope.dimension_count", u32(c.rotary_dim()));
  g.add(a + "rope.freq_base", GgufValue::of_f32((float)c.rope_theta));
  g.add(a + "attention.layer_norm_rms_epsilon", GgufValue::of_f32((float)c.rms_norm_eps));
  add_gguf_moe_metadata(g, c, arch);
  if (arch == "qwen3next") add_qwen3next_metadata(g, c);
}

// kv_b_proj [H·(dn+dv), r] -> attn_k_b [H, r, dn] (each head's W_UK transposed) and attn_v_b
// [H, dv, r] (each head's W_UV), as llama.cpp's conversion/deepseek.py splits it.
void add_kv_b_split(GgufWriter& g, const ModelConfig& c, const std::string& blk, const float* w,
                    GgmlType dtype) {
  const MlaConfig& m = c.mla;
  const int H = c.num_attention_heads, r = m.kv_lora_rank, dn = m.qk_nope_head_dim;
  const int dv = m.v_head_dim, E = dn + dv;
  std::vector<float> k_b((size_t)H * r * dn), v_b((size_t)H * dv * r);
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < dn; ++i)
      for (int j = 0; j < r; ++j)
        k_b[((size_t)h * r + j) * dn + i] = w[((size_t)h * E + i) * r + j];
    std::copy_n(w + (size_t)(h * E + dn) * r, (size_t)dv * r, v_b.begin() + (ptrdiff_t)h * dv * r);
  }
  g.add_tensor(blk + "attn_k_b.weight", {H, r, dn}, dtype, k_b.data());
  g.add_tensor(blk + "attn_v_b.weight", {H, dv, r}, dtype, v_b.data());
}

// Every parameter under its llama.cpp name, Q/K rows permuted for llama's adjacent-pair RoPE.
size_t add_tensors(GgufWriter& g, const Model& model, const std::string& arch, GgmlType dtype) {
  const ModelConfig& c = model.config();
  size_t numel = 0;
  for (const ParamInfo& p : model.params().params()) {
    const float* w = model.params().value(p.name);
    if (add_gguf_moe_tensor(g, model, p, dtype) ||  // router, stacked experts, shared experts
        (arch == "qwen3next" && add_qwen3next_tensor(g, model, p, dtype))) {
      numel += p.numel;
      continue;
    }
    if (p.name.ends_with(".self_attn.kv_b_proj.weight")) {
      const std::string il = p.name.substr(13, p.name.find('.', 13) - 13);  // model.layers.{il}.
      add_kv_b_split(g, c, "blk." + il + ".", w, dtype);
      numel += p.numel;
      continue;
    }
    const std::string name = gguf_tensor_name(p.name);
    const GgmlType type = p.shape.rank() == 1 ? GgmlType::F32 : dtype;
    std::vector<float> permuted;
    const bool is_q = name.ends_with(".attn_q.weight"), is_k = name.ends_with(".attn_k.weight");
    if (arch == "llama" && (is_q || is_k)) {
      const int heads = is_q ? c.num_attention_heads : c.num_key_value_heads;
      permuted = rope_rows_to_interleaved(w, heads, c.head_dim, c.hidden_size);
      w = permuted.data();
    }
    g.add_tensor(name, p.shape.dims, type, w);
    numel += p.numel;
  }
  return numel;
}

}  // namespace

GgufExportSummary export_gguf(const std::string& model_dir, const std::string& output,
                              GgmlType dtype) {
  LLM0_CHECK(!fs::is_directory(output), "GGUF export: --output {} is a directory; give a file "
             "name (e.g. {}/model.gguf)", output, output);
  const std::string dir = resolve_checkpoint_dir(model_dir);
  const ModelConfig cfg = ModelConfig::from_file((fs::path(dir) / "config.json").string());
  GgufExportSummary s;
  s.architecture = gguf_architecture(cfg);  // refuse before loading any weights
  const std::string tok_path = (fs::path(dir) / "tokenizer.json").string();
  LLM0_CHECK(fs::exists(tok_path), "GGUF export: {} is missing: llama.cpp needs the tokenizer "
             "(train one with `llm0 tokenizer train` and copy it into the checkpoint)", tok_path);
  const Tokenizer tok = Tokenizer::load(tok_path);
  const std::unique_ptr<Model> model = load_model(dir);
  GgufWriter g;
  std::string name = fs::path(dir).filename().string();
  if (name.empty() || name == "checkpoint") name = fs::path(dir).parent_path().filename().string();
  add_model_metadata(g, cfg, s.architecture, name.empty() ? "llm0" : name, dtype);
  add_gguf_tokenizer(g, tok, tok_path, cfg);
  if (const std::optional<chat::ChatTemplate> t = chat::load_chat_template(dir))  // llama.cpp's key
    g.add("tokenizer.chat_template", GgufValue::of_string(t->source));
  s.parameters = add_tensors(g, *model, s.architecture, dtype);
  s.tensors = model->params().params().size();
  g.write(output);
  return s;
}

}  // namespace llm0
