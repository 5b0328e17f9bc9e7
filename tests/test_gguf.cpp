// GGUF writer/reader and export (src/io/gguf/): every metadata type round-trips, alignment comes
// from metadata as UINT32, truncated / big-endian / absurd files are refused, exported tensors
// equal the checkpoint's (RoPE row permutation undone for llama, checked against both RoPE
// layouts in double), and models llama.cpp cannot represent are refused with nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/check.h"
#include "core/half.h"
#include "io/checkpoint.h"
#include "io/gguf/export.h"
#include "io/gguf/reader.h"
#include "gguf_fixtures.h"
#include "model_fixtures.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/tokenizer.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;
namespace fs = std::filesystem;

namespace {

std::string temp_path(const std::string& name) { return test::fresh_temp_path("gguf", name); }

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), (std::streamsize)bytes.size());
}

// A file with one value of every type (arrays nested and of strings), alignment 64, three
// tensors (F16 3-D, F32 1-D with a size that needs padding, F32 4-D of exactly 64 bytes last).
GgufWriter sample_writer(std::vector<std::vector<float>>& data) {
  GgufWriter g;
  g.add("general.alignment", GgufValue::of_u32(64));
  g.add("u8", GgufValue::of_u8(250));
  g.add("i8", GgufValue::of_i8(-120));
  g.add("u16", GgufValue::of_u16(65000));
  g.add("i16", GgufValue::of_i16(-32000));
  g.add("u32", GgufValue::of_u32(4000000000u));
  g.add("i32", GgufValue::of_i32(-2000000000));
  g.add("u64", GgufValue::of_u64(0xFEDCBA9876543210ull));
  g.add("i64", GgufValue::of_i64(-0x7EDCBA9876543210ll));
  g.add("f32", GgufValue::of_f32(3.25f));
  g.add("f64", GgufValue::of_f64(-1.0 / 3.0));
  g.add("bool", GgufValue::of_bool(true));
  g.add("string", GgufValue::of_string("h\xC3\xA9llo \xE4\xB8\x96 \xF0\x9F\x98\x80"));
  g.add("empty", GgufValue::of_string(""));
  g.add("strings", GgufValue::of_strings({"a", "", "\xC4\xA0" "b"}));
  g.add("bools", GgufValue::of_array(GgufType::BOOL, {GgufValue::of_bool(false), GgufValue::of_bool(true)}));
  g.add("f64s", GgufValue::of_array(GgufType::FLOAT64, {GgufValue::of_f64(1e300)}));
  g.add("nested", GgufValue::of_array(GgufType::ARRAY, {GgufValue::of_i32s({1, -2, 3}),
                                                        GgufValue::of_i32s({})}));
  std::mt19937 rng(7);
  std::normal_distribution<float> n(0.0f, 1.0f);
  data = {std::vector<float>(2 * 3 * 5), std::vector<float>(7), std::vector<float>(16)};
  for (auto& d : data)
    for (float& x : d) x = n(rng);
  g.add_tensor("half3d", {2, 3, 5}, GgmlType::F16, data[0].data());
  g.add_tensor("vec", {7}, GgmlType::F32, data[1].data());
  g.add_tensor("last4d", {1, 2, 2, 4}, GgmlType::F32, data[2].data());
  return g;
}

}  // namespace

