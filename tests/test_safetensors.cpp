// safetensors reader/writer (src/io/safetensors.h): round trips, F16/BF16 files built byte by
// byte with known values, every malformed input from shared/TESTING.md section 8 rejected with
// an llm0::Error naming the field/tensor, and the valid edge cases accepted.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "io/safetensors.h"

using namespace llm0;

namespace {

std::string tmp_path(const std::string& name) {
  return ::testing::TempDir() + "llm0_st_" + std::to_string(::getpid()) + "_" + name;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return s;
}

// A file: header length (len, or header.size() when absent), header text, data bytes.
std::string st_file(const std::string& header, const std::string& data,
                    std::optional<uint64_t> len = std::nullopt) {
  return le64(len.value_or(header.size())) + header + data;
}

std::string u16s(std::initializer_list<uint16_t> v) {
  std::string s;
  for (uint16_t x : v) s += static_cast<char>(x & 0xff), s += static_cast<char>(x >> 8);
  return s;
}

std::string f32s(std::initializer_list<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), std::data(v), s.size());
  return s;
}

// Expects read_safetensors(bytes written to a file) to throw llm0::Error whose message holds
// every string in `parts`.
void expect_error(const std::string& bytes, std::initializer_list<std::string> parts) {
  const std::string path = tmp_path("bad.safetensors");
  write_bytes(path, bytes);
  try {
    read_safetensors(path);
    ADD_FAILURE() << "no error for file " << bytes.substr(0, 200);
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    for (const std::string& p : parts)
      EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

std::vector<float> random_values(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

TEST(Safetensors, RoundTripF32) {
  const std::string path = tmp_path("rt.safetensors");
  const std::vector<float> a = random_values(3 * 5 * 2, 1), b = random_values(7, 2), c = {42.5f};
  write_safetensors(path,
                    {{"model.a", Shape{3, 5, 2}, a.data()},
                     {"b", Shape{7}, b.data()},
                     {"scalar", Shape{}, c.data()},
                     {"empty", Shape{0, 4}, nullptr}},
                    {{"format", "pt"}, {"step", "12"}});
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const SafetensorsFile f = read_safetensors(path);
  ASSERT_EQ(f.tensors.size(), 4u);
  EXPECT_EQ(f.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"step", "12"}}));
  EXPECT_EQ(f.tensors.at("model.a").shape, (Shape{3, 5, 2}));
  EXPECT_EQ(f.tensors.at("model.a").dtype, DType::F32);
  EXPECT_EQ(f.tensors.at("model.a").values, a);
  EXPECT_EQ(f.tensors.at("b").values, b);
  EXPECT_EQ(f.tensors.at("scalar").shape, Shape{});
  EXPECT_EQ(f.tensors.at("scalar").values, c);
  EXPECT_EQ(f.tensors.at("empty").shape, (Shape{0, 4}));
  EXPECT_TRUE(f.tensors.at("empty").values.empty());
  // Layout: header padded to a multiple of 8; data follows in the given order, raw little-endian.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + n + 4 * (30 + 7 + 1));
  EXPECT_EQ(std::memcmp(bytes.data() + 8 + n, a.data(), 4 * a.size()), 0);
  const std::string header = bytes.substr(8, n);  // JSON, then only space padding
  EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}'));
}

TEST(Safetensors, RoundTripBF16AndF16) {
  const std::string path = tmp_path("rt16.safetensors");
  std::vector<float> v = random_values(1000, 3);
  v[0] = 3.14159265358979f;
  for (DType dt : {DType::BF16, DType::F16}) {
    write_safetensors(path, {{"w", Shape{10, 100}, v.data()}}, {}, dt);
    const SafetensorsEntry e = read_safetensors(path).tensors.at("w");
    EXPECT_EQ(e.dtype, dt);
    EXPECT_EQ(std::filesystem::file_size(path) % 2, 0u);
    // Round to nearest: relative error <= 2^-(mantissa bits + 1): bf16 7 bits, fp16 10 bits
    // (all |v| here are far above fp16's subnormal range or are exactly handled below).
    const double rel = dt == DType::BF16 ? std::ldexp(1.0, -8) : std::ldexp(1.0, -11);
    for (size_t i = 0; i < v.size(); ++i)
      ASSERT_LE(std::fabs(e.values[i] - v[i]), rel * std::fabs(v[i]) + 1e-7) << i;
    EXPECT_EQ(e.values[0], 3.140625f);  // pi in bf16 (0x4049) and in fp16 (0x4248)
  }
}

