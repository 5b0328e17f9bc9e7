// GGUF data-section accounting (io/gguf/reader.h): a valid export (tiny llama, gguf_fixtures.h)
// with one mutation of its bytes (the tensor count, one tensor's offset, type or a shape
// extent) is refused naming the tensor that no longer fits, and `llm0 convert --from gguf`
// exits 1 writing nothing. Issue 43 F8: the tensor count one lower was accepted and every tensor
// read 64 bytes off.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "cli_runner.h"
#include "gguf_fixtures.h"
#include "io/gguf/export.h"
#include "io/gguf/reader.h"

namespace llm0 {
namespace {

namespace fs = std::filesystem;
using namespace testing_fixtures;

std::string temp(const std::string& name) { return test::fresh_temp_path("gguf_accounting", name); }

// A valid tiny llama export (F32 tensors, the default 32-byte alignment): path and parse.
struct Valid {
  std::string path, bytes;
  GgufFile file;
  std::vector<size_t> info_at;  // byte position of each tensor info (its name's length)
};

const Valid& valid() {
  static const Valid v = [] {
    ModelConfig c = tiny_config(Heads::GQA, PositionKind::Rope, 1.0, false);
    c.vocab_size = 300;
    c.validate();
    Valid v;
    v.path = temp("valid.gguf");
    export_gguf(make_checkpoint(c, "accounting", true), v.path);
    v.bytes = read_file(v.path);
    v.file = read_gguf(v.path);
    // The tensor infos follow the metadata, one after another: find the first by its name.
    const std::string& first = v.file.tensors.at(0).name;
    uint64_t len = first.size();
    size_t at = v.bytes.find(std::string(reinterpret_cast<const char*>(&len), 8) + first, 24);
    for (const GgufTensorInfo& t : v.file.tensors) {
      v.info_at.push_back(at);
      at += 8 + t.name.size() + 4 + 8 * t.dims.size() + 4 + 8;
    }
    return v;
  }();
  return v;
}

// The bytes of the u64 / u32 at `at` in `b`, read and written.
template <class T>
T get(const std::string& b, size_t at) {
  T v;
  std::memcpy(&v, b.data() + at, sizeof v);
  return v;
}
template <class T>
void put(std::string& b, size_t at, T v) {
  std::memcpy(b.data() + at, &v, sizeof v);
}

// Where tensor k's fields lie in the file.
size_t dims_at(size_t k) { return valid().info_at[k] + 8 + valid().file.tensors[k].name.size() + 4; }
size_t type_at(size_t k) { return dims_at(k) + 8 * valid().file.tensors[k].dims.size(); }
size_t offset_at(size_t k) { return type_at(k) + 4; }

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary).write(bytes.data(), (std::streamsize)bytes.size());
}

// read_gguf's message for the valid file changed by `edit` ("(no error)" if it was read).
std::string refusal(const std::function<void(std::string&)>& edit) {
  std::string b = valid().bytes;
  edit(b);
  const std::string path = temp("mutated.gguf");
  write_bytes(path, b);
  return error_of([&] { read_gguf(path); });
}

TEST(GgufAccounting, TheValidFileTilesItsDataSection) {
  const Valid& v = valid();
  ASSERT_GE(v.file.tensors.size(), 10u);
  EXPECT_EQ(v.file.alignment, 32u);
  for (size_t k = 0; k < v.file.tensors.size(); ++k) {  // the positions the mutations edit
    const GgufTensorInfo& t = v.file.tensors[k];
    EXPECT_EQ(get<uint64_t>(v.bytes, dims_at(k)), t.dims[0]) << t.name;
    EXPECT_EQ(get<uint32_t>(v.bytes, type_at(k)), (uint32_t)GgmlType::F32) << t.name;
    EXPECT_EQ(get<uint64_t>(v.bytes, offset_at(k)), t.offset) << t.name;
  }
  EXPECT_EQ(refusal([](std::string&) {}), "(no error)");
}

TEST(GgufAccounting, TensorCountOneOffIsRefused) {
  const Valid& v = valid();
  const uint64_t n = v.file.tensors.size();
  ASSERT_EQ(get<uint64_t>(v.bytes, 8), n);
  // n - 1 (the F8 reproduction): the last tensor info is taken for padding and data, so the
  // tensors read would all be shifted; the bytes left over after the n - 1 are refused.
  const std::string fewer = refusal([&](std::string& b) { put<uint64_t>(b, 8, n - 1); });
  EXPECT_NE(fewer.find("belong to no tensor"), std::string::npos) << fewer;
  EXPECT_NE(fewer.find("'" + v.file.tensors[n - 2].name + "'"), std::string::npos) << fewer;
  EXPECT_NE(fewer.find("a wrong tensor count"), std::string::npos) << fewer;
  // n + 1: padding and data bytes are read as one more tensor info, which cannot be one.
  EXPECT_NE(refusal([&](std::string& b) { put<uint64_t>(b, 8, n + 1); }), "(no error)");
}

