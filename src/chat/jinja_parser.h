// Tokens -> statements, following jinja2/parser.py's grammar and operator precedence (lowest
// first): "x if c else y", or, and, not, comparisons (chained; in, not in), + -, ~, * / // %, **,
// unary - +, then postfix .attr [index] [a:b:c] (call) and the filters "| f(args)" and tests
// "is [not] t arg" that bind to the unary operand. Statements: if / elif / else, for (with
// "if" filter and else), set (a name, names, ns.attr, or a block with endset), macro, break,
// continue, generation. Every other Jinja2 statement is refused by name.
#pragma once
#include <string>

#include "chat/jinja_ast.h"

namespace llm0::chat {

/// The statements of `source` (lexed with jinja_lexer.h). Throws TemplateError with the line: a
/// syntax error ("expected '%}', found 'x'"), an unclosed block ("the 'for' of line 3 is never
/// closed with 'endfor'"), a statement that is not supported ("the statement 'include' is not
/// supported"), an unknown one ("unknown statement 'foo'").
Body parse_template(const std::string& source);

}  // namespace llm0::chat
