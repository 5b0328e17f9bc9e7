// Expressions of the chat-template renderer (jinja_renderer.h).
#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"
#include "chat/jinja_renderer.h"

namespace llm0::chat {

Renderer::Renderer(const Dict& root) : frames_(1) {
  for (const auto& [k, v] : root) frames_[0][k] = v;
}

Value Renderer::lookup(const std::string& name) const {
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f) {
    const auto it = f->find(name);
    if (it != f->end()) return it->second;
  }
  return Value::undefined(format("'{}' is undefined", name));
}

void Renderer::assign(const std::string& name, Value v) { frames_.back()[name] = std::move(v); }

Value Renderer::eval(const Expr& e) {
  try {
    return eval_inner(e);
  } catch (const TemplateError& err) {
    if (err.line > 0) throw;
    throw TemplateError(err.bare, e.line);
  }
}

CallArgs Renderer::arguments(const Expr& e, size_t first) {
  CallArgs a;
  for (size_t k = first; k < e.kids.size(); ++k) a.positional.push_back(eval(*e.kids[k]));
  for (const auto& [name, x] : e.keyword) a.keyword.emplace_back(name, eval(*x));
  return a;
}

Value Renderer::call(const Expr& e) {
  const Value callee = eval(*e.kids[0]);
  if (callee.kind != Value::Kind::callable) {
    if (callee.is_undefined()) fail_undefined(callee);
    fail(format("'{}' object is not callable", type_name(callee)));
  }
  return (*callee.fn)(arguments(e, 1));
}

Value Renderer::eval_inner(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::literal: return e.value;
    case Expr::Kind::name: return lookup(e.name);
    case Expr::Kind::list: {
      List items;
      for (const ExprPtr& k : e.kids) items.push_back(eval(*k));
      Value v = Value::make_list(std::move(items));
      v.is_tuple = e.name == "tuple";
      return v;
    }
    case Expr::Kind::dict: {
      Value d = Value::make_dict();
      for (size_t k = 0; k + 1 < e.kids.size(); k += 2) {
        const Value key = eval(*e.kids[k]);
        if (!key.is_string()) fail(format("a dict key must be a string here, not {}", type_name(key)));
        d.set(key.text, eval(*e.kids[k + 1]));
      }
      return d;
    }
    case Expr::Kind::attr: return get_attribute(eval(*e.kids[0]), e.name);
    case Expr::Kind::item: return get_item(eval(*e.kids[0]), eval(*e.kids[1]));
    case Expr::Kind::slice: {
      const Value obj = eval(*e.kids[0]);
      Value parts[3];
      const Value* p[3] = {nullptr, nullptr, nullptr};
      for (int k = 0; k < 3; ++k)
        if (e.kids[(size_t)k + 1]) parts[k] = eval(*e.kids[(size_t)k + 1]), p[k] = &parts[k];
      return get_slice(obj, p[0], p[1], p[2]);
    }
    case Expr::Kind::call: return call(e);
    case Expr::Kind::filter: {
      const Value v = eval(*e.kids[0]);
      return apply_filter(e.name, v, arguments(e, 1));
    }
    case Expr::Kind::test: {
      const Value v = eval(*e.kids[0]);
      return Value::boolean(apply_test(e.name, v, arguments(e, 1)) != e.negated);
    }
    case Expr::Kind::unary: {
      const Value v = eval(*e.kids[0]);
      if (e.name == "not") return Value::boolean(!truthy(v));
      return negate(v, e.name == "-");
    }
    case Expr::Kind::binary: {
      const Value a = eval(*e.kids[0]);
      if (e.name == "and") return truthy(a) ? eval(*e.kids[1]) : a;
      if (e.name == "or") return truthy(a) ? a : eval(*e.kids[1]);
      return binary_op(e.name, a, eval(*e.kids[1]));
    }
    case Expr::Kind::compare: {
      Value left = eval(*e.kids[0]);
      for (size_t k = 0; k < e.ops.size(); ++k) {
        Value right = eval(*e.kids[k + 1]);
        if (!compare_op(e.ops[k], left, right)) return Value::boolean(false);
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case Expr::Kind::cond:
      if (truthy(eval(*e.kids[1]))) return eval(*e.kids[0]);
      return e.kids[2] ? eval(*e.kids[2]) : Value::undefined("the 'if' expression had no 'else'");
  }
  return Value::undefined();
}

}  // namespace llm0::chat
