// Tokenizer: training entry point, consistency checks, encode/decode (see tokenizer.h).
// tokenizer.json reading and writing live in tokenizer_json.cpp.
#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "core/check.h"
#include "tokenizer/added_tokens.h"
#include "tokenizer/char_class.h"
#include "tokenizer/encode_cache.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/text_rules.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

// Unique pre-tokens of `documents` with their counts, sorted by bytes (specials cut out).
std::vector<std::pair<std::string, int64_t>> count_words(
    const std::vector<std::string>& documents,
    const std::vector<std::pair<std::string, int>>& specials) {
  std::unordered_map<std::string_view, int64_t> counts;
  for (const std::string& doc : documents)
    for (const TextSegment& seg : split_on_specials(doc, specials))
      if (seg.special_id < 0)
        for (std::string_view piece : pretokenize(seg.text)) ++counts[piece];
  std::vector<std::pair<std::string, int64_t>> words;
  words.reserve(counts.size());
  for (const auto& [w, c] : counts) words.emplace_back(std::string(w), c);
  std::sort(words.begin(), words.end());
  return words;
}

}  // namespace

Tokenizer Tokenizer::train(const std::vector<std::string>& documents, int vocab_size,
                           const std::vector<std::string>& special_tokens) {
  const int num_specials = static_cast<int>(special_tokens.size());
  LLM0_CHECK(vocab_size >= 256 + num_specials,
             "tokenizer: vocab_size={} is smaller than 256 byte tokens + {} special tokens",
             vocab_size, num_specials);
  std::vector<std::pair<std::string, int>> specials;
  for (const std::string& s : special_tokens) {
    LLM0_CHECK(!s.empty(), "tokenizer: empty special token");
    LLM0_CHECK(utf8_valid(s), "tokenizer: special token '{}' is not valid UTF-8", s);
    for (const auto& [t, id] : specials) LLM0_CHECK(t != s, "tokenizer: special token '{}' repeated", s);
    specials.emplace_back(s, static_cast<int>(specials.size()));  // final ids set below
  }
  BpeTrainResult r = bpe_train(count_words(documents, specials), vocab_size - num_specials);
  Tokenizer tok;
  tok.tokens_ = std::move(r.tokens);
  tok.merges_ = std::move(r.merges);
  for (auto& [text, id] : specials) {
    id = static_cast<int>(tok.tokens_.size());
    tok.tokens_.push_back(text);
  }
  tok.specials_ = std::move(specials);
  tok.added_flags_.assign(tok.tokens_.size(), 0);
  for (const auto& [text, id] : tok.specials_) tok.added_flags_[id] = kSpecial;
  tok.finish("tokenizer (trained)");
  return tok;
}