TEST(Safetensors, F16FileBuiltByteByByte) {
  const std::string header = R"({"h":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]}})";
  const std::string path = tmp_path("f16.safetensors");
  write_bytes(path, st_file(header, u16s({0x3c00, 0xc100, 0x7bff, 0x0001, 0x8000, 0x3555})));
  const SafetensorsEntry e = read_safetensors(path).tensors.at("h");
  EXPECT_EQ(e.dtype, DType::F16);
  EXPECT_EQ(e.shape, (Shape{2, 3}));
  const std::vector<float> want = {
      1.0f, -2.5f, 65504.0f, 5.9604644775390625e-08f /*2^-24*/, -0.0f, 0.333251953125f};
  EXPECT_EQ(e.values, want);
  EXPECT_TRUE(std::signbit(e.values[4]));
}

TEST(Safetensors, BF16AndMixedDtypesBuiltByteByByte) {
  // Tensors listed out of data order, two dtypes in one file. (With an unused gap of 4 bytes
  // before z, as the reference implementation, it is refused: EveryHeaderMutationIsRefusedByName.)
  const std::string header =
      R"({"z":{"dtype":"F32","shape":[2],"data_offsets":[12,20]},)"
      R"("b":{"dtype":"BF16","shape":[6],"data_offsets":[0,12]}, "__metadata__":{"format":"pt"}})";
  const std::string data =
      u16s({0x4049, 0x3f80, 0xc020, 0x0000, 0x7f80, 0xff80}) + f32s({0.1f, -7.0f});
  const std::string path = tmp_path("bf16.safetensors");
  write_bytes(path, st_file(header, data));
  const SafetensorsFile f = read_safetensors(path);
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(f.tensors.at("b").values,
            (std::vector<float>{3.140625f, 1.0f, -2.5f, 0.0f, inf, -inf}));
  EXPECT_EQ(f.tensors.at("b").dtype, DType::BF16);
  EXPECT_EQ(f.tensors.at("z").values, (std::vector<float>{0.1f, -7.0f}));
  EXPECT_EQ(f.metadata.at("format"), "pt");
}

TEST(Safetensors, ValidEdgeCasesLoad) {
  const std::string path = tmp_path("edge.safetensors");
  // Header length 61, not a multiple of 8, so the data section is unaligned.
  const std::string h1 = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}       })";
  ASSERT_NE(h1.size() % 8, 0u);
  write_bytes(path, st_file(h1, f32s({2.75f})));
  EXPECT_EQ(read_safetensors(path).tensors.at("a").values, std::vector<float>{2.75f});
  // Trailing spaces after the JSON (padding), empty metadata.
  write_bytes(path,
              st_file(R"({"__metadata__":{},"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}})" +
                          std::string(13, ' '),
                      f32s({-1.5f})));
  SafetensorsFile f = read_safetensors(path);
  EXPECT_TRUE(f.metadata.empty());
  EXPECT_EQ(f.tensors.at("a").values, std::vector<float>{-1.5f});
  // Zero-element tensors: begin == end, sharing offsets with each other and with a real tensor.
  write_bytes(path, st_file(R"({"e0":{"dtype":"F32","shape":[0],"data_offsets":[0,0]},)"
                            R"("e1":{"dtype":"BF16","shape":[3,0,2],"data_offsets":[0,0]},)"
                            R"("x":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},)"
                            R"("e2":{"dtype":"F16","shape":[0],"data_offsets":[2,2]}})",
                            u16s({0x3c00})));
  f = read_safetensors(path);
  ASSERT_EQ(f.tensors.size(), 4u);
  EXPECT_EQ(f.tensors.at("e1").shape, (Shape{3, 0, 2}));
  EXPECT_TRUE(f.tensors.at("e1").values.empty());
  EXPECT_EQ(f.tensors.at("x").values, std::vector<float>{1.0f});
  // No tensors at all.
  write_bytes(path, st_file("{}", ""));
  EXPECT_TRUE(read_safetensors(path).tensors.empty());
}