TEST(Gguf, RoundTripsEveryMetadataTypeAndTensor) {
  std::vector<std::vector<float>> data;
  const GgufWriter g = sample_writer(data);
  const std::string path = temp_path("roundtrip.gguf");
  g.write(path);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const GgufFile f = read_gguf(path);
  EXPECT_EQ(f.version, 3u);
  EXPECT_EQ(f.alignment, 64u);
  ASSERT_EQ(f.metadata.size(), 18u);
  EXPECT_EQ(f.metadata[0].first, "general.alignment");  // file order kept
  EXPECT_EQ(f.at("u8"), GgufValue::of_u8(250));
  EXPECT_EQ(f.at("i8"), GgufValue::of_i8(-120));
  EXPECT_EQ(f.at("u16"), GgufValue::of_u16(65000));
  EXPECT_EQ(f.at("i16"), GgufValue::of_i16(-32000));
  EXPECT_EQ(f.at("u32"), GgufValue::of_u32(4000000000u));
  EXPECT_EQ(f.at("i32"), GgufValue::of_i32(-2000000000));
  EXPECT_EQ(f.at("u64"), GgufValue::of_u64(0xFEDCBA9876543210ull));
  EXPECT_EQ(f.at("i64"), GgufValue::of_i64(-0x7EDCBA9876543210ll));
  EXPECT_EQ(f.at("f32"), GgufValue::of_f32(3.25f));
  EXPECT_EQ(f.at("f64"), GgufValue::of_f64(-1.0 / 3.0));
  EXPECT_EQ(f.at("bool"), GgufValue::of_bool(true));
  EXPECT_EQ(f.at("string").s, "h\xC3\xA9llo \xE4\xB8\x96 \xF0\x9F\x98\x80");
  EXPECT_EQ(f.at("empty"), GgufValue::of_string(""));
  EXPECT_EQ(f.at("strings"), GgufValue::of_strings({"a", "", "\xC4\xA0" "b"}));
  EXPECT_EQ(f.at("bools").array.size(), 2u);
  EXPECT_EQ(f.at("f64s").array.at(0).f, 1e300);
  EXPECT_EQ(f.at("nested").array_type, GgufType::ARRAY);
  EXPECT_EQ(f.at("nested").array.at(0), GgufValue::of_i32s({1, -2, 3}));
  EXPECT_EQ(f.find("missing"), nullptr);
  ASSERT_EQ(f.tensors.size(), 3u);
  const GgufTensorInfo& h = f.tensors[0];
  EXPECT_EQ(h.dims, (std::vector<uint64_t>{5, 3, 2}));  // ggml order: PyTorch's reversed
  EXPECT_EQ(h.shape(), (std::vector<int64_t>{2, 3, 5}));
  EXPECT_EQ(h.type, GgmlType::F16);
  const std::vector<float> hv = h.to_float();
  for (size_t k = 0; k < hv.size(); ++k) EXPECT_EQ(hv[k], fp16_to_float(float_to_fp16(data[0][k])));
  EXPECT_EQ(f.tensors[1].to_float(), data[1]);
  EXPECT_EQ(f.tensors[2].to_float(), data[2]);
  for (const GgufTensorInfo& t : f.tensors) EXPECT_EQ(t.offset % 64, 0u) << t.name;
  EXPECT_EQ(f.tensors[1].offset, 64u);   // 60 bytes of F16 padded to 64
  EXPECT_EQ(f.tensors[2].offset, 128u);  // 28 bytes of F32 padded to 64
}

TEST(Gguf, EveryTruncationIsRefused) {
  std::vector<std::vector<float>> data;
  const std::string path = temp_path("trunc.gguf"), cut = temp_path("cut.gguf");
  sample_writer(data).write(path);
  const std::string bytes = read_bytes(path);  // the last tensor ends exactly at the end
  for (size_t n = 0; n < bytes.size(); ++n) {
    write_bytes(cut, bytes.substr(0, n));
    EXPECT_THROW(read_gguf(cut), Error) << "prefix of " << n << " bytes";
  }
  write_bytes(cut, bytes.substr(0, bytes.size() - 1));
  EXPECT_NE(error_of([&] { read_gguf(cut); }).find("truncated"), std::string::npos);
}

TEST(Gguf, AlignmentMustBeUint32AndFilesLittleEndian) {
  std::vector<std::vector<float>> data;
  const std::string path = temp_path("align.gguf");
  sample_writer(data).write(path);
  std::string bytes = read_bytes(path);
  // general.alignment's type code follows its key: UINT32 (4) -> INT32 (5), same payload size.
  const size_t at = bytes.find("general.alignment") + std::strlen("general.alignment");
  ASSERT_EQ(bytes[at], 4);
  bytes[at] = 5;
  write_bytes(path, bytes);
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("UINT32"), std::string::npos);
  bytes[at] = 4;
  bytes[4] = 0, bytes[7] = 3;  // version 3 stored big-endian
  write_bytes(path, bytes);
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("big-endian"), std::string::npos);
  EXPECT_THROW(GgufWriter().add("general.alignment", GgufValue::of_u64(32)), Error);
  EXPECT_THROW(GgufWriter().add("general.alignment", GgufValue::of_u32(48)), Error);
}

