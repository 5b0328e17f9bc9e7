// Corpus: documents from text files, the default corpus from Debian's fortunes-zh package, and the
// chinese-poetry npm package's poems (corpus_poetry.cpp).
// A prepared corpus (written by `llm0 data`) is JSON Lines: one {"text": "..."} object per document.
// Text is handled as bytes: any byte string is a document (non-UTF-8 input is accepted); only
// write_jsonl must produce valid UTF-8 for JSON, and it replaces each invalid byte sequence by
// U+FFFD (nlohmann::json's error_handler_t::replace), so such bytes do not survive a round trip
// through a .jsonl file.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm0 {

/// Reads documents from `path`:
///   - a .jsonl file: one document per line, the line's "text" field;
///   - any other file: UTF-8 (or arbitrary bytes) text, documents separated by blank lines;
///   - a directory: every regular file under it (recursively, sorted by path), as above.
/// Throws llm0::Error naming the path if it is missing, unreadable, or holds no document
/// (and naming file:line for a malformed .jsonl line).
std::vector<std::string> read_documents(const std::string& path);

/// The default corpus: the files `tang300` (300 Tang poems), `song100` (100 Song ci) and `chinese`
/// (Chinese fortunes) of Debian's fortunes-zh package under `dir`, in that order. Entries are
/// separated by lines holding only "%" (trailing spaces allowed: song100 has one "%    " line).
/// Terminal escapes (CSI sequences ESC [ ... final byte, e.g. the colour codes ESC[32m, ESC[m)
/// and stray ESC bytes are removed, trailing spaces/tabs of every line are removed, surrounding
/// blank lines are trimmed, and entries left empty are skipped. Lines inside an entry are joined
/// with "\n" (no trailing newline). Throws llm0::Error naming the file if one is missing
/// (install the fortunes-zh package) or if no document results.
std::vector<std::string> fortunes_zh_documents(
    const std::string& dir = "/usr/share/games/fortunes");

/// Where scripts/poetry_npm_install.sh installs the npm package chinese-poetry 2.0.1 (MIT), relative
/// to the repository root (the working directory of `make run` and of the explorer's server).
inline constexpr const char* kChinesePoetryDir = "data/chinese-poetry/node_modules/chinese-poetry";

/// The chinese-poetry corpus: one document per poem from the npm package's JSON files under
/// `package_dir`/dist — 全唐诗 (quantangshi/poet.tang.N.json), 全宋诗 (quantangshi/poet.song.N.json),
/// 宋词 (songci/ci.song.N.json), 花间集 (wudaishici/huajianji/huajianji-N-juan.json), 南唐二主词
/// (wudaishici/nantang/poetrys.json), 诗经 (shijing/shijing.json) and 楚辞 (chuci/chuci.json), in
/// that order, each collection's files by their number. Each file is an array of objects; a
/// document is the poem's title ("title", else the ci's tune "rhythmic"), its "author" and its
/// lines ("paragraphs", else "content": arrays of strings), each trimmed of ASCII whitespace, the
/// empty ones dropped, joined with "\n" (no trailing newline); a poem with no text is skipped.
/// Unless `keep_traditional`, each document is converted traditional -> simplified by OpenCC with
/// the configuration `opencc_config` ("" = train/opencc_t2s.h's opencc_t2s_config()).
/// Throws llm0::Error: the package missing (naming the directory and the command that installs
/// it), a collection's file missing, a file that is not valid JSON or whose records do not have
/// these fields (naming the file, the record's index and the field), the OpenCC configuration
/// missing, or no document at all.
std::vector<std::string> chinese_poetry_documents(const std::string& package_dir = kChinesePoetryDir,
                                                  bool keep_traditional = false,
                                                  const std::string& opencc_config = "");

/// 64-bit FNV-1a hash of the bytes of `s` (offset basis 14695981039346656037, prime
/// 1099511628211). Stable across platforms and runs, unlike std::hash.
uint64_t fnv1a64(std::string_view s);

/// A corpus split by document.
struct CorpusSplit {
  std::vector<std::string> train, validation;
};

/// Deterministic train/validation split by document: a document goes to validation iff
/// u(text) < validation_fraction, where u(text) in [0, 1) is the top 53 bits of fnv1a64(text) passed
/// through the splitmix64 finalizer, divided by 2^53. The split depends only on each document's
/// text (identical documents land on the same side, so none leaks into validation) and keeps the
/// input order within each side. Tiny corpora: if this leaves validation empty (with
/// validation_fraction > 0), the copies of the text with the smallest u move to validation; if it
/// leaves train empty, all but the copies of the text with the largest u move to train; a corpus
/// of one distinct text goes entirely to train. Throws llm0::Error unless
/// 0 <= validation_fraction < 1.
CorpusSplit split_documents(const std::vector<std::string>& docs,
                            double validation_fraction = 0.05);

/// Writes `docs` to `path` as JSON Lines, one {"text": ...} object per line, atomically (written
/// to path + ".tmp", then renamed; see core/atomic_file.h). Invalid UTF-8 sequences are replaced by
/// U+FFFD. The parent directory must exist. Throws llm0::Error naming the path on I/O failure.
void write_jsonl(const std::string& path, const std::vector<std::string>& docs);

/// Characters in UTF-8 text `s`: the bytes that are not continuation bytes (10xxxxxx). For valid
/// UTF-8 this is the number of Unicode code points.
size_t utf8_char_count(std::string_view s);

}  // namespace llm0
