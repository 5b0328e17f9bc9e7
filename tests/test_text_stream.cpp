// TextStream (src/infer/text_stream.h): pieces pushed one token at a time must add up to the text
// cut before the first stop string, hold back a possible stop-string start, and never split a
// UTF-8 character; nothing is released after the end.
#include <gtest/gtest.h>

#include "infer/text_stream.h"

using llm0::TextStream;

namespace {

TEST(TextStream, HoldsBackAPossibleStopAndCutsBeforeIt) {
  TextStream s({"END", "\n\nUser:"});
  std::string out;
  EXPECT_FALSE(s.push("Hello E", out));
  EXPECT_EQ(out, "Hello ");  // "E" may start "END"
  EXPECT_FALSE(s.push("N", out));
  EXPECT_EQ(out, "Hello ");
  EXPECT_FALSE(s.push("x", out));  // "ENx": not a stop after all
  EXPECT_EQ(out, "Hello ENx");
  EXPECT_FALSE(s.push("\n\nUs", out));
  EXPECT_EQ(out, "Hello ENx");
  EXPECT_TRUE(s.push("er: more", out));
  EXPECT_EQ(out, "Hello ENx");
  EXPECT_EQ(s.stop_string(), "\n\nUser:");
  EXPECT_TRUE(s.done());
  EXPECT_FALSE(s.push("late", out));
  s.finish(out);
  EXPECT_EQ(out, "Hello ENx");
}

TEST(TextStream, NeverSplitsAUtf8CharacterAndFlushesAtTheEnd) {
  const std::string euro = "\xE2\x82\xAC";  // €
  TextStream s({"zz"});
  std::string out;
  s.push(euro.substr(0, 1), out);
  EXPECT_EQ(out, "");
  s.push(euro.substr(1, 1), out);
  EXPECT_EQ(out, "");
  s.push(euro.substr(2) + "a" + "z", out);
  EXPECT_EQ(out, euro + "a");  // "z" held: it may start "zz"
  s.finish(out);
  EXPECT_EQ(out, euro + "az");
  EXPECT_TRUE(s.stop_string().empty());
  TextStream plain;
  std::string o2;
  plain.push("\xF0\x9F", o2);  // half of 😀, then the end: the bytes are released as they are
  plain.finish(o2);
  EXPECT_EQ(o2, "\xF0\x9F");
}

TEST(TextStream, AStopSpanningTokensWithEarlierListedWinningTies) {
  TextStream s({"bc", "abc"});
  std::string out;
  EXPECT_FALSE(s.push("xa", out));
  EXPECT_TRUE(s.push("bcd", out));
  EXPECT_EQ(out, "x");  // "abc" starts earlier than "bc"
  EXPECT_EQ(s.stop_string(), "abc");
}

}  // namespace