TEST(Gguf, HugeLengthsAreRefusedBeforeAllocating) {
  std::string b = "GGUF";
  const auto put = [&b](auto v) { b.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(uint32_t{3}), put(uint64_t{0}), put(uint64_t{1});
  put(uint64_t{1}), b += "a", put(uint32_t{9}), put(uint32_t{0}), put(uint64_t{1} << 62);
  const std::string path = temp_path("huge.gguf");
  write_bytes(path, b);
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("truncated"), std::string::npos);
  std::string s = b.substr(0, 24);
  for (int k = 0; k < 8; ++k) s[16 + k] = '\xFF';  // metadata count near 2^64
  write_bytes(path, s);
  EXPECT_THROW(read_gguf(path), Error);
  write_bytes(path, "GGUX" + b.substr(4));
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("magic"), std::string::npos);
}

TEST(Gguf, EmptyKeysAndTensorNamesAreRefusedAsTheWriterDoes) {
  // Found by tests/fuzz/fuzz_gguf.cpp (corpus/gguf/crash-empty-key): the reader accepted a key ""
  // that GgufWriter refuses, so a file read could not be written back.
  std::string b = "GGUF";
  const auto put = [&b](auto v) { b.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(uint32_t{3}), put(uint64_t{0}), put(uint64_t{2});
  put(uint64_t{1}), b += "a", put(uint32_t{4}), put(uint32_t{7});  // "a" = UINT32 7
  put(uint64_t{0}), put(uint32_t{4}), put(uint32_t{8});             // ""  = UINT32 8
  const std::string path = temp_path("empty_key.gguf");
  write_bytes(path, b);
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("metadata key 2 of 2 is empty"), std::string::npos);
  std::string t = "GGUF";
  const auto tput = [&t](auto v) { t.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  tput(uint32_t{3}), tput(uint64_t{1}), tput(uint64_t{0});
  tput(uint64_t{0}), tput(uint32_t{1}), tput(uint64_t{1}), tput(uint32_t{0}), tput(uint64_t{0});
  t.resize(64, '\0');
  t += std::string(4, '\0');  // the one F32 element
  write_bytes(path, t);
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("tensor 1 of 1 has an empty name"), std::string::npos);
  t[24] = 1, t.insert(32, "w");  // the same tensor named "w" reads
  t.erase(64, 1);
  write_bytes(path, t);
  EXPECT_EQ(read_gguf(path).tensors.at(0).name, "w");
}

TEST(Gguf, ZeroElementTensorsWithHugeExtentsRoundTripAndOverflowIsRefused) {
  // Found by tests/fuzz/fuzz_gguf.cpp (corpus/gguf/crash-zero-dim-overflow): a file may hold a
  // 0-element tensor whose other extents are huge; writing it back multiplied them first
  // (2047 x 2^63-ish: signed overflow, undefined behaviour) before reaching the 0.
  GgufWriter w;
  const int64_t huge = INT64_MAX - 65535;
  w.add_tensor("empty", {2047, huge, 0}, GgmlType::F16, nullptr);
  EXPECT_NE(error_of([&] { w.add_tensor("big", {int64_t{1} << 40, int64_t{1} << 40}, GgmlType::F32, nullptr); })
                .find("element count of shape [1099511627776, 1099511627776] overflows"),
            std::string::npos);
  EXPECT_NE(error_of([&] { w.add_tensor("bytes", {int64_t{1} << 62}, GgmlType::F32, nullptr); })
                .find("overflow the byte count"),
            std::string::npos);
  const std::string path = temp_path("empty_huge.gguf");
  w.write(path);
  const GgufFile f = read_gguf(path);
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].shape(), (std::vector<int64_t>{2047, huge, 0}));
  EXPECT_TRUE(f.tensors[0].bytes.empty());
}

