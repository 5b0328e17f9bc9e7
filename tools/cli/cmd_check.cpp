// `llm0 check grads --model DIR --tokens T.npy --targets Y.npy [--steps N --lr X
// --weight-decay W] --output OUT`: the numbers an outside reference (tools/torch_twin.py) checks
// llm0 against, for one batch [B, T]:
//   OUT/logits.npy         float32 [B*T, V] of the checkpoint's weights
//   OUT/grads.safetensors  F32 gradient of the mean loss for every parameter (Hugging Face names)
//   OUT/losses.json        {"loss": L0, "count": n, "losses": [L0, L1, ..., LN]}: Li is the mean
//                          loss (+ the MoE balancing loss, when configured) after i AdamW steps (src/train/adamw.h, no gradient clipping)
// Token and target files: .npy of int32 or int64 (numpy's default), or float32 holding integers;
// targets < 0 are ignored.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common.h"
#include "core/atomic_file.h"
#include "core/check.h"
#include "io/checkpoint.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "train/adamw.h"

namespace llm0::cli {

namespace {

struct IdArray {
  std::vector<int> ids;
  std::vector<int64_t> shape;
};

// The value of `key` in a .npy header dict ("'descr': '<i4'" -> "'<i4'"; shape -> "(2, 3)").
std::string header_field(const std::string& h, const std::string& key, const std::string& path) {
  const size_t at = h.find("'" + key + "'");
  LLM0_CHECK(at != std::string::npos, "npy '{}': header has no '{}'", path, key);
  size_t b = h.find(':', at);
  LLM0_CHECK(b != std::string::npos, "npy '{}': malformed header near '{}'", path, key);
  ++b;
  while (b < h.size() && h[b] == ' ') ++b;
  const size_t e = h[b] == '(' ? h.find(')', b) + 1 : h.find_first_of(",}", b);
  LLM0_CHECK(e != std::string::npos && e > b, "npy '{}': malformed header near '{}'", path, key);
  return h.substr(b, e - b);
}

/// Reads integer ids [B, T] from a .npy file: '<i4', '<i8', or '<f4' holding whole numbers.
/// Throws llm0::Error naming the file: other dtypes, not 2-D, Fortran order, truncated data.
IdArray read_ids(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "cannot open {}", path);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LLM0_CHECK(raw.size() >= 10 && raw.compare(0, 6, "\x93NUMPY") == 0, "{}: not a .npy file", path);
  const int major = (unsigned char)raw[6];
  LLM0_CHECK(major >= 1 && major <= 3, "{}: unsupported .npy version {}", path, major);
  const size_t lenb = major == 1 ? 2 : 4;
  uint32_t hlen = 0;
  std::memcpy(&hlen, raw.data() + 8, lenb);
  LLM0_CHECK(8 + lenb + hlen <= raw.size(), "{}: header past the end of the file", path);
  const std::string h = raw.substr(8 + lenb, hlen);
  const std::string descr = header_field(h, "descr", path);
  LLM0_CHECK(header_field(h, "fortran_order", path) == "False", "{}: Fortran order not supported", path);
  IdArray a;
  const std::string shape = header_field(h, "shape", path);
  for (size_t i = 1; i < shape.size();) {
    size_t used = 0;
    if (shape[i] >= '0' && shape[i] <= '9') {
      a.shape.push_back(std::stoll(shape.substr(i), &used));
      i += used;
    } else {
      ++i;
    }
  }
  LLM0_CHECK(a.shape.size() == 2 && a.shape[0] > 0 && a.shape[1] > 0,
             "{}: ids must be a non-empty 2-D array [B, T], shape is {}", path, shape);
  const size_t n = (size_t)(a.shape[0] * a.shape[1]);
  const char* data = raw.data() + 8 + lenb + hlen;
  const size_t bytes = raw.size() - (8 + lenb + hlen);
  a.ids.resize(n);
  if (descr == "'<i4'" || descr == "'<f4'") {
    LLM0_CHECK(bytes == 4 * n, "{}: {} data bytes for {} elements of 4 bytes", path, bytes, n);
    for (size_t i = 0; i < n; ++i) {
      if (descr == "'<i4'") {
        std::memcpy(&a.ids[i], data + 4 * i, 4);
      } else {
        float f = 0;
        std::memcpy(&f, data + 4 * i, 4);
        LLM0_CHECK(f == std::floor(f) && std::fabs(f) < 2e9f, "{}: element {} = {} is not an id", path, i, f);
        a.ids[i] = (int)f;
      }
    }
  } else if (descr == "'<i8'") {
    LLM0_CHECK(bytes == 8 * n, "{}: {} data bytes for {} elements of 8 bytes", path, bytes, n);
    for (size_t i = 0; i < n; ++i) {
      int64_t v = 0;
      std::memcpy(&v, data + 8 * i, 8);
      LLM0_CHECK(v >= -2147483648LL && v <= 2147483647LL, "{}: element {} = {} overflows int32", path, i, v);
      a.ids[i] = (int)v;
    }
  } else {
    LLM0_FAIL("{}: dtype {} is not '<i4', '<i8' or '<f4'", path, descr);
  }
  return a;
}

struct CheckArgs {
  std::string model, tokens, targets, output;
  int steps = 0;
  double lr = 1e-3, weight_decay = 0.1;
};

void run_check_grads(const CheckArgs& a) {
  const IdArray tok = read_ids(a.tokens), tgt = read_ids(a.targets);
  LLM0_CHECK(tok.shape == tgt.shape, "--tokens [{}, {}] and --targets [{}, {}] differ in shape",
             tok.shape[0], tok.shape[1], tgt.shape[0], tgt.shape[1]);
  const int B = (int)tok.shape[0], T = (int)tok.shape[1];
  auto model = load_model(resolve_checkpoint_dir(a.model));
  const int V = model->config().vocab_size;
  for (size_t i = 0; i < tgt.ids.size(); ++i)
    LLM0_CHECK(tgt.ids[i] < V, "--targets: id {} at index {} >= vocab_size={}", tgt.ids[i], i, V);
  ParamStore& p = model->params();
  AdamWConfig oc;
  oc.weight_decay = a.weight_decay;
  AdamW opt(p, oc);
  std::filesystem::create_directories(a.output);

  // One mean-loss evaluation; with `grad`, also its gradient (into p.grad(), zeroed first).
  auto eval = [&](bool grad, long* count_out) {
    long count = 0;
    p.zero_grad();
    const double sum = model->forward(tok.ids.data(), tgt.ids.data(), B, T, &count);
    LLM0_CHECK(count > 0, "--targets: no target >= 0, the loss is undefined");
    if (count_out) *count_out = count;
    const double loss = sum / (double)count + model->aux_loss();  // + MoE balancing loss, if any
    if (!grad) return loss;
    if (count_out) write_npy(a.output + "/logits.npy", model->logits(), Shape{B * T, V});
    model->backward(1.0f / (float)count);
    return loss;
  };
  long count = 0;
  const double loss0 = eval(true, &count);
  std::vector<TensorRef> grads;
  for (const ParamInfo& info : p.params())
    grads.push_back({info.name, info.shape, p.grad() + info.offset});
  write_safetensors(a.output + "/grads.safetensors", grads);
  nlohmann::json losses = nlohmann::json::array({loss0});
  for (int s = 0; s < a.steps; ++s) {  // step with the current gradient, then the new loss
    opt.step(p, a.lr);
    losses.push_back(eval(s + 1 < a.steps, nullptr));
  }
  const nlohmann::json out = {{"loss", loss0}, {"count", count}, {"losses", losses}};
  const std::string text = out.dump(1) + "\n";
  AtomicFile f(a.output + "/losses.json");
  f.write(text.data(), text.size());
  f.commit();
  std::printf("check: loss %.6f over %ld targets; %d AdamW steps -> %.6f\n", loss0, count,
              a.steps, losses.back().get<double>());
}

}  // namespace

/// Adds `llm0 check grads` (see the file comment).
void register_check(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Numbers for checking llm0 against a reference implementation");
  cmd->require_subcommand(1);
  auto* g = cmd->add_subcommand(
      "grads", "Logits, loss, parameter gradients and AdamW-step losses of one batch");
  static CheckArgs a;
  g->add_option("--model", a.model, "Checkpoint directory (config.json + model.safetensors)")->required();
  g->add_option("--tokens", a.tokens, "Token ids [B, T] (.npy, int32/int64/float32)")->required();
  g->add_option("--targets", a.targets, "Targets [B, T] (.npy; < 0 ignored)")->required();
  g->add_option("--steps", a.steps, "AdamW steps after the gradient")->check(non_negative_check());
  g->add_option("--lr", a.lr, "AdamW learning rate")->check(non_negative_check());
  g->add_option("--weight-decay", a.weight_decay, "AdamW weight decay (params with >= 2 dims)")
      ->check(non_negative_check());
  g->add_option("--output", a.output, "Output directory (logits.npy, grads.safetensors, losses.json)")
      ->required();
  add_threads_option(g);
  g->callback([] { run_check_grads(a); });
}

}  // namespace llm0::cli
