// Fuzz harness: safetensors reader (io/safetensors.h) on arbitrary bytes: header length, header
// JSON, dtypes, shapes, data_offsets. Properties of an accepted file: every tensor holds
// numel() values; writing the tensors back (F32) and reading again gives the same names, shapes,
// values (bit for bit) and metadata.
#include <cstring>

#include "core/check.h"
#include "fuzz_util.h"
#include "io/safetensors.h"

using namespace llm0;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile input("in.safetensors"), copy("copy.safetensors");
  const auto read =
      fuzz::accepted([&] { return read_safetensors(input.write(fuzz::as_bytes(data, size))); });
  if (!read) return 0;
  const SafetensorsFile& file = *read;
  std::vector<TensorRef> refs;
  for (const auto& [name, t] : file.tensors) {
    FUZZ_ASSERT(t.name == name, "entry named as its key");
    FUZZ_ASSERT(t.shape.numel() >= 0 && t.values.size() == static_cast<size_t>(t.shape.numel()),
                "values hold numel() floats");
    refs.push_back({name, t.shape, t.values.data()});
  }
  write_safetensors(copy.path(), refs, file.metadata);
  const SafetensorsFile again = read_safetensors(copy.path());
  FUZZ_ASSERT(again.metadata == file.metadata, "metadata round-trips");
  FUZZ_ASSERT(again.tensors.size() == file.tensors.size(), "tensor count round-trips");
  for (const auto& [name, t] : file.tensors) {
    const auto it = again.tensors.find(name);
    FUZZ_ASSERT(it != again.tensors.end(), "every tensor round-trips");
    FUZZ_ASSERT(it->second.shape == t.shape, "shape round-trips");
    FUZZ_ASSERT(it->second.dtype == DType::F32, "written as F32");
    FUZZ_ASSERT(t.values.empty() ||
                    std::memcmp(it->second.values.data(), t.values.data(),
                            t.values.size() * sizeof(float)) == 0,
                "values round-trip bit for bit");
  }
  return 0;
}
