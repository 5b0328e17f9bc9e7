// Model: token embedding (+ learned positions) -> N pre-norm blocks -> final norm -> lm_head
// (tied to the embedding when tie_word_embeddings). Parameters live in one ParamStore under their
// Hugging Face names (see model/param_layout.cpp). Training: forward over [B, T] tokens saving
// activations, backward accumulating gradients. Inference: forward_cached over new tokens with a
// ModelCache (prefill, chunked prefill and decode are one code path).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "cache/cache_rows.h"
#include "cache/model_cache.h"
#include "config/config.h"
#include "core/params.h"
#include "layers/block.h"

namespace llm0 {

struct TrainPlan;
struct InferScratch;

class Model {
 public:
  /// Declares and allocates all parameters (zero-filled; see init_weights / load_checkpoint).
  /// Throws llm0::Error if the config is invalid.
  explicit Model(const ModelConfig& cfg);
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
  /// Throws llm0::Error for ids outside [0, vocab_size) or T > max_position_embeddings.
  double forward(const int* tokens, const int* targets, int B, int T, long* count = nullptr);
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
  /// Activations layer il saved in the last forward (e.g. attention q, k after RoPE, for the
  /// attention-map lesson); valid until the next forward. Throws llm0::Error before any forward
  /// or for il outside [0, num_hidden_layers).
  const BlockSaved& saved(int il) const;
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

  // ---- inference ----
  /// A fresh cache for this model: capacity = max_context (0 = max_position_embeddings).
  /// Throws llm0::Error if max_context > max_position_embeddings or < 0.
  ModelCache new_cache(int max_context = 0) const;
  /// Runs tokens [Tn] at positions [cache.length(), cache.length() + Tn) and appends their
  /// state to `cache`. logits: [Tn, V], or [1, V] for the last token when last_only.
  /// Throws llm0::Error if the cache would overflow or an id is out of range.
  void forward_cached(const int* tokens, int Tn, ModelCache& cache, float* logits,
                      bool last_only = false);

  /// One sequence of a ragged batch step (forward_batch): n new tokens, appended at positions
  /// [cache.length(), cache.length() + n) to `cache` (per layer: a PagedKvCache for full
  /// and latent attention — K/V or latent rows in pages —, a RingKvCache for a sliding window, a
  /// RecurrentState for Gated DeltaNet).
  struct BatchSeq {
    const int* tokens;
    int n;
    ModelCache* cache;
  };
  /// The serving step (serve/batch_engine.h; src/model/batch_forward.cpp): ONE forward over the
  /// new tokens of all sequences concatenated, x [N = Σ n, C] — embeddings, norms, every linear
  /// map, MLP / MoE on all N rows at once (each weight read once per step), attention per
  /// sequence through its page table or window, Gated DeltaNet's convolution and delta rule
  /// (recurrent form) per sequence, MLA absorbed through the page table. logits [B, V]: each sequence's last token. Every op
  /// computes a token row in one fixed order whatever the batch (ops/linear_rows.h,
  /// attention_paged_forward), so a row's logits are bitwise independent of the other sequences
  /// and of how its tokens were chunked. Throws
  /// llm0::Error for another layer kind or cache kind, an empty or repeated sequence, a cache
  /// overflow or an id out of range (before anything is appended).
  void forward_batch(std::span<const BatchSeq> seqs, float* logits);

  /// The decode form of multi-head latent attention layers (default absorbed); every form gives
  /// the same logits, the counters show what each computed.
  void set_mla_decode(MlaDecode form) { mla_decode_ = form; }
  MlaDecode mla_decode() const { return mla_decode_; }
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
  /// Element type of the caches new_cache() makes (default float32).
  void set_kv_dtype(CacheDtype dtype) { kv_dtype_ = dtype; }
  CacheDtype kv_dtype() const { return kv_dtype_; }

  /// Work counters per layer since the last reset (DESIGN.md "Counters").
  const std::vector<WorkCounters>& layer_counters() const { return counters_; }
  WorkCounters total_counters() const;
  void reset_counters();

 private:
  void declare_params();
  std::vector<Weight*> matrix_views(bool with_linear_attention);
  void bind_layers();
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
  CacheDtype kv_dtype_ = CacheDtype::F32;
  float *dembed_w_ = nullptr, *dpos_w_ = nullptr, *dhead_w_ = nullptr;
  std::unique_ptr<RopeTable> rope_;  // RoPE configs only; grows with the positions used
  std::unique_ptr<TrainPlan> plan_;
  std::unique_ptr<InferScratch> infer_;
  std::vector<WorkCounters> counters_;
  MlaDecode mla_decode_ = MlaDecode::Absorbed;
  double aux_loss_ = 0;
  long last_targets_ = 0;  // targets of the last forward (weights the aux loss's gradient)
  std::vector<size_t> layer_begin_;  // [L + 1]: block il's parameters are [begin[il], begin[il+1])
};

}  // namespace llm0
