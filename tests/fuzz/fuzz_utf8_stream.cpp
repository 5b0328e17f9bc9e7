// Fuzz harness: the UTF-8 stream decoder (infer/utf8_stream.h). The input is cut into chunks
// (lengths taken from the input, with empty pushes between some) and pushed one by one. Checked
// against utf8proc (a second UTF-8 implementation): the bytes held back after each push are
// exactly the longest suffix (1..3 bytes) that is a proper prefix of one well-formed character;
// an empty push changes nothing; the outputs plus flush() give the input back byte for byte; for
// valid UTF-8 input every push returns valid UTF-8 on its own.
#include <utf8proc.h>

#include <unordered_map>

#include "fuzz_util.h"
#include "infer/utf8_stream.h"

using namespace llm0;

namespace {

// utf8proc's verdict: `s` is well-formed UTF-8 (no overlong, surrogate or > U+10FFFF).
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  for (size_t i = 0; i < s.size();) {
    utf8proc_int32_t cp;
    const utf8proc_ssize_t n = utf8proc_iterate(p + i, static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0 || cp < 0) return false;
    i += static_cast<size_t>(n);
  }
  return true;
}

// Whether `tail` (1..3 bytes) followed by some continuation bytes is exactly one well-formed
// character: tries every second byte and 80/BF for the later ones (only the second byte's range
// depends on the lead, Unicode Table 3-7).
bool completable(std::string_view tail) {
  const int firsts = tail.size() >= 2 ? 1 : 64;  // the second byte, when not given: 80..BF
  for (size_t len = tail.size() + 1; len <= 4; ++len) {
    for (int second = 0; second < firsts; ++second) {
      for (const char later : {'\x80', '\xBF'}) {
        std::string s(tail);
        if (s.size() == 1) s.push_back(static_cast<char>(0x80 + second));
        while (s.size() < len) s.push_back(later);
        utf8proc_int32_t cp;
        const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                        static_cast<utf8proc_ssize_t>(s.size()), &cp);
        if (n == static_cast<utf8proc_ssize_t>(len) && cp >= 0) return true;
      }
    }
  }
  return false;
}

// completable(), memoized (it depends on at most 3 bytes).
bool completable_cached(std::string_view tail) {
  static std::unordered_map<std::string, bool> known;
  const auto [it, fresh] = known.try_emplace(std::string(tail), false);
  if (fresh) it->second = completable(tail);
  return it->second;
}

// The longest suffix of `all` (1..3 bytes) that is a proper prefix of one character; "" if none.
std::string_view expected_held(std::string_view all) {
  for (size_t k = std::min<size_t>(3, all.size()); k >= 1; --k)
    if (completable_cached(all.substr(all.size() - k))) return all.substr(all.size() - k);
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Reader in(data, size);
  const uint64_t cuts = in.take<uint64_t>();  // 21 chunk lengths, 3 bits each
  const std::string_view text = in.rest();
  const bool valid = valid_utf8(text);
  Utf8Stream stream;
  std::string out;
  size_t pos = 0;
  for (int c = 0; pos < text.size(); c = (c + 1) % 21) {
    const size_t field = (cuts >> (3 * c)) & 7;  // 0: an empty push first, then one byte
    if (field == 0) {
      const size_t held = stream.held();
      FUZZ_ASSERT(stream.push("").empty() && stream.held() == held, "an empty push changes nothing");
    }
    const size_t len = std::min<size_t>(std::max<size_t>(field, 1), text.size() - pos);
    const std::string piece = stream.push(text.substr(pos, len));
    pos += len;
    FUZZ_ASSERT(text.substr(out.size(), piece.size()) == piece, "outputs are the input in order");
    out += piece;
    const std::string_view so_far = text.substr(0, pos);
    FUZZ_ASSERT(out.size() + stream.held() == pos, "every byte pushed is returned or held");
    FUZZ_ASSERT(so_far.substr(out.size()) == expected_held(so_far),
                "held back exactly the longest completable tail (utf8proc)");
    if (valid) FUZZ_ASSERT(valid_utf8(piece), "valid input streams as valid pieces");
  }
  out += stream.push(text.substr(pos));
  out += stream.flush();
  FUZZ_ASSERT(out == text, "outputs + flush give the input back");
  FUZZ_ASSERT(stream.held() == 0, "flush empties the stream");
  return 0;
}
