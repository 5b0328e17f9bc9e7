// Names, sizes and parsing of the element types. See element_type.h.
#include "core/element_type.h"

#include <string>

#include "core/check.h"

namespace llm0 {

namespace {

// One row per type: the block, the engine's name, the ledger's name.
struct ElementTypeRow {
  ElementType type;
  ElementBlock block;
  const char* name;
  const char* ledger_name;
};

constexpr ElementTypeRow kRows[] = {
    {ElementType::F32, {1, 4}, "f32", "fp32"},
    {ElementType::F16, {1, 2}, "fp16", "fp16"},
    {ElementType::BF16, {1, 2}, "bf16", "bf16"},
    {ElementType::FP8, {1, 1}, "fp8", "fp8"},
};

const ElementTypeRow& row_of(ElementType type) {
  for (const ElementTypeRow& r : kRows)
    if (r.type == type) return r;
  LLM0_FAIL("element type {} is not in the table", static_cast<int>(type));
}

}  // namespace

ElementBlock element_block(ElementType type) { return row_of(type).block; }

uint64_t element_bytes(ElementType type, uint64_t n) {
  const ElementBlock b = element_block(type);
  LLM0_CHECK(n % static_cast<uint64_t>(b.numbers) == 0, "{} numbers of {} are not a whole number "
             "of its {}-number blocks", n, element_type_name(type), b.numbers);
  return n / static_cast<uint64_t>(b.numbers) * static_cast<uint64_t>(b.bytes);
}

const char* element_type_name(ElementType type) { return row_of(type).name; }

const char* element_type_ledger_name(ElementType type) { return row_of(type).ledger_name; }

ElementType parse_element_type(std::string_view name) {
  if (name == "bf16") return ElementType::BF16;
  if (name == "fp16") return ElementType::F16;
  if (name == "fp8") return ElementType::FP8;
  if (name == "fp32" || name == "f32") return ElementType::F32;  // f32: the engine's --kv-dtype name
  LLM0_FAIL("unknown dtype \"{}\" (expected bf16, fp16, fp8 or fp32)", name);
}

}  // namespace llm0
