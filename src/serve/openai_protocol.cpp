// Request parsing and validation for the OpenAI endpoints (openai_protocol.h).
#include "serve/openai_protocol.h"

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

#include "core/check.h"
#include "core/json_parse.h"

namespace llm0::serve {

namespace {
using nlohmann::json;

[[noreturn]] void bad(const std::string& param, const std::string& message) {
  throw ApiError(400, message, param, "invalid_request_error", "invalid_value");
}

[[noreturn]] void bad_type(const std::string& param, const char* want, const json& got) {
  throw ApiError(400, format("'{}' must be {}, got {}", param, want, got.type_name()), param,
                 "invalid_request_error", "invalid_type");
}

// The field, or nullptr when absent or null (OpenAI treats null as not given).
const json* field(const json& body, const char* name) {
  const auto it = body.find(name);
  return it == body.end() || it->is_null() ? nullptr : &*it;
}

double number(const json& v, const char* name) {
  if (!v.is_number()) bad_type(name, "a number", v);
  const double x = v.get<double>();
  if (!std::isfinite(x)) bad(name, format("'{}' must be a finite number", name));
  return x;
}

// The number as the request gave it, for messages: an integer exactly (2^64, which JSON parsing
// holds as a double, prints 18446744073709551616, not 1.84467e+19), another number in the
// shortest text that reads back to it.
std::string number_text(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e21) {
      char text[32];
      std::snprintf(text, sizeof text, "%.0f", d);
      return text;
    }
  }
  return v.dump();
}

[[noreturn]] void out_of_range(const char* name, const std::string& range, const json& v) {
  bad(name, format("'{}' must be in {}, got {}", name, range, number_text(v)));
}

// An integer in [lo, hi] (a JSON number with no fraction part; 16.0 is accepted, 16.5 is not).
long long integer(const json& v, const char* name, long long lo, long long hi) {
  if (!v.is_number()) bad_type(name, "an integer", v);
  const std::string range = format("[{}, {}]", lo, hi);
  if (v.is_number_unsigned()) {
    const auto u = v.get<unsigned long long>();
    if (u > (unsigned long long)hi || (lo > 0 && u < (unsigned long long)lo)) out_of_range(name, range, v);
    return (long long)u;
  }
  long long x = 0;
  if (v.is_number_integer()) {
    x = v.get<long long>();
  } else {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) bad_type(name, "an integer", v);
    if (d < (double)lo || d > (double)hi) out_of_range(name, range, v);  // 1e30: an integer, out of range
    x = (long long)d;
  }
  if (x < lo || x > hi) out_of_range(name, range, v);
  return x;
}

// An integer in [0, 2^64 - 1] (a JSON number with no fraction part).
uint64_t unsigned64(const json& v, const char* name) {
  if (v.is_number_unsigned()) return v.get<unsigned long long>();
  const std::string range = format("[0, {}]", UINT64_MAX);
  if (!v.is_number()) bad_type(name, "an integer", v);
  if (v.is_number_integer()) out_of_range(name, range, v);  // a signed integer here is negative
  const double d = v.get<double>();
  if (!std::isfinite(d) || d != std::floor(d)) bad_type(name, "an integer", v);
  if (d < 0 || d >= 0x1p64) out_of_range(name, range, v);
  return (uint64_t)d;
}

double in_range(const json& v, const char* name, double lo, bool lo_open, double hi) {
  const double x = number(v, name);
  if (x < lo || (lo_open && x == lo) || x > hi)
    bad(name, format("'{}' must be in {}{}, {}], got {}", name, lo_open ? "(" : "[", lo, hi, x));
  return x;
}

bool boolean(const json& v, const char* name) {
  if (!v.is_boolean()) bad_type(name, "a boolean", v);
  return v.get<bool>();
}

std::vector<std::string> stop_strings(const json& v) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const json& s : v) {
      if (!s.is_string()) bad_type("stop", "a string or an array of strings", s);
      out.push_back(s.get<std::string>());
    }
  } else {
    bad_type("stop", "a string or an array of strings", v);
  }
  if ((int)out.size() > kMaxStopStrings)
    bad("stop", format("'stop' holds {} strings; at most {}", out.size(), kMaxStopStrings));
  for (const std::string& s : out)
    if (s.empty()) bad("stop", "a stop string must not be empty");
  return out;
}

