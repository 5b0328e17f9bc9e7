// The one element-type enum of the caches and the ledger (core/element_type.h): every name parses
// back to its type, the sizes are the IEEE/bfloat16/fp8 widths, the values `llm0 kv --dtype`
// accepted before the two enums became one still parse (and "f16", which neither took, does not),
// and every cache refuses a type it cannot store with a message naming it and the supported ones.
#include <gtest/gtest.h>

#include <string>

#include "cache/cache_rows.h"
#include "cache/page_pool.h"
#include "core/check.h"
#include "core/element_type.h"
#include "error_message.h"
#include "model/model.h"

namespace llm0 {
namespace {

using testing_fixtures::error_of;

constexpr ElementType kAll[] = {ElementType::F32, ElementType::F16, ElementType::BF16, ElementType::FP8};

TEST(ElementType, NamesParseBackAndSizesAreTheFormatsWidths) {
  const int bits[] = {32, 16, 16, 8};  // binary32, binary16, bfloat16, an 8-bit float
  for (size_t i = 0; i < std::size(kAll); ++i) {
    const ElementType t = kAll[i];
    SCOPED_TRACE(element_type_name(t));
    EXPECT_EQ(parse_element_type(element_type_name(t)), t);
    EXPECT_EQ(parse_element_type(element_type_ledger_name(t)), t);
    EXPECT_EQ(element_block(t).numbers, 1);
    EXPECT_EQ(element_block(t).bytes * 8, bits[i]);
    EXPECT_EQ(element_bytes(t, 1000), 1000u * (uint64_t)bits[i] / 8);
    EXPECT_EQ(element_bytes(t, 0), 0u);
  }
}

TEST(ElementType, SpellingsAsTheFlagsAndTheLedgerWroteThem) {
  EXPECT_STREQ(element_type_name(ElementType::F32), "f32");     // --kv-dtype f32, llm0 bench
  EXPECT_STREQ(element_type_name(ElementType::BF16), "bf16");
  EXPECT_STREQ(element_type_ledger_name(ElementType::F32), "fp32");  // llm0 kv --dtype fp32
  EXPECT_STREQ(element_type_ledger_name(ElementType::F16), "fp16");
  EXPECT_STREQ(element_type_ledger_name(ElementType::FP8), "fp8");
  EXPECT_EQ(parse_element_type("f32"), ElementType::F32);
  EXPECT_EQ(parse_element_type("fp32"), ElementType::F32);
  const std::string msg = error_of([] { parse_element_type("f16"); });
  EXPECT_EQ(msg, "unknown dtype \"f16\" (expected bf16, fp16, fp8 or fp32)");
}

TEST(ElementType, CachesRefuseWhatTheyCannotStore) {
  for (ElementType t : {ElementType::F16, ElementType::FP8}) {
    const std::string want = std::string("the KV cache stores f32 or bf16, not ") + element_type_name(t);
    EXPECT_EQ(error_of([t] { CacheRows(2, 3, t); }), want);
    EXPECT_EQ(error_of([t] { PagePool(2, 4, 1, 3, t); }), want);
    Model m(ModelConfig::from_file(LLM0_SOURCE_DIR "/configs/llm0-tiny.json"));
    EXPECT_EQ(error_of([&] { m.set_kv_dtype(t); }), want);
    EXPECT_EQ(m.kv_dtype(), ElementType::F32) << "a refused type must not stick";
  }
  for (ElementType t : {ElementType::F32, ElementType::BF16}) {
    const CacheRows rows(2, 3, t);
    EXPECT_EQ(rows.bytes(2), element_bytes(t, 6));
  }
}

}  // namespace
}  // namespace llm0
