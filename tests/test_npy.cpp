// .npy writer/reader (src/io/npy.h): exact bytes of the v1.0 layout, round trips of awkward
// shapes, files built byte by byte (v1.0 and v2.0), an independent Python reader (ast + struct,
// plus numpy.load when numpy is installed; skipped without python3), and clear errors.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "core/check.h"
#include "io/npy.h"

using namespace llm0;

namespace {

std::string tmp_path(const std::string& name) {
  return ::testing::TempDir() + "llm0_npy_" + std::to_string(::getpid()) + "_" + name;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// A v1.0 (or v2.0) file with the given header dict text, padded as numpy pads it, and data.
std::string npy_file(const std::string& dict, const std::string& data, int major = 1) {
  const size_t pre = major == 1 ? 10 : 12;
  std::string h = dict;
  h.append((64 - (pre + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (size_t i = 0; i < pre - 8; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return out + h + data;
}

std::string f32s(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

void expect_error(const std::string& bytes, const std::string& part) {
  const std::string path = tmp_path("bad.npy");
  write_bytes(path, bytes);
  try {
    read_npy(path);
    ADD_FAILURE() << "no error for " << bytes.substr(0, 120);
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
  }
}

}  // namespace

TEST(Npy, ExactV1Layout) {
  const std::string path = tmp_path("layout.npy");
  const std::vector<float> v = {0.5f, -2.25f, 3.0f, 1e-3f, -0.0f, 65504.0f};
  write_npy(path, v.data(), Shape{2, 3});
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const std::string b = read_bytes(path);
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(dict.size(), 59u);  // 10 + 59 + '\n' > 64, so the data starts at byte 128
  ASSERT_EQ(b.size(), 128u + 24u);
  EXPECT_EQ(b.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(static_cast<unsigned char>(b[8]) | static_cast<unsigned char>(b[9]) << 8, 118);
  EXPECT_EQ(b.substr(10, 118), dict + std::string(118 - 59 - 1, ' ') + "\n");
  EXPECT_EQ(b.substr(128), f32s(v));
}

TEST(Npy, RoundTripShapes) {
  const std::string path = tmp_path("rt.npy");
  std::mt19937 rng(5);
  std::normal_distribution<float> d;
  for (const Shape& s :
       {Shape{2, 3, 5}, Shape{7}, Shape{}, Shape{0, 3}, Shape{1, 1, 1, 1}, Shape{3, 1, 4, 11}}) {
    std::vector<float> v(static_cast<size_t>(s.numel()));
    for (float& x : v) x = d(rng);
    write_npy(path, v.data(), s);
    EXPECT_EQ(std::filesystem::file_size(path) % 64, (v.size() * 4) % 64) << s.str();
    const Tensor t = read_npy(path);
    EXPECT_EQ(t.shape(), s);
    ASSERT_EQ(t.numel(), s.numel());
    EXPECT_EQ(std::vector<float>(t.data(), t.data() + t.numel()), v) << s.str();
  }
}

TEST(Npy, ReadsHandBuiltFiles) {
  const std::string path = tmp_path("hand.npy");
  // As numpy 1.x writes np.arange(3, dtype='<f4'), and a v2.0 header with double quotes.
  write_bytes(
      path, npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f32s({0, 1, 2})));
  Tensor t = read_npy(path);
  EXPECT_EQ(t.shape(), Shape{3});
  EXPECT_EQ(std::vector<float>(t.data(), t.data() + 3), (std::vector<float>{0, 1, 2}));
  write_bytes(path, npy_file("{\"shape\":(2,1),\"fortran_order\":False,\"descr\":\"<f4\"}",
                             f32s({-4, 8}), 2));
  t = read_npy(path);
  EXPECT_EQ(t.shape(), (Shape{2, 1}));
  EXPECT_EQ(t.data()[1], 8.0f);
}

TEST(Npy, IndependentPythonReader) {
  if (!std::filesystem::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string path = tmp_path("py.npy"), script = tmp_path("check.py");
  const std::vector<float> v = {0.5f, -2.25f, 3.0f, 1024.0f, -0.125f, 6.0f, 7.5f, -1.0f};
  write_npy(path, v.data(), Shape{2, 1, 4});
  write_bytes(
      script,
      "import ast, struct, sys\n"
      "b = open(sys.argv[1], 'rb').read()\n"
      "assert b[:8] == b'\\x93NUMPY\\x01\\x00'\n"
      "n = struct.unpack('<H', b[8:10])[0]\n"
      "assert (10 + n) % 64 == 0 and b[9 + n:10 + n] == b'\\n'\n"
      "h = ast.literal_eval(b[10:10 + n].decode('latin1'))\n"
      "cnt = 1\n"
      "for d in h['shape']: cnt *= d\n"
      "vals = struct.unpack('<%df' % cnt, b[10 + n:])\n"
      "out = [h['descr'], str(h['fortran_order']), str(h['shape'])] + [repr(x) for x in vals]\n"
      "try:\n"
      "  import numpy\n"
      "  a = numpy.load(sys.argv[1])\n"
      "  assert a.dtype == numpy.float32 and a.shape == h['shape'] and list(a.ravel()) == "
      "list(vals)\n"
      "except ImportError:\n"
      "  pass\n"
      "print(' '.join(out))\n");
  FILE* p = ::popen(("/usr/bin/python3 " + script + " " + path + " 2>&1").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  std::array<char, 256> buf;
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  ASSERT_EQ(::pclose(p), 0) << out;
  EXPECT_EQ(out, "<f4 False (2, 1, 4) 0.5 -2.25 3.0 1024.0 -0.125 6.0 7.5 -1.0\n");
}

TEST(Npy, RejectsMalformed) {
  const std::string data = f32s({1, 2});
  expect_error("", "bad magic");
  expect_error("\x93NUMPX\x01\x00", "bad magic");
  expect_error(std::string("\x93NUMPY\x01", 7), "preamble");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data, 4),
               "version 4.0");
  expect_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f32s({0, 0})),
               "'<f8'");
  expect_error(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", data),
               "'>f4'");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data),
               "fortran_order");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data),
               "truncated");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", data),
               "trailing bytes");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", data),
               "non-negative");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", data),
               "expected");
  expect_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", data),
               "unknown key 'x'");
  expect_error(npy_file("{'descr': '<f4', 'shape': (2,)}", data), "fortran_order");
  expect_error(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", data),
      "overflows");
  expect_error(
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", data),
      "overflows");
  std::string big_len = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", data);
  big_len[8] = '\xff', big_len[9] = '\xff';
  expect_error(big_len, "header length 65535");
  EXPECT_THROW(read_npy(tmp_path("missing.npy")), Error);
}

TEST(Npy, WriterErrors) {
  const std::vector<float> v = {1, 2};
  EXPECT_THROW(write_npy("/nonexistent_dir_llm0/x.npy", v.data(), Shape{2}), Error);
  EXPECT_THROW(write_npy(tmp_path("neg.npy"), v.data(), Shape{-2}), Error);
  EXPECT_THROW(write_npy(tmp_path("null.npy"), nullptr, Shape{2}), Error);
  EXPECT_FALSE(std::filesystem::exists(tmp_path("neg.npy")));
}
