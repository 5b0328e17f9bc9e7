// The framing of a request body: ONE policy for every llm0 server (`llm0 serve`, `llm0 explore`,
// the explorer mounted in serve), decided from the headers before any body byte is read, so a
// request is never read with a length other than the one a proxy in front of us would use (RFC 9112
// §6: message body length; §6.3 the rules, §11.2 request smuggling; RFC 9110 §10.1.1 Expect).
// cpp-httplib 0.11 (Debian's, a compiled library) reads the FIRST Content-Length, parses "-5" as
// 2^64 − 5, applies no limit to a chunked body, reads a body-taking request without a length until
// the peer closes, leaves a GET's body to be parsed as the next request, and answers
// "100 Continue" before any handler has looked at the request. The policy (first match wins):
//   400 bad_request       Content-Length not one decimal number, or repeated with different values
//                         (equal repeats are that one length, as §6.3 item 5 allows); Content-Length
//                         together with Transfer-Encoding (§6.1: ambiguous, the smuggling shape)
//   411 length_required   Transfer-Encoding (chunked or any coding): bodies must state their length;
//                         a body-taking method (POST, PUT, PATCH, DELETE) without Content-Length
//   400 bad_request       a method without a body (GET, HEAD, ...) with a non-zero Content-Length
//   413 too_large         a length over the limit (form-encoded: over httplib's own 8,192 bytes)
//   417 expectation_failed an Expect other than 100-continue; 100-continue spelt in another letter
//                         case (httplib answers only the lowercase form with "100 Continue", and a
//                         client waiting for it would stall until the read timeout) or in an
//                         HTTP/1.0 request (which may take no 1xx response, RFC 9110 §15.2)
// With `Expect: 100-continue` a refused request gets its refusal instead of "100 Continue" (the
// client never sends the body). A refused request's connection ends after the reply (its body,
// if any, was not read).
#pragma once
#include <httplib.h>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace llm0::http {

/// The body limit of a server, and the option that sets it (named in 413's message; "" = none).
struct BodyLimit {
  uint64_t max_bytes = 0;
  std::string option;  // e.g. "llm0 serve --max-body"
};

/// The body limits of a server's routes: the first entry whose path prefix starts the request's
/// path applies, else `fallback` (`llm0 serve` keeps the explorer's own limit on /explore/).
struct BodyLimits {
  BodyLimits(BodyLimit fallback) : fallback(std::move(fallback)) {}  // NOLINT: one limit for all
  BodyLimits(BodyLimit fallback, std::vector<std::pair<std::string, BodyLimit>> by_prefix)
      : fallback(std::move(fallback)), by_prefix(std::move(by_prefix)) {}
  /// The limit of a request for `path`.
  const BodyLimit& of(const std::string& path) const;
  /// The largest of them (httplib's own payload limit, which must not refuse first).
  uint64_t largest() const;

  BodyLimit fallback;
  std::vector<std::pair<std::string, BodyLimit>> by_prefix;
};

/// A refusal of the policy: status 0 = the request's framing is accepted.
struct Refusal {
  int status = 0;
  std::string code;     // bad_request, length_required, too_large, expectation_failed
  std::string message;  // to the user: names the header and what is wrong with it
};

/// The policy above applied to `q`'s request line and headers. Never throws but std::bad_alloc.
Refusal check_framing(const httplib::Request& q, const BodyLimit& limit);

/// Writes `refusal` as the server's error object into `r` and ends the connection after it.
using RefusalReply = std::function<void(const httplib::Request& q, httplib::Response& r, const Refusal&)>;

/// Installs the policy on `server`: its pre-routing handler runs `before` (the application's own
/// checks that need no body, e.g. the explorer's 405; may be empty), then check_framing (a refusal
/// answered by `reply`); its Expect: 100-continue handler runs the same checks, so a request refused
/// by either is answered without "100 Continue". Sets the server's payload limit to the largest of `limits`. Call
/// once, instead of set_pre_routing_handler.
void install_framing(httplib::Server& server, const BodyLimits& limits, RefusalReply reply,
                     httplib::Server::HandlerWithResponse before = nullptr);

}  // namespace llm0::http
