// Shared by the GGUF export tests: a saved random-weight checkpoint with a trained tokenizer, a
// parsed GGUF written back, and the message of the llm0::Error a call throws.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/check.h"
#include "io/checkpoint.h"
#include "io/gguf/reader.h"
#include "model_fixtures.h"
#include "test_util.h"
#include "tokenizer/tokenizer.h"

namespace llm0::testing_fixtures {

/// A checkpoint of `cfg` (random_weights, seed 11) under a fresh temporary directory, with a
/// trained 290-token tokenizer when `tokenizer` (model vocab 300: 10 padding rows).
inline std::string make_checkpoint(const ModelConfig& cfg, const std::string& name, bool tokenizer) {
  const std::string dir = test::fresh_temp_path("gguf", name);
  Model m(cfg);
  random_weights(m, 11);
  std::string tok;
  if (tokenizer) {
    const std::vector<std::string> docs = {"the cat sat on the mat", "the dog ate the hat",
                                           "hello world, hello there 12345", "<|endoftext|>x"};
    tok = test::fresh_temp_path("gguf", name + "_tokenizer.json");
    Tokenizer::train(docs, 290).save(tok);
  }
  save_checkpoint(m, dir, tok);
  return dir;
}

/// Writes the parsed (perhaps edited) file `f` to `path` with GgufWriter: the same metadata in
/// order, tensors with their type (float values: F32/F16/BF16 files only).
inline void write_gguf(const GgufFile& f, const std::string& path) {
  GgufWriter w;
  for (const auto& [key, value] : f.metadata) w.add(key, value);
  for (const GgufTensorInfo& t : f.tensors) w.add_tensor(t.name, t.shape(), t.type, t.to_float().data());
  w.write(path);
}

/// `f` without metadata key `key`.
inline GgufFile without_key(GgufFile f, const std::string& key) {
  std::erase_if(f.metadata, [&](const auto& kv) { return kv.first == key; });
  return f;
}

/// The what() of the llm0::Error `f` throws, or "(no error)".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace llm0::testing_fixtures
