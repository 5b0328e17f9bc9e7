// import_gguf (see import.h): the checkpoint directory written from gguf_to_hf's result.
#include <filesystem>

#include "core/atomic_file.h"
#include "core/check.h"
#include "io/checkpoint.h"
#include "io/checkpoint_tokenizer.h"
#include "io/gguf/import.h"
#include "io/safetensors.h"
#include "tokenizer/tokenizer.h"

namespace llm0 {

namespace {

void write_json(const std::string& path, const nlohmann::ordered_json& j) {
  const std::string text = j.dump(2) + "\n";
  AtomicFile f(path);
  f.write(text.data(), text.size());
  f.commit();
}

}  // namespace

GgufImportSummary import_gguf(const std::string& gguf_path, const std::string& out_dir, DType dtype) {
  const std::string where = std::filesystem::path(gguf_path).filename().string();
  const GgufImport im = gguf_to_hf(read_gguf(gguf_path), dtype, where);
  CheckpointWriter out(out_dir);
  GgufImportSummary s;
  s.architecture = im.architecture;
  std::vector<TensorRef> refs;
  std::vector<DType> dtypes;
  for (const HfTensor& t : im.tensors) {
    refs.push_back({t.name, t.shape, t.values.data()});
    dtypes.push_back(t.dtype);
    s.parameters += t.values.size();
  }
  s.tensors = refs.size();
  write_safetensors_mixed(out.path("model.safetensors"), refs, dtypes, {{"format", "pt"}});
  write_json(out.path("config.json"), nlohmann::ordered_json::parse(im.config.to_json().dump()));
  nlohmann::ordered_json gen = nlohmann::ordered_json::object();
  if (im.config.bos_token_id >= 0) gen["bos_token_id"] = im.config.bos_token_id;
  if (im.config.eos_token_id >= 0) gen["eos_token_id"] = im.config.eos_token_id;
  write_json(out.path("generation_config.json"), gen);
  write_json(out.path("tokenizer.json"), im.tokenizer);
  if (!im.tokenizer_config.is_null()) write_json(out.path("tokenizer_config.json"), im.tokenizer_config);
  // The directory must load: a tokenizer.json that llm0's loader refuses (a merge naming an
  // unknown token, two tokens with one text, ...) is refused here, naming the GGUF file, rather
  // than written for `generate` to refuse later.
  // Its special tokens and the bos/eos ids must fit the model's vocabulary too.
  try {
    check_tokenizer_fits(Tokenizer::load(out.path("tokenizer.json")), im.config, where, "tokenizer.ggml.");
  } catch (const Error& e) {
    std::string why = e.what();
    for (const std::string& prefix : {out.path("tokenizer.json") + ": ", where + ": "})
      if (why.rfind(prefix, 0) == 0) why = why.substr(prefix.size());
    LLM0_FAIL("{}: the tokenizer of this GGUF file cannot be loaded: {}", where, why);
  }
  out.commit();
  return s;
}

}  // namespace llm0
