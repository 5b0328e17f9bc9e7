// Tests for Utf8Stream: streamed output is never half a character and always adds up to the input.
// The oracle is built independently of the code under test: every code point 0..U+10FFFF (minus
// surrogates) is encoded by hand, and the set of proper prefixes of those encodings defines
// "incomplete"; validity is checked by decoding code points, not by Table 3-7's byte ranges.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "infer/utf8_stream.h"

namespace {

std::string encode(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += char(cp);
  } else if (cp < 0x800) {
    s += char(0xC0 | (cp >> 6)), s += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    s += char(0xE0 | (cp >> 12)), s += char(0x80 | ((cp >> 6) & 0x3F)), s += char(0x80 | (cp & 0x3F));
  } else {
    s += char(0xF0 | (cp >> 18)), s += char(0x80 | ((cp >> 12) & 0x3F));
    s += char(0x80 | ((cp >> 6) & 0x3F)), s += char(0x80 | (cp & 0x3F));
  }
  return s;
}

/// Every proper prefix (1..3 bytes) of the encoding of some Unicode scalar value.
const std::unordered_set<std::string>& proper_prefixes() {
  static const std::unordered_set<std::string> set = [] {
    std::unordered_set<std::string> p;
    for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      if (cp >= 0xD800 && cp <= 0xDFFF) continue;
      const std::string e = encode(cp);
      for (size_t k = 1; k < e.size(); ++k) p.insert(e.substr(0, k));
    }
    return p;
  }();
  return set;
}

/// Bytes the stream must hold back: the length of the (unique) suffix that is a proper prefix.
size_t oracle_held(const std::string& s) {
  size_t held = 0;
  for (size_t k = 1; k <= 3 && k <= s.size(); ++k) {
    if (proper_prefixes().count(s.substr(s.size() - k))) {
      EXPECT_EQ(held, 0u) << "two suffixes are proper prefixes";
      held = k;
    }
  }
  return held;
}

/// Decodes code points; rejects overlongs, surrogates, > U+10FFFF, truncation, bad continuations.
bool valid_utf8(const std::string& s) {
  for (size_t i = 0; i < s.size();) {
    const auto b = static_cast<uint8_t>(s[i]);
    int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (int j = 1; j < len; ++j) {
      const auto c = static_cast<uint8_t>(s[i + j]);
      if ((c >> 6) != 2) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    if (encode(cp).size() != size_t(len)) return false;  // overlong
    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return false;
    i += len;
  }
  return true;
}

const std::vector<std::string> kTexts = {
    "你好，世界！这是一个测试。",              // CJK, 3-byte
    "😀👍🏽🇨🇭 family: 👨‍👩‍👧",                  // 4-byte, modifiers, ZWJ
    "a\u00e9\u4e2d\U0001F600b \u00df\u0416\u0915\u093f z",  // 1-, 2-, 3-, 4-byte mixed
    "\U0010FFFF\U00010000\u0800\u07FF\u0080\x7F\uFFFD",    // range edges
};

TEST(Utf8Stream, OracleSanity) {
  EXPECT_TRUE(valid_utf8(kTexts[2]));
  EXPECT_FALSE(valid_utf8("\xC0\x80"));      // overlong NUL
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));  // surrogate D800
  EXPECT_FALSE(valid_utf8("\xF4\x90\x80\x80"));  // U+110000
  EXPECT_EQ(oracle_held("ab\xF0\x9F\x98"), 3u);
  EXPECT_EQ(oracle_held("ab\xF0\x9F\x98\x80"), 0u);
}

TEST(Utf8Stream, EverySplitOfValidTextGivesValidPieces) {
  for (const std::string& s : kTexts) {
    ASSERT_TRUE(valid_utf8(s));
    for (size_t i = 0; i <= s.size(); ++i) {
      for (size_t j = i; j <= s.size(); ++j) {  // three pieces: [0,i) [i,j) [j,n)
        llm0::Utf8Stream st;
        const std::string a = st.push(s.substr(0, i)), b = st.push(s.substr(i, j - i)),
                          c = st.push(s.substr(j)), d = st.flush();
        ASSERT_TRUE(valid_utf8(a) && valid_utf8(b) && valid_utf8(c)) << "split " << i << "," << j;
        EXPECT_EQ(d, "");
        EXPECT_EQ(a, s.substr(0, i - oracle_held(s.substr(0, i))));
        ASSERT_EQ(a + b + c + d, s);
      }
    }
  }
}

