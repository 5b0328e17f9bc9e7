// BF16 from the command line: `llm0 init --dtype bf16` and `llm0 convert --dtype bf16` write BF16
// safetensors holding the rounded values, which load_model reports as stored BF16 (what
// `--weights-dtype auto` runs in BF16); `llm0 forward` on such a checkpoint gives the same logits
// with --weights-dtype bf16 (auto) and f32 (the kernels differ, the numbers do not), and through
// the cached path (--chunks, BF16 cache); bad dtype names are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cli_runner.h"
#include "core/half.h"
#include "io/checkpoint.h"
#include "io/npy.h"
#include "io/safetensors.h"
#include "model_fixtures.h"
#include "test_util.h"

using namespace llm0;
using namespace llm0::testing_fixtures;

namespace {

std::string temp(const std::string& name) { return test::fresh_temp_path("bf16_cli", name); }

// A tiny GQA checkpoint (config + F32 weights) at a fresh directory.
std::string f32_checkpoint(const std::string& name) {
  Model m(tiny_config(Heads::GQA, PositionKind::Rope, 1.0, true));
  random_weights(m, 9);
  const std::string dir = temp(name);
  save_checkpoint(m, dir);
  return dir;
}

std::vector<float> forward(const std::string& dir, const std::string& extra, const std::string& tag) {
  const std::string out = temp(tag + ".npy");
  const CmdOut r = run_cli("forward --model " + dir + " --tokens \"5 9 2 33 17 8 1 40 12 3 7\" --output " +
                           out + " --threads 1 " + extra, temp(tag + ".err"));
  EXPECT_EQ(r.rc, 0) << r.err;
  const Tensor t = read_npy(out);
  return std::vector<float>(t.data(), t.data() + t.numel());
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b, double* scale) {
  double d = 0, s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d = std::max(d, (double)std::fabs(a[i] - b[i])), s = std::max(s, (double)std::fabs(a[i]));
  *scale = s;
  return d;
}

TEST(Bf16Cli, ConvertWritesTheRoundedValuesAndAutoRunsThemInBf16) {
  const std::string f32 = f32_checkpoint("f32"), bf16 = temp("bf16");
  const CmdOut r = run_cli("convert --model " + f32 + " --output " + bf16 + " --dtype bf16", temp("convert.err"));
  ASSERT_EQ(r.rc, 0) << r.err;
  const SafetensorsFile a = read_safetensors(f32 + "/model.safetensors");
  const SafetensorsFile b = read_safetensors(bf16 + "/model.safetensors");
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, e] : a.tensors) {
    const SafetensorsEntry& g = b.tensors.at(name);
    EXPECT_EQ(g.dtype, DType::BF16) << name;
    for (size_t i = 0; i < e.values.size(); ++i)
      ASSERT_EQ(g.values[i], bf16_to_float(float_to_bf16(e.values[i]))) << name << " " << i;
  }
  DType stored = DType::F32;
  load_model(bf16, &stored);
  EXPECT_EQ(stored, DType::BF16);
  load_model(f32, &stored);
  EXPECT_EQ(stored, DType::F32);

  double scale = 0;
  const auto as_f32 = forward(bf16, "--weights-dtype f32", "w32");
  const auto as_bf16 = forward(bf16, "", "auto");  // auto: BF16 weights
  ASSERT_EQ(as_f32.size(), (size_t)11 * 61);
  double diff = max_abs_diff(as_f32, as_bf16, &scale);
  EXPECT_GT(scale, 1.0);
  EXPECT_LT(diff, 1e-4 * scale);
  // The cached path with BF16 weights: with a float32 cache it is the full forward to 1e-4; with
  // the default BF16 cache the K/V rounding (which the full forward, caching nothing, does not
  // do) moves the logits by ~2^-8 relative at most.
  const auto chunked_f32kv = forward(bf16, "--chunks 4,3 --kv-dtype f32", "chunks_f32kv");
  diff = max_abs_diff(as_bf16, chunked_f32kv, &scale);
  EXPECT_LT(diff, 1e-4 * scale);
  const auto chunked = forward(bf16, "--chunks 4,3", "chunks");
  diff = max_abs_diff(as_bf16, chunked, &scale);
  EXPECT_GT(diff, 0.0);  // the cache really rounded
  EXPECT_LT(diff, 2e-2 * scale);
}

TEST(Bf16Cli, InitWritesBf16AndBadDtypesAreRefused) {
  const std::string cfg = temp("config.json"), dir = temp("init");
  {
    std::ofstream(cfg) << tiny_config(Heads::MQA, PositionKind::Rope, 1.0, false).to_json().dump();
  }
  CmdOut r = run_cli("init --config " + cfg + " --output " + dir + " --dtype bf16", temp("init.err"));
  ASSERT_EQ(r.rc, 0) << r.err;
  for (const auto& [name, e] : read_safetensors(dir + "/model.safetensors").tensors)
    EXPECT_EQ(e.dtype, DType::BF16) << name;
  r = run_cli("forward --model " + dir + " --tokens \"1 2\" --output " + temp("x.npy") +
              " --weights-dtype bf8", temp("bad1.err"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--weights-dtype"), std::string::npos) << r.err;
  r = run_cli("forward --model " + dir + " --tokens \"1 2\" --output " + temp("y.npy") +
              " --kv-dtype fp8", temp("bad2.err"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--kv-dtype"), std::string::npos) << r.err;
  r = run_cli("init --config " + cfg + " --output " + temp("i2") + " --dtype q4", temp("bad3.err"));
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.err.find("--dtype"), std::string::npos) << r.err;
}

}  // namespace
