// Trainer state files. See train_state.h.
#include "train/train_state.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/json_parse.h"
#include "io/safetensors.h"
#include "train/precision.h"

namespace llm0 {

void save_train_state(const std::string& dir, const TrainState& s, const ParamStore& store,
                      const AdamW& opt) {
  const nlohmann::json j = {
      {"step", s.step}, {"total_steps", s.total_steps},
      {"loader_rng", std::to_string(s.loader.rng)},  // 64-bit: a string survives any JSON reader
      {"loader_windows", s.loader.windows}, {"seed", std::to_string(s.seed)},
      {"batch_size", s.batch_size}, {"seq_len", s.seq_len}, {"grad_accum", s.grad_accum},
      {"ranks", s.ranks}, {"global_batch", s.global_batch()},
      {"global_batch_tokens", s.global_batch() * s.seq_len},
      {"tokens_seen", s.tokens_seen}, {"optimizer_step", opt.step_count()},
      {"lr", s.lr}, {"min_lr", s.min_lr}, {"warmup_steps", s.warmup_steps},
      {"weight_decay", s.weight_decay}, {"grad_clip", s.grad_clip}, {"dropout", s.dropout},
      {"precision", s.precision}};
  const std::string text = j.dump(2) + "\n";
  AtomicFile f(dir + "/trainer_state.json");
  f.write(text.data(), text.size());
  f.commit();
  std::vector<TensorRef> refs;
  for (const ParamInfo& p : store.params()) {
    refs.push_back({p.name + ".exp_avg", p.shape, opt.m() + p.offset});
    refs.push_back({p.name + ".exp_avg_sq", p.shape, opt.v() + p.offset});
  }
  write_safetensors(dir + "/optimizer.safetensors", refs);
}

TrainState read_train_state(const std::string& dir) {
  const std::string path = dir + "/trainer_state.json";
  std::ifstream in(path);
  LLM0_CHECK(in.good(), "cannot resume: {} is missing", path);
  nlohmann::json j;
  TrainState s;
  try {
    j = parse_json(std::string(std::istreambuf_iterator<char>(in), {}), "trainer_state.json");
    s.step = j.at("step").get<int>(), s.total_steps = j.at("total_steps").get<int>();
    s.loader.rng = std::stoull(j.at("loader_rng").get<std::string>());
    // Checkpoints before data parallelism counted batches ("loader_step", informational only).
    s.loader.windows = j.contains("loader_windows") ? j.at("loader_windows").get<int64_t>() : 0;
    s.seed = std::stoull(j.at("seed").get<std::string>());
    s.batch_size = j.at("batch_size").get<int>(), s.seq_len = j.at("seq_len").get<int>();
    s.grad_accum = j.at("grad_accum").get<int>(), s.tokens_seen = j.at("tokens_seen").get<double>();
    s.ranks = j.value("ranks", 1);  // absent before data parallelism: one process
    s.precision = j.value("precision", std::string("f32"));  // absent before --precision
    parse_precision(s.precision, path + ": precision");
    s.has_schedule = j.contains("lr");  // absent before the schedule was saved
    if (s.has_schedule) {
      s.lr = j.at("lr").get<double>(), s.min_lr = j.at("min_lr").get<double>();
      s.warmup_steps = j.at("warmup_steps").get<int>();
      s.weight_decay = j.at("weight_decay").get<double>(), s.grad_clip = j.at("grad_clip").get<double>();
      s.dropout = j.value("dropout", 0.0);  // absent before --dropout: none
    }
  } catch (const std::exception& e) {
    LLM0_FAIL("cannot resume: {} is corrupt ({})", path, e.what());
  }
  LLM0_CHECK(s.step >= 0 && s.step <= s.total_steps && s.batch_size > 0 && s.seq_len > 0 &&
                 s.grad_accum > 0 && s.ranks > 0,
             "cannot resume: {} has inconsistent step={} total_steps={}", path, s.step, s.total_steps);
  return s;
}

TrainState load_train_state(const std::string& dir, const ParamStore& store, AdamW& opt) {
  const TrainState s = read_train_state(dir);
  const SafetensorsFile f = read_safetensors(dir + "/optimizer.safetensors");
  for (const ParamInfo& p : store.params())
    for (const char* suffix : {".exp_avg", ".exp_avg_sq"}) {
      auto it = f.tensors.find(p.name + suffix);
      LLM0_CHECK(it != f.tensors.end() && it->second.shape == p.shape,
                 "cannot resume: {}/optimizer.safetensors lacks {}{} of shape {}", dir, p.name,
                 suffix, p.shape.str());
    }
  for (const ParamInfo& p : store.params()) {
    std::memcpy(opt.m() + p.offset, f.tensors.at(p.name + ".exp_avg").values.data(), p.numel * 4);
    std::memcpy(opt.v() + p.offset, f.tensors.at(p.name + ".exp_avg_sq").values.data(), p.numel * 4);
  }
  opt.set_step_count(s.step);
  return s;
}

}  // namespace llm0
