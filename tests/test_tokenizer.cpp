// Byte-level BPE tokenizer (tokenizer/tokenizer.h): a merge example worked by hand, training
// against a naive from-scratch trainer, encoding against a naive GPT-2 bpe() loop, round trips
// over random bytes, special tokens, and bad arguments.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/check.h"
#include "tokenizer/bpe_encode.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/utf8.h"

namespace llm0 {
namespace {

using Ids = std::vector<int>;

// By hand (a=97 b=98 c=99 d=100; each document is one pre-token, count 1):
//   pairs: abcabc -> ab x2, bc x2, ca; abd -> ab, bd; bcd -> bc, cd.  ab=3, bc=3: tie, a < b
//   merge 0: (97,98)  -> 256 "ab".  now 256c x2, c256, 256d, bc, cd
//   merge 1: (256,99) -> 257 "abc". now 257 257, 256d, bc, cd (all 1): smallest left id is b=98
//   merge 2: (98,99)  -> 258 "bc".  then <|endoftext|> = 259.
TEST(Tokenizer, HandWorkedMergeExample) {
  const Tokenizer tok = Tokenizer::train({"abcabc", "abd", "bcd"}, 260);
  EXPECT_EQ(tok.merges(), (std::vector<BpeMerge>{{97, 98}, {256, 99}, {98, 99}}));
  ASSERT_EQ(tok.vocab_size(), 260);
  EXPECT_EQ(tok.token_bytes(256), "ab");
  EXPECT_EQ(tok.token_bytes(257), "abc");
  EXPECT_EQ(tok.token_bytes(258), "bc");
  EXPECT_EQ(tok.eos_id(), 259);
  EXPECT_EQ(tok.encode("abcd"), (Ids{257, 100}));
  // Lowest rank first: in "bcabc", (a,b) (rank 0) merges before the leftmost pair (b,c)
  // (rank 2); merging left to right instead would give {258, 97, 258}.
  EXPECT_EQ(tok.encode("bcabc"), (Ids{258, 257}));
  EXPECT_EQ(tok.encode("abcabc<|endoftext|>bcd"), (Ids{257, 257, 259, 258, 100}));
  EXPECT_EQ(tok.encode(" ab"), (Ids{32, 256}));  // " ab" is one pre-token
}

// Overlapping pairs, by hand: aaaa -> aa x3, aaa -> aa x2: merge (97,97) -> 256 "aa";
// then aaaa = [256,256], aaa = [256,97]: tie at 1, right id 97 < 256: (256,97) -> 257 "aaa";
// then (256,256) -> 258 "aaaa". Encoding "aaaaa": aa|aa|a, then (256,97) (rank 1) -> aa|aaa.
TEST(Tokenizer, OverlappingPairsMergeLeftToRight) {
  const Tokenizer tok = Tokenizer::train({"aaaa", "aaa"}, 259, {});
  EXPECT_EQ(tok.merges(), (std::vector<BpeMerge>{{97, 97}, {256, 97}, {256, 256}}));
  EXPECT_EQ(tok.encode("aaaaa"), (Ids{256, 257}));
  EXPECT_EQ(tok.encode("aaaa"), (Ids{258}));
  EXPECT_EQ(tok.encode("aaa"), (Ids{257}));
}

// Naive trainer: recount every pair from scratch each step; same tie rule as bpe_train.h.
BpeTrainResult naive_train(const std::vector<std::pair<std::string, int64_t>>& words, int max_tokens) {
  BpeTrainResult r;
  for (int b = 0; b < 256; ++b) r.tokens.emplace_back(1, static_cast<char>(b));
  std::vector<std::vector<int>> syms;
  for (const auto& [w, c] : words) syms.emplace_back(w.begin(), w.end());
  for (auto& s : syms) for (int& v : s) v = static_cast<unsigned char>(v);
  while (static_cast<int>(r.tokens.size()) < max_tokens) {
    std::map<std::pair<int, int>, int64_t> counts;
    for (size_t i = 0; i < syms.size(); ++i)
      for (size_t j = 0; j + 1 < syms[i].size(); ++j) counts[{syms[i][j], syms[i][j + 1]}] += words[i].second;
    if (counts.empty()) break;
    auto best = counts.begin();  // std::map order = smallest (left, right) first
    for (auto it = counts.begin(); it != counts.end(); ++it)
      if (it->second > best->second) best = it;
    const auto [a, b] = best->first;
    const std::string bytes = r.tokens[a] + r.tokens[b];
    const auto found = std::find(r.tokens.begin(), r.tokens.end(), bytes);
    const int x = static_cast<int>(found - r.tokens.begin());
    if (found == r.tokens.end()) r.tokens.push_back(bytes);
    r.merges.push_back({a, b});
    for (auto& s : syms) {
      std::vector<int> out;
      for (size_t j = 0; j < s.size();) {
        if (j + 1 < s.size() && s[j] == a && s[j + 1] == b) { out.push_back(x); j += 2; }
        else out.push_back(s[j++]);
      }
      s = out;
    }
  }
  return r;
}

TEST(BpeTrain, IncrementalCountsEqualRecountingFromScratch) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::pair<std::string, int64_t>> words;
    const int n = 5 + rng() % 40;
    for (int i = 0; i < n; ++i) {
      std::string w(1 + rng() % 12, 'a');
      for (char& c : w) c = static_cast<char>('a' + rng() % 3);  // 3 letters: many repeats/ties
      words.emplace_back(w, 1 + rng() % 5);
    }
    const int max_tokens = 256 + 1 + rng() % 40;
    const BpeTrainResult fast = bpe_train(words, max_tokens);
    const BpeTrainResult slow = naive_train(words, max_tokens);
    ASSERT_EQ(fast.merges, slow.merges) << "trial " << trial;
    ASSERT_EQ(fast.tokens, slow.tokens) << "trial " << trial;
  }
}