// completions' prompt: a string, an array of token ids, or an array holding one of those.
void parse_prompt(const json& v, CompletionRequest& r) {
  const json* p = &v;
  if (v.is_array() && v.size() == 1 && (v[0].is_string() || v[0].is_array())) p = &v[0];
  else if (v.is_array() && !v.empty() && (v[0].is_string() || v[0].is_array()))
    bad("prompt", format("'prompt' holds {} prompts; this server answers one prompt per request", v.size()));
  if (p->is_string()) {
    r.prompt = p->get<std::string>();
    return;
  }
  if (!p->is_array()) bad_type("prompt", "a string or an array of token ids", *p);
  if (p->empty()) bad("prompt", "'prompt' is an empty array of token ids");
  for (const json& id : *p) r.prompt_ids.push_back((int)integer(id, "prompt", 0, INT_MAX));
  r.prompt_is_ids = true;
}

std::string message_text(const json& content, size_t i) {
  const std::string name = format("messages[{}].content", i);
  if (content.is_string()) return content.get<std::string>();
  if (!content.is_array()) bad_type(name, "a string or an array of text parts", content);
  std::string text;
  for (const json& part : content) {
    if (!part.is_object() || part.value("type", json()) != "text" || !part.contains("text") ||
        !part["text"].is_string())
      bad(name, format("'{}' parts must be {\"type\": \"text\", \"text\": string} (only text is supported)", name));
    text += part["text"].get<std::string>();
  }
  return text;
}

void parse_messages(const json& v, CompletionRequest& r) {
  if (!v.is_array()) bad_type("messages", "an array of messages", v);
  if (v.empty()) bad("messages", "'messages' is empty: give at least one message");
  static const std::set<std::string> roles{"system", "developer", "user", "assistant", "tool"};
  static const std::set<std::string> keys{"role", "content", "name", "tool_call_id"};
  for (size_t i = 0; i < v.size(); ++i) {
    const json& m = v[i];
    const std::string at = format("messages[{}]", i);
    if (!m.is_object()) bad_type(at, "an object", m);
    for (const auto& [k, _] : m.items())
      if (!keys.count(k))
        bad(at + "." + text_excerpt(k), format("Unrecognized message argument supplied: {}", text_excerpt(k)));
    const json* role = field(m, "role");
    if (!role || !role->is_string() || !roles.count(role->get<std::string>()))
      bad(at + ".role", format("'{}.role' must be one of system, developer, user, assistant, tool", at));
    const json* content = field(m, "content");
    if (!content) bad(at + ".content", format("'{}.content' is missing", at));
    r.messages.push_back({role->get<std::string>(), message_text(*content, i)});
  }
}

// Fields OpenAI defines that this server accepts only at their neutral value.
void neutral_only(const json& body) {
  if (const json* n = field(body, "n"); n && integer(*n, "n", 1, INT_MAX) != 1)
    bad("n", "'n' must be 1: this server returns one choice per request");
  if (const json* b = field(body, "best_of"); b && integer(*b, "best_of", 1, INT_MAX) != 1)
    bad("best_of", "'best_of' must be 1 (not supported)");
  if (const json* e = field(body, "echo"); e && boolean(*e, "echo"))
    bad("echo", "'echo' is not supported");
  for (const char* name : {"presence_penalty", "frequency_penalty"})
    if (const json* p = field(body, name); p && number(*p, name) != 0)
      bad(name, format("'{}' is not supported (use repetition_penalty)", name));
  if (const json* lb = field(body, "logit_bias"); lb && !(lb->is_object() && lb->empty()))
    bad("logit_bias", "'logit_bias' is not supported");
}

void parse_sampling(const json& body, CompletionRequest& r) {
  SamplerConfig& s = r.sampler;
  if (const json* v = field(body, "temperature")) s.temperature = in_range(*v, "temperature", 0, false, 2);
  if (const json* v = field(body, "top_p")) s.top_p = in_range(*v, "top_p", 0, true, 1);
  if (const json* v = field(body, "top_k")) s.top_k = std::max(0, (int)integer(*v, "top_k", -1, INT_MAX));
  if (const json* v = field(body, "min_p")) s.min_p = in_range(*v, "min_p", 0, false, 1);
  if (const json* v = field(body, "repetition_penalty"))
    s.repetition_penalty = in_range(*v, "repetition_penalty", 0, true, 10);
  if (const json* v = field(body, "seed")) {
    s.seed = unsigned64(*v, "seed");
    r.seed_given = true;
  }
}

void parse_logprobs(const json& body, CompletionRequest& r) {
  if (r.endpoint == Endpoint::completions) {
    if (const json* v = field(body, "logprobs")) r.logprobs = (int)integer(*v, "logprobs", 0, kMaxTopLogprobs);
    return;
  }
  const json* lp = field(body, "logprobs");
  const json* top = field(body, "top_logprobs");
  const bool on = lp && boolean(*lp, "logprobs");
  if (top && !on) bad("top_logprobs", "'top_logprobs' needs 'logprobs': true");
  if (on) r.logprobs = top ? (int)integer(*top, "top_logprobs", 0, kMaxTopLogprobs) : 0;
}

