// The token-mixer contract (DESIGN.md "The layer interface", "How new kinds plug in"): what every
// sequence-mixing layer of a block offers — full or sliding-window attention, each with or
// without sink logits and output gate (layers/attention.h), shared-KV attention
// (layers/shared_kv_attention.h), multi-head latent attention (layers/mla.h), Gated DeltaNet
// (layers/gated_deltanet.h) and any future kind. A kind is one class deriving from
// MixerOf<Saved, Grads, Infer> (layers/mixer_of.h) with its own typed buffer structs, plus one line
// in layers/mixer_factory.cpp, the only place that maps a LayerKind to a class; Block holds one
// Mixer and one Ffn (layers/ffn.h) and never asks which kind it has.
//
// Why a virtual interface rather than std::variant + std::visit: a new kind then plugs in as one
// file and one factory line, without editing a variant list that every user recompiles against;
// the mixers' entry points are few and coarse, so the cost is two indirect calls per layer per
// step (the opaque entry point here, then the kind's typed one in MixerOf) — nothing next to the
// GEMMs behind them (llama.cpp's per-layer branch, vLLM's per-layer AttentionBackend objects make
// the same trade). Buffers are opaque LayerBuffers that MixerOf wraps and unwraps for each kind
// (hold/held, layers/layer_buffers.h); caches are LayerCaches each mixer makes and converts back
// with cache_as (cache/layer_cache.h), so neither the block nor the model lists the kinds. What
// only some kinds have is a named capability with a neutral default (context_rows,
// saved_attention, update_config), never a question about the kind.
//
// Layouts: x, y [N, C] rows in (b, t) order, N = B·T (training) or the new tokens (inference).
// Gradient rule: backward overwrites dx and accumulates parameter gradients (+=).
#pragma once
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cache/cache_rows.h"
#include "cache/layer_cache.h"
#include "config/config.h"
#include "core/arena.h"
#include "layers/layer_buffers.h"
#include "ops/linear_pack.h"
#include "ops/matmul.h"
#include "ops/weight.h"

namespace llm0 {

/// Which decode form multi-head latent attention uses (`--mla-decode absorbed|expanded`);
/// other mixers ignore it. Every form gives the same logits; the counters show what each computed.
enum class MlaDecode { Absorbed, Expanded };

/// Choices of an inference context (model/infer_context.h) that change how (not what) a mixer
/// computes: the linear maps' kernel order (ops/matmul.h LinearKernel; with fixed_order every
/// token row is computed in one order whatever the batch and the chunking, and the mixers take
/// their fixed-order forms too: Gated DeltaNet's recurrent delta rule for any token count) and
/// MLA's decode form.
struct InferOptions {
  MlaDecode mla_decode = MlaDecode::Absorbed;
  LinearKernel linear;
};

/// Which pass a FLOP count is for (Mixer::flops_per_token, ledger/flops.h): a training step
/// (forward + backward) or a forward over T tokens, or the decode of one token over S cached
/// positions.
enum class FlopPass { Train, Forward, Decode };

/// PaLM's attention term per token of one layer (Chowdhery et al., arXiv:2204.02311, Appendix B):
/// q·k and p·v for H heads of mean head dim d (the mean of the q·k and the p·v widths) at
/// `context` positions: a training step 6·H·d·T (12·H·d·T halved by the causal mask), a forward
/// 2·H·d·T (a third of it), one decoded token 4·H·d·S (every cached position, no mask to halve).
inline double attention_flops(FlopPass pass, int context, double H, double d) {
  const double k = pass == FlopPass::Train ? 6.0 : pass == FlopPass::Forward ? 2.0 : 4.0;
  return k * H * d * context;
}

/// One sequence's rows in a cached forward over N >= 1 sequences: rows [row0, row0 + n) of
/// x [N, C] are its new tokens at positions [pos, pos + n); their state goes to `cache`, this
/// layer's cache of that sequence: a PagedKvCache for a layer whose CacheSpec is pageable (the
/// server's pages, or the one page make_cache made), else the cache the mixer makes (a
/// RingKvCache, a RecurrentState).
struct BatchSegment {
  int row0 = 0, n = 0, pos = 0;
  LayerCache* cache = nullptr;
};

/// Query and key rows a mixer saved in a training forward, as attention weights read them
/// (the attention-map lesson): q [N, H, D], k [N, Hkv, D]; null for mixers without attention
/// weights (linear attention).
struct SavedAttention {
  const float *q = nullptr, *k = nullptr;
  int Hkv = 0, D = 0;
};

class Mixer {
 public:
  virtual ~Mixer() = default;

  /// The kind as the lessons name it: "attention", "sliding_attention", "shared_kv_attention",
  /// "latent_attention", "linear_attention".
  virtual const char* kind_name() const = 0;

