// Binding of layer views to the parameter store (names and shapes: model/param_table.cpp). Each
// block's mixer and feed-forward come from the factory (layers/mixer_factory.h) and bind their
// own tensors.
#include "layers/mixer_factory.h"
#include "model/model.h"
#include "model/param_table.h"

namespace llm0 {

void Model::declare_params() {
  declare_model_params(params_, cfg_);
  params_.finalize();
}

namespace {
NormLayer bind_norm(const ParamBind& b, const ModelConfig& c, const std::string& name) {
  NormLayer n;
  n.kind = c.norm, n.eps = (float)c.rms_norm_eps, n.C = c.hidden_size;
  n.unit_offset = c.unit_offset_norms();
  n.w = b.value(name + ".weight"), n.b = b.value(name + ".bias");
  n.dw = b.grad(name + ".weight"), n.db = b.grad(name + ".bias");
  return n;
}
}  // namespace

void Model::bind_layers() {
  const ParamBind b{params_};
  blocks_.resize((size_t)cfg_.num_hidden_layers);
  for (int il = 0; il < cfg_.num_hidden_layers; ++il) {
    const std::string p = "model.layers." + std::to_string(il) + ".";
    Block& blk = blocks_[(size_t)il];
    blk.norm1 = bind_norm(b, cfg_, p + "input_layernorm");
    blk.norm2 = bind_norm(b, cfg_, p + "post_attention_layernorm");
    blk.mixer = make_mixer(cfg_, il, rope_view_);
    blk.mixer->bind(b, p);
    blk.ffn = make_ffn(cfg_, il);
    blk.ffn->bind(b, p);
  }
  final_norm_ = bind_norm(b, cfg_, "model.norm");
  embed_w_ = b.value("model.embed_tokens.weight");
  dembed_w_ = b.grad("model.embed_tokens.weight");
  pos_w_ = b.value("model.embed_positions.weight");
  dpos_w_ = b.grad("model.embed_positions.weight");
  // Tied: lm_head IS the embedding, so both uses add into one gradient (counted once).
  const char* head = cfg_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight";
  head_w_ = b.value(head);
  dhead_w_ = b.grad(head);
}

}  // namespace llm0
