// The chat-template parser (jinja_parser.h).
#include "chat/jinja_parser.h"

#include <initializer_list>

#include "chat/jinja_error.h"
#include "chat/jinja_lexer.h"

namespace llm0::chat {

namespace {

using T = Token::Type;

std::string describe(const Token& t) {
  switch (t.type) {
    case T::eof: return "the end of the template";
    case T::text: return "template text";
    case T::var_begin: return "'{{'";
    case T::var_end: return "'}}'";
    case T::block_begin: return "'{%'";
    case T::block_end: return "'%}'";
    case T::string: return "a string";
    case T::integer:
    case T::floating: return "a number";
    default: return "'" + t.text + "'";
  }
}

// Jinja2 statements this subset does not implement (refused by name rather than "unknown").
bool jinja_statement(const std::string& n) {
  for (const char* s : {"block", "extends", "print", "include", "from", "import", "with", "autoescape", "filter",
                        "call", "raw", "do", "trans", "pluralize"})
    if (n == s) return true;
  return false;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

  Body run() {
    std::string end;
    Body body = statements({}, end, 0, "");
    return body;
  }

 private:
  const Token& cur() const { return t_[k_]; }
  const Token& peek(size_t n = 1) const { return t_[std::min(k_ + n, t_.size() - 1)]; }
  bool is_op(const char* op) const { return cur().type == T::op && cur().text == op; }
  bool is_name(const char* n) const { return cur().type == T::name && cur().text == n; }
  void next() {
    if (k_ + 1 < t_.size()) ++k_;
  }
  [[noreturn]] void expected(const std::string& what) const {
    fail(format("expected {}, found {}", what, describe(cur())), cur().line);
  }
  void expect_op(const char* op) {
    if (!is_op(op)) expected(std::string("'") + op + "'");
    next();
  }
  void expect_block_end() {
    if (cur().type != T::block_end) expected("'%}'");
    next();
  }
  std::string expect_name() {
    if (cur().type != T::name) expected("a name");
    std::string n = cur().text;
    next();
    return n;
  }

  // Statements up to one of `ends` (a tag name; consumed with its name, the caller reads the
  // rest of that tag); `end` says which. No ends: up to eof.
  Body statements(std::initializer_list<const char*> ends, std::string& end, int opened_line, const char* opener) {
    Body body;
    while (true) {
      const Token& tok = cur();
      if (tok.type == T::eof) {
        if (ends.size() == 0) return body;
        fail(format("the '{}' of line {} is never closed with '{}'", opener, opened_line, *(ends.end() - 1)), tok.line);
      }
      if (tok.type == T::text) {
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::text, n->line = tok.line, n->text = tok.text;
        body.push_back(n);
        next();
        continue;
      }
      if (tok.type == T::var_begin) {
        next();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::output, n->line = tok.line, n->expr = expression();
        if (cur().type != T::var_end) expected("'}}'");
        next();
        body.push_back(n);
        continue;
      }
      if (tok.type != T::block_begin) expected("template text, '{{' or '{%'");
      next();
      if (cur().type != T::name) expected("a statement name");
      const std::string name = cur().text;
      for (const char* e : ends)
        if (name == e) {
          end = name;
          next();
          return body;
        }
      body.push_back(statement(name));
    }
  }

  NodePtr statement(const std::string& name) {
    const int line = cur().line;
    auto n = std::make_shared<Node>();
    n->line = line;
    next();  // the statement name
    std::string end;
    if (name == "if") {
      n->kind = Node::Kind::if_;
      ExprPtr cond = expression(false);
      while (true) {
        expect_block_end();
        Body body = statements({"elif", "else", "endif"}, end, line, "if");
        n->branches.emplace_back(cond, std::move(body));
        if (end == "endif") break;
        if (end == "else") {
          expect_block_end();
          n->branches.emplace_back(nullptr, statements({"endif"}, end, line, "if"));
          break;
        }
        cond = expression(false);
      }
    } else if (name == "for") {
      n->kind = Node::Kind::for_;
      n->targets = name_targets();
      if (!is_name("in")) expected("'in'");
      next();
      n->expr = expression(false);
      if (is_name("if")) {
        next();
        n->filter = expression();
      }
      if (is_name("recursive")) fail("the 'recursive' loop is not supported", cur().line);
      expect_block_end();
      n->body = statements({"else", "endfor"}, end, line, "for");
      if (end == "else") {
        expect_block_end();
        n->else_body = statements({"endfor"}, end, line, "for");
      }
    } else if (name == "set") {
      n->targets = name_targets();
      if (n->targets.size() == 1 && is_op(".")) {
        next();
        n->attr = expect_name();
      }
      if (is_op("=")) {
        next();
        n->kind = Node::Kind::set;
        n->expr = tuple_expression();
      } else {
        if (n->targets.size() != 1 || !n->attr.empty()) expected("'='");
        if (is_op("|")) fail("a filter on a 'set' block is not supported", cur().line);
        n->kind = Node::Kind::set_block;
        expect_block_end();
        n->body = statements({"endset"}, end, line, "set");
      }
    } else if (name == "macro") {
      n->kind = Node::Kind::macro;
      n->targets = {expect_name()};
      expect_op("(");
      while (!is_op(")")) {
        if (!n->params.empty()) expect_op(",");
        if (is_op(")")) break;
        std::string p = expect_name();
        ExprPtr def;
        if (is_op("=")) {
          next();
          def = expression();
        }
        n->params.emplace_back(std::move(p), def);
      }
      next();
      expect_block_end();
      n->body = statements({"endmacro"}, end, line, "macro");
      if (cur().type == T::name) next();  // {% endmacro name %}
    } else if (name == "break" || name == "continue") {
      n->kind = name == "break" ? Node::Kind::break_ : Node::Kind::continue_;
    } else if (name == "generation") {
      n->kind = Node::Kind::generation;
      expect_block_end();
      n->body = statements({"endgeneration"}, end, line, "generation");
    } else if (name.rfind("end", 0) == 0 || name == "elif" || name == "else") {
      fail(format("unexpected '{}': no open block it could end", name), line);
    } else if (jinja_statement(name)) {
      fail(format("the statement '{}' is not supported", name), line);
    } else {
      fail(format("unknown statement '{}'", name), line);
    }
    expect_block_end();
    return n;
  }

  // for / set targets: a name, or names separated by commas (optionally in parentheses).
  std::vector<std::string> name_targets() {
    std::vector<std::string> names;
    const bool paren = is_op("(");
    if (paren) next();
    names.push_back(expect_name());
    while (is_op(",")) {
      next();
      names.push_back(expect_name());
    }
    if (paren) expect_op(")");
    return names;
  }

  ExprPtr make(Expr::Kind kind, int line, std::vector<ExprPtr> kids = {}, std::string name = {}) {
    auto e = std::make_shared<Expr>();
    e->kind = kind, e->line = line, e->kids = std::move(kids), e->name = std::move(name);
    return e;
  }

  // `a, b` without parentheses is a tuple (the value of a set).
  ExprPtr tuple_expression() {
    const int line = cur().line;
    ExprPtr first = expression();
    if (!is_op(",")) return first;
    std::vector<ExprPtr> items{first};
    while (is_op(",")) {
      next();
      items.push_back(expression());
    }
    return make(Expr::Kind::list, line, std::move(items), "tuple");
  }

  ExprPtr expression(bool with_condexpr = true) {
    ExprPtr e = or_expr();
    if (!with_condexpr) return e;
    while (is_name("if")) {
      const int line = cur().line;
      next();
      ExprPtr cond = or_expr();
      ExprPtr other;
      if (is_name("else")) {
        next();
        other = expression();
      }
      e = make(Expr::Kind::cond, line, {e, cond, other});
    }
    return e;
  }
  ExprPtr or_expr() { return binary_chain(&Parser::and_expr, {"or"}); }
  ExprPtr and_expr() { return binary_chain(&Parser::not_expr, {"and"}); }
  ExprPtr not_expr() {
    if (is_name("not")) {
      const int line = cur().line;
      next();
      return make(Expr::Kind::unary, line, {not_expr()}, "not");
    }
    return compare();
  }
  ExprPtr compare() {
    const int line = cur().line;
    ExprPtr first = math1();
    auto e = std::make_shared<Expr>();
    e->kind = Expr::Kind::compare, e->line = line, e->kids = {first};
    while (true) {
      if (cur().type == T::op && (cur().text == "==" || cur().text == "!=" || cur().text == "<" ||
                                  cur().text == ">" || cur().text == "<=" || cur().text == ">=")) {
        e->ops.push_back(cur().text);
      } else if (is_name("in")) {
        e->ops.push_back("in");
      } else if (is_name("not") && peek().type == T::name && peek().text == "in") {
        next();
        e->ops.push_back("not in");
      } else {
        break;
      }
      next();
      e->kids.push_back(math1());
    }
    return e->ops.empty() ? first : e;
  }
  ExprPtr binary_chain(ExprPtr (Parser::*operand)(), std::initializer_list<const char*> ops) {
    ExprPtr e = (this->*operand)();
    while (true) {
      const char* hit = nullptr;
      for (const char* op : ops)
        if (is_op(op) || is_name(op)) hit = op;  // + - ... are operators, and / or names
      if (!hit) return e;
      const int line = cur().line;
      next();
      e = make(Expr::Kind::binary, line, {e, (this->*operand)()}, hit);
    }
  }
  ExprPtr math1() { return binary_chain(&Parser::concat, {"+", "-"}); }
  ExprPtr concat() { return binary_chain(&Parser::math2, {"~"}); }
  ExprPtr math2() { return binary_chain(&Parser::power, {"*", "/", "//", "%"}); }
  ExprPtr power() { return binary_chain(&Parser::unary_filtered, {"**"}); }
  ExprPtr unary_filtered() { return unary(true); }

  ExprPtr unary(bool with_filter) {
    const int line = cur().line;
    ExprPtr e;
    if (is_op("-") || is_op("+")) {
      const std::string op = cur().text;
      next();
      e = make(Expr::Kind::unary, line, {unary(false)}, op);
    } else {
      e = primary();
    }
    e = postfix(e);
    if (with_filter) e = filters_and_tests(e);
    return e;
  }

  ExprPtr primary() {
    const Token& tok = cur();
    const int line = tok.line;
    auto lit = [&](Value v) {
      auto e = std::make_shared<Expr>();
      e->kind = Expr::Kind::literal, e->line = line, e->value = std::move(v);
      return e;
    };
    switch (tok.type) {
      case T::name: {
        const std::string n = tok.text;
        next();
        if (n == "true" || n == "True") return lit(Value::boolean(true));
        if (n == "false" || n == "False") return lit(Value::boolean(false));
        if (n == "none" || n == "None") return lit(Value::none());
        return make(Expr::Kind::name, line, {}, n);
      }
      case T::string: {
        std::string s;
        while (cur().type == T::string) s += cur().text, next();
        return lit(Value::string(s));
      }
      case T::integer: {
        const int64_t v = tok.i;
        next();
        return lit(Value::integer(v));
      }
      case T::floating: {
        const double v = tok.f;
        next();
        return lit(Value::floating(v));
      }
      default: break;
    }
    if (is_op("(")) {
      next();
      if (is_op(")")) {
        next();
        return make(Expr::Kind::list, line, {}, "tuple");
      }
      ExprPtr e = expression();
      if (is_op(",")) {
        std::vector<ExprPtr> items{e};
        while (is_op(",")) {
          next();
          if (is_op(")")) break;
          items.push_back(expression());
        }
        e = make(Expr::Kind::list, line, std::move(items), "tuple");
      }
      expect_op(")");
      return e;
    }
    if (is_op("[")) {
      next();
      std::vector<ExprPtr> items;
      while (!is_op("]")) {
        if (!items.empty()) expect_op(",");
        if (is_op("]")) break;
        items.push_back(expression());
      }
      next();
      return make(Expr::Kind::list, line, std::move(items));
    }
    if (is_op("{")) {
      next();
      std::vector<ExprPtr> kv;
      while (!is_op("}")) {
        if (!kv.empty()) expect_op(",");
        if (is_op("}")) break;
        kv.push_back(expression());
        expect_op(":");
        kv.push_back(expression());
      }
      next();
      return make(Expr::Kind::dict, line, std::move(kv));
    }
    expected("an expression");
  }

  ExprPtr postfix(ExprPtr e) {
    while (true) {
      const int line = cur().line;
      if (is_op(".")) {
        next();
        if (cur().type == T::integer) {
          auto idx = std::make_shared<Expr>();
          idx->kind = Expr::Kind::literal, idx->line = line, idx->value = Value::integer(cur().i);
          next();
          e = make(Expr::Kind::item, line, {e, idx});
        } else {
          e = make(Expr::Kind::attr, line, {e}, expect_name());
        }
      } else if (is_op("[")) {
        next();
        e = subscript(e, line);
      } else if (is_op("(")) {
        e = call(make(Expr::Kind::call, line, {e}));
      } else {
        return e;
      }
    }
  }

  ExprPtr subscript(ExprPtr obj, int line) {
    ExprPtr parts[3];
    int part = 0;
    bool is_slice = false;
    while (true) {
      if (is_op(":")) {
        is_slice = true;
        if (++part > 2) expected("']'");
        next();
        continue;
      }
      if (is_op("]")) break;
      if (parts[part]) expected("']'");
      parts[part] = expression();
      if (is_op(",")) fail("a tuple index is not supported", cur().line);
    }
    next();
    if (!is_slice) return make(Expr::Kind::item, line, {obj, parts[0]});
    return make(Expr::Kind::slice, line, {obj, parts[0], parts[1], parts[2]});
  }

  // Arguments "(a, b, key=c)" of a call, filter or test, appended to `e`.
  ExprPtr call(ExprPtr e) {
    auto m = std::const_pointer_cast<Expr>(e);
    expect_op("(");
    bool first = true;
    while (!is_op(")")) {
      if (!first) expect_op(",");
      first = false;
      if (is_op(")")) break;
      if (is_op("*") || is_op("**")) fail("*args and **kwargs in a call are not supported", cur().line);
      if (cur().type == T::name && peek().type == T::op && peek().text == "=") {
        const std::string key = cur().text;
        next(), next();
        m->keyword.emplace_back(key, expression());
      } else {
        if (!m->keyword.empty()) fail("a positional argument follows a keyword argument", cur().line);
        m->kids.push_back(expression());
      }
    }
    next();
    return m;
  }

  ExprPtr filters_and_tests(ExprPtr e) {
    while (true) {
      const int line = cur().line;
      if (is_op("|")) {
        next();
        std::string n = expect_name();
        while (is_op(".")) next(), n += "." + expect_name();
        e = make(Expr::Kind::filter, line, {e}, n);
        if (is_op("(")) e = call(e);
      } else if (is_name("is")) {
        next();
        bool negated = false;
        if (is_name("not")) next(), negated = true;
        std::string n = expect_name();
        while (is_op(".")) next(), n += "." + expect_name();
        auto t = std::const_pointer_cast<Expr>(make(Expr::Kind::test, line, {e}, n));
        t->negated = negated;
        e = t;
        if (is_op("(")) {
          e = call(e);
        } else if ((cur().type == T::name || cur().type == T::string || cur().type == T::integer ||
                    cur().type == T::floating || is_op("(") || is_op("[") || is_op("{")) &&
                   !is_name("else") && !is_name("or") && !is_name("and")) {
          if (is_name("is")) fail("tests cannot be chained with 'is'", cur().line);
          t->kids.push_back(postfix(primary()));
        }
      } else if (is_op("(")) {
        e = call(make(Expr::Kind::call, line, {e}));
      } else {
        return e;
      }
    }
  }

  std::vector<Token> t_;
  size_t k_ = 0;
};

}  // namespace

Body parse_template(const std::string& source) { return Parser(lex(source)).run(); }

}  // namespace llm0::chat
