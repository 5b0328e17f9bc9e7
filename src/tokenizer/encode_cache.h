// Cache of encoded pre-tokens, shared by copies of a Tokenizer (tokenizer.cpp, tokenizer_pieces.cpp).
#pragma once
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llm0 {

/// Pre-token bytes -> ids; most words repeat, so encode looks here before running BPE.
struct EncodeCache {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static constexpr size_t kMaxEntries = 1 << 18;  // cleared when full: memory stays bounded
  static constexpr size_t kMaxWordBytes = 256;    // longer pre-tokens are not cached
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int>, Hash, std::equal_to<>> map;
};

}  // namespace llm0
