// GGUF quantized tensors (io/gguf/: ggml_type.h, dequant.h, reader.h): Q8_0, Q4_0, Q4_K
// and Q6_K dequantize bitwise like llama.cpp's gguf-py (random blocks, tests/data/gguf_quant/
// dequant_ref.gguf, made by tests/gen/gen_gguf_dequant_ref.py) and like hand-computed blocks
// (d = 1, known nibbles, Q4_K 6-bit scales and mins at 63 on both sides of their split packing,
// Q6_K int8 scales -128 and 127); every other ggml type is refused by name, rows that are not
// whole blocks and truncated quantized data are refused naming the tensor. Where llama.cpp's
// llama-quantize is built (scripts/build_llama_bench.sh llama-quantize), the model files it made
// (tests/data/gguf_quant/model-*.gguf) dequantize bitwise like ggml's own C code does.
// Bitwise is the right tolerance: each product in these formats is exact in float32 and Q4_K's
// one subtraction is rounded once (io/gguf/dequant.h), so every correct order gives the same bits.
#include <gtest/gtest.h>

#include "core/json_file.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "core/half.h"
#include "gguf_fixtures.h"
#include "io/gguf/dequant.h"
#include "io/gguf/reader.h"
#include "test_util.h"

using namespace llm0;
using llm0::testing_fixtures::error_of;

namespace {

// One tensor of a hand-assembled GGUF: dims in ggml order, any type code, raw bytes.
struct RawTensor {
  std::string name;
  std::vector<uint64_t> dims;
  uint32_t code;
  std::vector<uint8_t> bytes;
};

// A GGUF v3 file with no metadata and `tensors` laid out at 32-byte alignment (io/gguf/writer.h).
std::string raw_gguf(const std::vector<RawTensor>& tensors) {
  std::string b = "GGUF";
  const auto put = [&b](auto v) { b.append(reinterpret_cast<const char*>(&v), sizeof(v)); };
  put(uint32_t{3}), put(uint64_t{tensors.size()}), put(uint64_t{0});
  uint64_t offset = 0;
  for (const RawTensor& t : tensors) {
    put(uint64_t{t.name.size()}), b += t.name, put(uint32_t(t.dims.size()));
    for (uint64_t d : t.dims) put(d);
    put(t.code), put(offset);
    offset += (t.bytes.size() + 31) / 32 * 32;
  }
  b.resize((b.size() + 31) / 32 * 32, '\0');
  for (const RawTensor& t : tensors) {
    b.append(t.bytes.begin(), t.bytes.end());
    b.resize((b.size() + 31) / 32 * 32, '\0');
  }
  return b;
}

std::string write_temp(const std::string& name, const std::string& bytes) {
  const std::string path = test::fresh_temp_path("gguf_dequant", name);
  std::ofstream(path, std::ios::binary).write(bytes.data(), (std::streamsize)bytes.size());
  return path;
}

void put_half(std::vector<uint8_t>& b, size_t at, float v) {
  const uint16_t h = float_to_fp16(v);
  std::memcpy(b.data() + at, &h, 2);
}

std::vector<float> dequant(GgmlType type, const std::vector<uint8_t>& block) {
  std::vector<float> y(ggml_block_size(type));
  ggml_dequantize(type, block.data(), y.size(), y.data());
  return y;
}

// Q4_K's scale bytes from 8 six-bit scales and mins, packed as ggml's quantize_row_q4_K does:
// j < 4 in the low 6 bits of bytes j and j + 4; j >= 4 as nibbles of byte j + 4 plus their top
// two bits in the high 2 bits of bytes j - 4 (scale) and j (min).
std::vector<uint8_t> pack_q4_k_scales(const int sc[8], const int m[8]) {
  std::vector<uint8_t> s(12, 0);
  for (int j = 0; j < 8; ++j) {
    if (j < 4) {
      s[j] |= sc[j], s[j + 4] |= m[j];
    } else {
      s[j + 4] = (sc[j] & 0xF) | ((m[j] & 0xF) << 4);
      s[j - 4] |= (sc[j] >> 4) << 6, s[j] |= (m[j] >> 4) << 6;
    }
  }
  return s;
}

}  // namespace

