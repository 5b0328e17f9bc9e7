// Decoders and the post-processor of tokenizer.json (HF tokenizers src/decoders/{mod,sequence,
// byte_fallback,fuse,strip}.rs, src/normalizers/replace.rs for Replace, src/processors/
// template.rs). llm0 decodes by joining per-token bytes, which covers:
//   ByteLevel (or null)      token bytes as they are (byte-level BPE)
//   Sequence of Replace (literal pattern, per token), ByteFallback ("<0xXX>" -> the byte; a run of
//     byte tokens that is not valid UTF-8 gives U+FFFD per byte), Fuse (join), then Strip(content,
//     start, stop) on the joined text: the SentencePiece-style decoder of Llama 2 / TinyLlama.
//   Metaspace(replacement, prepend_scheme): replacement -> " " per token, then the first token's
//     leading space dropped unless prepend_scheme is never (transformers.js's MetaspaceDecoder;
//     HF's Rust drops every replacement of the first token, which differs only for a first token
//     that holds more than one).
// TemplateProcessing adds special token ids around the text of a single sequence ("$A").
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace llm0 {

/// What decoding a token sequence does (see the file header).
struct DecoderRules {
  bool byte_level = true;                                   // ByteLevel or null: bytes joined
  std::vector<std::pair<std::string, std::string>> replace;  // per token, in order
  bool byte_fallback = false;                               // "<0xXX>" tokens are bytes
  std::string strip_content = " ";                          // Strip: the character removed
  int strip_start = 0, strip_stop = 0;                      // at most this many, at each end
};

/// Reads tokenizer.json's "decoder" `j` (file `path`). Throws llm0::Error naming the file and
/// the field for a component llm0 does not implement (e.g. "decoder.decoders[2].type \"CTC\"
/// is not supported"), a Replace with a regex pattern, or Strip before Fuse.
DecoderRules decoder_rules_from_json(const nlohmann::json& j, const std::string& path);

/// The special token ids a post_processor puts around the text of one sequence.
struct PostTemplate {
  std::vector<int> prefix, suffix;  // e.g. {<s>} and {} for Llama 2
};

/// Reads tokenizer.json's "post_processor" `j` (file `path`): null and ByteLevel add nothing;
/// TemplateProcessing's "single" template [SpecialToken...] $A [SpecialToken...] (ids from its
/// "special_tokens"); a Sequence of these. Throws llm0::Error naming the file and the field for
/// any other processor or a malformed template.
PostTemplate post_template_from_json(const nlohmann::json& j, const std::string& path);

}  // namespace llm0