TEST(Safetensors, RejectsBadLengthsAndJson) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  expect_error("", {"shorter than"});
  expect_error("\x05\x00\x00", {"shorter than"});
  expect_error(st_file(ok, f32s({1.0f}), 1000), {"header length 1000", "beyond the file"});
  expect_error(st_file(ok, "", ok.size() + 1), {"beyond the file"});
  for (uint64_t n : {UINT64_MAX, UINT64_MAX - 7, uint64_t(1) << 63, kSafetensorsMaxHeaderBytes + 1})
    expect_error(st_file(ok, f32s({1.0f}), n), {std::to_string(n), "cap"});
  expect_error(st_file("{\"a\": ", ""), {"not valid JSON"});
  expect_error(st_file("[1, 2]", ""), {"not a JSON object"});
  expect_error(st_file(R"({"a":[1]})", ""), {"'a'", "not a JSON object"});
  expect_error(st_file(R"({"__metadata__":{"k":5}})", ""), {"__metadata__", "'k'"});
  expect_error(st_file(R"({"__metadata__":[]})", ""), {"__metadata__"});
}

TEST(Safetensors, RejectsBadDtypeShapeOffsets) {
  auto entry = [](const std::string& dtype, const std::string& shape, const std::string& offs) {
    return st_file(R"({"w.q":{"dtype":)" + dtype + R"(,"shape":)" + shape + R"(,"data_offsets":)" +
                       offs + "}}",
                   std::string(16, '\0'));
  };
  expect_error(entry("\"F64\"", "[2]", "[0,16]"), {"'w.q'", "unsupported dtype 'F64'"});
  expect_error(entry("\"I8\"", "[2]", "[0,2]"), {"'w.q'", "'I8'"});
  expect_error(entry("5", "[2]", "[0,8]"), {"'w.q'", "'dtype'"});
  expect_error(st_file(R"({"w.q":{"shape":[2],"data_offsets":[0,8]}})", std::string(8, '\0')),
               {"'w.q'", "'dtype'"});
  expect_error(entry("\"F32\"", "[2,-1]", "[0,8]"), {"'w.q'", "'shape'", "-1"});
  expect_error(entry("\"F32\"", "[2.5]", "[0,8]"), {"'w.q'", "'shape'"});
  expect_error(entry("\"F32\"", "\"2\"", "[0,8]"), {"'w.q'", "'shape'"});
  expect_error(entry("\"F32\"", "[[2]]", "[0,8]"), {"'w.q'", "'shape'"});
  expect_error(entry("\"F32\"", "[4294967296,4294967296,4294967296]", "[0,8]"),
               {"'w.q'", "overflows"});
  expect_error(st_file(R"({"w.q":{"dtype":"F32","data_offsets":[0,8]}})", std::string(8, '\0')),
               {"'w.q'", "'shape'"});
  expect_error(entry("\"F32\"", "[2]", "[8,0]"), {"'w.q'", "'data_offsets'", "begin 8 > end 0"});
  expect_error(entry("\"F32\"", "[2]", "[8]"), {"'w.q'", "'data_offsets'"});
  expect_error(entry("\"F32\"", "[2]", "[0,4,8]"), {"'w.q'", "'data_offsets'"});
  expect_error(entry("\"F32\"", "[2]", "[\"0\",\"8\"]"), {"'w.q'", "'data_offsets'"});
  expect_error(entry("\"F32\"", "[2]", "[-8,0]"), {"'w.q'", "'data_offsets'"});
  expect_error(entry("\"F32\"", "[2]", "{}"), {"'w.q'", "'data_offsets'"});
  expect_error(entry("\"F32\"", "[2,2]", "[0,12]"), {"'w.q'", "span 12 bytes", "needs 16"});
  expect_error(entry("\"BF16\"", "[2]", "[0,8]"), {"'w.q'", "span 8 bytes", "needs 4"});
  expect_error(entry("\"F32\"", "[5]", "[0,20]"),
               {"'w.q'", "end 20 is past the end of the data (16"});
}

