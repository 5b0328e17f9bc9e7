// Malformed GGUF files are refused by `llm0 convert --from gguf` with a message naming the key or
// tensor and what is wrong, exit status 1, and nothing written: each case edits one thing of a
// valid export (tiny llama, gguf_fixtures.h) and rewrites the file with GgufWriter.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "cli_runner.h"
#include "gguf_fixtures.h"
#include "io/gguf_export.h"
#include "io/gguf_import.h"
#include "io/gguf_reader.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using namespace testing_fixtures;

using Edit = std::function<void(GgufFile&)>;

// A valid tiny llama export, parsed.
const GgufFile& valid_file() {
  static const GgufFile f = [] {
    ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
    c.vocab_size = 300;
    c.validate();
    const std::string gguf = test::fresh_temp_path("gguf_import_err", "valid.gguf");
    export_gguf(make_checkpoint(c, "err_valid", true), gguf);
    return read_gguf(gguf);
  }();
  return f;
}

// `f` edited and written back as a GGUF file.
std::string write_edited(const std::string& name, const Edit& edit) {
  GgufFile f = valid_file();
  edit(f);
  GgufWriter w;
  for (const auto& [key, value] : f.metadata) w.add(key, value);
  for (const GgufTensorInfo& t : f.tensors) w.add_tensor(t.name, t.shape(), t.type, t.to_float().data());
  const std::string path = test::fresh_temp_path("gguf_import_err", name + ".gguf");
  w.write(path);
  return path;
}

GgufValue& meta(GgufFile& f, const std::string& key) {
  for (auto& [k, v] : f.metadata)
    if (k == key) return v;
  f.metadata.emplace_back(key, GgufValue{});
  return f.metadata.back().second;
}

void erase_key(GgufFile& f, const std::string& key) {
  std::erase_if(f.metadata, [&](const auto& kv) { return kv.first == key; });
}

struct Case {
  const char* name;
  Edit edit;
  std::vector<std::string> message;  // every part must appear
};

TEST(GgufImportErrors, MalformedFilesAreRefusedByName) {
  const std::vector<Case> cases = {
      {"arch", [](GgufFile& f) { meta(f, "general.architecture") = GgufValue::of_string("gemma3"); },
       {"architecture \"gemma3\" is not supported"}},
      {"missing_key", [](GgufFile& f) { erase_key(f, "llama.block_count"); },
       {"has no key llama.block_count"}},
      {"key_type", [](GgufFile& f) { meta(f, "llama.embedding_length") = GgufValue::of_string("28"); },
       {"llama.embedding_length is not an integer"}},
      {"missing_tensor", [](GgufFile& f) {
         std::erase_if(f.tensors, [](const GgufTensorInfo& t) { return t.name == "blk.1.ffn_down.weight"; });
       }, {"tensor blk.1.ffn_down.weight is missing", "model.layers.1.mlp.down_proj.weight"}},
      {"shape", [](GgufFile& f) {
         for (GgufTensorInfo& t : f.tensors)
           if (t.name == "blk.0.attn_k.weight") t.dims = {28, 24}, t.bytes.resize(28 * 24 * 4);
       }, {"blk.0.attn_k.weight has shape [24, 28] but the config implies [48, 28]"}},
      {"left_over", [](GgufFile& f) {
         GgufTensorInfo extra = f.tensors.front();
         extra.name = "rope_freqs.weight";
         f.tensors.push_back(extra);
       }, {"rope_freqs.weight", "left over"}},
      {"token_type_length", [](GgufFile& f) {
         meta(f, "tokenizer.ggml.token_type").array.pop_back();
       }, {"tokenizer.ggml.token_type has 299 entries but tokenizer.ggml.tokens has 300"}},
      {"scores_length", [](GgufFile& f) {
         meta(f, "tokenizer.ggml.scores") = GgufValue::of_array(GgufType::FLOAT32, {GgufValue::of_f32(0)});
       }, {"tokenizer.ggml.scores has 1 entries but tokenizer.ggml.tokens has 300"}},
      {"token_type_value", [](GgufFile& f) {
         meta(f, "tokenizer.ggml.token_type").array[5] = GgufValue::of_i32(9);
       }, {"tokenizer.ggml.token_type[5] = 9"}},
      {"pre", [](GgufFile& f) { meta(f, "tokenizer.ggml.pre") = GgufValue::of_string("deepseek-llm"); },
       {"tokenizer.ggml.pre = \"deepseek-llm\" is not supported"}},
      {"tokenizer_model", [](GgufFile& f) { meta(f, "tokenizer.ggml.model") = GgufValue::of_string("bert"); },
       {"tokenizer.ggml.model = \"bert\" is not supported"}},
      {"no_merges", [](GgufFile& f) { erase_key(f, "tokenizer.ggml.merges"); },
       {"no key tokenizer.ggml.merges"}},
      {"rope_scaling", [](GgufFile& f) { meta(f, "llama.rope.scaling.type") = GgufValue::of_string("linear"); },
       {"rope.scaling.type = \"linear\""}},
      {"partial_rotary_llama", [](GgufFile& f) { meta(f, "llama.rope.dimension_count") = GgufValue::of_u32(12); },
       {"rope.dimension_count = 12", "partial rotary"}},
      {"too_many_tokens", [](GgufFile& f) { meta(f, "llama.vocab_size") = GgufValue::of_u32(200); },
       {"tokenizer.ggml.tokens has 300 tokens but the model has 200 embedding rows"}},
  };
  const fs::path dir = test::fresh_temp_path("gguf_import_err", "cli");
  fs::create_directories(dir);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = write_edited(c.name, c.edit), out = (dir / c.name).string();
    const CmdOut r = run_cli("convert --from gguf " + quote(file) + " --output " + quote(out), dir / "err.txt");
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    for (const std::string& part : c.message)
      EXPECT_NE(r.err.find(part), std::string::npos) << "want '" << part << "' in: " << r.err;
    EXPECT_NE(r.err.find(c.name + std::string(".gguf")), std::string::npos) << "names the file: " << r.err;
    EXPECT_EQ(r.err.find("src/"), std::string::npos) << "no source paths: " << r.err;
    EXPECT_FALSE(fs::exists(out)) << "nothing is written on failure";
  }
  fs::remove_all(dir);
}

// The unedited file imports, so every refusal above comes from its one edit.
TEST(GgufImportErrors, TheUneditedFileImports) {
  const std::string file = write_edited("unedited", [](GgufFile&) {});
  const std::string out = test::fresh_temp_path("gguf_import_err", "unedited_hf");
  EXPECT_EQ(import_gguf(file, out).architecture, "llama");
  EXPECT_TRUE(fs::exists(out + "/model.safetensors"));
}

}  // namespace
}  // namespace llm0
