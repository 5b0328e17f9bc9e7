// Model construction, forward/backward (training) and new_cache. See model.h; the cached
// forward is model/decode.cpp.
#include "model/model.h"

#include <algorithm>
#include <cstring>

#include "model/param_table.h"
#include "model/plan.h"
#include "ops/dropout.h"
#include "ops/embedding.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/residual.h"

namespace llm0 {

Model::Model(const ModelConfig& cfg) : cfg_(cfg) {
  cfg_.validate();
  if (cfg_.position == PositionKind::Rope) {  // every position, once (see model.h rope_)
    rope_ = std::make_unique<RopeTable>(cfg_.rotary_dim(), cfg_.rope_theta);
    rope_->ensure(cfg_.max_position_embeddings);
    rope_view_ = rope_.get();
  }
  declare_params();
  bind_layers();
  index_layers();
}

Model::Model(LaneOf lane) : cfg_(lane.owner.cfg_), rope_view_(lane.owner.rope_view_) {
  LLM0_CHECK(!lane.owner.bf16_weights(), "a training lane needs the float32 master weights; this "
             "model holds BF16 inference weights");
  declare_model_params(params_, cfg_);
  params_.finalize_sharing(lane.owner.params_);
  bind_layers();
  index_layers();
  set_bf16_products(lane.owner.bf16_products_);
}

void Model::index_layers() {
  // Blocks are declared one after the other (param_layout.cpp): each owns one contiguous range.
  for (int il = 0; il < cfg_.num_hidden_layers; ++il)
    layer_begin_.push_back(params_.info("model.layers." + std::to_string(il) + ".input_layernorm.weight").offset);
  layer_begin_.push_back(params_.info("model.norm.weight").offset);
}

Model::~Model() = default;

size_t Model::num_parameters() const {
  size_t n = 0;
  for (const ParamInfo& p : params_.params()) n += p.numel;
  return n;
}

void Model::embed(const int* tokens, const int* positions, int N, float* x) const {
  const int C = cfg_.hidden_size;
  embedding_forward(x, tokens, embed_w_, N, C, cfg_.vocab_size);
  if (cfg_.position == PositionKind::Learned)  // GPT-2: x = wte[token] + wpe[position]
    for (int n = 0; n < N; ++n) residual_add(x + (long)n * C, pos_w_ + (long)positions[n] * C, C);
}

namespace {
// Block il's residual-dropout draw (off when the run's is).
Dropout layer_dropout(const Dropout& d, int il) { return d.active() ? d.sub((uint64_t)il) : Dropout{}; }
}  // namespace

void Model::ensure_plan(int B, int T) {
  LLM0_CHECK(B > 0 && T > 0, "batch [B={}, T={}] must be non-empty", B, T);
  LLM0_CHECK(T <= cfg_.max_position_embeddings,
             "sequence length T={} exceeds max_position_embeddings={}", T,
             cfg_.max_position_embeddings);
  // The MLPs' gate|up layout follows where their weights live now (BF16 inference rebinds them).
  const bool fuse = mlp_gate_up_stacked(blocks_);
  if (!plan_ || plan_->B != B || plan_->T != T || plan_->fuse_gate_up() != fuse)
    plan_ = std::make_unique<TrainPlan>(cfg_, blocks_, B, T, fuse);
}

double Model::forward(const int* tokens, const int* targets, int B, int T, long* count,
                      const Dropout& dropout) {
  LLM0_CHECK(dropout.p >= 0 && dropout.p < 1, "dropout probability {} must be in [0, 1)", dropout.p);
  ensure_plan(B, T);
  TrainPlan& p = *plan_;
  const int N = B * T, C = cfg_.hidden_size, V = cfg_.vocab_size, L = cfg_.num_hidden_layers;
  std::memcpy(p.tokens.data(), tokens, sizeof(int) * (size_t)N);
  std::memcpy(p.targets.data(), targets, sizeof(int) * (size_t)N);
  p.dropout = dropout;
  embed(p.tokens.data(), p.positions.data(), N, p.blocks[0].x_in);
  if (dropout.active())
    dropout_apply(p.blocks[0].x_in, p.blocks[0].x_in, (size_t)N * C, dropout.sub((uint64_t)L));
  for (int il = 0; il < L; ++il) {
    float* out = il + 1 < L ? p.blocks[(size_t)il + 1].x_in : p.x_final;
    p.scratch.dropout = layer_dropout(dropout, il);
    blocks_[(size_t)il].forward(B, T, p.positions.data(), p.blocks[(size_t)il], p.scratch, out);
  }
  final_norm_.forward(p.lnf, p.lnf_mean, p.lnf_rstd, p.x_final, N);
  linear_forward(p.logits, p.lnf, head_w_, nullptr, N, C, V);  // [N, V]
  aux_loss_ = 0;
  if (cfg_.moe.balance == MoeBalance::AuxLoss)
    for (int il = 0; il < L; ++il)
      if (const Routing* r = blocks_[(size_t)il].ffn->routing())
        aux_loss_ += cfg_.moe.router_aux_loss_coef * r->balance(*p.blocks[(size_t)il].ffn, N);
  const double loss = cross_entropy_forward(nullptr, p.logits, p.targets.data(), N, V, &last_targets_,
                                            {p.logits_max.data(), p.logits_sum.data()});
  if (count) *count = last_targets_;
  return loss;
}

std::vector<Model::ExpertLoad> Model::expert_load() const {
  std::vector<ExpertLoad> out;
  for (size_t il = 0; plan_ && il < blocks_.size(); ++il)
    if (const Routing* r = blocks_[il].ffn->routing()) {
      const float* load = r->expert_load(*plan_->blocks[il].ffn);
      out.push_back({(int)il, std::vector<float>(load, load + r->num_experts())});
    }
  return out;
}

void Model::update_router_bias(double gamma, const std::vector<ExpertLoad>& loads) {
  const int E = cfg_.moe.num_experts;
  for (size_t il = 0; il < blocks_.size(); ++il) {
    const Routing* r = blocks_[il].ffn->routing();
    float* bias = r ? r->router_bias() : nullptr;
    if (!bias) continue;
    const auto it = std::find_if(loads.begin(), loads.end(),
                                 [&](const ExpertLoad& l) { return l.layer == (int)il; });
    LLM0_CHECK(it != loads.end() && (int)it->tokens.size() == E, "update_router_bias: no load of "
               "{} experts for MoE layer {}", E, il);
    const float* load = it->tokens.data();
    double mean = 0;
    for (int e = 0; e < E; ++e) mean += load[e] / E;
    for (int e = 0; e < E; ++e)
      bias[e] += (float)(gamma * (mean > load[e] ? 1 : mean < load[e] ? -1 : 0));
  }
}

const float* Model::logits() const {
  LLM0_CHECK(plan_ != nullptr, "logits() before forward()");
  return plan_->logits;
}

SavedAttention Model::saved_attention(int il) const {
  LLM0_CHECK(plan_ != nullptr, "saved_attention() before forward()");
  return mixer(il).saved_attention(*plan_->blocks[(size_t)il].mixer);
}

const Mixer& Model::mixer(int il) const {
  LLM0_CHECK(il >= 0 && il < cfg_.num_hidden_layers, "layer {} outside [0, {})", il,
             cfg_.num_hidden_layers);
  return *blocks_[(size_t)il].mixer;
}

void Model::backward(float loss_scale, const GradsReady& ready) {
  LLM0_CHECK(plan_ != nullptr, "backward() before forward()");
  TrainPlan& p = *plan_;
  const int B = p.B, T = p.T, N = B * T, C = cfg_.hidden_size, V = cfg_.vocab_size;
  // dlogits overwrite the logits in place: [N, V].
  cross_entropy_backward(p.logits, p.logits, p.targets.data(), N, V, loss_scale,
                         {p.logits_max.data(), p.logits_sum.data()});
  linear_backward(p.scratch.dln, dhead_w_, nullptr, p.logits, p.lnf, head_w_, N, C, V);
  p.scratch.aux_scale = cfg_.moe.balance == MoeBalance::AuxLoss
      ? (float)(loss_scale * (double)last_targets_ * cfg_.moe.router_aux_loss_coef) : 0.0f;
  final_norm_.backward(p.dstream, p.scratch.dln, p.x_final, p.lnf_mean, p.lnf_rstd, N);
  for (int il = cfg_.num_hidden_layers - 1; il >= 0; --il) {
    p.scratch.dropout = layer_dropout(p.dropout, il);
    blocks_[(size_t)il].backward(p.dstream, B, T, p.positions.data(), p.blocks[(size_t)il],
                                 p.scratch);
    if (ready) ready(layer_begin_[(size_t)il], layer_begin_[(size_t)il + 1] - layer_begin_[(size_t)il]);
  }
  if (p.dropout.active())  // through the embeddings' mask
    dropout_apply(p.dstream, p.dstream, (size_t)N * C, p.dropout.sub((uint64_t)cfg_.num_hidden_layers));
  embedding_backward(dembed_w_, p.dstream, p.tokens.data(), N, C);
  if (cfg_.position == PositionKind::Learned)
    for (int n = 0; n < N; ++n)
      residual_add(dpos_w_ + (long)p.positions[(size_t)n] * C, p.dstream + (long)n * C, C);
  if (ready) {  // embeddings before the blocks; final norm and lm_head after them
    const size_t first = layer_begin_.front(), last = layer_begin_.back();
    if (first > 0) ready(0, first);
    if (last < params_.size()) ready(last, params_.size() - last);
  }
}

ModelCache Model::new_cache(int max_context) const {
  LLM0_CHECK(max_context >= 0 && max_context <= cfg_.max_position_embeddings,
             "max context {} must be in [0, max_position_embeddings={}] (0 = the maximum)",
             max_context, cfg_.max_position_embeddings);
  const int cap = max_context ? max_context : cfg_.max_position_embeddings;
  const CacheStorage st{kv_dtype_};
  ModelCache cache;
  for (const Block& b : blocks_) cache.add(b.mixer->make_cache(cap, st));
  return cache;
}

void Model::set_linear_chunk_size(int L) {
  LLM0_CHECK(L >= 1 && L <= 4096, "Gated DeltaNet chunk length {} must be in [1, 4096]", L);
  cfg_.linear.chunk_size = L;
  for (Block& b : blocks_) b.mixer->update_config(cfg_);
  plan_.reset();  // the saved chunk states are sized by L (contexts re-plan: InferScratch::chunk)
}

}  // namespace llm0
