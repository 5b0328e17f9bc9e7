// Template source -> tokens, as Jinja2's lexer (jinja2/lexer.py) does with the settings
// transformers renders chat templates with: trim_blocks (the first newline after a block or
// comment tag is dropped), lstrip_blocks (spaces and tabs before a block or comment tag at the
// start of a line are dropped), keep_trailing_newline False (one trailing newline of the source is
// dropped), "\r\n" and "\r" read as "\n"; "{%-" / "-%}" (and {{- -}}, {#- -#}) strip all whitespace
// on that side, "{%+" / "+%}" keep it. Comments leave no token.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace llm0::chat {

struct Token {
  enum class Type { text, var_begin, var_end, block_begin, block_end, name, string, integer, floating, op, eof };
  Type type = Type::eof;
  std::string text;  // text: the data; name / op: its spelling; string: the decoded value
  int64_t i = 0;     // integer
  double f = 0;      // floating
  int line = 1;
};

/// The tokens of `source`, ending with one eof token. Throws TemplateError for an unclosed tag,
/// comment or string, a character that starts no token, a closing bracket that does not match.
std::vector<Token> lex(const std::string& source);

}  // namespace llm0::chat
