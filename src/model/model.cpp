// Model forward/backward (training) and forward_cached (inference). See model.h.
#include "model/model.h"

#include <algorithm>
#include <cstring>

#include "cache/kv_cache.h"
#include "cache/latent_cache.h"
#include "cache/recurrent_state.h"
#include "cache/ring_kv_cache.h"
#include "model/plan.h"
#include "ops/embedding.h"
#include "ops/loss.h"
#include "ops/matmul.h"
#include "ops/residual.h"

namespace llm0 {

Model::Model(const ModelConfig& cfg) : cfg_(cfg) {
  cfg_.validate();
  if (cfg_.position == PositionKind::Rope)
    rope_ = std::make_unique<RopeTable>(cfg_.rotary_dim(), cfg_.rope_theta);
  declare_params();
  bind_layers();
  counters_.assign((size_t)cfg_.num_hidden_layers, WorkCounters{});
  infer_ = std::make_unique<InferScratch>();
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

void Model::ensure_plan(int B, int T) {
  LLM0_CHECK(B > 0 && T > 0, "batch [B={}, T={}] must be non-empty", B, T);
  LLM0_CHECK(T <= cfg_.max_position_embeddings,
             "sequence length T={} exceeds max_position_embeddings={}", T,
             cfg_.max_position_embeddings);
  if (!plan_ || plan_->B != B || plan_->T != T) plan_ = std::make_unique<TrainPlan>(cfg_, B, T);
  if (rope_) rope_->ensure(T);
}

double Model::forward(const int* tokens, const int* targets, int B, int T, long* count) {
  ensure_plan(B, T);
  TrainPlan& p = *plan_;
  const int N = B * T, C = cfg_.hidden_size, V = cfg_.vocab_size, L = cfg_.num_hidden_layers;
  std::memcpy(p.tokens.data(), tokens, sizeof(int) * (size_t)N);
  std::memcpy(p.targets.data(), targets, sizeof(int) * (size_t)N);
  embed(p.tokens.data(), p.positions.data(), N, p.blocks[0].x_in);
  for (int il = 0; il < L; ++il) {
    float* out = il + 1 < L ? p.blocks[(size_t)il + 1].x_in : p.x_final;
    blocks_[(size_t)il].forward(B, T, p.positions.data(), p.blocks[(size_t)il], p.scratch, out);
  }
  final_norm_.forward(p.lnf, p.lnf_mean, p.lnf_rstd, p.x_final, N);
  linear_forward(p.logits, p.lnf, head_w_, nullptr, N, C, V);  // [N, V]
  aux_loss_ = 0;
  if (cfg_.moe.balance == MoeBalance::AuxLoss)
    for (int il = 0; il < L; ++il)
      if (blocks_[(size_t)il].ffn == FfnKind::Moe)
        aux_loss_ += cfg_.moe.router_aux_loss_coef *
                     blocks_[(size_t)il].moe.balance(p.blocks[(size_t)il].moe, N);
  const double loss = cross_entropy_forward(nullptr, p.logits, p.targets.data(), N, V, &last_targets_);
  if (count) *count = last_targets_;
  return loss;
}

std::vector<Model::ExpertLoad> Model::expert_load() const {
  std::vector<ExpertLoad> out;
  for (size_t il = 0; plan_ && il < blocks_.size(); ++il)
    if (blocks_[il].ffn == FfnKind::Moe) {
      const float* load = plan_->blocks[il].moe.load;
      out.push_back({(int)il, std::vector<float>(load, load + cfg_.moe.num_experts)});
    }
  return out;
}

void Model::update_router_bias(double gamma, const std::vector<ExpertLoad>& loads) {
  const int E = cfg_.moe.num_experts;
  for (size_t il = 0; il < blocks_.size(); ++il) {
    float* bias = blocks_[il].moe.bias;
    if (blocks_[il].ffn != FfnKind::Moe || !bias) continue;
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

const BlockSaved& Model::saved(int il) const {
  LLM0_CHECK(plan_ != nullptr, "saved() before forward()");
  LLM0_CHECK(il >= 0 && il < cfg_.num_hidden_layers, "layer {} outside [0, {})", il,
             cfg_.num_hidden_layers);
  return plan_->blocks[(size_t)il];
}

void Model::backward(float loss_scale, const GradsReady& ready) {
  LLM0_CHECK(plan_ != nullptr, "backward() before forward()");
  TrainPlan& p = *plan_;
  const int B = p.B, T = p.T, N = B * T, C = cfg_.hidden_size, V = cfg_.vocab_size;
  // dlogits overwrite the logits in place: [N, V].
  cross_entropy_backward(p.logits, p.logits, p.targets.data(), N, V, loss_scale);
  linear_backward(p.scratch.dln, dhead_w_, nullptr, p.logits, p.lnf, head_w_, N, C, V);
  p.scratch.moe.aux_scale = cfg_.moe.balance == MoeBalance::AuxLoss
      ? (float)(loss_scale * (double)last_targets_ * cfg_.moe.router_aux_loss_coef) : 0.0f;
  final_norm_.backward(p.dstream, p.scratch.dln, p.x_final, p.lnf_mean, p.lnf_rstd, N);
  for (int il = cfg_.num_hidden_layers - 1; il >= 0; --il) {
    blocks_[(size_t)il].backward(p.dstream, B, T, p.positions.data(), p.blocks[(size_t)il],
                                 p.scratch);
    if (ready) ready(layer_begin_[(size_t)il], layer_begin_[(size_t)il + 1] - layer_begin_[(size_t)il]);
  }
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
  const int Hkv = cfg_.num_key_value_heads, D = cfg_.head_dim;
  CacheStorage st{kv_dtype_, nullptr, nullptr};
  if (kv_dtype_ == CacheDtype::BF16)  // one widening buffer for K and one for V, all layers
    st.k_read = std::make_shared<std::vector<float>>(), st.v_read = std::make_shared<std::vector<float>>();
  ModelCache cache;
  for (int il = 0; il < cfg_.num_hidden_layers; ++il) {
    const LayerConfig l = cfg_.layer(il);
    if (l.kind == LayerKind::LatentAttention)
      cache.add(std::make_unique<LatentCache>(cap, cfg_.mla.kv_lora_rank, cfg_.mla.qk_rope_head_dim, st));
    else if (l.kind == LayerKind::LinearAttention)
      cache.add(std::make_unique<RecurrentState>(cap, cfg_.linear, kv_dtype_));
    else if (l.kind == LayerKind::SlidingAttention)
      cache.add(std::make_unique<RingKvCache>(l.sliding_window, cap, Hkv, D, D, st));
    else
      cache.add(std::make_unique<KvCache>(cap, Hkv, D, D, st));
  }
  return cache;
}

void Model::forward_cached(const int* tokens, int Tn, ModelCache& cache, float* logits,
                           bool last_only) {
  LLM0_CHECK(Tn > 0, "forward_cached needs at least one token");
  LLM0_CHECK(cache.num_layers() == cfg_.num_hidden_layers, "cache has {} layers, model {}",
             cache.num_layers(), cfg_.num_hidden_layers);
  const int pos = cache.length(), C = cfg_.hidden_size, V = cfg_.vocab_size;
  LLM0_CHECK((long)pos + Tn <= cache.capacity(),
             "context full: {} cached + {} new tokens exceed the cache capacity of {} tokens{}", pos,
             Tn, cache.capacity(), cfg_.sliding_window > 0 ? " (the position limit: sliding-window "
             "layers hold only their last tokens, but positions beyond max_position_embeddings "
             "were never trained)" : "");
  InferScratch& s = *infer_;
  const bool expanded = cfg_.mla.enabled() && mla_decode_ == MlaDecode::Expanded;
  s.ensure(cfg_, Tn, expanded ? pos + Tn : 0, cache.capacity());
  if (rope_) rope_->ensure(pos + Tn);
  for (int t = 0; t < Tn; ++t) s.positions[(size_t)t] = pos + t;
  embed(tokens, s.positions.data(), Tn, s.x);
  for (int il = 0; il < cfg_.num_hidden_layers; ++il)
    blocks_[(size_t)il].forward_cached(s.x, Tn, pos, s.positions.data(),
                                       cache.layer(il), s.block, mla_decode_,
                                       counters_[(size_t)il]);
  const int first = last_only ? Tn - 1 : 0, rows = Tn - first;
  final_norm_.forward(s.lnf, nullptr, nullptr, s.x + (long)first * C, rows);
  linear_forward(logits, s.lnf, head_w_, nullptr, rows, C, V);
}

void Model::set_linear_chunk_size(int L) {
  LLM0_CHECK(L >= 1 && L <= 4096, "Gated DeltaNet chunk length {} must be in [1, 4096]", L);
  cfg_.linear.chunk_size = L;
  for (Block& b : blocks_) b.gdn.cfg.chunk_size = L;
  plan_.reset();  // the saved chunk states and the scratch are sized by L
  infer_ = std::make_unique<InferScratch>();
}

WorkCounters Model::total_counters() const {
  WorkCounters t;
  for (const WorkCounters& c : counters_) {
    t.kv_projected += c.kv_projected, t.qk_scores += c.qk_scores;
    t.kv_bytes_read += c.kv_bytes_read, t.attn_macs += c.attn_macs;
  }
  return t;
}

void Model::reset_counters() { counters_.assign((size_t)cfg_.num_hidden_layers, WorkCounters{}); }

}  // namespace llm0