// Rotate-half RoPE of v then the row permutation == adjacent-pair RoPE of the permuted v (per
// head, in double), which is why llama's Q and K rows are permuted on export.
TEST(Gguf, RopePermutationMapsRotateHalfToAdjacentPairs) {
  const int H = 3, D = 8;
  const double theta = 10000.0, pos = 37;
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::vector<float> v(H * D);
  for (float& x : v) x = n(rng);
  std::vector<float> rh(v.size()), il(v.size());
  const std::vector<float> pv = rope_rows_to_interleaved(v.data(), H, D, 1);
  for (int h = 0; h < H; ++h)
    for (int i = 0; i < D / 2; ++i) {
      const double a = pos * std::pow(theta, -2.0 * i / D), c = std::cos(a), s = std::sin(a);
      const float* x = v.data() + h * D;
      rh[h * D + i] = (float)(x[i] * c - x[i + D / 2] * s);
      rh[h * D + i + D / 2] = (float)(x[i + D / 2] * c + x[i] * s);
      const float* y = pv.data() + h * D;
      il[h * D + 2 * i] = (float)(y[2 * i] * c - y[2 * i + 1] * s);
      il[h * D + 2 * i + 1] = (float)(y[2 * i + 1] * c + y[2 * i] * s);
    }
  EXPECT_EQ(rope_rows_to_interleaved(rh.data(), H, D, 1), il);
  EXPECT_EQ(rope_rows_to_rotate_half(pv.data(), H, D, 1), v);
}

namespace {

ModelConfig export_config(const std::string& type, bool tied) {
  ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, type == "qwen3");
  c.vocab_size = 300, c.tie_word_embeddings = tied;
  c.validate();
  return c;
}

// Every exported tensor equals the checkpoint's parameter (Q/K rows restored for llama).
void expect_tensors_match(const GgufFile& f, const Model& m, bool llama) {
  const ModelConfig& c = m.config();
  ASSERT_EQ(f.tensors.size(), m.params().params().size());
  for (const ParamInfo& p : m.params().params()) {
    const GgufTensorInfo* t = f.tensor(gguf_tensor_name(p.name));
    ASSERT_NE(t, nullptr) << p.name;
    EXPECT_EQ(t->shape(), p.shape.dims) << p.name;
    EXPECT_EQ(t->type, GgmlType::F32) << p.name;
    std::vector<float> got = t->to_float();
    const bool q = p.name.ends_with("q_proj.weight"), k = p.name.ends_with("k_proj.weight");
    if (llama && (q || k))
      got = rope_rows_to_rotate_half(got.data(), q ? c.num_attention_heads : c.num_key_value_heads,
                                     c.head_dim, c.hidden_size);
    const float* want = m.params().value(p.name);
    EXPECT_EQ(got, std::vector<float>(want, want + p.numel)) << p.name;
  }
}

}  // namespace

TEST(GgufExport, LlamaTensorsAndMetadata) {
  const ModelConfig cfg = export_config("llama", false);
  const std::string dir = make_checkpoint(cfg, "llama", true), out = temp_path("llama.gguf");
  const GgufExportSummary s = export_gguf(dir, out);
  EXPECT_EQ(s.architecture, "llama");
  const GgufFile f = read_gguf(out);
  EXPECT_EQ(f.at("general.architecture").s, "llama");
  EXPECT_EQ(f.at("llama.block_count").u, 2u);
  EXPECT_EQ(f.at("llama.attention.head_count").u, 4u);
  EXPECT_EQ(f.at("llama.attention.head_count_kv").u, 2u);
  EXPECT_EQ(f.at("llama.attention.key_length").u, 24u);  // 24 != 28 / 4
  EXPECT_EQ(f.at("llama.rope.dimension_count").u, 24u);
  EXPECT_EQ(f.at("llama.context_length").u, 64u);
  EXPECT_EQ(f.at("llama.feed_forward_length").u, 44u);
  EXPECT_FLOAT_EQ((float)f.at("llama.attention.layer_norm_rms_epsilon").f, 1e-5f);
  EXPECT_EQ(f.at("llama.rope.freq_base").f, 10000.0);
  const Tokenizer tok = Tokenizer::load(dir + "/tokenizer.json");
  const auto& tokens = f.at("tokenizer.ggml.tokens").array;
  const auto& types = f.at("tokenizer.ggml.token_type").array;
  ASSERT_EQ(tokens.size(), 300u);
  EXPECT_EQ(tokens[' '].s, "\xC4\xA0");  // byte 0x20 -> U+0120
  for (int id = 0; id < tok.vocab_size(); ++id) {
    if (types[(size_t)id].i != 1) continue;
    EXPECT_EQ(byte_level_to_bytes(tokens[(size_t)id].s), tok.token_bytes(id)) << id;
  }
  const int eos = tok.eos_id();
  EXPECT_EQ(tokens[(size_t)eos].s, "<|endoftext|>");
  EXPECT_EQ(types[(size_t)eos].i, 3);
  EXPECT_EQ(types[299].i, 5);
  EXPECT_EQ(f.at("tokenizer.ggml.eos_token_id").u, (uint64_t)eos);
  EXPECT_EQ(f.at("tokenizer.ggml.merges").array.size(), tok.merges().size());
  EXPECT_EQ(f.at("tokenizer.ggml.pre").s, "gpt-2");
  ASSERT_NE(f.tensor("output.weight"), nullptr);
  expect_tensors_match(f, *load_model(dir), true);
}

