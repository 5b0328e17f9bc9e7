// Parameter ledger. See param_count.h. Each layer's mixer and feed-forward count their own
// parameters from the config (Mixer/Ffn::param_counts, layers/mixer_factory.h), mirroring the
// tables they declare; the test checks the sum against Model::num_parameters for every model kind.
#include "ledger/param_count.h"

#include "config/config_fields.h"
#include "core/json_file.h"
#include "layers/mixer_factory.h"

namespace llm0 {

ParamCount count_parameters(const ModelConfig& c) {
  const double C = c.hidden_size, V = c.vocab_size;
  const double norm = c.norm == NormKind::LayerNorm ? 2 * C : C;  // weight (+ bias)
  ParamCount n;
  n.embedding = V * C + (c.position == PositionKind::Learned ? (double)c.max_position_embeddings * C : 0);
  const double head = c.tie_word_embeddings ? 0 : V * C;
  n.total = n.active = n.embedding + head + norm;  // + final norm
  n.matmul_active = V * C;                         // lm_head (the embedding when tied)
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    const ParamCounts a = make_mixer(c, il)->param_counts(), f = make_ffn(c, il)->param_counts();
    n.total += 2 * norm + a.total + f.total;
    n.active += 2 * norm + a.active + f.active;
    n.matmul_active += a.matmul_active + f.matmul_active;
    n.experts += f.experts;
  }
  return n;
}

double decode_weight_bytes(const ModelConfig& c, double num_parameters, double bf16_numel) {
  const double embed = c.tie_word_embeddings ? 0.0 : (double)c.vocab_size * c.hidden_size;
  const ParamCount n = count_parameters(c);
  const double skipped = n.total - n.active;  // routed experts not chosen
  const double skipped_bf16 = bf16_numel > 0 ? skipped : 0.0;
  return 4.0 * (num_parameters - embed - bf16_numel - (skipped - skipped_bf16)) +
         2.0 * (bf16_numel - skipped_bf16);
}

ModelConfig read_config_for_count(const std::string& path) {
  nlohmann::json j = text_config_of(read_json_file(path, "config file"));
  j.erase("rope_scaling");
  return ModelConfig::from_json(j, path);
}

}  // namespace llm0
