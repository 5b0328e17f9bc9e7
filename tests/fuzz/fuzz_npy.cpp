// Fuzz harness: .npy reader (io/npy.h) on arbitrary bytes: magic, version, header length, the
// Python-literal header dict, data size. Property of an accepted file: write_npy of the tensor
// read back gives the same shape and the same values bit for bit.
#include <cstring>

#include "core/check.h"
#include "fuzz_util.h"
#include "io/npy.h"

using namespace llm0;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::ScratchFile input("in.npy"), copy("copy.npy");
  const auto read = fuzz::accepted([&] { return read_npy(input.write(fuzz::as_bytes(data, size))); });
  if (!read) return 0;
  const Tensor& t = *read;
  FUZZ_ASSERT(t.shape().numel() >= 0, "non-negative element count");
  FUZZ_ASSERT(static_cast<size_t>(t.shape().numel()) * 4 <= size, "data no larger than the file");
  write_npy(copy.path(), t.data(), t.shape());
  const Tensor again = read_npy(copy.path());
  FUZZ_ASSERT(again.shape() == t.shape(), "shape round-trips");
  FUZZ_ASSERT(t.shape().numel() == 0 ||
                  std::memcmp(again.data(), t.data(), sizeof(float) * t.shape().numel()) == 0,
              "values round-trip bit for bit");
  return 0;
}