TEST(GgufExport, Qwen3TiedKeepsRotateHalfAndOmitsOutput) {
  const ModelConfig cfg = export_config("qwen3", true);
  const std::string dir = make_checkpoint(cfg, "qwen3", true), out = temp_path("qwen3.gguf");
  EXPECT_EQ(export_gguf(dir, out).architecture, "qwen3");
  const GgufFile f = read_gguf(out);
  EXPECT_EQ(f.at("general.architecture").s, "qwen3");
  EXPECT_EQ(f.tensor("output.weight"), nullptr);
  ASSERT_NE(f.tensor("blk.1.attn_k_norm.weight"), nullptr);
  expect_tensors_match(f, *load_model(dir), false);
  // f16: matrices rounded to nearest even, norms stay f32.
  const std::string out16 = temp_path("qwen3_f16.gguf");
  export_gguf(dir, out16, GgmlType::F16);
  const GgufFile h = read_gguf(out16);
  EXPECT_EQ(h.at("general.file_type").u, 1u);
  EXPECT_EQ(h.tensor("blk.0.attn_q_norm.weight")->type, GgmlType::F32);
  const GgufTensorInfo* e = h.tensor("token_embd.weight");
  ASSERT_EQ(e->type, GgmlType::F16);
  const std::vector<float> got = e->to_float();
  const std::unique_ptr<Model> m = load_model(dir);
  const float* want = m->params().value("model.embed_tokens.weight");
  for (size_t k = 0; k < got.size(); ++k) ASSERT_EQ(got[k], fp16_to_float(float_to_fp16(want[k])));
}