TEST(GgufDequant, BlockGeometryIsGgmls) {
  // ggml.c type_traits: blck_size / type_size.
  const struct { GgmlType type; int block, bytes; } rows[] = {
      {GgmlType::F32, 1, 4},     {GgmlType::F16, 1, 2},     {GgmlType::BF16, 1, 2},
      {GgmlType::Q8_0, 32, 34},  {GgmlType::Q4_0, 32, 18},  {GgmlType::Q4_K, 256, 144},
      {GgmlType::Q6_K, 256, 210},
  };
  for (const auto& r : rows) {
    EXPECT_EQ(ggml_block_size(r.type), r.block) << ggml_type_name((uint32_t)r.type);
    EXPECT_EQ(ggml_type_size(r.type), r.bytes) << ggml_type_name((uint32_t)r.type);
  }
  EXPECT_EQ(ggml_nbytes(GgmlType::Q4_K, 3 * 256), 3u * 144);
  EXPECT_THROW(ggml_nbytes(GgmlType::Q8_0, 48), Error);
}

TEST(GgufDequant, MatchesGgufPyBitwiseOnRandomBlocks) {
  const GgufFile f = read_gguf(LLM0_SOURCE_DIR "/tests/data/gguf_quant/dequant_ref.gguf");
  const struct { const char* name; GgmlType type; uint64_t row; } rows[] = {
      {"Q8_0", GgmlType::Q8_0, 64}, {"Q4_0", GgmlType::Q4_0, 96},
      {"Q4_K", GgmlType::Q4_K, 512}, {"Q6_K", GgmlType::Q6_K, 512},
  };
  for (const auto& r : rows) {
    const GgufTensorInfo* q = f.tensor(r.name);
    const GgufTensorInfo* ref = f.tensor(std::string(r.name) + ".ref");
    ASSERT_TRUE(q != nullptr && ref != nullptr) << r.name;
    EXPECT_EQ(q->type, r.type);
    EXPECT_EQ(q->dims, (std::vector<uint64_t>{r.row, 3}));
    EXPECT_EQ(ref->dims, q->dims);
    const std::vector<float> got = q->to_float(), want = ref->to_float();
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      uint32_t a, b;
      std::memcpy(&a, &got[k], 4), std::memcpy(&b, &want[k], 4);
      ASSERT_EQ(a, b) << r.name << " element " << k << " (row " << k / r.row << "): " << got[k]
                      << " vs gguf-py " << want[k];
    }
  }
}

TEST(GgufDequant, Q8_0AndQ4_0HandBlocks) {
  std::vector<uint8_t> q8(34);
  put_half(q8, 0, 1.0f);
  for (int e = 0; e < 32; ++e) q8[2 + e] = (uint8_t)(int8_t)(e * 8 - 128);  // -128, -120, ..., 120
  std::vector<float> y = dequant(GgmlType::Q8_0, q8);
  for (int e = 0; e < 32; ++e) EXPECT_EQ(y[e], (float)(e * 8 - 128)) << e;
  put_half(q8, 0, -0.25f);
  y = dequant(GgmlType::Q8_0, q8);
  EXPECT_EQ(y[0], 32.0f);
  EXPECT_EQ(y[31], -30.0f);

  std::vector<uint8_t> q4(18);
  put_half(q4, 0, 1.0f);
  for (int j = 0; j < 16; ++j) q4[2 + j] = (uint8_t)(j | ((15 - j) << 4));  // low j, high 15 - j
  y = dequant(GgmlType::Q4_0, q4);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(y[j], (float)(j - 8)) << j;           // elements 0..15: low nibbles - 8
    EXPECT_EQ(y[16 + j], (float)(7 - j)) << j;      // elements 16..31: high nibbles - 8
  }
}

