// Trainer state files. See train_state.h.
#include "train/train_state.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/json_parse.h"
#include "io/safetensors.h"
#include "train/precision.h"

namespace llm0 {

namespace {
// A value of trainer_state.json as an error shows it: a number or literal itself, else its kind
// (never a whole string, array or object from the file).
std::string shown(const nlohmann::json& v) {
  if (v.is_number() || v.is_boolean() || v.is_null()) return v.dump();
  return std::string("a ") + v.type_name();
}

// The integer fields of trainer_state.json and their ranges (ranks, threads and the schedule's
// warmup_steps are absent from older checkpoints).
struct IntegerField {
  const char* name;
  int64_t least, most;
};
constexpr IntegerField kIntegerFields[] = {
    {"step", 0, INT32_MAX}, {"total_steps", 1, INT32_MAX}, {"batch_size", 1, INT32_MAX},
    {"seq_len", 2, INT32_MAX}, {"grad_accum", 1, INT32_MAX}, {"ranks", 1, INT32_MAX},
    {"threads", 1, INT32_MAX}, {"warmup_steps", 0, INT32_MAX}, {"loader_windows", 0, INT64_MAX}};

// The fields present in trainer_state.json `j` (an object), each checked by its own name: the
// integers' type and range, the schedule's numbers, the 64-bit decimal strings. A missing field is
// reported where it is read. Throws llm0::Error naming the file and the field.
void check_fields(const nlohmann::json& j, const std::string& path) {
  for (const IntegerField& f : kIntegerFields) {
    if (!j.contains(f.name)) continue;
    const nlohmann::json& v = j[f.name];
    // (nlohmann keeps a non-negative integer as unsigned: compared as such, 2^64 - 1 stays large)
    const bool ok =
        v.is_number_unsigned()
            ? v.get<uint64_t>() >= (uint64_t)f.least && v.get<uint64_t>() <= (uint64_t)f.most
            : v.is_number_integer() && v.get<int64_t>() >= f.least && v.get<int64_t>() <= f.most;
    LLM0_CHECK(ok, "cannot resume: {}: {} is {}, not an integer from {} to {}", path, f.name,
               shown(v), f.least, f.most);
  }
  auto number = [&](const char* name, double least, bool strict) {
    if (!j.contains(name)) return;
    const nlohmann::json& v = j[name];
    const double x = v.is_number() ? v.get<double>() : NAN;
    LLM0_CHECK(std::isfinite(x) && (strict ? x > least : x >= least), "cannot resume: {}: {} is "
               "{}, not a finite number {} {}", path, name, shown(v), strict ? ">" : ">=", least);
  };
  number("lr", 0, true), number("min_lr", 0, false), number("weight_decay", 0, false);
  number("grad_clip", 0, false), number("dropout", 0, false), number("tokens_seen", 0, false);
  if (j.contains("dropout"))  // the masks draw in float (trainer_setup.cpp's --dropout check)
    LLM0_CHECK(static_cast<float>(j["dropout"].get<double>()) < 1, "cannot resume: {}: dropout is "
               "{}, not a probability in [0, 1)", path, shown(j["dropout"]));
  for (const char* name : {"loader_rng", "seed"}) {
    if (!j.contains(name)) continue;
    const nlohmann::json& v = j[name];
    const std::string t = v.is_string() ? v.get<std::string>() : "";
    bool ok = !t.empty() && t.size() <= 20 && t.find_first_not_of("0123456789") == t.npos;
    try {
      if (ok) (void)std::stoull(t);
    } catch (const std::out_of_range&) {  // 20 digits over 2^64 - 1
      ok = false;
    }
    LLM0_CHECK(ok, "cannot resume: {}: {} must be an unsigned 64-bit decimal number in a string",
               path, name);
  }
}
}  // namespace

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
      {"precision", s.precision}, {"threads", s.threads}};
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
    s.threads = j.value("threads", 0);  // absent before it was recorded: unknown
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
    if (j.is_object()) check_fields(j, path);  // a field of the wrong type or form: named
    LLM0_FAIL("cannot resume: {} is corrupt ({})", path, e.what());
  }
  check_fields(j, path);
  LLM0_CHECK(s.step <= s.total_steps, "cannot resume: {}: step {} is past total_steps {}", path,
             s.step, s.total_steps);
  LLM0_CHECK(!s.has_schedule || s.min_lr <= s.lr, "cannot resume: {}: min_lr {} exceeds lr {}",
             path, s.min_lr, s.lr);
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
