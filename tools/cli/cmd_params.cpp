// `llm0 params CONFIG.json... [--context N] [--json]` prints the parameter and FLOP ledger of each
// Hugging Face config (src/ledger/param_count.h, src/ledger/flops.h): total parameters, the
// parameters one token uses (mixture-of-experts layers: router, K routed experts, shared expert),
// training and decode FLOPs per token. Each file is reported; a refused one prints its error and
// the rest still run, the exit status 1 at the end.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.h"
#include "core/check.h"
#include "ledger/flops.h"
#include "ledger/kv_format.h"
#include "ledger/param_count.h"

namespace llm0::cli {

namespace {

struct ParamsArgs {
  std::vector<std::string> configs;
  int context = 4096;
  bool json = false;
};

// "30.53B", "6.25M"
std::string billions(double n) {
  char b[32];
  std::snprintf(b, sizeof b, n >= 1e9 ? "%.2fB" : "%.2fM", n >= 1e9 ? n / 1e9 : n / 1e6);
  return b;
}

// One config's ledger: a JSON object appended to `out` (--json) or the text lines.
void report_config(const ParamsArgs& a, const std::string& path, nlohmann::json& out) {
  const ModelConfig c = read_config_for_count(path);
  const ParamCount n = count_parameters(c);
  int moe_layers = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) moe_layers += c.layer(il).ffn == FfnKind::Moe;
  const double train = train_flops_per_token(c, a.context), decode = decode_flops_per_token(c, a.context);
  if (a.json) {
    out.push_back({{"config", path}, {"model_type", c.model_type},
                   {"total_parameters", n.total}, {"active_parameters", n.active},
                   {"embedding_parameters", n.embedding}, {"expert_parameters", n.experts},
                   {"moe_layers", moe_layers}, {"num_hidden_layers", c.num_hidden_layers},
                   {"context", a.context}, {"train_flops_per_token", train},
                   {"decode_flops_per_token", decode}});
    return;
  }
  std::printf("%s (%s)\n", path.c_str(), c.model_type.c_str());
  std::printf("  %-18s %s (%s)\n", "total parameters", format_thousands((uint64_t)n.total).c_str(),
              billions(n.total).c_str());
  std::printf("  %-18s %s (%s, %.1f%% of total)\n", "active per token",
              format_thousands((uint64_t)n.active).c_str(), billions(n.active).c_str(),
              100 * n.active / n.total);
  if (moe_layers > 0)
    std::printf("  %-18s %d of %d layers: %d experts, top %d%s; routed experts hold %s\n",
                "mixture of experts", moe_layers, c.num_hidden_layers, c.moe.num_experts,
                c.moe.num_experts_per_tok,
                c.moe.shared_expert_intermediate_size ? " + shared expert" : "",
                billions(n.experts).c_str());
  std::printf("  %-18s %.3g per token (T = %d)\n", "training FLOPs", train, a.context);
  std::printf("  %-18s %.3g per token (%d cached positions)\n", "decode FLOPs", decode, a.context);
}

// Every config is reported; a refused one prints its error (naming the file) on stderr and the
// others still run. Throws llm0::Error at the end (exit status 1) when any was refused.
void run_params(const ParamsArgs& a) {
  nlohmann::json out = nlohmann::json::array();
  int refused = 0;
  for (const std::string& path : a.configs) {
    try {
      report_config(a, path, out);
    } catch (const Error& e) {
      const std::string what = e.what();
      std::fflush(stdout);
      std::fprintf(stderr, "llm0: error: %s%s\n",
                   what.find(path) == std::string::npos ? (path + ": ").c_str() : "", what.c_str());
      ++refused;
    }
  }
  if (a.json) std::printf("%s\n", out.dump(2).c_str());
  std::fflush(stdout);
  LLM0_CHECK(refused == 0, "{} of {} config{} refused (the error{} above)", refused,
             a.configs.size(), a.configs.size() == 1 ? "" : "s", refused == 1 ? "" : "s");
}

}  // namespace

void register_params(CLI::App& app) {
  auto args = std::make_shared<ParamsArgs>();
  CLI::App* sub = app.add_subcommand(
      "params", "Total and active parameters per token, training and decode FLOPs per token, "
                "from Hugging Face config.json files");
  sub->add_option("configs", args->configs, "config.json files")->required();
  sub->add_option("--context", args->context, "Context length for the attention FLOPs")
      ->check(positive_check())->capture_default_str();
  sub->add_flag("--json", args->json, "Print a JSON array, one object per config");
  sub->callback([args] { run_params(*args); });
}

}  // namespace llm0::cli