TEST(Utf8Stream, ByteAtATimeEmitsEachCharacterWhole) {
  llm0::Utf8Stream st;
  const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600
  EXPECT_EQ(st.push(emoji.substr(0, 1)), "");
  EXPECT_EQ(st.push(emoji.substr(1, 1)), "");
  EXPECT_EQ(st.push(emoji.substr(2, 1)), "");
  EXPECT_EQ(st.held(), 3u);
  EXPECT_EQ(st.push(emoji.substr(3, 1)), emoji);
  EXPECT_EQ(st.flush(), "");
  for (const std::string& s : kTexts) {
    std::string out;
    for (char c : s) {
      const std::string piece = st.push(std::string(1, c));
      ASSERT_TRUE(valid_utf8(piece));
      out += piece;
    }
    EXPECT_EQ(out + st.flush(), s);
  }
}

TEST(Utf8Stream, InvalidBytesPassThroughOnceCertain) {
  struct Case { std::string first, second, out_first, out_second; };
  const std::vector<Case> cases = {
      {"\xC0", "\x80", "\xC0", "\x80"},          // C0 can never start a sequence
      {"\x80", "a", "\x80", "a"},                // stray continuation
      {"\xF5", "\x80", "\xF5", "\x80"},          // beyond U+10FFFF
      {"\xED", "\xA0\x80", "", "\xED\xA0\x80"},  // surrogate: certain at the 2nd byte
      {"\xE0", "\x80", "", "\xE0\x80"},          // overlong 3-byte
      {"\xF0", "\x8F", "", "\xF0\x8F"},          // overlong 4-byte
      {"\xF4", "\x90", "", "\xF4\x90"},          // > U+10FFFF
      {"\xE4\xB8", "A", "", "\xE4\xB8" "A"},     // truncated by an ASCII byte
      {"x\xE4", "\xB8\xAD", "x", "\xE4\xB8\xAD"},
  };
  for (const Case& c : cases) {
    llm0::Utf8Stream st;
    EXPECT_EQ(st.push(c.first), c.out_first);
    EXPECT_EQ(st.push(c.second), c.out_second);
    EXPECT_EQ(st.flush(), "");
  }
  llm0::Utf8Stream st;
  EXPECT_EQ(st.push("ok\xE4\xB8"), "ok");
  EXPECT_EQ(st.flush(), "\xE4\xB8");  // end of stream: the incomplete tail comes out as it is
  EXPECT_EQ(st.push("z"), "z");
}

TEST(Utf8Stream, RandomBytesConcatenateExactly) {
  std::mt19937_64 rng(7);
  const std::string interesting = "\x80\x8F\x90\x9F\xA0\xBF\xC0\xC1\xC2\xDF\xE0\xE4\xED\xEF\xF0\xF4\xF5\xFF" "a";
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s;
    const int n = int(rng() % 24);
    for (int i = 0; i < n; ++i) {
      const uint64_t r = rng();
      if (r % 3 == 0) s += interesting[(r >> 8) % interesting.size()];
      else if (r % 3 == 1) s += encode(uint32_t((r >> 8) % 0x110000));  // valid unless a surrogate
      else s += char(r >> 8);
    }
    llm0::Utf8Stream st;
    std::string fed, out;
    for (size_t i = 0; i < s.size();) {
      const size_t len = std::min<size_t>(s.size() - i, rng() % 5);
      fed += s.substr(i, len);
      out += st.push(s.substr(i, len));
      i += len;
      ASSERT_EQ(out, fed.substr(0, fed.size() - oracle_held(fed))) << "trial " << trial;
      ASSERT_EQ(st.held(), oracle_held(fed));
    }
    ASSERT_EQ(out + st.flush(), s) << "trial " << trial;
  }
}

TEST(Utf8Stream, TokensThatSplitCharactersDecodeToTheWholeText) {
  // A byte-level vocabulary whose tokens cut "中😀é" (E4 B8 AD | F0 9F 98 80 | C3 A9) mid-character.
  const std::vector<std::string> vocab = {"\xE4", "\xB8\xAD\xF0", "\x9F", "\x98\x80\xC3", "\xA9!"};
  const std::vector<int> tokens = {0, 1, 2, 3, 4};
  llm0::Utf8Stream st;
  std::string all, out;
  std::vector<std::string> pieces;
  for (int t : tokens) {
    all += vocab[t];
    pieces.push_back(st.push(vocab[t]));
    ASSERT_TRUE(valid_utf8(pieces.back()));
    out += pieces.back();
  }
  EXPECT_EQ(out + st.flush(), all);
  EXPECT_EQ(pieces, (std::vector<std::string>{"", "\xE4\xB8\xAD", "", "\xF0\x9F\x98\x80", "\xC3\xA9!"}));
}

}  // namespace
