// OpenccT2s over OpenCC's C API (see opencc_t2s.h). opencc_open returns (opencc_t)-1 on failure
// and opencc_convert_utf8 returns NULL; opencc_error() then holds the reason.
#include "train/opencc_t2s.h"

#include <opencc.h>

#include <filesystem>

#include "core/check.h"

namespace llm0 {
namespace {

opencc_t as_opencc(void* h) { return static_cast<opencc_t>(h); }
const opencc_t kOpenFailed = reinterpret_cast<opencc_t>(-1);

}  // namespace

std::string opencc_t2s_config() { return LLM0_OPENCC_T2S; }

OpenccT2s::OpenccT2s(const std::string& config) {
  std::error_code ec;
  LLM0_CHECK(std::filesystem::is_regular_file(config, ec),
             "OpenCC configuration '{}' is missing: traditional -> simplified conversion needs it "
             "(Debian: apt-get install libopencc-dev libopencc-data)",
             config);
  handle_ = opencc_open(config.c_str());
  LLM0_CHECK(handle_ != kOpenFailed, "OpenCC cannot open its configuration '{}': {}", config,
             opencc_error());
}

OpenccT2s::~OpenccT2s() { opencc_close(as_opencc(handle_)); }

std::string OpenccT2s::convert(std::string_view text) const {
  char* out = opencc_convert_utf8(as_opencc(handle_), text.data(), text.size());
  LLM0_CHECK(out != nullptr, "OpenCC could not convert a text of {} bytes: {}", text.size(),
             opencc_error());
  std::string result(out);
  opencc_convert_utf8_free(out);
  return result;
}

}  // namespace llm0