void Tokenizer::finish(const std::string& where) {
  const int V = static_cast<int>(tokens_.size());
  added_flags_.resize(V, 0);
  std::vector<char> is_special(V, 0);
  for (const auto& [text, id] : specials_) {
    LLM0_CHECK(id >= 0 && id < V, "{}: special token '{}' has id {} outside [0, {})", where, text, id, V);
    LLM0_CHECK(!text.empty() && tokens_[id] == text, "{}: special token id {} does not hold '{}'", where, id, text);
    LLM0_CHECK(!is_special[id], "{}: two special tokens share id {}", where, id);
    is_special[id] = 1;
  }
  std::unordered_map<std::string_view, int> ids;  // ordinary token bytes -> id
  ids.reserve(V);
  for (int id = 0; id < V; ++id) {
    if (is_special[id]) continue;
    LLM0_CHECK(!tokens_[id].empty(), "{}: token id {} is empty", where, id);
    LLM0_CHECK(ids.emplace(tokens_[id], id).second, "{}: token id {} repeats the bytes of id {}",
               where, id, ids[tokens_[id]]);
  }
  // An added token's text is no other token's either: Hugging Face would give it that token's id
  // (added_vocabulary.rs, add_tokens), and a saved file, whose model.vocab is keyed by text, would
  // lose one of the two ids.
  std::unordered_map<std::string_view, int> added_ids;
  for (const auto& [text, id] : specials_) {
    const auto it = ids.find(text);
    LLM0_CHECK(it == ids.end(), "{}: added token '{}' has id {}, but its text is token id {} of the "
               "vocabulary (Hugging Face would use id {})", where, text, id, it->second, it->second);
    const auto [at, fresh] = added_ids.emplace(text, id);
    LLM0_CHECK(fresh, "{}: added tokens {} and {} have the same text '{}'", where, at->second, id, text);
  }
  for (int b = 0; b < 256; ++b) {
    const std::string byte(1, static_cast<char>(b));
    const auto it = ids.find(byte);
    LLM0_CHECK(it != ids.end(), "{}: no token for byte {} (byte-level BPE needs all 256)", where, b);
    byte_ids_[b] = it->second;
  }
  merge_table_.clear();
  merge_table_.reserve(merges_.size());
  std::string joined;
  for (int rank = 0; rank < static_cast<int>(merges_.size()); ++rank) {
    const auto [l, r] = merges_[rank];
    LLM0_CHECK(l >= 0 && l < V && r >= 0 && r < V && !is_special[l] && !is_special[r],
               "{}: merge {} uses ids ({}, {}) that are not ordinary tokens", where, rank, l, r);
    const auto it = ids.find(joined.assign(tokens_[l]).append(tokens_[r]));
    LLM0_CHECK(it != ids.end(), "{}: merge {} ({}, {}) makes a token missing from the vocab",
               where, rank, l, r);
    merge_table_.emplace(merge_key(l, r), MergeRule{rank, it->second});  // first rank wins
  }
  piece_ids_.clear();
  if (ignore_merges_)
    for (const auto& [bytes, id] : ids) piece_ids_.emplace(std::string(bytes), id);
  std::sort(specials_.begin(), specials_.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  cache_ = std::make_shared<EncodeCache>();
}

std::vector<AddedToken> Tokenizer::take_added_tokens(const nlohmann::json& j, const std::string& path) {
  std::vector<AddedToken> added = added_tokens_from_json(j, path, rules_->normalizers.empty());
  for (const AddedToken& t : added) {
    specials_.emplace_back(t.content, t.id);
    if (added_flags_.size() <= static_cast<size_t>(t.id)) added_flags_.resize(t.id + 1, 0);
    added_flags_[t.id] = static_cast<uint8_t>((t.special ? kSpecial : 0) | (t.lstrip ? kLstrip : 0) |
                                              (t.rstrip ? kRstrip : 0));
  }
  return added;
}

namespace {
// Length of the Unicode White_Space at the start (from_end: the end) of `s`; invalid bytes stop it.
size_t whitespace_run(std::string_view s, bool from_end) {
  size_t pos = 0, lead = 0, trail_start = 0;
  char32_t cp = 0;
  while (pos < s.size()) {
    const int len = utf8_decode(s, pos, cp);
    const bool space = len > 0 && char_class(cp) == CharClass::kWhitespace;
    pos += len > 0 ? len : 1;
    if (!space) trail_start = pos;
    else if (lead + len == pos) lead = pos;
  }
  return from_end ? s.size() - trail_start : lead;
}
}  // namespace

void Tokenizer::strip_beside_added(std::vector<TextSegment>& segs) const {
  for (size_t i = 0; i < segs.size(); ++i) {
    if (segs[i].special_id < 0) continue;
    const uint8_t f = added_flags_[segs[i].special_id];
    if ((f & kLstrip) && i > 0 && segs[i - 1].special_id < 0) {
      std::string_view& t = segs[i - 1].text;
      t.remove_suffix(whitespace_run(t, true));
    }
    if ((f & kRstrip) && i + 1 < segs.size() && segs[i + 1].special_id < 0) {
      std::string_view& t = segs[i + 1].text;
      t.remove_prefix(whitespace_run(t, false));
    }
  }
}

void Tokenizer::encode_ordinary(std::string_view text, std::vector<int>& out) const {
  if (!rules_ || rules_->native) {
    for (std::string_view piece : pretokenize(text)) encode_piece(piece, out);
    return;
  }
  const std::string normalized = normalize(text, rules_->normalizers);
  for (const std::string& piece : rules_->pre_tokenizer->split(normalized)) encode_piece(piece, out);
}

void Tokenizer::encode_piece(std::string_view piece, std::vector<int>& out) const {
  if (ignore_merges_) {  // HF BPE::tokenize: a whole piece found in the vocab is one token
    const auto it = piece_ids_.find(std::string(piece));
    if (it != piece_ids_.end()) {
      out.push_back(it->second);
      return;
    }
  }
  const bool cacheable = piece.size() <= EncodeCache::kMaxWordBytes;
  if (cacheable) {
    std::lock_guard lock(cache_->mutex);
    const auto it = cache_->map.find(piece);
    if (it != cache_->map.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  const size_t start = out.size();
  bpe_encode_word(piece, byte_ids_, merge_table_, out);
  if (!cacheable) return;
  std::lock_guard lock(cache_->mutex);
  if (cache_->map.size() >= EncodeCache::kMaxEntries) cache_->map.clear();
  cache_->map.emplace(std::string(piece), std::vector<int>(out.begin() + start, out.end()));
}

std::vector<int> Tokenizer::encode(std::string_view text) const {
  std::vector<int> out;
  out.reserve(text.size() / 2 + 1);
  std::vector<TextSegment> segs = split_on_specials(text, specials_);
  strip_beside_added(segs);
  for (const TextSegment& seg : segs) {
    if (seg.special_id >= 0)
      out.push_back(seg.special_id);
    else if (seg.text.empty())
      continue;  // all whitespace, taken by an lstrip / rstrip neighbour
    else if (pieces_)
      encode_pieces(seg.text, seg.text.data() == text.data(), out);
    else
      encode_ordinary(seg.text, out);
  }
  return out;
}

std::vector<int> Tokenizer::encode_with_special_tokens(std::string_view text) const {
  if (!rules_) return encode(text);
  std::vector<int> out = rules_->post.prefix;
  const std::vector<int> ids = encode(text);
  out.insert(out.end(), ids.begin(), ids.end());
  out.insert(out.end(), rules_->post.suffix.begin(), rules_->post.suffix.end());
  return out;
}

const std::vector<int>& Tokenizer::prefix_ids() const {
  static const std::vector<int> none;
  return rules_ ? rules_->post.prefix : none;
}

int Tokenizer::decode_strip_start() const { return rules_ ? rules_->decoder.strip_start : 0; }

std::string Tokenizer::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
  if (skip_special_tokens) {
    std::vector<int> kept;
    kept.reserve(ids.size());
    for (int id : ids) {
      token_bytes(id);  // range check
      if (!(static_cast<size_t>(id) < added_flags_.size() && (added_flags_[id] & kSpecial))) kept.push_back(id);
    }
    return decode(kept, false);
  }
  if (pieces_) return decode_pieces(ids);
  std::string out;
  for (int id : ids) out += token_bytes(id);
  return out;
}

const std::string& Tokenizer::token_bytes(int id) const {
  LLM0_CHECK(id >= 0 && id < vocab_size(), "tokenizer: token id {} outside [0, {})", id, vocab_size());
  return tokens_[id];
}

int Tokenizer::special_id(std::string_view token) const {
  for (const auto& [text, id] : specials_)
    if (text == token) return id;
  LLM0_FAIL("tokenizer: no special token '{}'", token);
  return -1;  // unreachable
}

}  // namespace llm0
