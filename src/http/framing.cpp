// The one body-framing policy of llm0's servers (framing.h).
#include "http/framing.h"

#include <strings.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/check.h"

namespace llm0::http {

namespace {

constexpr const char* kForm = "application/x-www-form-urlencoded";

bool takes_body(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

// A Content-Length value as a byte count: digits only (no sign, space or exponent); a number past
// 64 bits counts as the largest (it is over any limit). False when it is not digits.
bool parse_length(const std::string& v, uint64_t& n) {
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range) n = std::numeric_limits<uint64_t>::max();
  return true;
}

Refusal refuse(int status, const char* code, std::string message) { return {status, code, std::move(message)}; }

// 413's message: the limit that applies to this body (a form-encoded one has httplib's own).
Refusal too_large(const httplib::Request& q, const BodyLimit& limit) {
  const std::string option = limit.option.empty() ? "" : format(" ({})", limit.option);
  if (q.get_header_value("Content-Type").rfind(kForm, 0) == 0 &&
      limit.max_bytes > CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH)
    return refuse(413, "too_large", format("a {} body is accepted up to {} bytes (the HTTP library's "
                  "limit for that type); send it as application/json, up to {} bytes{}", kForm,
                  CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH, limit.max_bytes, option));
  return refuse(413, "too_large", format("the request body is over {} bytes{}", limit.max_bytes, option));
}

}  // namespace

Refusal check_framing(const httplib::Request& q, const BodyLimit& limit) {
  const size_t lengths = q.get_header_value_count("Content-Length");
  const std::string first = q.get_header_value("Content-Length");
  uint64_t n = 0;
  for (size_t i = 0; i < lengths; ++i) {
    const std::string v = q.get_header_value("Content-Length", i);
    if (!parse_length(v, n))
      return refuse(400, "bad_request", format("malformed Content-Length header \"{}\": it must be one "
                    "decimal number of bytes", v));
    if (v != first)
      return refuse(400, "bad_request", format("conflicting Content-Length headers \"{}\" and \"{}\": a "
                    "request states one length", first, v));
  }
  if (q.has_header("Transfer-Encoding")) {
    if (lengths > 0)
      return refuse(400, "bad_request", "a request with both Content-Length and Transfer-Encoding has "
                    "an ambiguous length; send Content-Length only");
    return refuse(411, "length_required", format("request bodies sent with Transfer-Encoding ({}) are "
                  "not accepted; send a Content-Length", q.get_header_value("Transfer-Encoding")));
  }
  if (lengths == 0 && takes_body(q.method))
    return refuse(411, "length_required", format("a {} request needs a Content-Length header (its body's "
                  "size in bytes; 0 for none)", q.method));
  if (n > 0 && !takes_body(q.method))
    return refuse(400, "bad_request", format("a {} request has no body, but its Content-Length is {}",
                  q.method, first));
  const bool form = q.get_header_value("Content-Type").rfind(kForm, 0) == 0;
  const uint64_t max = form ? std::min<uint64_t>(limit.max_bytes, CPPHTTPLIB_FORM_URL_ENCODED_PAYLOAD_MAX_LENGTH)
                            : limit.max_bytes;
  if (n > max) return too_large(q, limit);
  if (q.has_header("Expect")) {
    const std::string e = q.get_header_value("Expect");
    if (strcasecmp(e.c_str(), "100-continue") != 0)
      return refuse(417, "expectation_failed", format("unknown expectation \"Expect: {}\" (only "
                    "100-continue is supported)", e));
    if (q.version != "HTTP/1.1")
      return refuse(417, "expectation_failed", format("\"Expect: 100-continue\" in an {} request: only "
                    "HTTP/1.1 takes the interim 100 response; send it as HTTP/1.1, or without Expect",
                    q.version));
    if (e != "100-continue")
      return refuse(417, "expectation_failed", format("\"Expect: {}\": this server answers the "
                    "expectation spelt \"100-continue\" (lowercase) only; send that, or no Expect", e));
  }
  return {};
}

const BodyLimit& BodyLimits::of(const std::string& path) const {
  for (const auto& [prefix, limit] : by_prefix)
    if (path.rfind(prefix, 0) == 0) return limit;
  return fallback;
}

uint64_t BodyLimits::largest() const {
  uint64_t most = fallback.max_bytes;
  for (const auto& [prefix, limit] : by_prefix) most = std::max(most, limit.max_bytes);
  return most;
}

void install_framing(httplib::Server& server, const BodyLimits& limits, RefusalReply reply,
                     httplib::Server::HandlerWithResponse before) {
  using httplib::Server;
  server.set_payload_max_length(limits.largest());
  auto check = [limits, reply = std::move(reply), before = std::move(before)](
                   const httplib::Request& q, httplib::Response& r) {
    if (before && before(q, r) == Server::HandlerResponse::Handled) return Server::HandlerResponse::Handled;
    const Refusal refusal = check_framing(q, limits.of(q.path));
    if (refusal.status == 0) return Server::HandlerResponse::Unhandled;
    reply(q, r, refusal);
    return Server::HandlerResponse::Handled;
  };
  server.set_pre_routing_handler(check);
  // httplib writes "100 Continue" when this returns 100; any other status makes it write `r` as
  // the final response at once (its error handler included), and the body is never invited. It
  // runs outside httplib's exception guard: nothing may escape.
  server.set_expect_100_continue_handler([check](const httplib::Request& q, httplib::Response& r) {
    try {
      if (check(q, r) == Server::HandlerResponse::Handled) return r.status;
      return 100;
    } catch (...) {
      r.status = 500;
      return 500;
    }
  });
}

}  // namespace llm0::http