TEST(GgufDequant, Q4_KHandBlocks) {
  // All scale bytes 0xFF: every sc_j and m_j is 63 (j >= 4: 0xF | 0b11 << 4); all nibbles 15;
  // d = dmin = 1: x = 63 * 15 - 63 = 882 everywhere.
  std::vector<uint8_t> b(144, 0xFF);
  put_half(b, 0, 1.0f), put_half(b, 2, 1.0f);
  for (float x : dequant(GgmlType::Q4_K, b)) ASSERT_EQ(x, 882.0f);
  // Edge and mixed scales on both sides of the split packing, nibbles q_e = (7e + 3) % 16.
  const int sc[8] = {63, 0, 1, 62, 63, 32, 17, 48}, m[8] = {0, 63, 5, 63, 63, 1, 48, 15};
  const std::vector<uint8_t> s = pack_q4_k_scales(sc, m);
  std::copy(s.begin(), s.end(), b.begin() + 4);
  for (int e = 0; e < 256; ++e) {  // element e: byte 32 * (e / 64) + e % 32, high nibble if (e / 32) odd
    uint8_t& byte = b[16 + 32 * (e / 64) + e % 32];
    const int shift = 4 * ((e / 32) % 2);
    byte = (uint8_t)((byte & ~(0xF << shift)) | (((7 * e + 3) % 16) << shift));
  }
  put_half(b, 0, 0.125f), put_half(b, 2, 0.5f);  // d = 1/8, dmin = 1/2: every value exact
  const std::vector<float> y = dequant(GgmlType::Q4_K, b);
  for (int e = 0; e < 256; ++e) {
    const int j = e / 32;
    EXPECT_EQ(y[e], 0.125f * sc[j] * ((7 * e + 3) % 16) - 0.5f * m[j]) << "element " << e;
  }
  EXPECT_EQ(y[0], 0.125f * 63 * 3);               // j = 0: sc 63, m 0
  EXPECT_EQ(y[32 + 5], 0.0f - 0.5f * 63);         // j = 1: sc 0, m 63
  EXPECT_EQ(y[128], 0.125f * 63 * 3 - 0.5f * 63);  // j = 4: both 63 from the split bits
}

TEST(GgufDequant, Q6_KHandBlocks) {
  // ql = qh = 0xFF: q = 63 - 32 = 31; all scales 127; d = 1: 3937 everywhere. All zero bits with
  // scale -128: q = -32, x = 4096.
  std::vector<uint8_t> b(210, 0xFF);
  for (int k = 0; k < 16; ++k) b[192 + k] = 127;
  put_half(b, 208, 1.0f);
  for (float x : dequant(GgmlType::Q6_K, b)) ASSERT_EQ(x, 3937.0f);
  std::fill(b.begin(), b.begin() + 192, 0);
  for (int k = 0; k < 16; ++k) b[192 + k] = 0x80;
  for (float x : dequant(GgmlType::Q6_K, b)) ASSERT_EQ(x, 4096.0f);
  // Distinct scales per 16 elements and 6-bit values q_e = (5e + 1) % 64, packed as ggml's
  // quantize_row_q6_K: in half h, element r = 32g + l (g = 0..3) keeps its low nibble in
  // ql[64h + l + 32(g % 2)] (high nibble when g >= 2) and its top 2 bits at bit 2g of qh[32h + l].
  std::fill(b.begin(), b.end(), 0);
  const int8_t scales[16] = {-128, 127, -1, 0, 1, 2, 3, 5, 7, 11, 13, -17, 19, -23, 29, 64};
  for (int k = 0; k < 16; ++k) b[192 + k] = (uint8_t)scales[k];
  for (int e = 0; e < 256; ++e) {
    const int h = e / 128, g = (e % 128) / 32, l = e % 32, q = (5 * e + 1) % 64;
    b[64 * h + l + 32 * (g % 2)] |= (uint8_t)((q & 0xF) << (4 * (g / 2)));
    b[128 + 32 * h + l] |= (uint8_t)((q >> 4) << (2 * g));
  }
  put_half(b, 208, 1.0f);
  std::vector<float> y = dequant(GgmlType::Q6_K, b);
  for (int e = 0; e < 256; ++e)
    EXPECT_EQ(y[e], (float)(scales[e / 16] * ((5 * e + 1) % 64 - 32))) << "element " << e;
  EXPECT_EQ(y[0], -128.0f * (1 - 32));  // 3968
}

TEST(GgufDequant, EveryOtherGgmlTypeIsRefusedByName) {
  for (uint32_t code = 0; code <= 43; ++code) {
    if (ggml_type_is_read(code)) continue;
    const std::string path = write_temp("other.gguf", raw_gguf({{"blk.0.attn_q.weight", {256, 2}, code,
                                                                 std::vector<uint8_t>(2048)}}));
    const std::string name = ggml_type_name(code);
    const std::string msg = error_of([&] { read_gguf(path); });
    if (name.empty()) {
      EXPECT_NE(msg.find("tensor 'blk.0.attn_q.weight' has unknown ggml type 43; supported: F32, "
                         "F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K"), std::string::npos) << msg;
    } else {
      EXPECT_NE(msg.find("tensor 'blk.0.attn_q.weight' has type " + name + ", which llm0 does not "
                         "read; supported: F32, F16, BF16, Q8_0, Q4_0, Q4_K, Q6_K"),
                std::string::npos) << msg;
    }
  }
  EXPECT_EQ(ggml_type_name(13), "Q5_K");
  EXPECT_EQ(ggml_type_name(39), "MXFP4");
  EXPECT_EQ(ggml_type_name(34), "TQ1_0");
}