TEST(GgufAccounting, EveryTensorsOffsetMovedIsRefusedByName) {
  const Valid& v = valid();
  for (size_t k = 0; k < v.file.tensors.size(); ++k) {
    const std::string& name = v.file.tensors[k].name;
    for (const int64_t delta : {32, -32, 64}) {  // multiples of the alignment: only the tiling can tell
      SCOPED_TRACE(name + " offset " + std::to_string(delta));
      const std::string msg = refusal([&](std::string& b) {
        put<uint64_t>(b, offset_at(k), get<uint64_t>(b, offset_at(k)) + (uint64_t)delta);
      });
      EXPECT_NE(msg.find("GGUF tensor '" + name + "' starts at data offset"), std::string::npos) << msg;
    }
  }
}

TEST(GgufAccounting, EveryTensorsTypeChangedIsRefusedByName) {
  const Valid& v = valid();
  for (size_t k = 0; k < v.file.tensors.size(); ++k) {
    const GgufTensorInfo& t = v.file.tensors[k];
    for (const GgmlType type : {GgmlType::F16, GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q4_0}) {
      const std::string tname = ggml_type_name((uint32_t)type);
      SCOPED_TRACE(t.name + " F32 -> " + tname);
      const std::string msg = refusal([&](std::string& b) { put<uint32_t>(b, type_at(k), (uint32_t)type); });
      if (t.dims[0] % ggml_block_size(type) != 0)  // refused before the accounting
        EXPECT_NE(msg.find("tensor '" + t.name + "' of type " + tname + " has rows"), std::string::npos) << msg;
      else  // described with its new type and size: the tensor before the next, or the last
        EXPECT_NE(msg.find("'" + t.name + "', " + tname + " ["), std::string::npos) << msg;
    }
  }
}

TEST(GgufAccounting, EveryTensorsShapeChangedIsRefusedByName) {
  const Valid& v = valid();
  const size_t n = v.file.tensors.size();
  for (size_t k = 0; k < n; ++k) {
    const GgufTensorInfo& t = v.file.tensors[k];
    for (const bool twice : {true, false}) {
      const uint64_t d = twice ? t.dims[0] * 2 : t.dims[0] / 2;
      SCOPED_TRACE(t.name + " dims[0] " + std::to_string(t.dims[0]) + " -> " + std::to_string(d));
      const std::string msg = refusal([&](std::string& b) { put<uint64_t>(b, dims_at(k), d); });
      if (twice && k == n - 1)  // the last tensor now runs past the end of the file
        EXPECT_NE(msg.find("truncated GGUF file: tensor " + t.name + " needs bytes"), std::string::npos) << msg;
      else
        EXPECT_NE(msg.find("'" + t.name + "', F32 ["), std::string::npos) << msg;
    }
  }
}

TEST(GgufAccounting, BytesAfterTheLastTensorAreRefused) {
  const Valid& v = valid();
  for (const size_t extra : {size_t{1}, size_t{32}, size_t{4096}}) {
    const std::string msg = refusal([&](std::string& b) { b += std::string(extra, '\0'); });
    EXPECT_NE(msg.find("the " + std::to_string(extra) + " bytes after them belong to no tensor"),
              std::string::npos) << msg;
    EXPECT_NE(msg.find("(the last, '" + v.file.tensors.back().name + "'"), std::string::npos) << msg;
  }
}

// The F8 reproduction through the CLI: exit 1, the reason on stderr, nothing written.
TEST(GgufAccounting, ConvertRefusesTheFlippedTensorCount) {
  std::string b = valid().bytes;
  put<uint64_t>(b, 8, valid().file.tensors.size() - 1);
  const std::string bad = temp("bad.gguf"), out = temp("bad_hf");
  write_bytes(bad, b);
  const CmdOut r = run_cli("convert --from gguf " + quote(bad) + " --output " + quote(out), temp("err.txt"));
  EXPECT_EQ(r.rc, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("bad.gguf: the GGUF data section holds"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace llm0