const std::set<std::string>& known_fields(Endpoint e) {
  static const std::set<std::string> common{
      "model", "max_tokens", "temperature", "top_p", "top_k", "min_p", "repetition_penalty",
      "seed", "stop", "stream", "stream_options", "logprobs", "n", "presence_penalty",
      "frequency_penalty", "logit_bias", "user", "metadata", "store", "ignore_eos"};
  static const std::set<std::string> completions = [] {
    std::set<std::string> s = common;
    s.insert({"prompt", "echo", "best_of", "suffix"});
    return s;
  }();
  static const std::set<std::string> chat = [] {
    std::set<std::string> s = common;
    s.insert({"messages", "top_logprobs", "max_completion_tokens", "chat_template_kwargs"});
    return s;
  }();
  return e == Endpoint::completions ? completions : chat;
}
}  // namespace

CompletionRequest parse_request(std::string_view text, Endpoint endpoint) {
  json body;
  try {
    body = parse_json(text, "the request body");
  } catch (const JsonTooDeep& e) {
    throw ApiError(400, e.what(), e.field, "invalid_request_error", "invalid_json");
  } catch (const Error& e) {
    throw ApiError(400, e.what(), "", "invalid_request_error", "invalid_json");
  }
  if (!body.is_object())
    throw ApiError(400, format("the request body must be a JSON object, got {}", body.type_name()), "",
                   "invalid_request_error", "invalid_json");
  const std::set<std::string>& known = known_fields(endpoint);
  for (const auto& [k, _] : body.items())
    if (!known.count(k))
      throw ApiError(400, format("Unrecognized request argument supplied: {}", text_excerpt(k)), text_excerpt(k),
                     "invalid_request_error", "unknown_field");
  CompletionRequest r;
  r.endpoint = endpoint;
  if (const json* v = field(body, "model")) {
    if (!v->is_string()) bad_type("model", "a string", *v);
    r.model = v->get<std::string>();
  }
  if (endpoint == Endpoint::completions) {
    const json* p = field(body, "prompt");
    if (!p) bad("prompt", "'prompt' is missing");
    parse_prompt(*p, r);
    if (const json* s = field(body, "suffix"); s && !(s->is_string() && s->get<std::string>().empty()))
      bad("suffix", "'suffix' is not supported");
  } else {
    const json* m = field(body, "messages");
    if (!m) bad("messages", "'messages' is missing");
    parse_messages(*m, r);
  }
  // Both may be given (max_tokens is chat's deprecated name); both are checked, the newer one wins.
  for (const char* max_name : {"max_tokens", "max_completion_tokens"})
    if (const json* v = field(body, max_name)) r.max_tokens = (int)integer(*v, max_name, 1, INT_MAX);
  if (const json* v = field(body, "metadata")) {
    if (!v->is_object()) bad_type("metadata", "an object of strings", *v);
    for (const auto& [k, x] : v->items())
      if (!x.is_string()) bad_type("metadata." + k, "a string", x);
  }
  if (const json* v = field(body, "store")) (void)boolean(*v, "store");
  if (const json* v = field(body, "user"); v && !v->is_string()) bad_type("user", "a string", *v);
  neutral_only(body);
  parse_sampling(body, r);
  if (const json* v = field(body, "stop")) r.stop = stop_strings(*v);
  if (const json* v = field(body, "stream")) r.stream = boolean(*v, "stream");
  if (const json* v = field(body, "stream_options")) {
    if (!v->is_object()) bad_type("stream_options", "an object", *v);
    if (!r.stream) bad("stream_options", "'stream_options' needs 'stream': true");
    for (const auto& [k, x] : v->items()) {
      if (k != "include_usage")
        bad("stream_options." + text_excerpt(k), format("Unrecognized stream option: {}", text_excerpt(k)));
      r.include_usage = boolean(x, "stream_options.include_usage");
    }
  }
  parse_logprobs(body, r);
  if (const json* v = field(body, "ignore_eos")) r.ignore_eos = boolean(*v, "ignore_eos");
  if (const json* v = field(body, "chat_template_kwargs")) {
    if (!v->is_object()) bad_type("chat_template_kwargs", "an object", *v);
    r.chat_template_kwargs = *v;
  }
  return r;
}

}  // namespace llm0::serve