// Naive GPT-2 bpe(): find the lowest-rank adjacent pair, merge all its occurrences left to
// right, repeat.
Ids naive_encode_word(const Tokenizer& tok, std::string_view word) {
  std::map<std::pair<int, int>, int> rank;
  for (int i = 0; i < static_cast<int>(tok.merges().size()); ++i)
    rank.emplace(std::pair{tok.merges()[i].left, tok.merges()[i].right}, i);
  Ids s;
  for (char c : word) s.push_back(static_cast<unsigned char>(c));
  while (true) {
    int best = -1;
    std::pair<int, int> pair;
    for (size_t j = 0; j + 1 < s.size(); ++j) {
      const auto it = rank.find({s[j], s[j + 1]});
      if (it != rank.end() && (best < 0 || it->second < best)) { best = it->second; pair = it->first; }
    }
    if (best < 0) return s;
    const std::string bytes = tok.token_bytes(pair.first) + tok.token_bytes(pair.second);
    int x = -1;
    for (int id = 0; id < tok.vocab_size(); ++id) if (tok.token_bytes(id) == bytes) { x = id; break; }
    Ids out;
    for (size_t j = 0; j < s.size();) {
      if (j + 1 < s.size() && s[j] == pair.first && s[j + 1] == pair.second) { out.push_back(x); j += 2; }
      else out.push_back(s[j++]);
    }
    s = out;
  }
}

std::vector<std::string> mixed_corpus() {
  return {"床前明月光，疑是地上霜。举头望明月，低头思故乡。",
          "the cat sat on the mat; the cats sat on the mats 12345 times",
          "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。 😀😀 ok",
          "aaaa bbbb abab baba aaaa 🙂 ok ok ok 明月 明月 明月\n\n\tend"};
}

TEST(Tokenizer, EncodeAppliesMergesLowestRankFirst) {
  const Tokenizer tok = Tokenizer::train(mixed_corpus(), 256 + 120);
  for (const std::string& doc : mixed_corpus()) {
    Ids expected;
    for (std::string_view piece : pretokenize(doc)) {
      const Ids w = naive_encode_word(tok, piece);
      expected.insert(expected.end(), w.begin(), w.end());
    }
    EXPECT_EQ(tok.encode(doc), expected);
    EXPECT_EQ(tok.encode(doc), expected);  // second call: served from the cache
  }
}

std::string random_text(std::mt19937& rng) {
  static const std::vector<std::string> pool = {
      "明月", "光", "，", "。", " the", "cat", "😀", "👨‍👩‍👧", "\xff", "\xe5\xba", "\x80",
      " ", "\n", "\t", "123", "٣", "é", "<|endoftext|>", "<|endoftext", "\0"};
  std::string s;
  const int n = rng() % 30;
  for (int i = 0; i < n; ++i) {
    if (rng() % 4 == 0) s += static_cast<char>(rng() % 256);
    else s += pool[rng() % pool.size()];
  }
  return s;
}

TEST(Tokenizer, RoundTripsAnyByteString) {
  const Tokenizer tok = Tokenizer::train(mixed_corpus(), 400);
  std::mt19937 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string s;
    if (trial % 2 == 0) {
      s.resize(rng() % 100);
      for (char& c : s) c = static_cast<char>(rng() % 256);
    } else {
      s = random_text(rng);
    }
    const Ids ids = tok.encode(s);
    ASSERT_EQ(tok.decode(ids), s) << "trial " << trial;
    std::string streamed;
    for (int id : ids) streamed += tok.token_bytes(id);
    ASSERT_EQ(streamed, s);
  }
  EXPECT_TRUE(tok.encode("").empty());
  EXPECT_EQ(tok.decode({}), "");
}

