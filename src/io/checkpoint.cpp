// Checkpoint directories. See checkpoint.h.
#include "io/checkpoint.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/atomic_file.h"
#include "core/json_file.h"
#include "io/safetensors.h"

namespace fs = std::filesystem;

namespace llm0 {

CheckpointWriter::CheckpointWriter(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  tmp_ = dir_ + ".tmp";
  std::error_code ec;
  fs::remove_all(tmp_, ec);
  fs::create_directories(tmp_, ec);
  LLM0_CHECK(!ec && fs::is_directory(tmp_), "cannot create checkpoint directory {} ({})", tmp_,
             ec.message());
}

CheckpointWriter::~CheckpointWriter() {
  if (!committed_) {
    std::error_code ec;
    fs::remove_all(tmp_, ec);
  }
}

std::string CheckpointWriter::path(const std::string& file) const { return tmp_ + "/" + file; }

// The complete checkpoint a reader would load (resolve_checkpoint_dir: DIR, else DIR.old) stays
// until the new one is in place. Normally that is DIR: DIR.old (a leftover) goes, DIR moves aside.
// After a crash between the two renames of an earlier commit it is DIR.old (DIR is absent, or
// lacks config.json): DIR.old is kept and whatever DIR holds is replaced.
void CheckpointWriter::commit() {
  std::error_code ec;
  const std::string old = dir_ + ".old";
  const bool old_is_latest =
      !fs::exists(dir_ + "/config.json", ec) && fs::exists(old + "/config.json", ec);
  fs::remove_all(old_is_latest ? dir_ : old, ec);
  if (!old_is_latest && fs::exists(dir_)) {
    fs::rename(dir_, old, ec);
    LLM0_CHECK(!ec, "cannot move old checkpoint {} aside ({})", dir_, ec.message());
  }
  fs::rename(tmp_, dir_, ec);
  LLM0_CHECK(!ec, "cannot rename {} to {} ({})", tmp_, dir_, ec.message());
  committed_ = true;
  fs::remove_all(old, ec);
}

namespace {
void write_text(const std::string& path, const std::string& text) {
  AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}
}  // namespace

void write_model_files(const Model& model, const std::string& dir, DType dtype) {
  LLM0_CHECK(!model.bf16_weights(), "this model holds its matrices in BF16 for inference only; "
             "load it again (without --weights-dtype bf16) to save it");
  write_text(dir + "/config.json", model.config().to_json().dump(2) + "\n");
  std::vector<TensorRef> refs;
  for (const ParamInfo& p : model.params().params())
    refs.push_back(TensorRef{p.name, p.shape, model.params().data() + p.offset});
  write_safetensors(dir + "/model.safetensors", refs, {{"format", "pt"}}, dtype);
}

void save_checkpoint(const Model& model, const std::string& dir, const std::string& tokenizer_json,
                     DType dtype) {
  CheckpointWriter w(dir);
  write_model_files(model, w.path(""), dtype);
  if (!tokenizer_json.empty()) {
    std::error_code ec;
    fs::copy_file(tokenizer_json, w.path("tokenizer.json"), fs::copy_options::overwrite_existing, ec);
    LLM0_CHECK(!ec, "cannot copy tokenizer {} ({})", tokenizer_json, ec.message());
  }
  w.commit();
}

namespace {
std::vector<std::string> weight_files(const std::string& dir) {
  const std::string single = dir + "/model.safetensors";
  if (fs::exists(single)) return {single};
  const std::string index = dir + "/model.safetensors.index.json";
  LLM0_CHECK(fs::exists(index), "{}: no model.safetensors (or model.safetensors.index.json)", dir);
  const nlohmann::json j = read_json_file(index, "safetensors index");
  LLM0_CHECK(j.contains("weight_map") && j["weight_map"].is_object(), "{}: missing weight_map", index);
  std::set<std::string> files;
  for (auto& [name, file] : j["weight_map"].items()) {
    LLM0_CHECK(file.is_string(), "{}: weight_map[{}] is not a file name", index, name);
    files.insert(dir + "/" + file.get<std::string>());
  }
  return {files.begin(), files.end()};
}

bool ignorable(const std::string& name, const ModelConfig& c) {
  if (name.find("rotary_emb.inv_freq") != std::string::npos) return true;
  return c.tie_word_embeddings && name == "lm_head.weight";
}
}  // namespace

DType load_weights(Model& model, const std::string& dir) {
  ParamStore& store = model.params();
  std::set<std::string> loaded;
  std::set<DType> matrix_dtypes;
  for (const std::string& file : weight_files(dir)) {
    SafetensorsFile f = read_safetensors(file);
    for (auto& [name, e] : f.tensors) {
      if (ignorable(name, model.config())) continue;
      LLM0_CHECK(store.has(name), "{}: unexpected tensor {} (not part of a {} model with this config)",
                 file, name, model.config().model_type);
      const ParamInfo& p = store.info(name);
      LLM0_CHECK(e.shape == p.shape, "{}: tensor {} has shape {} but the config implies {}", file,
                 name, e.shape.str(), p.shape.str());
      std::memcpy(store.data() + p.offset, e.values.data(), p.numel * sizeof(float));
      loaded.insert(name);
      if (e.shape.rank() == 2) matrix_dtypes.insert(e.dtype);
    }
  }
  for (const ParamInfo& p : store.params())
    LLM0_CHECK(loaded.count(p.name), "{}: missing tensor {} {}", dir, p.name, p.shape.str());
  return matrix_dtypes.size() == 1 ? *matrix_dtypes.begin() : DType::F32;
}

std::string resolve_checkpoint_dir(const std::string& dir) {
  const fs::path d(dir);
  if (fs::exists(d / "config.json")) return dir;
  if (fs::exists(d / "checkpoint" / "config.json")) return (d / "checkpoint").string();
  if (fs::exists(dir + ".old/config.json")) return dir + ".old";
  if (fs::exists(d / "checkpoint.old" / "config.json")) return (d / "checkpoint.old").string();
  LLM0_FAIL("no checkpoint in {}: expected {} or {} (a training run's latest checkpoint)", dir,
            (d / "config.json").string(), (d / "checkpoint" / "config.json").string());
  return dir;
}

std::unique_ptr<Model> load_model(const std::string& dir, DType* stored) {
  LLM0_CHECK(fs::is_directory(dir), "model directory {} does not exist", dir);
  auto model = std::make_unique<Model>(ModelConfig::from_file(dir + "/config.json"));
  const DType d = load_weights(*model, dir);
  if (stored) *stored = d;
  return model;
}

}  // namespace llm0
