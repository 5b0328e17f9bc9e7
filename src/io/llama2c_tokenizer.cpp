// read_llama2c_tokenizer, llama2c_tokenizer_json (see llama2c_tokenizer.h). The JSON layout is
// Hugging Face's for Llama 2 (transformers convert_slow_tokenizer.py LlamaConverter).
#include "io/llama2c_tokenizer.h"

#include <fstream>

#include "core/check.h"
#include "io/sentencepiece_json.h"
#include "tokenizer/utf8.h"

namespace llm0 {

namespace {

using nlohmann::ordered_json;

constexpr int kFirstByteToken = 3;       // <0x00> follows <unk> <s> </s>
constexpr int kMaxPieceBytes = 1 << 16;  // refuse absurd lengths before allocating
const std::string kSpace = "\xE2\x96\x81";  // U+2581 "▁"

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

std::vector<Llama2cToken> read_llama2c_tokenizer(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "{}: cannot open the llama2.c tokenizer", path);
  int32_t max_len = 0;
  LLM0_CHECK(in.read(reinterpret_cast<char*>(&max_len), 4).good() && max_len > 0,
             "{}: not a llama2.c tokenizer (no positive max_token_length at the start)", path);
  std::vector<Llama2cToken> tokens;
  while (in.peek() != std::char_traits<char>::eof()) {
    Llama2cToken t;
    int32_t len = -1;
    in.read(reinterpret_cast<char*>(&t.score), 4);
    in.read(reinterpret_cast<char*>(&len), 4);
    LLM0_CHECK(in.good(), "{}: token {} is cut off by the end of the file (truncated?)", path, tokens.size());
    LLM0_CHECK(len >= 0 && len <= kMaxPieceBytes, "{}: token {} has length {} (expected 0..{})", path,
               tokens.size(), len, kMaxPieceBytes);
    t.piece.resize(static_cast<size_t>(len));
    in.read(t.piece.data(), len);
    LLM0_CHECK(in.good(), "{}: token {} is cut off by the end of the file (truncated?)", path, tokens.size());
    tokens.push_back(std::move(t));
  }
  return tokens;
}

ordered_json llama2c_tokenizer_json(const std::vector<Llama2cToken>& tokens, const std::string& where) {
  const int V = static_cast<int>(tokens.size());
  LLM0_CHECK(V >= kFirstByteToken + 256, "{}: {} tokens, fewer than <unk> <s> </s> and 256 byte tokens",
             where, V);
  const char* specials[] = {"<unk>", "<s>", "</s>"};
  std::vector<SpToken> pieces((size_t)V);  // tokenizer.json strings ("▁" for a space)
  for (int id = 0; id < V; ++id) {
    const std::string& p = tokens[(size_t)id].piece;
    SpToken& t = pieces[(size_t)id];
    t.score = tokens[(size_t)id].score;
    if (id < kFirstByteToken) {
      LLM0_CHECK(p == specials[id] || p == "\n" + std::string(specials[id]) + "\n",
                 "{}: token {} is '{}', expected {}", where, id, p, specials[id]);
      t.piece = specials[id];
      t.type = id == 0 ? SpTokenType::Unknown : SpTokenType::Control;
    } else if (id < kFirstByteToken + 256) {
      const std::string byte = sentencepiece_byte_piece(id - kFirstByteToken);
      LLM0_CHECK(p == byte, "{}: token {} is '{}', expected the byte token {}", where, id, p, byte);
      t.piece = p;
      t.type = SpTokenType::Byte;
    } else {
      LLM0_CHECK(!p.empty() && utf8_valid(p), "{}: token {} is empty or not valid UTF-8", where, id);
      t.piece = replace_all(p, " ", kSpace);
    }
  }
  return sentencepiece_tokenizer_json(pieces, 1, true, where);  // <s> first, as llama2.c encodes
}

}  // namespace llm0