  // ---- parameter table (checkpoint names <-> tensors) ----
  /// Declares this mixer's parameters (Hugging Face names and PyTorch shapes) under
  /// `layer_prefix` ("model.layers.{i}."), in the order the store keeps them.
  virtual void declare(ParamStore& p, const std::string& layer_prefix) const = 0;
  /// Binds value and gradient views to the store's tensors of the same names.
  virtual void bind(const ParamBind& b, const std::string& layer_prefix) = 0;
  /// The matrices of its linear maps: those rounded to BF16 for inference (`inference_bf16`:
  /// Model::use_bf16_weights) or else those taking BF16 products in mixed-precision training.
  virtual std::vector<Weight*> matrices(bool inference_bf16) = 0;
  /// Every linear map its forward_cached computes, as it passes them to linear_forward (matrix
  /// as bound now, I, O): the model packs their panels once for its fixed-order contexts
  /// (Model::panels); a map missing here makes that forward throw.
  virtual std::vector<LinearMap> linear_maps() const = 0;
  /// Its parameter counts from the config (the ledger; tests compare them with the table).
  virtual ParamCounts param_counts() const = 0;

  // ---- buffer plan (Arena: measured, then carved; see core/arena.h) ----
  /// Saved activations of a training forward over B sequences of T tokens (one per layer).
  virtual std::unique_ptr<LayerBuffers> plan_saved(Arena& a, int B, int T) const = 0;
  /// Backward scratch for N rows (layers take turns: the model overlays every layer's).
  virtual std::unique_ptr<LayerBuffers> plan_grads(Arena& a, int N) const = 0;
  /// Inference scratch for up to `rows` new tokens (and `context` cached positions, for forms
  /// that expand the cache: see context_rows).
  virtual std::unique_ptr<LayerBuffers> plan_infer(Arena& a, int rows, int context) const = 0;
  /// The cached positions plan_infer's `context` must hold rows for when the longest sequence of
  /// a cached forward reaches `positions` positions under `opt`: MLA's expanded decode re-creates
  /// every cached position's k and v (`positions`); every other form reads the cache as stored (0).
  virtual int context_rows(const InferOptions& /*opt*/, int /*positions*/) const { return 0; }

  // ---- cache ----
  /// What this layer caches per sequence.
  virtual CacheSpec cache_spec() const = 0;
  /// A cache for one sequence of up to `capacity` positions (the class named by
  /// cache_spec().cache; a pageable layer's is a PagedKvCache of one page of `capacity` rows).
  /// Throws llm0::Error on non-positive sizes.
  virtual std::unique_ptr<LayerCache> make_cache(int capacity, const CacheStorage& st) const = 0;

  // ---- compute ----
  /// Training forward: y [N, C] from x [N, C] for B sequences of T tokens at positions[N];
  /// fills `saved` (plan_saved); `grads` (plan_grads) may serve as transient room.
  virtual void forward(const float* x, int B, int T, const int* positions, const LayerBuffers& saved,
                       const LayerBuffers& grads, float* y) const = 0;
  /// Training backward of the forward that filled `saved`: dx [N, C] overwritten, parameter
  /// gradients accumulate.
  virtual void backward(float* dx, const float* dy, const float* x, int B, int T,
                        const int* positions, const LayerBuffers& saved,
                        const LayerBuffers& grads) const = 0;
  /// Inference, the one cached forward (prefill, chunks and decode of one sequence or of many):
  /// x [N, C] the new tokens of the sequences in `segs` (row order; positions[N] absolute), each
  /// appended to its segment's cache; y [N, C]. With opt.linear.fixed_order every token row is
  /// computed in one fixed order whatever the batch and the chunking (serve/batch_engine.h).
  /// Throws llm0::Error if a cache is full, out of order or of another class.
  virtual void forward_cached(const float* x, int N, const int* positions,
                              std::span<const BatchSegment> segs, const LayerBuffers& scratch,
                              const InferOptions& opt, float* y, WorkCounters& counters) const = 0;

  // ---- the FLOP ledger ----
  /// FLOPs per token of its own work besides the products with its parameter matrices (those
  /// the ledger counts as 2 per matmul parameter from param_counts): attention's q·k and p·v
  /// over `context` positions (attention_flops: T for FlopPass::Train and Forward, S cached
  /// positions for Decode), Gated DeltaNet's delta rule. The ledger (ledger/flops.h) sums it
  /// over the layers, so its figures are what the mixers report.
  virtual double flops_per_token(FlopPass pass, int context) const = 0;

  // ---- optional ----
  /// The q and k rows of the last training forward (see SavedAttention).
  virtual SavedAttention saved_attention(const LayerBuffers& /*saved*/) const { return {}; }
  /// Re-reads the settings a model may change after construction (Gated DeltaNet's chunk length).
  virtual void update_config(const ModelConfig& /*cfg*/) {}
};

}  // namespace llm0
