// Model: token embedding (+ learned positions) -> N pre-norm blocks -> final norm -> lm_head
// (tied to the embedding when tie_word_embeddings). Parameters live in one ParamStore under their
// Hugging Face names (see model/param_table.cpp). Training: forward over [B, T] tokens saving
// activations, backward accumulating gradients. Inference: one forward_cached over the new tokens
// of N >= 1 sequences, each with its ModelCache (prefill, chunked prefill, decode and the server's
// ragged step are one code path); const, its per-request state in an InferContext.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "cache/cache_rows.h"
#include "cache/model_cache.h"
#include "config/config.h"
#include "core/params.h"
#include "layers/block.h"
#include "ops/rope.h"

namespace llm0 {

struct TrainPlan;
class InferContext;
class PackedWeights;

class Model {
 public:
  /// Declares and allocates all parameters (zero-filled; see init_weights / load_checkpoint).
  /// Throws llm0::Error if the config is invalid.
  explicit Model(const ModelConfig& cfg);
  /// A training lane of `owner` (train/thread_lanes.h): owner's config and weights — its value
  /// buffer and RoPE table, read in place, not copied — with gradients and training activations
  /// of its own, and owner's BF16-products setting (set_bf16_products). For forward() and
  /// backward(); it must not outlive owner. Throws llm0::Error if owner holds BF16 inference
  /// weights (use_bf16_weights).
  struct LaneOf {
    Model& owner;
  };
  explicit Model(LaneOf lane);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const { return cfg_; }
  ParamStore& params() { return params_; }
  const ParamStore& params() const { return params_; }
  /// Σ numel over parameters (a tied embedding counts once).
  size_t num_parameters() const;

  // ---- training ----
  /// tokens, targets [B, T] (targets < 0 are ignored). Saves activations for backward.
  /// Returns Σ cross-entropy (nats) over the used targets; *count gets their number.
  /// `dropout` (training only; default off): residual dropout (Vaswani et al. 2017, §5.4) on the
  /// embeddings (draw dropout.sub(L)) and on each block's mixer and feed-forward outputs
  /// (dropout.sub(layer), layers/block.h); backward uses the same draw.
  /// Throws llm0::Error for ids outside [0, vocab_size), T > max_position_embeddings or a dropout
  /// probability outside [0, 1).
  double forward(const int* tokens, const int* targets, int B, int T, long* count = nullptr,
                 const Dropout& dropout = {});
  /// Called by backward() when the gradients in params().grad()[offset, offset + count) are
  /// final: a block's range right after that block's backward (last layer first), then the rest
  /// (embeddings, final norm, lm_head) at the end. Data parallelism starts their all-reduce there.
  using GradsReady = std::function<void(size_t offset, size_t count)>;
  /// Backward of the last forward for L = loss_scale · Σ loss (e.g. 1 / total target tokens):
  /// parameter gradients accumulate (+=) into params().grad(); `ready` (optional) hears of each
  /// range whose gradients are final. Every float of the store is announced exactly once.
  void backward(float loss_scale, const GradsReady& ready = nullptr);
  /// Logits [B·T, V] of the last forward (valid until backward()).
  const float* logits() const;
  /// The q and k rows layer il's mixer saved in the last forward (after RoPE; null for mixers
  /// without attention weights), for the attention-map lesson; valid until the next forward.
  /// Throws llm0::Error before any forward or for il outside [0, num_hidden_layers).
  SavedAttention saved_attention(int il) const;
  /// Layer il's token mixer (its CacheSpec, kind name, caches). Throws llm0::Error for il
  /// outside [0, num_hidden_layers).
  const Mixer& mixer(int il) const;
  /// The load-balancing loss of the last forward (not in forward()'s return value):
  /// router_aux_loss_coef · Σ_{MoE layers} E · Σ_e f_e · P_e (Switch Transformer, arXiv:2101.03961
  /// eq. 4) when moe.balance is AuxLoss, else 0. backward() adds its gradient, weighted by
  /// loss_scale × the targets of that forward (so with loss_scale = 1/targets the objective is
  /// mean cross-entropy + aux_loss()).
  double aux_loss() const { return aux_loss_; }
  /// Expert load of the last forward (training): per MoE layer, its index and the tokens routed
  /// to each expert [E]; empty for dense models.
  struct ExpertLoad {
    int layer;
    std::vector<float> tokens;
  };
  std::vector<ExpertLoad> expert_load() const;
  /// DeepSeek-V3's auxiliary-loss-free balancing (arXiv:2412.19437 §2.1.2), after an optimizer
  /// step: bias_e += γ · sign(mean load − load_e) on every MoE layer's e_score_correction_bias,
  /// from `load` (expert_load()'s layout): the whole step's, summed over its micro-batches, as
  /// DeepSeek-V3 counts "on the whole batch of each training step". No-op without a correction
  /// bias. Throws llm0::Error if `load` lacks a layer with a bias or has the wrong expert count.
  void update_router_bias(double gamma, const std::vector<ExpertLoad>& load);