// deepseek2 (MLA): llama.cpp's keys (one KV head of r + dr, the per-head sizes in *_mla, every
// layer dense, q_lora_rank 0 for q_proj) and kv_b_proj split into attn_k_b (each head's W_UK
// transposed, [H, r, dn]) and attn_v_b ([H, dv, r]); every other tensor as stored.
TEST(GgufExport, DeepSeek2SplitsKvBAndWritesMlaKeys) {
  ModelConfig cfg = mla_model_config(0);
  cfg.vocab_size = 300, cfg.rms_norm_eps = 1e-6;
  cfg.validate();
  const std::string dir = make_checkpoint(cfg, "mla", true), out = temp_path("mla.gguf");
  EXPECT_EQ(export_gguf(dir, out).architecture, "deepseek2");
  const GgufFile f = read_gguf(out);
  const std::string a = "deepseek2.";
  EXPECT_EQ(f.at(a + "attention.head_count").u, 3u);
  EXPECT_EQ(f.at(a + "attention.head_count_kv").u, 1u);
  EXPECT_EQ(f.at(a + "attention.key_length").u, 15u);   // r 11 + dr 4
  EXPECT_EQ(f.at(a + "attention.value_length").u, 11u);  // r
  EXPECT_EQ(f.at(a + "attention.key_length_mla").u, 9u);  // dn 5 + dr 4
  EXPECT_EQ(f.at(a + "attention.value_length_mla").u, 7u);
  EXPECT_EQ(f.at(a + "attention.q_lora_rank").u, 0u);
  EXPECT_EQ(f.at(a + "attention.kv_lora_rank").u, 11u);
  EXPECT_EQ(f.at(a + "rope.dimension_count").u, 4u);
  EXPECT_EQ(f.at(a + "leading_dense_block_count").u, 2u);
  const auto m = load_model(dir);
  const int H = 3, r = 11, dn = 5, dv = 7;
  const float* kv_b = m->params().value("model.layers.1.self_attn.kv_b_proj.weight");
  const GgufTensorInfo* kb = f.tensor("blk.1.attn_k_b.weight");
  const GgufTensorInfo* vb = f.tensor("blk.1.attn_v_b.weight");
  ASSERT_NE(kb, nullptr);
  ASSERT_NE(vb, nullptr);
  EXPECT_EQ(kb->shape(), (std::vector<int64_t>{H, r, dn}));
  EXPECT_EQ(vb->shape(), (std::vector<int64_t>{H, dv, r}));
  const std::vector<float> k = kb->to_float(), v = vb->to_float();
  for (int h = 0; h < H; ++h)
    for (int j = 0; j < r; ++j) {
      for (int i = 0; i < dn; ++i)
        EXPECT_EQ(k[((size_t)h * r + j) * dn + i], kv_b[((size_t)h * (dn + dv) + i) * r + j]);
      for (int i = 0; i < dv; ++i)
        EXPECT_EQ(v[((size_t)h * dv + i) * r + j], kv_b[((size_t)h * (dn + dv) + dn + i) * r + j]);
    }
  for (const char* n : {"blk.0.attn_q.weight", "blk.0.attn_kv_a_mqa.weight",
                        "blk.0.attn_kv_a_norm.weight", "blk.0.attn_output.weight"})
    EXPECT_NE(f.tensor(n), nullptr) << n;
  EXPECT_EQ(f.tensor("blk.0.attn_kv_b.weight"), nullptr);
  // llama.cpp normalises the latents with rms_norm_eps: other values are refused by name.
  cfg.rms_norm_eps = 1e-5;
  const std::string dir5 = make_checkpoint(cfg, "mla_eps", true);
  EXPECT_NE(error_of([&] { export_gguf(dir5, temp_path("mla5.gguf")); }).find("rms_norm_eps"),
            std::string::npos);
}

TEST(GgufExport, RefusesWhatLlamaCppCannotRepresent) {
  struct Case { std::string feature; std::function<void(ModelConfig&)> edit; };
  const std::vector<Case> cases = {
      {"learned absolute positions", [](ModelConfig& c) { c.position = PositionKind::Learned; }},
      {"no (NoPE) positions", [](ModelConfig& c) { c.position = PositionKind::None; }},
      {"LayerNorm", [](ModelConfig& c) { c.norm = NormKind::LayerNorm; }},
      {"GELU MLP", [](ModelConfig& c) { c.hidden_act = "gelu_new"; }},
      {"attention biases", [](ModelConfig& c) { c.attention_bias = true; }},
      {"MLP biases", [](ModelConfig& c) { c.mlp_bias = true; }},
      {"partial rotary", [](ModelConfig& c) { c.partial_rotary_factor = 0.5; }},
      {"QK-norm", [](ModelConfig& c) { c.use_qk_norm = true; }},
      {"requires QK-norm", [](ModelConfig& c) { c.model_type = "qwen3", c.use_qk_norm = false; }},
      {"model_type \"gpt2\"", [](ModelConfig& c) { c.model_type = "gpt2"; }},
  };
  for (const Case& k : cases) {
    ModelConfig c = export_config("llama", false);
    k.edit(c);
    c.validate();
    const std::string dir = temp_path("refuse"), out = temp_path("refuse.gguf");
    fs::create_directories(dir);
    std::ofstream(dir + "/config.json") << c.to_json().dump();  // refused before weights load
    const std::string msg = error_of([&] { export_gguf(dir, out); });
    EXPECT_NE(msg.find(k.feature), std::string::npos) << k.feature << ": " << msg;
    EXPECT_FALSE(fs::exists(out)) << k.feature;
  }
}