TEST(Safetensors, RejectsOverlapAndTruncation) {
  expect_error(st_file(R"({"first":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                       R"("second":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
                       std::string(24, '\0')),
               {"'first'", "'second'", "overlap"});
  expect_error(st_file(R"({"x":{"dtype":"F16","shape":[2],"data_offsets":[4,8]},)"
                       R"("y":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})",
                       std::string(8, '\0')),
               {"'x'", "'y'", "overlap"});
  // A real file cut short by one byte: the last tensor's range now passes the end.
  const std::string path = tmp_path("trunc.safetensors");
  const std::vector<float> v = random_values(12, 5);
  write_safetensors(path, {{"keep", Shape{2}, v.data()}, {"last.weight", Shape{10}, v.data() + 2}});
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  expect_error(bytes.substr(0, bytes.size() - 1), {"'last.weight'", "past the end", "truncated"});
  expect_error(bytes.substr(0, 20), {"beyond the file"});
  EXPECT_EQ(read_safetensors(path).tensors.at("last.weight").values,
            std::vector<float>(v.begin() + 2, v.end()));
}

// The data section's accounting (safetensors.h): a valid file (a [2, 3], b [4], c [5], F32, in
// that order) with one header mutation each: a tensor left out (the count), data_offsets moved,
// dtype, or shape. Each is refused naming the tensor that does not fit; a hole or trailing bytes
// (a left-out tensor, a shape halved with its offsets made consistent) was accepted before.
TEST(Safetensors, EveryHeaderMutationIsRefusedByName) {
  const std::string path = tmp_path("tile.safetensors");
  const std::vector<float> v = random_values(15, 4);
  write_safetensors(path, {{"a", Shape{2, 3}, v.data()}, {"b", Shape{4}, v.data() + 6},
                           {"c", Shape{5}, v.data() + 10}});
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  const std::string data = bytes.substr(8 + n);
  ASSERT_EQ(data.size(), 60u);
  ASSERT_EQ(header["b"]["data_offsets"], nlohmann::json::array({24, 40}));
  const auto edited = [&](const std::function<void(nlohmann::json&)>& edit, const std::string& tail = "") {
    nlohmann::json h = header;
    edit(h);
    return st_file(h.dump(), data + tail);
  };
  const auto offsets = [](nlohmann::json& h, const char* t, int begin, int end) {
    h[t]["data_offsets"] = {begin, end};
  };
  expect_error(edited([](nlohmann::json& h) { h.erase("b"); }),
               {"tensor 'c' starts at data offset 40, but the tensors before it end at 24", "without holes"});
  expect_error(edited([](nlohmann::json& h) { h.erase("a"); }), {"tensor 'b' starts at data offset 24"});
  expect_error(edited([](nlohmann::json& h) { h.erase("c"); }),
               {"holds 60 bytes, but the tensors end at 40 (the last is 'b')", "the 20 bytes after them"});
  expect_error(edited([](nlohmann::json&) {}, "\x01"), {"the 1 bytes after them", "(the last is 'c')"});
  expect_error(edited([&](nlohmann::json& h) { offsets(h, "b", 28, 44); }), {"'b'", "'c'", "overlap"});
  expect_error(edited([&](nlohmann::json& h) { offsets(h, "b", 20, 36); }), {"'a'", "'b'", "overlap"});
  expect_error(edited([&](nlohmann::json& h) { offsets(h, "c", 44, 64); }), {"'c'", "past the end"});
  expect_error(edited([](nlohmann::json& h) { h["b"]["dtype"] = "F16"; }), {"'b'", "span 16 bytes", "needs 8"});
  expect_error(edited([](nlohmann::json& h) { h["b"]["shape"] = nlohmann::json::array({8}); }), {"'b'", "span 16 bytes", "needs 32"});
  expect_error(edited([&](nlohmann::json& h) { h["b"]["shape"] = nlohmann::json::array({8}), offsets(h, "b", 24, 56); }),
               {"'b'", "'c'", "overlap"});
  expect_error(edited([&](nlohmann::json& h) { h["b"]["shape"] = nlohmann::json::array({2}), offsets(h, "b", 24, 32); }),
               {"tensor 'c' starts at data offset 40, but the tensors before it end at 32"});
  expect_error(edited([&](nlohmann::json& h) { h["c"]["shape"] = nlohmann::json::array({2}), offsets(h, "c", 40, 48); }),
               {"the 12 bytes after them", "(the last is 'c')"});
  expect_error(edited([&](nlohmann::json& h) { h["b"]["dtype"] = "F16", offsets(h, "b", 24, 32); }),
               {"tensor 'c' starts at data offset 40, but the tensors before it end at 32"});
  // The unedited header reads back: every refusal above comes from its one edit.
  write_bytes(path, edited([](nlohmann::json&) {}));
  EXPECT_EQ(read_safetensors(path).tensors.at("c").values, std::vector<float>(v.begin() + 10, v.end()));
}

TEST(Safetensors, NotAFile) {
  EXPECT_THROW(read_safetensors(tmp_path("does_not_exist.safetensors")), Error);
  EXPECT_THROW(read_safetensors(::testing::TempDir()), Error);
}

TEST(Safetensors, MutatedFilesNeverCrash) {
  const std::string path = tmp_path("fuzz.safetensors");
  const std::vector<float> v = random_values(20, 9);
  write_safetensors(path, {{"a", Shape{4, 3}, v.data()}, {"b", Shape{8}, v.data() + 12}},
                    {{"k", "v"}}, DType::BF16);
  std::ifstream in(path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), {});
  std::mt19937 rng(123);
  int loaded = 0, rejected = 0;
  for (int iter = 0; iter < 600; ++iter) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k) {
      const size_t at = rng() % std::min<size_t>(bad.size(), 8 + 140);  // length and header
      bad[at] = "0123456789-,:[]{}\" e.\xff"[rng() % 22];
    }
    if (rng() % 4 == 0) bad.resize(rng() % bad.size());
    write_bytes(path, bad);
    try {
      read_safetensors(path);
      ++loaded;
    } catch (const Error&) {
      ++rejected;
    }  // any other exception type or a crash fails the test
  }
  EXPECT_GT(rejected, 200);
  EXPECT_GT(loaded, 0) << "mutations should sometimes stay valid (e.g. a metadata character)";
  std::printf("mutated files: %d loaded, %d rejected\n", loaded, rejected);
}

