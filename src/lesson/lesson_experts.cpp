// The experts lesson. See lesson_experts.h.
#include "lesson/lesson_experts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include "core/check.h"
#include "lesson/lesson_printf.h"
#include "core/json_file.h"
#include "layers/mixer_factory.h"
#include "ledger/kv_format.h"
#include "ledger/param_count.h"
#include "model/init.h"
#include "model/model.h"

namespace llm0::lesson {

namespace {

std::vector<int> random_tokens(int n, int V, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> t((size_t)n);
  for (int& x : t) x = (int)(rng() % (uint64_t)V);
  return t;
}

// The router's gradient from cross-entropy alone with top_k experts (renormalised or not).
RouterGradient router_gradient(ModelConfig c, int top_k, bool renormalise, uint64_t seed,
                               const std::vector<int>& seq) {
  c.moe.num_experts_per_tok = top_k, c.moe.norm_topk_prob = renormalise;
  c.moe.balance = MoeBalance::None;
  c.moe.n_group = c.moe.topk_group = 1, c.moe.topk_method = MoeTopk::Greedy;
  c.validate();
  Model m(c);
  init_weights(m, seed);
  const int T = (int)seq.size() - 1;
  long count = 0;
  m.forward(seq.data(), seq.data() + 1, 1, T, &count);
  m.params().zero_grad();
  m.backward(1.0f / (float)count);
  RouterGradient g{top_k, renormalise, 0.0};
  for (const ParamInfo& p : m.params().params()) {
    if (p.name.find("mlp.gate.weight") == std::string::npos) continue;  // the routers
    const float* d = m.params().grad() + p.offset;
    for (size_t i = 0; i < p.numel; ++i) g.max_abs = std::max(g.max_abs, (double)std::fabs(d[i]));
  }
  return g;
}

}  // namespace

ExpertsLesson run_experts_lesson(const ExpertsOptions& opt) {
  LLM0_CHECK(opt.tokens >= 2 && opt.tokens <= 4096, "--tokens {} must be in [2, 4096]", opt.tokens);
  const ModelConfig c = ModelConfig::from_json(read_json_file(opt.config, "model config file"),
                                               opt.config);
  ExpertsLesson l;
  l.config = opt.config, l.model_type = c.model_type, l.layers = c.num_hidden_layers;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    l.moe_layers += make_ffn(c, il)->routing() != nullptr;
  LLM0_CHECK(l.moe_layers > 0, "{}: no layer has experts (the lesson needs a mixture-of-experts "
             "config, e.g. configs/llm0-small-moe.json)", opt.config);
  LLM0_CHECK(opt.tokens <= c.max_position_embeddings + 1, "--tokens {} exceeds max_position_embeddings={} + 1",
             opt.tokens, c.max_position_embeddings);
  l.experts = c.moe.num_experts, l.top_k = c.moe.num_experts_per_tok;
  const ParamCount n = count_parameters(c);
  l.total_params = n.total, l.active_params = n.active, l.expert_params = n.experts;

  Model m(c);
  init_weights(m, opt.seed);
  l.model_params = m.num_parameters();
  const std::vector<int> seq = random_tokens(opt.tokens, c.vocab_size, opt.seed);
  long count = 0;
  m.forward(seq.data(), seq.data() + 1, 1, opt.tokens - 1, &count);
  for (const Model::ExpertLoad& e : m.expert_load()) {
    ExpertLayerLoad r;
    r.layer = e.layer;
    double sum = 0, mx = 0, mn = 1e300;
    for (float t : e.tokens) {
      r.tokens.push_back((uint64_t)std::llround(t));
      sum += t, mx = std::max(mx, (double)t), mn = std::min(mn, (double)t);
    }
    r.max_share = sum > 0 ? mx / sum : 0, r.min_share = sum > 0 ? mn / sum : 0;
    l.loads.push_back(r);
  }
  for (auto [k, renorm] : {std::pair{1, true}, std::pair{1, false}, std::pair{2, true}})
    if (k <= c.moe.num_experts) l.gradients.push_back(router_gradient(c, k, renorm, opt.seed, seq));
  return l;
}

std::string experts_text(const ExpertsLesson& l) {
  std::string s = format("{} ({}): {} layers, {} with {} experts, {} chosen per token; random "
                         "weights.\n\n", l.config, l.model_type, l.layers, l.moe_layers,
                         l.experts, l.top_k);
  s += line("1. Parameters (the ledger of `llm0 params`): %s in total, %s used by one token "
            "(%.1f%%);\n   the routed experts hold %s. The model built from the config has %s "
            "parameters.\n   A decode step reads the weights of %d of the %d experts of each MoE "
            "layer, plus everything dense.\n\n",
            format_thousands((uint64_t)l.total_params).c_str(),
            format_thousands((uint64_t)l.active_params).c_str(),
            100.0 * l.active_params / l.total_params,
            format_thousands((uint64_t)l.expert_params).c_str(),
            format_thousands(l.model_params).c_str(), l.top_k, l.experts);
  s += "2. Where the batch went (the engine's router, untrained): (token, slot) rows per expert\n";
  for (const ExpertLayerLoad& r : l.loads) {
    std::string row;
    for (uint64_t t : r.tokens) row += line(" %4llu", (unsigned long long)t);
    s += line("   layer %2d:%s   busiest %.1f%%, idlest %.1f%% (uniform: %.1f%%)\n", r.layer,
              row.c_str(), 100.0 * r.max_share, 100.0 * r.min_share, 100.0 / l.experts);
  }
  s += "\n3. The router's gradient from the language-model loss alone (no balancing term), same "
       "batch:\n";
  for (const RouterGradient& g : l.gradients)
    s += line("   top-%d %-16s  max |dL/d mlp.gate.weight| = %.3e%s\n", g.top_k,
              g.renormalised ? "renormalised" : "not renormalised", g.max_abs,
              g.top_k == 1 && g.renormalised ? "   <- exactly zero: the weight is 1 whatever the score" : "");
  s += "   Top-1 with renormalisation gives the router nothing to learn from the loss; only a "
       "balancing term\n   (router_aux_loss_coef, or DeepSeek-V3's bias update) moves it. "
       "Derivation: docs/derivations/moe.md.\n";
  return s;
}

nlohmann::json to_json(const ExpertsLesson& l) {
  nlohmann::json j = {{"config", l.config}, {"model_type", l.model_type}, {"experts", l.experts},
                      {"top_k", l.top_k}, {"layers", l.layers}, {"moe_layers", l.moe_layers},
                      {"total_params", l.total_params}, {"active_params", l.active_params},
                      {"expert_params", l.expert_params}, {"model_params", l.model_params}};
  for (const ExpertLayerLoad& r : l.loads)
    j["loads"].push_back({{"layer", r.layer}, {"tokens", r.tokens}, {"max_share", r.max_share},
                          {"min_share", r.min_share}});
  for (const RouterGradient& g : l.gradients)
    j["gradients"].push_back({{"top_k", g.top_k}, {"renormalised", g.renormalised},
                              {"max_abs", g.max_abs}});
  return j;
}

}  // namespace llm0::lesson
