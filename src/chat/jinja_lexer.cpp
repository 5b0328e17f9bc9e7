// The chat-template lexer (jinja_lexer.h).
#include "chat/jinja_lexer.h"

#include <cstring>

#include "chat/jinja_error.h"
#include "chat/jinja_text.h"

namespace llm0::chat {

namespace {

// "\r\n" and "\r" -> "\n", then one trailing newline dropped (lexer.py tokeniter).
std::string normalize_newlines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '\r') {
      out += '\n';
      if (k + 1 < s.size() && s[k + 1] == '\n') ++k;
    } else {
      out += s[k];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool all_space(const std::string& s) {
  for (const char32_t c : utf8_code_points(s))
    if (!is_py_space((uint32_t)c)) return false;
  return true;
}

int count_newlines(const std::string& s, size_t from, size_t to) {
  int n = 0;
  for (size_t k = from; k < to && k < s.size(); ++k) n += s[k] == '\n';
  return n;
}

// Position after the Python whitespace starting at `pos`.
size_t skip_space(const std::string& s, size_t pos) {
  while (pos < s.size()) {
    size_t next = pos;
    const uint32_t c = utf8_next(s, next);
    if (!is_py_space(c)) break;
    pos = next;
  }
  return pos;
}

class Lexer {
 public:
  explicit Lexer(std::string source) : s_(normalize_newlines(source)) {}

  std::vector<Token> run() {
    bool line_starting = true;
    while (pos_ < s_.size()) {
      const size_t open = find_open(pos_);
      std::string text = s_.substr(pos_, open - pos_);
      if (open == s_.size()) {
        emit_text(text);
        advance(s_.size());
        break;
      }
      const char kind = s_[open + 1];  // '{', '%' or '#'
      const char sign = open + 2 < s_.size() ? s_[open + 2] : 0;
      if (sign == '-') {
        text = rstrip_py(text);
      } else if (sign != '+' && kind != '{') {  // lstrip_blocks: block and comment tags
        const size_t l_pos = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
        if ((l_pos > 0 || line_starting) && l_pos < text.size() && all_space(text.substr(l_pos)))
          text = text.substr(0, l_pos);
      }
      emit_text(text);
      advance(open);
      size_t at = open + 2 + (sign == '-' || sign == '+' ? 1 : 0);
      const size_t end = kind == '#' ? comment(at) : tag(kind, at);
      line_starting = end > 0 && s_[end - 1] == '\n';
      advance(end);
    }
    out_.push_back(token(Token::Type::eof, ""));
    return out_;
  }

 private:
  size_t find_open(size_t from) const {
    for (size_t k = from; k + 1 < s_.size(); ++k)
      if (s_[k] == '{' && (s_[k + 1] == '{' || s_[k + 1] == '%' || s_[k + 1] == '#')) return k;
    return s_.size();
  }
  void advance(size_t to) {
    line_ += count_newlines(s_, pos_, to);
    pos_ = to;
  }
  Token token(Token::Type t, std::string text) const {
    Token k;
    k.type = t;
    k.text = std::move(text);
    k.line = line_;
    return k;
  }
  void emit_text(const std::string& text) {
    if (!text.empty()) out_.push_back(token(Token::Type::text, text));
  }
  // After an end tag: "-" strips the whitespace after it; a block or comment end drops one
  // newline (trim_blocks) unless marked "+".
  size_t after_end(size_t end_at, char sign, bool block_or_comment) const {
    if (sign == '-') return skip_space(s_, end_at);
    if (sign != '+' && block_or_comment && end_at < s_.size() && s_[end_at] == '\n') return end_at + 1;
    return end_at;
  }

  size_t comment(size_t at) {
    const size_t close = s_.find("#}", at);
    if (close == std::string::npos) fail("the comment is never closed with '#}'", line_);
    const char sign = close > at ? s_[close - 1] : 0;
    return after_end(close + 2, sign, true);
  }

  size_t tag(char kind, size_t at) {
    const char close = kind == '{' ? '}' : '%';
    out_.push_back(token(kind == '{' ? Token::Type::var_begin : Token::Type::block_begin, ""));
    std::string brackets;
    size_t p = at;
    while (true) {
      const size_t ws = skip_space(s_, p);
      line_ += count_newlines(s_, p, ws);
      pos_ = p = ws;
      if (p >= s_.size()) fail(kind == '{' ? "an expression '{{' is never closed with '}}'" :
                               "a statement '{%' is never closed with '%}'", line_);
      if (brackets.empty()) {
        char sign = 0;
        size_t q = p;
        if ((s_[q] == '-' || (s_[q] == '+' && kind == '%')) && q + 1 < s_.size() && s_[q + 1] == close &&
            q + 2 < s_.size() && s_[q + 2] == '}')
          sign = s_[q++];
        if (s_[q] == close && q + 1 < s_.size() && s_[q + 1] == '}') {
          out_.push_back(token(kind == '{' ? Token::Type::var_end : Token::Type::block_end, ""));
          return after_end(q + 2, sign, kind == '%');
        }
      }
      p = expression_token(p, brackets);
    }
  }

  size_t expression_token(size_t p, std::string& brackets) {
    const char c = s_[p];
    if (std::isalpha((unsigned char)c) || c == '_') {
      size_t q = p;
      while (q < s_.size() && (std::isalnum((unsigned char)s_[q]) || s_[q] == '_')) ++q;
      out_.push_back(token(Token::Type::name, s_.substr(p, q - p)));
      return q;
    }
    if (std::isdigit((unsigned char)c)) return number(p);
    if (c == '\'' || c == '"') return string_literal(p);
    static const char* const two[] = {"//", "**", "==", "!=", "<=", ">="};
    for (const char* op : two)
      if (s_.compare(p, 2, op) == 0) {
        out_.push_back(token(Token::Type::op, op));
        return p + 2;
      }
    if (std::strchr("+-*/%~<>=()[]{},.:|", c) == nullptr || c == 0)
      fail(format("unexpected character '{}' in a tag", std::string(1, c)), line_);
    if (c == '(' || c == '[' || c == '{') brackets += c;
    if (c == ')' || c == ']' || c == '}') {
      const char want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (brackets.empty() || brackets.back() != want)
        fail(format("unexpected '{}'", std::string(1, c)), line_);
      brackets.pop_back();
    }
    out_.push_back(token(Token::Type::op, std::string(1, c)));
    return p + 1;
  }

  size_t number(size_t p) {
    size_t q = p;
    auto digits = [&] {
      while (q < s_.size() && (std::isdigit((unsigned char)s_[q]) || s_[q] == '_')) ++q;
    };
    digits();
    bool is_float = false;
    const bool after_dot = p > 0 && s_[p - 1] == '.';  // lexer.py: (?<!\.) before a float
    if (!after_dot && q + 1 < s_.size() && s_[q] == '.' && std::isdigit((unsigned char)s_[q + 1])) {
      ++q, digits(), is_float = true;
    }
    if (!after_dot && q < s_.size() && (s_[q] == 'e' || s_[q] == 'E')) {
      size_t r = q + 1;
      if (r < s_.size() && (s_[r] == '+' || s_[r] == '-')) ++r;
      if (r < s_.size() && std::isdigit((unsigned char)s_[r])) {
        q = r;
        digits();
        is_float = true;
      }
    }
    std::string text;
    for (size_t k = p; k < q; ++k)
      if (s_[k] != '_') text += s_[k];
    Token t = token(is_float ? Token::Type::floating : Token::Type::integer, text);
    if (is_float) t.f = std::stod(text);
    else t.i = std::stoll(text);
    out_.push_back(t);
    return q;
  }

  // A quoted literal with Python's escapes (lexer.py: value.encode("ascii", "backslashreplace")
  // .decode("unicode-escape")).
  size_t string_literal(size_t p) {
    const char quote = s_[p];
    std::string v;
    size_t q = p + 1;
    while (true) {
      if (q >= s_.size()) fail("a string literal is never closed", line_);
      const char c = s_[q];
      if (c == quote) break;
      if (c != '\\' || q + 1 >= s_.size()) {
        v += c, ++q;
        continue;
      }
      const char e = s_[q + 1];
      q += 2;
      switch (e) {
        case 'n': v += '\n'; break;
        case 't': v += '\t'; break;
        case 'r': v += '\r'; break;
        case '\\': v += '\\'; break;
        case '\'': v += '\''; break;
        case '"': v += '"'; break;
        case 'a': v += '\a'; break;
        case 'b': v += '\b'; break;
        case 'f': v += '\f'; break;
        case 'v': v += '\v'; break;
        case '\n': break;
        case 'x': case 'u': case 'U': {
          const size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          if (q + n > s_.size()) fail("a truncated \\" + std::string(1, e) + " escape in a string literal", line_);
          const std::string hex = s_.substr(q, n);
          for (const char h : hex)
            if (!std::isxdigit((unsigned char)h))
              fail("a truncated \\" + std::string(1, e) + " escape in a string literal", line_);
          utf8_append(v, (uint32_t)std::stoul(hex, nullptr, 16));
          q += n;
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            uint32_t cp = (uint32_t)(e - '0');
            for (int k = 0; k < 2 && q < s_.size() && s_[q] >= '0' && s_[q] <= '7'; ++k) cp = cp * 8 + (uint32_t)(s_[q++] - '0');
            utf8_append(v, cp);
          } else if (e == 'N') {
            fail("the escape \\N{...} in a string literal is not supported", line_);
          } else {
            v += '\\', v += e;
          }
      }
    }
    out_.push_back(token(Token::Type::string, v));
    line_ += count_newlines(s_, p, q);
    return q + 1;
  }

  std::string s_;
  size_t pos_ = 0;
  int line_ = 1;
  std::vector<Token> out_;
};

}  // namespace

std::vector<Token> lex(const std::string& source) { return Lexer(source).run(); }

}  // namespace llm0::chat
