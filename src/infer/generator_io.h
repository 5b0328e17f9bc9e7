// Loading a checkpoint for generation and reporting a run: `--model` accepts a checkpoint
// directory (config.json + model.safetensors + tokenizer.json) or a training run directory OUT/
// whose latest checkpoint is OUT/checkpoint/. Results serialise to JSON (nlohmann/json).
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "infer/generator.h"
#include "io/checkpoint.h"  // resolve_checkpoint_dir

namespace llm0 {

/// A model with its tokenizer, as loaded from one checkpoint directory.
struct GenerationModel {
  std::string dir;                       // the resolved checkpoint directory
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
  DType stored = DType::F32;             // dtype of the checkpoint's matrices (load_model)
};

/// Resolves `dir` (resolve_checkpoint_dir), loads the model (load_model) and DIR/tokenizer.json.
/// Throws llm0::Error naming the missing file or the malformed field.
GenerationModel load_generation_model(const std::string& dir);

/// The result as one JSON object: prompt_tokens, generated_tokens (counts), prompt_ids,
/// generated_ids, text, stop_reason (stop_reason_name), stop_string (or null), context,
/// prefill/decode seconds and tokens_per_second, kv_cache_bytes, kv_projected and qk_scores
/// (totals) and layers: [{kv_projected, qk_scores}] per layer, with expert_tokens (tokens routed
/// to each expert, prefill and decode) on mixture-of-experts layers. Text that is not valid UTF-8 is
/// written with U+FFFD replacements (JSON strings are Unicode).
nlohmann::json generate_result_json(const GenerateResult& r);

}  // namespace llm0