TEST(Tokenizer, SpecialTokensMatchedBeforePretokenization) {
  const Tokenizer tok = Tokenizer::train(mixed_corpus(), 300, {"<|endoftext|>", "<|im_start|>"});
  const int eos = tok.eos_id(), im = tok.special_id("<|im_start|>");
  EXPECT_EQ(eos, tok.vocab_size() - 2);
  EXPECT_EQ(im, tok.vocab_size() - 1);
  // Glued to words on both sides, the special is still cut out whole.
  Ids expected = tok.encode("hello");
  expected.push_back(eos);
  const Ids world = tok.encode("world");
  expected.insert(expected.end(), world.begin(), world.end());
  expected.push_back(im);
  EXPECT_EQ(tok.encode("hello<|endoftext|>world<|im_start|>"), expected);
  EXPECT_EQ(tok.decode({eos}), "<|endoftext|>");
  EXPECT_EQ(tok.token_bytes(im), "<|im_start|>");
  // A broken special is ordinary text: no special id appears.
  const Ids broken = tok.encode("<|endoftext|");
  EXPECT_EQ(std::count(broken.begin(), broken.end(), eos), 0);
  EXPECT_EQ(tok.decode(broken), "<|endoftext|");
  EXPECT_THROW(tok.special_id("<|pad|>"), Error);
}

TEST(Tokenizer, ConcurrentEncodesAgree) {
  const Tokenizer tok = Tokenizer::train(mixed_corpus(), 400);
  std::vector<std::string> texts;
  std::mt19937 rng(5);
  for (int i = 0; i < 200; ++i) texts.push_back(random_text(rng) + mixed_corpus()[i % 4]);
  std::vector<Ids> expected;
  for (const std::string& t : texts) expected.push_back(tok.encode(t));
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      const Tokenizer copy = tok;  // copies share the cache
      for (int rep = 0; rep < 5; ++rep)
        for (size_t i = t; i < texts.size(); i += 2)
          mismatches[t] += (t % 2 ? copy : tok).encode(texts[i]) != expected[i];
    });
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(Tokenizer, TrainingIsDeterministicAndIgnoresDocumentOrder) {
  std::vector<std::string> docs = mixed_corpus();
  const Tokenizer a = Tokenizer::train(docs, 350);
  const Tokenizer b = Tokenizer::train(docs, 350);
  std::reverse(docs.begin(), docs.end());
  const Tokenizer c = Tokenizer::train(docs, 350);
  EXPECT_EQ(a.merges(), b.merges());
  EXPECT_EQ(a.merges(), c.merges());
  EXPECT_EQ(a.merges().size(), 350u - 256 - 1);
  for (int id = 0; id < a.vocab_size(); ++id) EXPECT_EQ(a.token_bytes(id), c.token_bytes(id));
}

TEST(Tokenizer, TrainingStopsWhenPairsRunOut) {
  // "ab" x many: one merge (a,b) is all there is.
  const Tokenizer tok = Tokenizer::train({"ab ab ab"}, 1000);
  // pre-tokens "ab", " ab", " ab": merges (97,98) then (32,256) -> " ab"; nothing left.
  EXPECT_EQ(tok.merges(), (std::vector<BpeMerge>{{97, 98}, {32, 256}}));
  EXPECT_EQ(tok.vocab_size(), 256 + 2 + 1);
  EXPECT_EQ(tok.eos_id(), 258);
}

TEST(Tokenizer, SpecialTokensInDocumentsAreNotLearned) {
  // Cut out, "<|endoftext|>" leaves the one-byte words "x" and "y": no pair, no merge.
  // (Pre-tokenized as text it would give "<|", "endoftext", "|>" and many merges.)
  EXPECT_TRUE(Tokenizer::train({"x<|endoftext|>y"}, 1000).merges().empty());
  EXPECT_FALSE(Tokenizer::train({"x<|endoftext|>y"}, 1000, {}).merges().empty());
}

TEST(Tokenizer, RejectsBadArguments) {
  EXPECT_THROW(Tokenizer::train({"abc"}, 256), Error);  // 256 + 1 special needed
  EXPECT_THROW(Tokenizer::train({"abc"}, 257, {"<|a|>", "<|b|>"}), Error);
  EXPECT_THROW(Tokenizer::train({"abc"}, 300, {""}), Error);
  EXPECT_THROW(Tokenizer::train({"abc"}, 300, {"<|a|>", "<|a|>"}), Error);
  EXPECT_THROW(Tokenizer::train({"abc"}, 300, {"<|\xff|>"}), Error);
  EXPECT_EQ(Tokenizer::train({"abc"}, 256, {}).vocab_size(), 256);
  EXPECT_EQ(Tokenizer::train({}, 257).vocab_size(), 257);  // no documents: bytes + eos
  const Tokenizer tok = Tokenizer::train({"abc"}, 300);
  EXPECT_THROW(tok.decode({tok.vocab_size()}), Error);
  EXPECT_THROW(tok.decode({-1}), Error);
  EXPECT_THROW(tok.token_bytes(100000), Error);
  try {
    Tokenizer::train({"abc"}, 200);
    FAIL() << "expected llm0::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vocab_size=200"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace llm0