// A layer kind llama.cpp has in no architecture (llm0's shared-KV attention) is refused by its
// name before anything is read or written, not at its first tensor ("kv_proj.weight has no
// llama.cpp tensor name"): a full checkpoint (weights and tokenizer) leaves no output file.
TEST(GgufExport, RefusesAKindLlamaCppLacksByItsNameUpFront) {
  nlohmann::json j = export_config("llama", false).to_json();
  j["layer_types"] = {"full_attention", "shared_kv_attention"};
  const std::string dir = make_checkpoint(ModelConfig::from_json(j), "shared_kv", true);
  const std::string out = temp_path("shared_kv.gguf");
  const std::string msg = error_of([&] { export_gguf(dir, out); });
  EXPECT_NE(msg.find("layer 1 is shared-KV attention (layer_types \"shared_kv_attention\"), "
                     "which llama.cpp has in no architecture"), std::string::npos) << msg;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_FALSE(fs::exists(out + ".tmp"));
}

TEST(GgufExport, MissingTokenizerAndUnwritableOutputLeaveNothing) {
  const std::string bare = make_checkpoint(export_config("llama", false), "bare", false);
  const std::string out = temp_path("bare.gguf");
  EXPECT_NE(error_of([&] { export_gguf(bare, out); }).find("tokenizer.json"), std::string::npos);
  EXPECT_FALSE(fs::exists(out));
  const std::string dir = make_checkpoint(export_config("llama", false), "ok", true);
  const std::string bad = temp_path("no_such_dir") + "/x.gguf";
  EXPECT_NE(error_of([&] { export_gguf(dir, bad); }).find(bad), std::string::npos);
  EXPECT_FALSE(fs::exists(bad));
  EXPECT_FALSE(fs::exists(bad + ".tmp"));
}

// --dtype bf16: every matrix is BF16 (ggml type 30), its values the checkpoint's rounded to
// nearest even (Q/K rows restored for llama); 1-D tensors stay F32; file_type MOSTLY_BF16 (32).
TEST(GgufExport, Bf16MatricesAreTheRoundedParameters) {
  const std::string dir = make_checkpoint(export_config("llama", false), "bf16", true);
  const std::string out = temp_path("bf16.gguf");
  export_gguf(dir, out, GgmlType::BF16);
  const GgufFile f = read_gguf(out);
  EXPECT_EQ(f.at("general.file_type").u, 32u);
  const auto m = load_model(dir);
  const ModelConfig& c = m->config();
  for (const ParamInfo& p : m->params().params()) {
    const GgufTensorInfo* t = f.tensor(gguf_tensor_name(p.name));
    ASSERT_NE(t, nullptr) << p.name;
    EXPECT_EQ(t->type, p.shape.rank() == 1 ? GgmlType::F32 : GgmlType::BF16) << p.name;
    std::vector<float> got = t->to_float();
    const bool q = p.name.ends_with("q_proj.weight"), k = p.name.ends_with("k_proj.weight");
    if (q || k)
      got = rope_rows_to_rotate_half(got.data(), q ? c.num_attention_heads : c.num_key_value_heads,
                                     c.head_dim, c.hidden_size);
    const float* want = m->params().value(p.name);
    for (size_t i = 0; i < p.numel; ++i) {
      const float w = p.shape.rank() == 1 ? want[i] : bf16_to_float(float_to_bf16(want[i]));
      ASSERT_EQ(got[i], w) << p.name << " [" << i << "]";
    }
  }
}

TEST(GgufExport, CliWritesFileAndRejectsBadDtype) {
  const std::string dir = make_checkpoint(export_config("llama", false), "cli", true);
  const std::string out = temp_path("cli.gguf");
  const std::string cli = LLM0_CLI;
  ASSERT_EQ(std::system((cli + " export gguf --model " + dir + " --output " + out +
                         " --dtype f16 > /dev/null").c_str()), 0);
  EXPECT_EQ(read_gguf(out).at("general.file_type").u, 1u);
  EXPECT_NE(std::system((cli + " export gguf --model " + dir + " --output " + out +
                         " --dtype q4 2> /dev/null").c_str()), 0);
}