TEST(GgufDequant, RowsOfPartialBlocksAreRefused) {
  // 128 columns of Q4_K: half a 256-element block per row (ggml refuses such a tensor too).
  const std::string path = write_temp("partial.gguf", raw_gguf({{"output.weight", {128, 2}, 12,
                                                                 std::vector<uint8_t>(144)}}));
  EXPECT_NE(error_of([&] { read_gguf(path); }).find("tensor 'output.weight' of type Q4_K has rows "
                                                     "of 128 elements, not a multiple of its 256"),
            std::string::npos);
  GgufTensorInfo t{"hand", {48}, GgmlType::Q8_0, 0, std::vector<uint8_t>(34)};
  EXPECT_THROW(t.to_float(), Error);  // built by hand: 48 is not whole 32-element blocks
  t.dims = {64};
  EXPECT_NE(error_of([&] { t.to_float(); }).find("'hand': 34 bytes do not hold 64 elements of type "
                                                 "Q8_0"), std::string::npos);
}

TEST(GgufDequant, TruncatedQuantizedTensorIsRefused) {
  // Two Q6_K rows (420 bytes) then one Q8_0 row; cutting into the last tensor names it.
  std::vector<uint8_t> q6(420, 0), q8(68, 1);
  const std::string bytes = raw_gguf({{"a", {256, 2}, 14, q6}, {"b", {64}, 8, q8}});
  const size_t end = bytes.size() - (96 - 68);  // b's bytes end before its padding
  EXPECT_EQ(read_gguf(write_temp("whole.gguf", bytes.substr(0, end))).tensor("b")->to_float().size(), 64u);
  // Part of the last tensor's padding is accounted for too (io/gguf/reader.h).
  EXPECT_EQ(read_gguf(write_temp("part.gguf", bytes.substr(0, end + 10))).tensor("b")->bytes.size(), 68u);
  for (size_t cut : {size_t{1}, size_t{34}, size_t{67}}) {
    const std::string path = write_temp("cut.gguf", bytes.substr(0, end - cut));
    const std::string msg = error_of([&] { read_gguf(path); });
    EXPECT_NE(msg.find("truncated GGUF file: tensor b needs bytes"), std::string::npos) << msg;
  }
}

TEST(GgufDequant, WriterRefusesQuantizedTypes) {
  const std::vector<float> x(32, 1.0f);
  GgufWriter w;
  EXPECT_NE(error_of([&] { w.add_tensor("w", {32}, GgmlType::Q8_0, x.data()); })
                .find("does not write quantized type Q8_0"), std::string::npos);
}

// The same comparison on every machine: checksums of ggml's own F32 widening of the four files
// (tests/gen/gen_gguf_dequant_sums.py ran llama-quantize --allow-requantize ... F32 once, built from
// the bundled llama.cpp) against llm0's dequantization: sum_i w_i (2i + 1) mod 2^64 over the F32
// bytes read as little-endian uint32 words w_i, so any single differing float changes it.
TEST(GgufDequant, ModelFilesMatchGgmlsRecordedDequantization) {
  const std::string dir = LLM0_SOURCE_DIR "/tests/data/gguf_quant/";
  const nlohmann::json sums = read_json_file(dir + "ggml_f32_sums.json");
  ASSERT_EQ(sums.size(), 4u);
  for (const auto& [file, tensors] : sums.items()) {
    const GgufFile f = read_gguf(dir + file);
    ASSERT_EQ(f.tensors.size(), tensors.size()) << file;
    for (const GgufTensorInfo& t : f.tensors) {
      const std::vector<float> got = t.to_float();
      uint64_t sum = 0;
      for (size_t i = 0; i < got.size(); ++i) {
        uint32_t w;
        std::memcpy(&w, &got[i], 4);
        sum += uint64_t{w} * (2 * uint64_t{i} + 1);
      }
      ASSERT_TRUE(tensors.contains(t.name)) << file << " " << t.name;
      EXPECT_EQ(std::to_string(sum), tensors[t.name].get<std::string>()) << file << " " << t.name;
    }
  }
}

