// Fuzz harness: GGUF reader (io/gguf/reader.h) on arbitrary bytes: magic, version, counts,
// every metadata type (nested arrays), tensor infos, alignment, data section. Properties of an
// accepted file: each tensor holds ggml_nbytes(type, numel) bytes at an aligned offset; writing
// the metadata and tensors back with GgufWriter (quantized tensors as their F32 dequantized
// values) and reading again gives the same values.
// Then the import path (io/gguf/import.h gguf_to_hf): refused with llm0::Error or converted into a
// config that validates and round-trips through config.json, one tensor per parameter with the
// shape the config implies, and a tokenizer.json that Tokenizer::load reads or refuses by name.
#include <cmath>
#include <cstring>

#include "core/check.h"
#include "fuzz_util.h"
#include "io/gguf/import.h"
#include "io/gguf/reader.h"
#include "model/param_table.h"
#include "tokenizer/tokenizer.h"

using namespace llm0;

namespace {

// Equal as floats, NaN equal to NaN (F16 NaN payloads need not survive float32 and back).
bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))) return false;
  return true;
}

// GgufValue::operator== with NaN equal to NaN (float metadata may hold NaN).
bool same_value(const GgufValue& a, const GgufValue& b) {
  if (a.type == GgufType::FLOAT32 || a.type == GgufType::FLOAT64)
    return b.type == a.type && (a.f == b.f || (std::isnan(a.f) && std::isnan(b.f)));
  if (a.type != GgufType::ARRAY) return a == b;
  if (b.type != a.type || a.array_type != b.array_type || a.array.size() != b.array.size())
    return false;
  for (size_t k = 0; k < a.array.size(); ++k)
    if (!same_value(a.array[k], b.array[k])) return false;
  return true;
}

// The import of an accepted file: refused by name, or consistent (see the file header).
void check_import(const GgufFile& f) {
  static const fuzz::ScratchFile tok("tokenizer.json");
  const auto im = fuzz::accepted([&] { return gguf_to_hf(f, DType::F32, "in.gguf"); });
  if (!im) return;
  const ModelConfig again = ModelConfig::from_json(im->config.to_json(), "imported config");
  FUZZ_ASSERT(again.to_json() == im->config.to_json(), "imported config round-trips");
  ParamStore table;
  declare_model_params(table, im->config);
  FUZZ_ASSERT(table.params().size() == im->tensors.size(), "one tensor per parameter");
  for (size_t i = 0; i < im->tensors.size(); ++i) {
    const HfTensor& t = im->tensors[i];
    FUZZ_ASSERT(t.name == table.params()[i].name && t.shape == table.params()[i].shape,
                "tensor names and shapes as the config implies");
    FUZZ_ASSERT(t.values.size() == (size_t)t.shape.numel(), "numel values");
  }
  fuzz::accepted([&] { return Tokenizer::load(tok.write(im->tokenizer.dump())).vocab_size(); });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile input("in.gguf"), copy("copy.gguf");
  const auto read = fuzz::accepted([&] { return read_gguf(input.write(fuzz::as_bytes(data, size))); });
  if (!read) return 0;
  const GgufFile& f = *read;
  check_import(f);
  FUZZ_ASSERT(f.version == 2 || f.version == 3, "version 2 or 3");
  GgufWriter w;
  for (const auto& [key, value] : f.metadata) w.add(key, value);
  FUZZ_ASSERT(w.alignment() == f.alignment, "alignment read as written");
  for (const GgufTensorInfo& t : f.tensors) {
    FUZZ_ASSERT(t.dims.size() >= 1 && t.dims.size() <= 4, "1 to 4 dims");
    FUZZ_ASSERT(t.offset % f.alignment == 0, "aligned offset");
    FUZZ_ASSERT(t.dims[0] % ggml_block_size(t.type) == 0, "rows of whole blocks");
    FUZZ_ASSERT(t.bytes.size() == ggml_nbytes(t.type, t.numel()), "numel / block x block bytes");
    FUZZ_ASSERT(t.bytes.size() <= size, "tensor no larger than the file");
    const std::vector<float> values = t.to_float();
    FUZZ_ASSERT(values.size() == t.numel(), "to_float gives numel values");
    bool fits = true;  // a zero-element tensor may have extents beyond int64 in its other dims
    for (uint64_t d : t.dims) fits = fits && d <= uint64_t(INT64_MAX);
    const GgmlType written = ggml_type_is_quantized(t.type) ? GgmlType::F32 : t.type;
    if (fits) w.add_tensor(t.name, t.shape(), written, values.data());
  }
  w.write(copy.path());
  const GgufFile again = read_gguf(copy.path());
  FUZZ_ASSERT(again.metadata.size() == f.metadata.size(), "metadata count round-trips");
  for (size_t k = 0; k < f.metadata.size(); ++k)
    FUZZ_ASSERT(again.metadata[k].first == f.metadata[k].first &&
                    same_value(again.metadata[k].second, f.metadata[k].second),
                "metadata round-trips");
  for (const GgufTensorInfo& t : again.tensors) {
    const GgufTensorInfo* orig = f.tensor(t.name);
    FUZZ_ASSERT(orig != nullptr && orig->dims == t.dims &&
                    (orig->type == t.type || ggml_type_is_quantized(orig->type)),
                "tensor name, dims and (unquantized) type round-trip");
    FUZZ_ASSERT(same_floats(orig->to_float(), t.to_float()), "tensor values round-trip");
  }
  return 0;
}
