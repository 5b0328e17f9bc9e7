// SentencePiece-style BPE in a tokenizer.json (HF tokenizers src/models/bpe/model.rs,
// BPE::merge_word with byte_fallback and fuse_unk; the layout transformers' LlamaConverter writes
// for Llama 2 / TinyLlama): vocab strings are text ("▁the", "<0x0A>"), not byte-level; the word
// starts as one symbol per character of the normalized text; a character missing from the vocab
// becomes the <0xXX> tokens of its UTF-8 bytes (byte_fallback; a file that sets it without all 256
// is refused, where HF would quietly give <unk>), else <unk> (consecutive ones fused with
// fuse_unk); then merges by rank (bpe_encode.h). Decoding: decoder.h; added tokens go through
// the decoder like every token. Gemma 3's file is this layout with merges as [left, right] pairs.
#include <algorithm>
#include <mutex>

#include <nlohmann/json.hpp>

#include "core/check.h"
#include "core/json_parse.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/bpe_json.h"
#include "tokenizer/encode_cache.h"
#include "tokenizer/piece_vocab.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/text_rules.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

using nlohmann::json;

std::string byte_token(int b) {
  static const char* hex = "0123456789ABCDEF";
  return std::string("<0x") + hex[b >> 4] + hex[b & 15] + ">";
}

bool model_flag(const json& model, const char* key, const std::string& path) {
  const json v = model.value(key, json(false));
  LLM0_CHECK(v.is_boolean() || v.is_null(), "{}: model.{} is not true or false", path, key);
  return v == json(true);
}

// Decoded bytes of vocab string `piece` (decoder.h: Replace steps; a byte token is its byte).
std::string piece_bytes(const std::string& piece, const DecoderRules& d, int byte) {
  if (byte >= 0 && d.byte_fallback) return std::string(1, static_cast<char>(byte));
  std::string s = piece;
  for (const auto& [from, to] : d.replace) {
    if (from.empty()) continue;
    std::string out;
    size_t at = 0, prev = 0;
    while ((at = s.find(from, prev)) != std::string::npos) {
      out.append(s, prev, at - prev).append(to);
      prev = at + from.size();
    }
    s = out.append(s, prev);
  }
  return s;
}

}  // namespace

void Tokenizer::load_pieces(const json& j, const std::string& path, std::string file_text) {
  const json& model = j["model"];
  auto pv = std::make_shared<PieceVocab>();
  pv->fuse_unk = model_flag(model, "fuse_unk", path);
  pv->byte_fallback = model_flag(model, "byte_fallback", path);
  const std::vector<AddedToken> added = take_added_tokens(j, path);
  TokenTable table(model["vocab"].size() + added.size());  // id -> vocab string (or added token content)
  pv->ids.reserve(model["vocab"].size());
  for (const auto& [key, value] : model["vocab"].items()) {
    const int id = vocab_id(key, value, path);
    table.add_vocab(id, key, path);
    pv->ids[key] = id;
  }
  for (const AddedToken& t : added) table.add_added(t.id, t.content, path);
  const std::vector<std::string> by_id = table.take(path);
  const int V = static_cast<int>(by_id.size());
  pv->byte_ids.fill(-1);
  pv->is_byte.assign(V, 0);
  if (pv->byte_fallback)
    for (int b = 0; b < 256; ++b) {
      const auto it = pv->ids.find(byte_token(b));
      LLM0_CHECK(it != pv->ids.end(), "{}: model.byte_fallback is true but model.vocab has no '{}' "
                 "(byte fallback needs all 256 byte tokens)", path, byte_token(b));
      pv->byte_ids[b] = it->second;
      pv->is_byte[it->second] = 1;
    }
  std::vector<int> byte_of(V, -1);
  for (int b = 0; b < 256; ++b)
    if (pv->byte_ids[b] >= 0) byte_of[pv->byte_ids[b]] = b;
  // Added tokens go through the decoder too (HF decode runs it over every token): Gemma 3's "▁▁"
  // decodes to two spaces.
  for (int id = 0; id < V; ++id) tokens_.push_back(piece_bytes(by_id[id], rules_->decoder, byte_of[id]));
  added_flags_.resize(V, 0);
  const json unk = model.value("unk_token", json(nullptr));
  if (!unk.is_null()) {
    LLM0_CHECK(unk.is_string() && pv->ids.count(unk.get<std::string>()),
               "{}: model.unk_token {} is not a token of model.vocab", path, json_excerpt(unk));
    pv->unk = pv->ids[unk.get<std::string>()];
  }
  const json& merges = model["merges"];
  merges_.reserve(merges.size());
  merge_table_.reserve(merges.size());
  std::string joined;
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto [left, right] = merge_parts(merges[i], path, i);
    joined.assign(left).append(right);
    const auto l = pv->ids.find(left), r = pv->ids.find(right), lr = pv->ids.find(joined);
    LLM0_CHECK(l != pv->ids.end() && r != pv->ids.end(),
               "{}: model.merges[{}] = '{} {}' names a token missing from model.vocab", path, i, left, right);
    LLM0_CHECK(lr != pv->ids.end(), "{}: model.merges[{}] = '{} {}' makes '{}', missing from model.vocab",
               path, i, left, right, left + right);
    merges_.push_back({l->second, r->second});
    merge_table_.emplace(merge_key(l->second, r->second), MergeRule{static_cast<int>(i), lr->second});
  }
  std::sort(specials_.begin(), specials_.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  pv->file_text = std::move(file_text);
  pieces_ = std::move(pv);
  cache_ = std::make_shared<EncodeCache>();
}

