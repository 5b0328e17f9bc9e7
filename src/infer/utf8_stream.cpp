// Utf8Stream: hold back an incomplete trailing UTF-8 sequence, pass everything else through.
// Table 3-7 of the Unicode Standard (well-formed byte sequences) gives, per lead byte, the length
// and the allowed range of the second byte; later bytes are always 80..BF.
#include "infer/utf8_stream.h"

#include <cstdint>

namespace llm0 {

namespace {

/// Sequence length for a lead byte (1..4), or 0 for bytes that cannot start a sequence
/// (80..BF continuation, C0/C1 overlong leads, F5..FF beyond U+10FFFF).
int sequence_length(uint8_t lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

/// Whether `b` may follow `lead` as the second byte (Table 3-7: E0 A0..BF excludes overlongs,
/// ED 80..9F excludes surrogates, F0 90..BF overlongs, F4 80..8F code points > U+10FFFF).
bool second_byte_ok(uint8_t lead, uint8_t b) {
  uint8_t lo = 0x80, hi = 0xBF;
  if (lead == 0xE0) lo = 0xA0;
  if (lead == 0xED) hi = 0x9F;
  if (lead == 0xF0) lo = 0x90;
  if (lead == 0xF4) hi = 0x8F;
  return b >= lo && b <= hi;
}

bool is_continuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

size_t utf8_incomplete_tail(std::string_view bytes) {
  const size_t n = bytes.size();
  // The tail starts at the last non-continuation byte among the last 3 bytes (a 4-byte sequence
  // missing at least one byte has at most 3 present).
  for (size_t k = 1; k <= 3 && k <= n; ++k) {
    const auto lead = static_cast<uint8_t>(bytes[n - k]);
    if (is_continuation(lead)) continue;
    const int len = sequence_length(lead);
    if (len <= static_cast<int>(k)) return 0;  // complete, or cannot start a sequence
    if (k >= 2 && !second_byte_ok(lead, static_cast<uint8_t>(bytes[n - k + 1]))) return 0;
    return k;  // bytes 3.. of the tail are continuations by choice of k
  }
  return 0;
}

std::string Utf8Stream::push(std::string_view bytes) {
  held_.append(bytes);
  const size_t keep = utf8_incomplete_tail(held_);
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string Utf8Stream::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace llm0