  // ---- inference (const: per-request state lives in an InferContext) ----
  /// A fresh cache for this model: capacity = max_context (0 = max_position_embeddings); per
  /// layer the class its mixer makes (a PagedKvCache of one page for K/V or K-only rows, a
  /// RingKvCache, a RecurrentState). Throws llm0::Error if max_context > max_position_embeddings
  /// or < 0.
  ModelCache new_cache(int max_context = 0) const;

  /// One sequence's new tokens in a cached forward: n tokens, appended at positions
  /// [cache.length(), cache.length() + n) to `cache` (per layer: a PagedKvCache for full
  /// and latent attention — K/V or K-only rows in pages: the server's pool or one page of its
  /// own —, a RingKvCache for a sliding window, a RecurrentState for Gated DeltaNet).
  struct BatchSeq {
    const int* tokens;
    int n;
    ModelCache* cache;
  };
  /// The one cached forward (src/model/decode.cpp): prefill, chunks and decode of N >= 1
  /// sequences (a single sequence is a batch of one) — `llm0 generate`, the lessons, `forward
  /// --chunks`, the explorer and the server's step alike. ONE forward over the new tokens of all
  /// sequences concatenated, x [N = Σ n, C]: embeddings, norms, every linear map, MLP / MoE on
  /// all N rows at once (each weight read once per call), each mixer per sequence through its
  /// cache (Mixer::forward_cached). logits: [N, V], every new row in order, with every_row; else
  /// [B, V], each sequence's last row. With ctx's fixed order (the default) every op computes a
  /// token row in one fixed order whatever the batch (ops/linear_rows.h,
  /// attention_paged_forward), so a row's logits are bitwise independent of the other sequences
  /// and of how its tokens were chunked. Work is counted in ctx. Throws llm0::Error for a cache of
  /// another layer count or kind, an empty or repeated sequence, a full cache, an id out of
  /// range, or a fixed-order ctx whose panels predate a change of the weights (before anything
  /// is appended).
  void forward_cached(std::span<const BatchSeq> seqs, InferContext& ctx, float* logits,
                      bool every_row = false) const;
  /// A batch of one: tokens [Tn] at positions [cache.length(), cache.length() + Tn) appended to
  /// `cache`; logits [Tn, V], or [1, V] for the last token when last_only.
  void forward_cached(const int* tokens, int Tn, ModelCache& cache, InferContext& ctx,
                      float* logits, bool last_only = false) const {
    const BatchSeq seq{tokens, Tn, &cache};
    forward_cached(std::span<const BatchSeq>(&seq, 1), ctx, logits, !last_only);
  }

  /// The packed panels (ops/linear_pack.h) of every linear map forward_cached computes — each
  /// mixer's and FFN's Mixer::linear_maps / Ffn::linear_maps, then lm_head — that every
  /// fixed-order InferContext of this model reads through a const pointer (one copy of the
  /// weights however many contexts: the server's engine, the lessons, the explorer). Packed on
  /// the first request after construction or after a change of the weights (weights_version()
  /// moved: a load, a training step, use_bf16_weights), under a lock: contexts made on two
  /// threads at once get the same store; a forward never packs. Training never asks, so it
  /// never pays for them. Why the model and not each context: the panels are a copy of the
  /// weights, as read-only as they are; why on request and not at load: a loaded model may be
  /// trained (no panels) or switched to BF16 next (other panels).
  std::shared_ptr<const PackedWeights> panels() const;
  /// Bytes of the panels the model holds now, without packing: 0 before the first fixed-order
  /// context and after use_bf16_weights freed the float32 ones.
  size_t panel_bytes() const;
  /// ParamStore::version() of the weights: panels packed at another version are stale.
  uint64_t weights_version() const { return params_.version(); }

