// The default corpus: Debian's fortunes-zh package (tang300, song100, chinese), in the fortune(6)
// "strfile" format: entries separated by lines holding "%", with ANSI colour escapes (ECMA-48 CSI
// sequences "ESC [ params final", e.g. ESC[32m ... ESC[m) around titles and authors.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check.h"
#include "train/corpus.h"

namespace llm0 {
namespace {

// Removes CSI sequences (ESC '[' then parameter/intermediate bytes 0x20-0x3F, then one final byte
// 0x40-0x7E) and any other ESC byte.
std::string strip_escapes(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != '\x1b') {
      out += line[i];
      continue;
    }
    if (i + 1 < line.size() && line[i + 1] == '[') {
      size_t j = i + 2;
      while (j < line.size() && line[j] >= 0x20 && line[j] <= 0x3F) ++j;
      const bool has_final = j < line.size() && line[j] >= 0x40 && line[j] <= 0x7E;
      i = has_final ? j : j - 1;  // resume after the final byte, or at an unterminated sequence's end
    }
  }
  return out;
}

void rstrip(std::string& s) {
  const size_t end = s.find_last_not_of(" \t\r");
  s.erase(end == std::string::npos ? 0 : end + 1);
}

bool is_separator(std::string_view line) {
  return !line.empty() && line[0] == '%' &&
         line.find_first_not_of(" \t\r", 1) == std::string_view::npos;
}

// Joins the entry's lines, dropping blank lines at both ends; empty entries are skipped.
void flush_entry(std::vector<std::string>& lines, std::vector<std::string>& docs) {
  size_t first = 0, last = lines.size();
  while (first < last && lines[first].empty()) ++first;
  while (last > first && lines[last - 1].empty()) --last;
  if (first < last) {
    std::string doc = lines[first];
    for (size_t i = first + 1; i < last; ++i) (doc += '\n') += lines[i];
    docs.push_back(std::move(doc));
  }
  lines.clear();
}

void append_fortune_file(const std::string& path, std::vector<std::string>& docs) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "cannot open '{}' (install Debian's fortunes-zh package)", path);
  std::vector<std::string> lines;
  std::string raw;
  while (std::getline(in, raw)) {
    if (is_separator(raw)) {
      flush_entry(lines, docs);
      continue;
    }
    std::string line = strip_escapes(raw);
    rstrip(line);
    lines.push_back(std::move(line));
  }
  LLM0_CHECK(!in.bad(), "error reading '{}'", path);
  flush_entry(lines, docs);
}

}  // namespace

std::vector<std::string> fortunes_zh_documents(const std::string& dir) {
  std::vector<std::string> docs;
  for (const char* name : {"tang300", "song100", "chinese"})
    append_fortune_file((std::filesystem::path(dir) / name).string(), docs);
  LLM0_CHECK(!docs.empty(), "no document in the fortunes-zh files under '{}'", dir);
  return docs;
}

}  // namespace llm0
