// Statements of the chat-template renderer (jinja_renderer.h).
#include "chat/jinja_builtins.h"
#include "chat/jinja_error.h"
#include "chat/jinja_python_text.h"
#include "chat/jinja_renderer.h"

namespace llm0::chat {

Renderer::Flow Renderer::exec(const Body& body, std::string& out) {
  for (const NodePtr& n : body) {
    Flow f;
    try {
      f = exec_node(*n, out);
    } catch (const TemplateError& err) {
      if (err.line > 0) throw;
      throw TemplateError(err.bare, n->line);
    }
    if (f != Flow::normal) return f;
  }
  return Flow::normal;
}

Renderer::Flow Renderer::exec_node(const Node& n, std::string& out) {
  switch (n.kind) {
    case Node::Kind::text: out += n.text; break;
    case Node::Kind::output: out += py_str(eval(*n.expr)); break;
    case Node::Kind::if_:
      for (const auto& [cond, body] : n.branches)
        if (!cond || truthy(eval(*cond))) return exec(body, out);
      break;
    case Node::Kind::for_: return exec_for(n, out);
    case Node::Kind::set: exec_set(n, eval(*n.expr)); break;
    case Node::Kind::set_block: {
      std::string text;
      exec(n.body, text);
      exec_set(n, Value::string(text));
      break;
    }
    case Node::Kind::macro: assign(n.targets[0], macro(n)); break;
    case Node::Kind::break_: return Flow::break_loop;
    case Node::Kind::continue_: return Flow::continue_loop;
    case Node::Kind::generation: return exec(n.body, out);
  }
  return Flow::normal;
}

void Renderer::exec_set(const Node& n, Value v) {
  if (!n.attr.empty()) {
    Value ns = lookup(n.targets[0]);
    if (!ns.is_namespace) fail("cannot assign attribute on non-namespace object");
    ns.set(n.attr, std::move(v));  // the dict is shared: every holder of the namespace sees it
    return;
  }
  if (n.targets.size() == 1) return assign(n.targets[0], std::move(v));
  const List items = iterate(v);
  if (items.size() != n.targets.size())
    fail(format("cannot unpack {} values into {} names", items.size(), n.targets.size()));
  for (size_t k = 0; k < items.size(); ++k) assign(n.targets[k], items[k]);
}

namespace {
Value loop_info(const List& items, size_t k) {
  const auto n = (int64_t)items.size(), i = (int64_t)k;
  Dict d{{"index", Value::integer(i + 1)},      {"index0", Value::integer(i)},
         {"revindex", Value::integer(n - i)},   {"revindex0", Value::integer(n - i - 1)},
         {"first", Value::boolean(i == 0)},     {"last", Value::boolean(i == n - 1)},
         {"length", Value::integer(n)},         {"depth", Value::integer(1)},
         {"depth0", Value::integer(0)},
         {"previtem", k > 0 ? items[k - 1] : Value::undefined("there is no previous item")},
         {"nextitem", k + 1 < items.size() ? items[k + 1] : Value::undefined("there is no next item")}};
  d.emplace_back("cycle", Value::callable([i](const CallArgs& a) {
                   if (a.positional.empty()) fail("no items for cycling given");
                   return a.positional[(size_t)i % a.positional.size()];
                 }));
  return Value::make_dict(std::move(d));
}
}  // namespace

Renderer::Flow Renderer::exec_for(const Node& n, std::string& out) {
  List items = iterate(eval(*n.expr));
  auto bind = [&](const Value& item) {
    if (n.targets.size() == 1) return assign(n.targets[0], item);
    const List parts = iterate(item);
    if (parts.size() != n.targets.size())
      fail(format("cannot unpack {} values into {} loop variables", parts.size(), n.targets.size()));
    for (size_t k = 0; k < parts.size(); ++k) assign(n.targets[k], parts[k]);
  };
  if (n.filter) {
    List kept;
    for (const Value& item : items) {
      frames_.emplace_back();
      bind(item);
      const bool keep = truthy(eval(*n.filter));
      frames_.pop_back();
      if (keep) kept.push_back(item);
    }
    items = std::move(kept);
  }
  if (items.empty()) return exec(n.else_body, out);
  for (size_t k = 0; k < items.size(); ++k) {
    frames_.emplace_back();
    Flow f;
    try {
      bind(items[k]);
      assign("loop", loop_info(items, k));
      f = exec(n.body, out);
    } catch (...) {
      frames_.pop_back();
      throw;
    }
    frames_.pop_back();
    if (f == Flow::break_loop) break;
  }
  return Flow::normal;
}

Value Renderer::macro(const Node& n) {
  const Node* node = &n;
  return Value::callable([this, node](const CallArgs& a) {
    if (a.positional.size() > node->params.size())
      fail(format("macro '{}' takes not more than {} argument(s)", node->targets[0], node->params.size()));
    std::vector<std::unordered_map<std::string, Value>> saved(1, frames_[0]);
    std::swap(saved, frames_);  // the macro sees the root scope and its arguments
    frames_.emplace_back();
    std::string text;
    try {
      for (size_t k = 0; k < node->params.size(); ++k) {
        const std::string& p = node->params[k].first;
        const Value* given = k < a.positional.size() ? &a.positional[k] : nullptr;
        for (const auto& [key, v] : a.keyword)
          if (key == p) given = &v;
        assign(p, given ? *given : node->params[k].second ? eval(*node->params[k].second)
                                                         : Value::undefined(format("'{}' is undefined", p)));
      }
      for (const auto& [key, v] : a.keyword) {
        bool known = false;
        for (const auto& param : node->params) known |= param.first == key;
        if (!known) fail(format("macro '{}' takes no keyword argument '{}'", node->targets[0], key));
      }
      exec(node->body, text);
    } catch (...) {
      std::swap(saved, frames_);
      throw;
    }
    std::swap(saved, frames_);
    return Value::string(text);
  });
}

}  // namespace llm0::chat
