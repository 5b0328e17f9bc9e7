// InferContext: the state of one inference request or batch (issue 25 part 4; gemma.cpp's
// per-request `Activations`, vLLM's per-engine worker state): the inference scratch, the work
// counters per layer, and the choices that change how (not what) the cached forward computes —
// the linear maps' kernel order, MLA's decode form. The Model stays read-only at inference
// (Model::forward_cached is const), so one model serves any number of contexts, on any threads:
// the server's engine owns one, `llm0 generate`, the lessons and the explorer make one per
// sequence. The fixed-order kernels' packed panels belong to the model (Model::panels: one copy
// of the weights however many contexts); a context holds a const pointer to them, and a forward
// through a context whose panels predate a change of the weights throws.
// It lives in src/model/ rather than src/infer/ because Model::forward_cached takes it and the
// folder order (tests/layout/check_folder_order.py) puts infer/ above model/: the model may not
// include upward.
// The RoPE tables are not here: the model computes its table once, at construction, for every
// position up to max_position_embeddings (model/model.h), and never changes it afterwards.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "layers/layer_buffers.h"
#include "layers/mixer.h"
#include "ops/linear_pack.h"

namespace llm0 {

class Model;
struct InferScratch;

class InferContext {
 public:
  /// A context for `model`, which must outlive it. Defaults: every linear map in the fixed
  /// row-independent order of ops/linear_rows.h reading the model's packed panels (the serving
  /// engine's kernels: a token row's logits are bitwise the same in any batch and any chunking;
  /// the model packs them now if no context did since its weights last changed), MLA absorbed.
  explicit InferContext(const Model& model);
  ~InferContext();
  InferContext(const InferContext&) = delete;
  InferContext& operator=(const InferContext&) = delete;

  /// The options the mixers receive (opt.linear.panels points at the model's store when
  /// fixed_order is on).
  const InferOptions& options() const { return options_; }
  /// MLA's decode form (`--mla-decode absorbed|expanded`); every form gives the same logits up to
  /// rounding, the counters show what each computed.
  void set_mla_decode(MlaDecode form) { options_.mla_decode = form; }
  MlaDecode mla_decode() const { return options_.mla_decode; }
  /// true (default): linear maps in the fixed row-independent order from the model's packed
  /// panels (Model::panels; they double the weight memory, once per model). A change of the
  /// weights after they were taken (a training step, a load, Model::use_bf16_weights) makes
  /// Model::forward_cached through this context throw: make a new context, or turn this off and
  /// on again. false: BLAS sgemm / matvec (order depends on the token count; Gated DeltaNet then
  /// prefills in its chunked form), no panels held.
  void set_fixed_order(bool on);
  bool fixed_order() const { return options_.linear.fixed_order; }
  /// The panels this context reads (null when fixed_order is off), shared with the model's other
  /// contexts.
  const PackedWeights* panels() const { return panels_.get(); }
  /// Bytes of those panels (0 when fixed_order is off).
  size_t panel_bytes() const { return panels_ ? panels_->bytes() : 0; }
  /// Model::weights_version() when the panels were taken (Model::forward_cached compares it).
  uint64_t panels_version() const { return panels_version_; }

  /// Work counters per layer since construction or the last reset (DESIGN.md "Counters").
  const std::vector<WorkCounters>& layer_counters() const { return counters_; }
  WorkCounters total_counters() const;
  void reset_counters();

  // ---- for Model::forward_cached ----
  InferScratch& scratch() { return *scratch_; }
  WorkCounters& counters(int il) { return counters_[(size_t)il]; }

 private:
  const Model& model_;
  InferOptions options_;
  std::shared_ptr<const PackedWeights> panels_;
  uint64_t panels_version_ = 0;
  std::unique_ptr<InferScratch> scratch_;
  std::vector<WorkCounters> counters_;
};

}  // namespace llm0
