// Malformed GGUF files are refused by `llm0 convert --from gguf` with a message naming the key or
// tensor and what is wrong, exit status 1, and nothing written: each case edits one thing of a
// valid export (tiny llama, gguf_fixtures.h) and rewrites the file with GgufWriter.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "cli_runner.h"
#include "gguf_fixtures.h"
#include "io/gguf/export.h"
#include "io/gguf/import.h"
#include "io/gguf/reader.h"

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
  const std::string path = test::fresh_temp_path("gguf_import_err", name + ".gguf");
  write_gguf(f, path);
  return path;
}

GgufValue& meta(GgufFile& f, const std::string& key) {
  for (auto& [k, v] : f.metadata)
    if (k == key) return v;
  f.metadata.emplace_back(key, GgufValue{});
  return f.metadata.back().second;
}

void erase_key(GgufFile& f, const std::string& key) { f = without_key(std::move(f), key); }

// The tokenizer.ggml.* arrays are what the importer reads only without tokenizer.huggingface.json
// (as llama.cpp's converters write files): `edit` applied to such a file.
Edit arrays_only(const Edit& edit) {
  return [edit](GgufFile& f) {
    erase_key(f, "tokenizer.huggingface.json");
    edit(f);
  };
}

// tokenizer.huggingface.json of `f` parsed, changed by `edit` and stored again.
void edit_hf_json(GgufFile& f, const std::function<void(nlohmann::json&)>& edit) {
  GgufValue& v = meta(f, "tokenizer.huggingface.json");
  nlohmann::json j = nlohmann::json::parse(v.s);
  edit(j);
  v = GgufValue::of_string(j.dump());
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
      {"pre", arrays_only([](GgufFile& f) { meta(f, "tokenizer.ggml.pre") = GgufValue::of_string("deepseek-llm"); }),
       {"tokenizer.ggml.pre = \"deepseek-llm\" is not supported"}},
      {"tokenizer_model", [](GgufFile& f) { meta(f, "tokenizer.ggml.model") = GgufValue::of_string("bert"); },
       {"tokenizer.ggml.model = \"bert\" is not supported"}},
      {"no_merges", arrays_only([](GgufFile& f) { erase_key(f, "tokenizer.ggml.merges"); }),
       {"no key tokenizer.ggml.merges"}},
      {"rope_scaling", [](GgufFile& f) { meta(f, "llama.rope.scaling.type") = GgufValue::of_string("linear"); },
       {"rope.scaling.type = \"linear\""}},
      {"partial_rotary_llama", [](GgufFile& f) { meta(f, "llama.rope.dimension_count") = GgufValue::of_u32(12); },
       {"rope.dimension_count = 12", "partial rotary"}},
      {"too_many_tokens", [](GgufFile& f) { meta(f, "llama.vocab_size") = GgufValue::of_u32(200); },
       {"tokenizer.ggml.tokens has 300 tokens but the model has 200 embedding rows"}},
      // GGUF strings are UTF-8 and end in tokenizer.json: a stray byte is named with its place
      {"token_utf8", [](GgufFile& f) { meta(f, "tokenizer.ggml.tokens").array[7].s = "ab\xFF"; },
       {"tokenizer.ggml.tokens[7] is not valid UTF-8 (byte 0xFF at offset 2)"}},
      {"merge_utf8", arrays_only([](GgufFile& f) { meta(f, "tokenizer.ggml.merges").array[3].s = "\xE4\xB8 x"; }),
       {"tokenizer.ggml.merges[3] is not valid UTF-8 (byte 0xE4 at offset 0)"}},
      {"pre_utf8", arrays_only([](GgufFile& f) { meta(f, "tokenizer.ggml.pre") = GgufValue::of_string("gpt-\x80"); }),
       {"tokenizer.ggml.pre is not valid UTF-8 (byte 0x80 at offset 4)"}},
      // tokenizer.huggingface.json must describe the tokens llama.cpp runs (the first
      // disagreeing id named), and be a tokenizer.json at all
      {"hf_json_token", [](GgufFile& f) { meta(f, "tokenizer.ggml.tokens").array[260].s = "zz"; },
       {"tokenizer.huggingface.json disagrees with tokenizer.ggml.tokens at id 260", "vs 'zz'"}},
      {"hf_json_vocab", [](GgufFile& f) {
         edit_hf_json(f, [](nlohmann::json& j) { j["model"]["vocab"].erase("c"), j["model"]["vocab"]["q"] = 99; });
       }, {"disagrees with tokenizer.ggml.tokens at id 99: 'q' vs 'c'"}},
      {"hf_json_size", [](GgufFile& f) {
         edit_hf_json(f, [](nlohmann::json& j) {
           j["added_tokens"].push_back({{"id", 290}, {"content", "<|extra|>"}, {"special", true}});
         });
       }, {"tokenizer.huggingface.json has 291 tokens but tokenizer.ggml.tokens has 290"}},
      {"hf_json_id_twice", [](GgufFile& f) {
         edit_hf_json(f, [](nlohmann::json& j) { j["model"]["vocab"]["q"] = j["model"]["vocab"]["c"]; });
       }, {"model.vocab gives id 99 to both"}},
      {"hf_json_syntax", [](GgufFile& f) { meta(f, "tokenizer.huggingface.json") = GgufValue::of_string("{\"model\": ["); },
       {"tokenizer.huggingface.json: not valid JSON (syntax error at byte"}},
      {"hf_json_not_tokenizer", [](GgufFile& f) { meta(f, "tokenizer.huggingface.json") = GgufValue::of_string("[1]"); },
       {"tokenizer.huggingface.json has no model.vocab object"}},
      {"hf_json_utf8", [](GgufFile& f) { meta(f, "tokenizer.huggingface.json") = GgufValue::of_string("{\"a\xC0\xAF\": 1}"); },
       {"tokenizer.huggingface.json is not valid UTF-8 (byte 0xC0 at offset 3)"}},
      {"bos_past_vocab", [](GgufFile& f) { meta(f, "tokenizer.ggml.bos_token_id") = GgufValue::of_u32(99999); },
       {"tokenizer.ggml.bos_token_id = 99999 is not a token id of the vocabulary"}},
      // an embedding row (300) but no token of the 290 (the 10 padding rows are not tokens)
      {"eos_past_tokenizer", [](GgufFile& f) { meta(f, "tokenizer.ggml.eos_token_id") = GgufValue::of_u32(295); },
       {"tokenizer.ggml.eos_token_id=295 is not a token of the tokenizer (it holds 290 tokens"}},
      // the tokenizer built from the arrays must load, or nothing is written (issue 26, fresh-26)
      {"merge_unknown", arrays_only([](GgufFile& f) { meta(f, "tokenizer.ggml.merges").array[0].s = "zzq zzr"; }),
       {"the tokenizer of this GGUF file cannot be loaded", "model.merges[0] = 'zzq zzr'"}},
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

// A directory given as the GGUF file is named as one (not the C++ library's read error).
TEST(GgufImportErrors, ADirectoryIsNotAGgufFile) {
  const fs::path dir = test::fresh_temp_path("gguf_import_err", "dir_as_file");
  fs::create_directories(dir / "model.gguf");
  const CmdOut r = run_cli("convert --from gguf " + quote((dir / "model.gguf").string()) + " --output " +
                               quote((dir / "out").string()), dir / "err.txt");
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("model.gguf: is a directory, not a GGUF file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("basic_filebuf"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
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
