// Pre-tokenization, byte<->unicode map and special-token splitting (tokenizer/pretokenize.h,
// byte_unicode.h, special_tokens.h). Expected splits are written out by hand from the rules in
// pretokenize.h; the byte map is checked against the values GPT-2's encoder.json uses.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include "tokenizer/byte_unicode.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/special_tokens.h"
#include "tokenizer/utf8.h"

namespace llm0 {
namespace {

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view p : pretokenize(text)) out.emplace_back(p);
  return out;
}

using Pieces = std::vector<std::string>;

TEST(Pretokenize, DigitsGroupInThreesAndTakeOneLeadingSpace) {
  EXPECT_EQ(split("abc12345 6"), (Pieces{"abc", "123", "45", " 6"}));
  EXPECT_EQ(split("x 1234567"), (Pieces{"x", " 123", "456", "7"}));
  EXPECT_EQ(split("2024年"), (Pieces{"202", "4", "年"}));
  EXPECT_EQ(split("１２３４"), (Pieces{"１２３", "４"}));  // fullwidth digits are digits
}

TEST(Pretokenize, CjkRunsStaySeparateFromPunctuationAndLatin) {
  EXPECT_EQ(split("床前明月光，疑是地上霜。"), (Pieces{"床前明月光", "，", "疑是地上霜", "。"}));
  EXPECT_EQ(split("我爱AI和C++"), (Pieces{"我爱", "AI", "和", "C", "++"}));
  EXPECT_EQ(split("「春眠」\n处处"), (Pieces{"「", "春眠", "」", "\n", "处处"}));
  EXPECT_EQ(split("カタカナ漢字한국어"), (Pieces{"カタカナ漢字한국어"}));  // kana, Han, Hangul: CJK
  EXPECT_EQ(split("中文　空格"), (Pieces{"中文", "　", "空格"}));  // U+3000 is whitespace
}

TEST(Pretokenize, EmojiSequencesStayTogether) {
  // 👍🏽 = U+1F44D U+1F3FD; the family = man ZWJ woman ZWJ girl.
  EXPECT_EQ(split("hi 👍🏽!👨‍👩‍👧"), (Pieces{"hi", " 👍🏽", "!", "👨‍👩‍👧"}));
  EXPECT_EQ(split("好😀😀好"), (Pieces{"好", "😀😀", "好"}));
  EXPECT_EQ(split("❤️x"), (Pieces{"❤️", "x"}));  // U+2764 U+FE0F
}

TEST(Pretokenize, WhitespaceRuns) {
  EXPECT_EQ(split("a   b"), (Pieces{"a", "  ", " b"}));          // last space joins the word
  EXPECT_EQ(split("a\n\nb"), (Pieces{"a", "\n", "\n", "b"}));     // GPT-2's \s+(?!\S)
  EXPECT_EQ(split("a  \tb"), (Pieces{"a", "  ", "\t", "b"}));     // tab does not join
  EXPECT_EQ(split("x  "), (Pieces{"x", "  "}));                   // trailing run stays whole
  EXPECT_EQ(split(" \n "), (Pieces{" \n "}));
  EXPECT_EQ(split("a \xff"), (Pieces{"a", " ", "\xff"}));         // a space never joins raw bytes
  EXPECT_EQ(split(" "), (Pieces{" "}));
  EXPECT_TRUE(split("").empty());
}

TEST(Pretokenize, ContractionsAndPunctuation) {
  EXPECT_EQ(split("don't we'll"), (Pieces{"don", "'t", " we", "'ll"}));
  EXPECT_EQ(split("Hello, world!!"), (Pieces{"Hello", ",", " world", "!!"}));
  EXPECT_EQ(split("?'s"), (Pieces{"?'", "s"}));  // a contraction only starts a piece
}

TEST(Pretokenize, InvalidUtf8BytesFormTheirOwnRuns) {
  EXPECT_EQ(split("ab\xff\xfe" "cd"), (Pieces{"ab", "\xff\xfe", "cd"}));
  // A truncated 3-byte sequence (E5 BA) is two raw bytes; the Han character after it is intact.
  EXPECT_EQ(split("\xe5\xba" "床"), (Pieces{"\xe5\xba", "床"}));
  EXPECT_EQ(split("\xc0\xaf"), (Pieces{"\xc0\xaf"}));  // overlong '/' is not a character
}

