// What a tokenizer.json says happens to text before BPE: the normalizer and the pre-tokenizer
// (HF tokenizers src/tokenizer/mod.rs: normalize, then pre_tokenize), plus the decoder, which
// must be one llm0 can honour by concatenating token bytes. Components llm0 does not implement
// are refused by name rather than silently replaced by llm0's own rules.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "tokenizer/decoder.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"

namespace llm0 {

/// A loaded tokenizer's text rules. A file written by llm0 itself (normalizer null; pre_tokenizer
/// Sequence[Split(pretokenize_regex(), Isolated), ByteLevel(false, use_regex=false)]) gets
/// `native` = true and keeps llm0's own scanner (pretokenize.h), exact also for invalid UTF-8.
struct TextRules {
  bool native = true;
  std::vector<NormalizerStep> normalizers;            // applied in order
  DecoderRules decoder;                               // byte_level: token bytes joined
  PostTemplate post;                                  // special ids around the text
  std::shared_ptr<const PreTokenizer> pre_tokenizer;  // null when native
  nlohmann::json normalizer_json, pre_tokenizer_json;  // as read, written back by save()
};

/// Reads "normalizer", "pre_tokenizer", "decoder" and "post_processor" of tokenizer.json `j`
/// (file `path`). Supported: normalizer null, NFC, NFD, NFKC, NFKD, Prepend, Replace (literal
/// pattern), or a Sequence of them; pre_tokenizer null (no split), Sequence, Split (pattern
/// {"Regex"} or {"String"}, behavior Removed / Isolated / MergedWithPrevious / MergedWithNext /
/// Contiguous, invert), ByteLevel (add_prefix_space, use_regex), Digits (individual_digits),
/// Metaspace (replacement, prepend_scheme always/first/never or the older add_prefix_space,
/// split); decoder and post_processor as decoder.h says.
/// Throws llm0::Error naming the file and the field ("pre_tokenizer.pretokenizers[1].type
/// \"Metaspace\" is not supported ...") for anything else or any malformed field.
TextRules text_rules_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace llm0
