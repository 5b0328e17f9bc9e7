// Whole HTTP/1.1 responses written straight to a socket, outside cpp-httplib's request handling:
// the OverflowResponder's answers (overflow_responder.h) and a 408 for a request that stalled
// before httplib could read its request line (connection_server.cpp). Each one ends its
// connection (`Connection: close`).
#pragma once
#include <string>

#include "serve/api_error.h"

namespace llm0::serve {

/// "HTTP/1.1 STATUS REASON" with Content-Type `content_type`, Content-Length, `Connection: close`,
/// then `extra_headers` (each line ending in "\r\n", or "") and `body`. The reason phrase is
/// RFC 9110's for 200, 408 and 503, "Error" otherwise.
std::string raw_response(int status, const std::string& content_type, const std::string& body,
                         const std::string& extra_headers = "");

/// The response of `e`: its status and OpenAI's error object as an application/json body.
std::string raw_error_response(const ApiError& e, const std::string& extra_headers = "");

}  // namespace llm0::serve
