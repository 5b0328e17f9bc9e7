// stories260K in BF16 (`llm0 convert --dtype bf16` of the converted published model): every logit
// difference z_a − z_v at the last position of the golden story's first 16 tokens (a = the greedy
// token, v = every token) moves by no more than its first-order rounding bound
//   B_v = Σ_i |∂(z_a − z_v)/∂w_i| · |bf16(w_i) − w_i|
// (the triangle inequality over the exact rounding of each weight; the remainder is second order in
// the 2^-9 relative rounding). The gradients come from cross-entropy backward passes:
// ∂CE_t/∂w = Σ_u p_u ∂z_u/∂w − ∂z_t/∂w, so ∂CE_v/∂w − ∂CE_a/∂w = ∂(z_a − z_v)/∂w. Both runs use
// float32 kernels (load_model widens BF16), so apart from the weights they compute in the same
// order; 1e-5 covers float32 rounding of logits of magnitude ~10 and the second-order remainder.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "core/half.h"
#include "io/checkpoint.h"
#include "io/llama2c.h"
#include "test_util.h"

namespace llm0 {
namespace {

const std::string kData = std::string(LLM0_SOURCE_DIR) + "/tests/data/stories260K/";

// Logits [V] at the last of `tokens`.
std::vector<float> last_logits(Model& m, const std::vector<int>& tokens) {
  const int T = (int)tokens.size(), V = m.config().vocab_size;
  const std::vector<int> none((size_t)T, -1);
  m.forward(tokens.data(), none.data(), 1, T);
  return std::vector<float>(m.logits() + (size_t)(T - 1) * V, m.logits() + (size_t)T * V);
}

// ∂CE/∂w for target `t` at the last position.
std::vector<float> grad_of_target(Model& m, const std::vector<int>& tokens, int t) {
  std::vector<int> targets(tokens.size(), -1);
  targets.back() = t;
  m.params().zero_grad();
  m.forward(tokens.data(), targets.data(), 1, (int)tokens.size());
  m.backward(1.0f);
  return std::vector<float>(m.params().grad(), m.params().grad() + m.params().size());
}

TEST(Stories260KBf16, LogitsWithinTheFirstOrderRoundingBound) {
  const std::string dir = test::fresh_temp_path("s260_bf16", "f32"), bf = test::fresh_temp_path("s260_bf16", "bf16");
  convert_llama2c(kData + "stories260K.bin", kData + "tok512.bin", dir);
  std::unique_ptr<Model> f32 = load_model(dir);
  save_checkpoint(*f32, bf, dir + "/tokenizer.json", DType::BF16);  // what convert --dtype bf16 writes
  DType stored = DType::F32;
  std::unique_ptr<Model> b16 = load_model(bf, &stored);
  ASSERT_EQ(stored, DType::BF16);
  const nlohmann::json golden = nlohmann::json::parse(testing_fixtures::read_file(kData + "greedy_200.json"));
  std::vector<int> tokens = {1};
  for (int i = 0; i < 15; ++i) tokens.push_back(golden["ids"][i].get<int>());
  const std::vector<float> z = last_logits(*f32, tokens), zb = last_logits(*b16, tokens);
  const int V = (int)z.size();
  const int a = (int)(std::max_element(z.begin(), z.end()) - z.begin());
  EXPECT_EQ(a, golden["ids"][15].get<int>());  // the greedy story goes on with a
  const size_t P = f32->params().size();
  std::vector<double> dw(P);  // the exact rounding of every weight
  for (size_t i = 0; i < P; ++i) {
    const float w = f32->params().data()[i];
    dw[i] = std::fabs((double)bf16_to_float(float_to_bf16(w)) - w);
    ASSERT_EQ(b16->params().data()[i], bf16_to_float(float_to_bf16(w)));
  }
  const std::vector<float> ga = grad_of_target(*f32, tokens, a);
  double worst = 0, moved = 0;
  for (int v = 0; v < V; v += 3) {  // every third token: 171 backward passes
    if (v == a) continue;
    const std::vector<float> gv = grad_of_target(*f32, tokens, v);
    double bound = 0;
    for (size_t i = 0; i < P; ++i) bound += std::fabs((double)gv[i] - ga[i]) * dw[i];
    const double change = std::fabs(((double)zb[a] - zb[v]) - ((double)z[a] - z[v]));
    EXPECT_LE(change, bound + 1e-5) << "token " << v;
    worst = std::max(worst, change / bound), moved = std::max(moved, change);
  }
  EXPECT_GT(moved, 1e-4);  // the rounding does move the logits: the bound is not vacuous
  std::printf("BF16 stories260K: largest change of z_a - z_v %.3g, at most %.3g of its bound\n", moved, worst);
}

}  // namespace
}  // namespace llm0
