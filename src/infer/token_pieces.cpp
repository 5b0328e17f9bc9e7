// Token pieces (token_pieces.h).
#include "infer/token_pieces.h"

#include "tokenizer/utf8.h"

namespace llm0 {

std::string token_piece(const Tokenizer& tok, int id) {
  const std::string& b = tok.token_bytes(id);
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < b.size();) {
    char32_t cp = 0;
    const int n = utf8_decode(b, i, cp);
    if (n > 0) {
      out.append(b, i, (size_t)n), i += (size_t)n;
    } else {
      const unsigned char c = (unsigned char)b[i++];
      out += "<0x", out += kHex[c >> 4], out += kHex[c & 15], out += '>';
    }
  }
  return out;
}

nlohmann::json token_pieces_json(const Tokenizer& tok, const std::vector<int>& ids) {
  nlohmann::json a = nlohmann::json::array();
  for (int id : ids) a.push_back({{"id", id}, {"text", token_piece(tok, id)}});
  return a;
}

}  // namespace llm0