TEST(Pretokenize, PiecesConcatenateToAnyByteString) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string s(rng() % 64, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    std::string joined;
    for (std::string_view p : pretokenize(s)) {
      EXPECT_FALSE(p.empty());
      joined += p;
    }
    ASSERT_EQ(joined, s);
  }
}

TEST(ByteUnicode, MatchesGpt2Table) {
  EXPECT_EQ(byte_to_unicode('A'), U'A');
  EXPECT_EQ(byte_to_unicode(' '), U'\u0120');   // 'Ġ'
  EXPECT_EQ(byte_to_unicode('\n'), U'\u010A');  // 'Ċ'
  EXPECT_EQ(byte_to_unicode(0x00), U'\u0100');
  EXPECT_EQ(byte_to_unicode(0x7F), U'\u0121');  // 33 bytes 0..32 come first
  EXPECT_EQ(byte_to_unicode(0xAD), U'\u0143');  // the last unprintable byte
  EXPECT_EQ(byte_to_unicode(0xFF), U'\u00FF');
  std::set<char32_t> images;
  for (int b = 0; b < 256; ++b) images.insert(byte_to_unicode(static_cast<unsigned char>(b)));
  EXPECT_EQ(images.size(), 256u);
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  EXPECT_EQ(byte_level_to_bytes(bytes_to_byte_level(all)), all);
  EXPECT_EQ(bytes_to_byte_level(" the"), "\xC4\xA0the");  // "Ġthe"
  EXPECT_FALSE(byte_level_to_bytes("\xE4\xB8\xAD").has_value());  // 中 is not in the image
  EXPECT_FALSE(byte_level_to_bytes("\xff").has_value());
}

TEST(Utf8, DecodeRejectsOverlongSurrogatesAndTruncation) {
  char32_t cp = 0;
  EXPECT_EQ(utf8_decode("\xE4\xB8\xAD", 0, cp), 3);
  EXPECT_EQ(cp, U'中');
  EXPECT_EQ(utf8_decode("\xF0\x9F\x98\x80", 0, cp), 4);
  EXPECT_EQ(cp, U'\U0001F600');
  EXPECT_EQ(utf8_decode("\xE0\x80\xAF", 0, cp), 0);      // overlong
  EXPECT_EQ(utf8_decode("\xED\xA0\x80", 0, cp), 0);      // surrogate D800
  EXPECT_EQ(utf8_decode("\xF4\x90\x80\x80", 0, cp), 0);  // > U+10FFFF
  EXPECT_EQ(utf8_decode("\xE4\xB8", 0, cp), 0);          // truncated
  EXPECT_EQ(utf8_decode("\x80", 0, cp), 0);              // stray continuation
}

// The offset names the first byte that starts no valid sequence: a whole earlier character
// (3 bytes of 中) is skipped, a truncated one is reported at its lead byte.
TEST(Utf8, InvalidOffsetNamesTheFirstBadByte) {
  EXPECT_EQ(utf8_invalid_offset(""), 0u);
  EXPECT_EQ(utf8_invalid_offset("ab\xE4\xB8\xAD"), 5u);  // valid: the size
  EXPECT_EQ(utf8_invalid_offset("<|e\x92x"), 3u);
  EXPECT_EQ(utf8_invalid_offset("\xE4\xB8\xAD\xFF"), 3u);
  EXPECT_EQ(utf8_invalid_offset("a\xE4\xB8"), 1u);
  EXPECT_TRUE(utf8_valid("ab\xE4\xB8\xAD"));
  EXPECT_FALSE(utf8_valid("a\xE4\xB8"));
}

TEST(SpecialTokens, SplitVerbatimLongestFirst) {
  const std::vector<std::pair<std::string, int>> specials = {{"<|a|>", 10}, {"<|a|>b", 11}};
  const auto segs = split_on_specials("x<|a|>by<|a|><|a", specials);
  ASSERT_EQ(segs.size(), 5u);
  EXPECT_EQ(segs[0].text, "x");
  EXPECT_EQ(segs[0].special_id, -1);
  EXPECT_EQ(segs[1].special_id, 11);  // "<|a|>b" is longer than "<|a|>"
  EXPECT_EQ(segs[2].text, "y");
  EXPECT_EQ(segs[3].special_id, 10);
  EXPECT_EQ(segs[4].text, "<|a");  // an incomplete special is ordinary text
  EXPECT_EQ(segs[4].special_id, -1);
  EXPECT_TRUE(split_on_specials("", specials).empty());
}

}  // namespace
}  // namespace llm0