TEST(Safetensors, WriterErrorsLeaveNothingHalfWritten) {
  const std::vector<float> v = {1, 2, 3};
  EXPECT_THROW(
      write_safetensors("/nonexistent_dir_llm0/x.safetensors", {{"a", Shape{3}, v.data()}}), Error);
  const std::string path = tmp_path("keep.safetensors");
  write_safetensors(path, {{"a", Shape{3}, v.data()}});
  EXPECT_THROW(write_safetensors(path, {{"a", Shape{3}, v.data()}, {"a", Shape{1}, v.data()}}),
               Error);
  EXPECT_THROW(write_safetensors(path, {{"__metadata__", Shape{1}, v.data()}}), Error);
  EXPECT_THROW(write_safetensors(path, {{"n", Shape{-1}, v.data()}}), Error);
  EXPECT_THROW(write_safetensors(path, {{"n", Shape{2}, nullptr}}), Error);
  EXPECT_EQ(read_safetensors(path).tensors.at("a").values, v);  // the old file is intact
  // Target is a directory: the rename fails, and the temporary file is cleaned up.
  const std::string dir = tmp_path("a_dir");
  std::filesystem::create_directories(dir);
  EXPECT_THROW(write_safetensors(dir, {{"a", Shape{3}, v.data()}}), Error);
  EXPECT_FALSE(std::filesystem::exists(dir + ".tmp"));
}