void Tokenizer::encode_pieces(std::string_view text, bool at_text_start, std::vector<int>& out) const {
  const std::string normalized = normalize(text, rules_->normalizers);
  if (!rules_->pre_tokenizer) {
    if (!normalized.empty()) encode_char_piece(normalized, out);
    return;
  }
  for (const std::string& piece : rules_->pre_tokenizer->split(normalized, at_text_start))
    encode_char_piece(piece, out);
}

void Tokenizer::encode_char_piece(std::string_view piece, std::vector<int>& out) const {
  const PieceVocab& pv = *pieces_;
  if (ignore_merges_) {
    const auto it = pv.ids.find(std::string(piece));
    if (it != pv.ids.end()) return out.push_back(it->second);
  }
  const bool cacheable = piece.size() <= EncodeCache::kMaxWordBytes;
  if (cacheable) {
    std::lock_guard lock(cache_->mutex);
    const auto it = cache_->map.find(piece);
    if (it != cache_->map.end()) return out.insert(out.end(), it->second.begin(), it->second.end()), void();
  }
  std::vector<int> symbols;  // one per character, or its bytes, or <unk>
  bool last_unk = false;
  char32_t cp = 0;
  for (size_t pos = 0; pos < piece.size();) {
    const size_t len = static_cast<size_t>(std::max(1, utf8_decode(piece, pos, cp)));  // bad byte: alone
    const std::string ch(piece.substr(pos, len));
    pos += len;
    if (const auto it = pv.ids.find(ch); it != pv.ids.end()) {
      symbols.push_back(it->second), last_unk = false;
      continue;
    }
    if (pv.byte_fallback) {  // all 256 <0xXX> tokens are there (checked at load)
      for (char c : ch) symbols.push_back(pv.byte_ids[static_cast<unsigned char>(c)]);
      last_unk = false;
    } else if (pv.unk >= 0 && !(last_unk && pv.fuse_unk)) {  // HF drops the character without unk
      symbols.push_back(pv.unk), last_unk = true;
    }
  }
  const size_t start = out.size();
  bpe_merge_symbols(symbols, merge_table_, out);
  if (!cacheable) return;
  std::lock_guard lock(cache_->mutex);
  if (cache_->map.size() >= EncodeCache::kMaxEntries) cache_->map.clear();
  cache_->map.emplace(std::string(piece), std::vector<int>(out.begin() + start, out.end()));
}

std::string Tokenizer::decode_pieces(const std::vector<int>& ids) const {
  const PieceVocab& pv = *pieces_;
  const DecoderRules& d = rules_->decoder;
  std::string out, run;  // run: consecutive byte-fallback bytes (HF ByteFallback)
  auto flush = [&] {
    if (utf8_valid(run)) out += run;
    else for (size_t i = 0; i < run.size(); ++i) out += "\xEF\xBF\xBD";  // U+FFFD per byte
    run.clear();
  };
  for (int id : ids) {
    const std::string& bytes = token_bytes(id);
    if (d.byte_fallback && pv.is_byte[id]) {
      run += bytes;
      continue;
    }
    flush();
    out += bytes;
  }
  flush();
  const char c = d.strip_content[0];
  size_t begin = 0, end = out.size();
  for (int i = 0; i < d.strip_start && begin < end && out[begin] == c; ++i) ++begin;
  for (int i = 0; i < d.strip_stop && end > begin && out[end - 1] == c; ++i) --end;
  return out.substr(begin, end - begin);
}

}  // namespace llm0
