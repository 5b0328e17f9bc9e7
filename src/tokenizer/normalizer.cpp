// normalize_unicode, normalize (see normalizer.h): utf8proc_map over each valid UTF-8 stretch.
#include "tokenizer/normalizer.h"

#include <utf8proc.h>

#include <cstdlib>

#include "core/check.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

int utf8proc_options(UnicodeForm form) {
  switch (form) {
    case UnicodeForm::NFC: return UTF8PROC_STABLE | UTF8PROC_COMPOSE;
    case UnicodeForm::NFD: return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE;
    case UnicodeForm::NFKC: return UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
    case UnicodeForm::NFKD: return UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
    case UnicodeForm::None: break;
  }
  return 0;
}

void append_normalized(std::string_view valid, int options, std::string& out) {
  if (valid.empty()) return;
  utf8proc_uint8_t* dst = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
                                          static_cast<utf8proc_ssize_t>(valid.size()), &dst,
                                          static_cast<utf8proc_option_t>(options));
  LLM0_CHECK(n >= 0, "unicode normalization failed: {}", utf8proc_errmsg(n));
  out.append(reinterpret_cast<const char*>(dst), static_cast<size_t>(n));
  std::free(dst);
}

}  // namespace

std::string normalize_unicode(std::string_view text, UnicodeForm form) {
  if (form == UnicodeForm::None) return std::string(text);
  const int options = utf8proc_options(form);
  std::string out;
  out.reserve(text.size());
  size_t start = 0, pos = 0;
  char32_t cp = 0;
  while (pos < text.size()) {
    const int len = utf8_decode(text, pos, cp);
    if (len > 0) { pos += len; continue; }
    append_normalized(text.substr(start, pos - start), options, out);
    out += text[pos];  // an invalid byte stays as it is
    start = ++pos;
  }
  append_normalized(text.substr(start), options, out);
  return out;
}

std::string normalize(std::string_view text, const std::vector<NormalizerStep>& steps) {
  std::string s(text);
  for (const NormalizerStep& step : steps) {
    switch (step.kind) {
      case NormalizerStep::Kind::Unicode: s = normalize_unicode(s, step.form); break;
      case NormalizerStep::Kind::Prepend: if (!s.empty()) s.insert(0, step.content); break;
      case NormalizerStep::Kind::Replace: {
        if (step.pattern.empty()) break;
        std::string out;
        size_t from = 0;
        for (size_t at = s.find(step.pattern); at != std::string::npos; at = s.find(step.pattern, from)) {
          out.append(s, from, at - from).append(step.content);
          from = at + step.pattern.size();
        }
        s = out.append(s, from);
        break;
      }
    }
  }
  return s;
}

}  // namespace llm0
