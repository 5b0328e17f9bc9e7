// Regex (see regex.h): PCRE2 compile with JIT when available, and a find-all loop.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tokenizer/regex.h"

#include <pcre2.h>

#include "core/check.h"

namespace llm0 {

struct Regex::Code {
  pcre2_code* code = nullptr;
  ~Code() { pcre2_code_free(code); }
};

namespace {

std::string pcre2_message(int err) {
  PCRE2_UCHAR buf[256];
  pcre2_get_error_message(err, buf, sizeof buf);
  return reinterpret_cast<const char*>(buf);
}

// Length in bytes of the character at text[pos] (1 for an invalid byte).
size_t char_len(std::string_view text, size_t pos) {
  const unsigned char c = static_cast<unsigned char>(text[pos]);
  const size_t n = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return std::min(n, text.size() - pos);
}

}  // namespace

Regex::Regex(std::string_view pattern, bool literal, const std::string& where)
    : code_(std::make_unique<Code>()) {
  // PCRE2_LITERAL admits no PCRE2_UCP (which only changes what \d, \s, \w and [[:classes:]] match).
  const uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
  int err = 0;
  PCRE2_SIZE at = 0;
  code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options,
                              &err, &at, nullptr);
  LLM0_CHECK(code_->code != nullptr, "{}: cannot compile regex '{}': {} at offset {}", where,
             pattern, pcre2_message(err), at);
  pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE);  // falls back to the interpreter if it fails
}

Regex::~Regex() = default;

std::vector<MatchRange> Regex::find_all(std::string_view text) const {
  std::vector<MatchRange> out;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(code_->code, nullptr);
  LLM0_CHECK(md != nullptr, "regex: out of memory for match data");
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t from = 0;
  bool have_last = false;
  size_t last_end = 0;
  while (from <= text.size()) {
    const int rc = pcre2_match(code_->code, subject, text.size(), from, 0, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(md);
      LLM0_FAIL("regex: matching failed: {}", pcre2_message(rc));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t s = ov[0], e = ov[1];
    if (s == e && have_last && e == last_end) {  // Rust find_iter: no empty match right after one
      if (from >= text.size()) break;
      from += char_len(text, from);
      continue;
    }
    out.emplace_back(s, e);
    have_last = true;
    last_end = e;
    from = e;
    if (s == e) {  // an empty match: the next search starts one character on
      if (from >= text.size()) break;
      from += char_len(text, from);
    }
  }
  pcre2_match_data_free(md);
  return out;
}

}  // namespace llm0