  /// The chunk length L of Gated DeltaNet's chunked form (training and prefill; default 64):
  /// every L gives the same outputs up to rounding. Throws llm0::Error unless 1 <= L <= 4096.
  void set_linear_chunk_size(int L);

  // ---- inference number formats (model/infer_weights.cpp) ----
  /// Rounds the linear layers' matrices (q/k/v/o_proj, MLA's q/q_a/q_b/kv_a_proj_with_mqa/o_proj,
  /// gate/up/down_proj of the MLPs and of every routed and shared expert) and lm_head to BF16 (nearest even; exact for a BF16 checkpoint) and reads
  /// them from there on with the BF16 kernels (ops/bf16_kernels.h); their float32 copies and the
  /// gradient buffer are given back to the OS. Stay float32: embeddings (a tied lm_head gets a
  /// BF16 copy for the product, the lookup reads float32 rows), norms, biases, sinks, MLA's
  /// kv_b_proj (absorbed decode slices it per head), the MoE router (mlp.gate.weight, its
  /// e_score_correction_bias) and the shared expert's gate row, Gated DeltaNet's projections.
  /// Inference only: backward() then throws.
  void use_bf16_weights();
  bool bf16_weights() const { return bf16_numel_ > 0; }
  /// Numbers held in BF16 (0 for float32 weights).
  size_t bf16_numel() const { return bf16_numel_; }
  /// Mixed-precision training (train/precision.h): while on, the products of every linear layer
  /// listed at use_bf16_weights, Gated DeltaNet's in_proj_qkvz/in_proj_ba/out_proj and lm_head
  /// take BF16 operands and accumulate in float32 (ops/bf16_gemm.h), forward and backward; the
  /// weights, their gradients and AdamW stay float32. Stay float32 products: attention's
  /// scores and weighted sums (softmax inputs), MLA's kv_b_proj, the MoE router and the shared
  /// expert's gate row (routing decisions), norms, RoPE, the loss. Throws llm0::Error on a
  /// model holding BF16 inference weights.
  void set_bf16_products(bool on);
  bool bf16_products() const { return bf16_products_; }
  /// Element type of the caches new_cache() makes (default float32). Throws llm0::Error for a
  /// type no cache stores (check_cache_stores: f32 or bf16).
  void set_kv_dtype(ElementType dtype) { check_cache_stores(dtype), kv_dtype_ = dtype; }
  ElementType kv_dtype() const { return kv_dtype_; }

 private:
  void declare_params();
  std::vector<Weight*> matrix_views(bool with_linear_attention);
  void bind_layers();
  void index_layers();
  void embed(const int* tokens, const int* positions, int N, float* x) const;
  void ensure_plan(int B, int T);

  ModelConfig cfg_;
  ParamStore params_;
  std::vector<Block> blocks_;
  NormLayer final_norm_;
  const float *embed_w_ = nullptr, *pos_w_ = nullptr;
  Weight head_w_;  // lm_head (the embedding when tied), float32 or BF16
  std::shared_ptr<uint16_t> bf16_store_;  // the BF16 matrices (use_bf16_weights), 64-byte aligned each
  size_t bf16_numel_ = 0;
  bool bf16_products_ = false;
  ElementType kv_dtype_ = ElementType::F32;
  float *dembed_w_ = nullptr, *dpos_w_ = nullptr, *dhead_w_ = nullptr;
  // RoPE configs only: cos/sin of every position < max_position_embeddings, computed once at
  // construction (read-only after: contexts share it). Memory: max_position_embeddings ×
  // rotary_dim × 4 bytes — 64 MiB for Llama 3's 131072 × 128, 4 MiB for 32768 × 32.
  std::unique_ptr<RopeTable> rope_;
  const RopeTable* rope_view_ = nullptr;  // rope_, or a lane's owner's
  std::unique_ptr<TrainPlan> plan_;
  // Model::panels(): packed at weights version panels_version_ (model/panels.cpp).
  mutable std::mutex panels_mutex_;
  mutable std::shared_ptr<const PackedWeights> panels_;
  mutable uint64_t panels_version_ = 0;
  double aux_loss_ = 0;
  long last_targets_ = 0;  // targets of the last forward (weights the aux loss's gradient)
  std::vector<size_t> layer_begin_;  // [L + 1]: block il's parameters are [begin[il], begin[il+1])
};

}  // namespace llm0
