// Checkpoint directory (DESIGN.md "Conventions"): config.json + model.safetensors (Hugging Face
// names and shapes, F32) [+ tokenizer.json, generation_config.json, trainer_state.json,
// optimizer.safetensors]. A directory is written under DIR.tmp and swapped in by rename, so a
// reader sees the previous checkpoint or the complete new one, never a half-written one.
#pragma once
#include <memory>
#include <string>

#include "io/safetensors.h"
#include "model/model.h"

namespace llm0 {

/// Builds a checkpoint directory next to its final place; commit() publishes it atomically.
class CheckpointWriter {
 public:
  /// Creates `dir` + ".tmp" (removing a stale one). Throws llm0::Error naming the directory if
  /// the parent is missing or not writable.
  explicit CheckpointWriter(std::string dir);
  /// Removes the temporary directory unless commit() succeeded.
  ~CheckpointWriter();
  /// Path of `file` inside the temporary directory (write your files there before commit()).
  std::string path(const std::string& file) const;
  /// Renames DIR.tmp to DIR (the old DIR, if any, is moved aside to DIR.old first and then
  /// deleted). The complete checkpoint a reader would load stays until the new one is in place:
  /// where a crash between the two renames of an earlier commit left DIR.old as the only one (DIR
  /// absent or without config.json), DIR.old is kept and deleted last. Throws llm0::Error naming
  /// the directory if a rename fails.
  void commit();

 private:
  std::string dir_, tmp_;
  bool committed_ = false;
};

/// Writes config.json and model.safetensors of `model` into directory `dir` (existing): every
/// tensor in `dtype` (F32 by default; BF16/F16 rounded to nearest even). Throws llm0::Error if the
/// model holds BF16 inference weights (its float32 copies are gone).
void write_model_files(const Model& model, const std::string& dir, DType dtype = DType::F32);

/// Writes a complete model checkpoint (config.json + model.safetensors, plus a copy of
/// `tokenizer_json` when non-empty) atomically at `dir`.
void save_checkpoint(const Model& model, const std::string& dir,
                     const std::string& tokenizer_json = "", DType dtype = DType::F32);

/// Loads config.json and the weights (model.safetensors, or the shards listed in
/// model.safetensors.index.json) from `dir`; F32, F16 and BF16 tensors load as float32.
/// Throws llm0::Error naming the file and tensor: missing directory/file, missing tensor,
/// shape mismatch with the config, unexpected tensor. Tolerated: rotary_emb.inv_freq buffers and
/// lm_head.weight of a tied model (ignored, as transformers does). `stored` (optional) receives
/// the dtype the checkpoint keeps its matrices in (infer/infer_dtypes.h: `--weights-dtype auto`).
std::unique_ptr<Model> load_model(const std::string& dir, DType* stored = nullptr);

/// Resolves a model argument to a checkpoint directory: DIR itself when it holds config.json,
/// else DIR/checkpoint (a training run's latest checkpoint); falls back to DIR.old or
/// DIR/checkpoint.old when a crash interrupted the final rename of a checkpoint swap.
/// Throws llm0::Error naming both expected paths when neither exists.
std::string resolve_checkpoint_dir(const std::string& dir);

/// Copies the weights of a loaded safetensors map into `model` (used by load_model). Returns the
/// dtype of the checkpoint's 2-D tensors (matrices) when they all share one, else F32.
DType load_weights(Model& model, const std::string& dir);

}  // namespace llm0