// Mixture of experts: qwen3moe (every layer MoE) and deepseek2 (MLA + V3 routing) with the
// experts stacked [E, Fe, C] / [E, C, Fe], expert e's slice equal to its own tensor, the router
// and correction bias as llama.cpp names them, and the routing metadata; configs llama.cpp would
// run differently are refused by name.
TEST(GgufExport, MixtureOfExpertsStacksTheExperts) {
  for (const std::string family : {"qwen3_moe", "deepseek_v3"}) {
    ModelConfig cfg = moe_model_config(family);
    cfg.vocab_size = 300;
    if (family == "qwen3_moe") cfg.layers[0].ffn = FfnKind::Moe, cfg.moe.mlp_only_layers.clear();
    cfg.rms_norm_eps = 1e-6;
    cfg.validate();
    const std::string dir = make_checkpoint(cfg, family, true), out = temp_path(family + ".gguf");
    const std::string arch = family == "qwen3_moe" ? "qwen3moe" : "deepseek2";
    EXPECT_EQ(export_gguf(dir, out).architecture, arch);
    const GgufFile f = read_gguf(out);
    const std::unique_ptr<Model> m = load_model(dir);
    const MoeConfig& moe = cfg.moe;
    const int E = moe.num_experts, Fe = moe.moe_intermediate_size, C = cfg.hidden_size;
    EXPECT_EQ(f.at(arch + ".expert_count").u, (uint64_t)E);
    EXPECT_EQ(f.at(arch + ".expert_used_count").u, (uint64_t)moe.num_experts_per_tok);
    EXPECT_EQ(f.at(arch + ".expert_feed_forward_length").u, (uint64_t)Fe);
    const GgufTensorInfo* down = f.tensor("blk.1.ffn_down_exps.weight");
    ASSERT_NE(down, nullptr);
    EXPECT_EQ(down->shape(), (std::vector<int64_t>{E, C, Fe}));
    EXPECT_EQ(f.tensor("blk.1.ffn_gate_exps.weight")->shape(), (std::vector<int64_t>{E, Fe, C}));
    const std::vector<float> d = down->to_float();
    const float* e2 = m->params().value("model.layers.1.mlp.experts.2.down_proj.weight");
    EXPECT_EQ(std::vector<float>(d.begin() + 2 * C * Fe, d.begin() + 3 * C * Fe),
              std::vector<float>(e2, e2 + C * Fe));
    ASSERT_NE(f.tensor("blk.1.ffn_gate_inp.weight"), nullptr);
    if (family == "deepseek_v3") {
      EXPECT_EQ(f.at("deepseek2.expert_gating_func").u, 2u);  // sigmoid
      EXPECT_EQ(f.at("deepseek2.expert_group_count").u, 4u);
      EXPECT_EQ(f.at("deepseek2.expert_group_used_count").u, 2u);
      EXPECT_EQ(f.at("deepseek2.expert_shared_count").u, 2u);
      EXPECT_FLOAT_EQ((float)f.at("deepseek2.expert_weights_scale").f, 2.5f);
      EXPECT_EQ(f.at("deepseek2.leading_dense_block_count").u, 0u);
      ASSERT_NE(f.tensor("blk.0.exp_probs_b.bias"), nullptr);
      EXPECT_EQ(f.tensor("blk.0.ffn_up_shexp.weight")->shape(), (std::vector<int64_t>{12, C}));
    }
  }
  ModelConfig renorm_off = moe_model_config("qwen3_moe");
  renorm_off.vocab_size = 300, renorm_off.layers[0].ffn = FfnKind::Moe;
  renorm_off.moe.mlp_only_layers.clear();
  renorm_off.moe.norm_topk_prob = false;
  const std::string dir = make_checkpoint(renorm_off, "qwen3_moe_norm_off", true);
  EXPECT_NE(error_of([&] { export_gguf(dir, temp_path("x.gguf")); }).find("norm_topk_prob"),
            std::string::npos);
  const std::string qwen2 = make_checkpoint(moe_model_config("qwen2_moe"), "qwen2_moe", true);
  EXPECT_NE(error_of([&] { export_gguf(qwen2, temp_path("y.gguf")); }).find("qwen2_moe"),
            std::string::npos);
  // qwen3_moe with every layer dense: llama.cpp's qwen3moe would miss ffn_gate_inp.
  ModelConfig dense = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true);
  dense.model_type = "qwen3_moe", dense.vocab_size = 300, dense.rms_norm_eps = 1e-6;
  dense.validate();
  const std::string dense_dir = make_checkpoint(dense, "qwen3_moe_dense", true);
  EXPECT_NE(error_of([&] { export_gguf(dense_dir, temp_path("z.gguf")); }).find("no mixture-of-experts layer"),
            std::string::npos);
}
