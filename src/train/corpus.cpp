// Corpus reading, splitting and writing. See corpus.h; the fortunes-zh reader is in
// corpus_fortunes.cpp.
#include "train/corpus.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/check.h"
#include "core/json_file.h"

namespace llm0 {
namespace fs = std::filesystem;

namespace {

std::string read_file_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  LLM0_CHECK(in.good(), "cannot open corpus file '{}'", path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  LLM0_CHECK(!in.bad(), "error reading corpus file '{}'", path.string());
  return ss.str();
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r\f\v") == std::string_view::npos;
}

// Plain text: documents are runs of non-blank lines; blank lines (only whitespace) separate them.
// Lines inside a document keep their bytes and are joined with "\n".
void append_text_documents(const std::string& text, std::vector<std::string>& docs) {
  std::string doc;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    if (is_blank(line)) {
      if (!doc.empty()) docs.push_back(std::move(doc));
      doc.clear();
    } else {
      if (!doc.empty()) doc += '\n';
      doc += line;
    }
    pos = end + 1;
  }
  if (!doc.empty()) docs.push_back(std::move(doc));
}

// JSON Lines: every non-blank line must be an object with a string "text"; empty texts are skipped.
void append_jsonl_documents(const fs::path& path, const std::string& text,
                            std::vector<std::string>& docs) {
  size_t pos = 0;
  for (int line_no = 1; pos < text.size(); ++line_no) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + pos, end - pos);
    pos = end + 1;
    if (is_blank(line)) continue;
    const nlohmann::json j = parse_json(line, format("{}:{}", path.string(), line_no));
    LLM0_CHECK(j.is_object() && j.contains("text") && j["text"].is_string(),
               "{}:{}: expected an object with a string field \"text\"", path.string(), line_no);
    std::string doc = j["text"].get<std::string>();
    if (!doc.empty()) docs.push_back(std::move(doc));
  }
}

void append_file_documents(const fs::path& path, std::vector<std::string>& docs) {
  const std::string text = read_file_bytes(path);
  if (path.extension() == ".jsonl")
    append_jsonl_documents(path, text, docs);
  else
    append_text_documents(text, docs);
}

}  // namespace

std::vector<std::string> read_documents(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  LLM0_CHECK(!ec && fs::exists(st), "corpus path '{}' does not exist", path);
  std::vector<std::string> docs;
  if (fs::is_directory(st)) {
    std::vector<fs::path> files;
    try {
      for (const auto& entry : fs::recursive_directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } catch (const fs::filesystem_error& e) {
      LLM0_FAIL("cannot list corpus directory '{}': {}", path, e.what());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) append_file_documents(f, docs);
  } else {
    append_file_documents(path, docs);
  }
  LLM0_CHECK(!docs.empty(), "corpus '{}' holds no document (empty or only blank lines)", path);
  return docs;
}

uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

// Uniform in [0, 1): FNV-1a, then the splitmix64 finalizer (FNV-1a alone leaves the high bits of
// short texts that differ only at the end poorly mixed), then the top 53 bits.
double unit_hash(const std::string& s) {
  uint64_t z = fnv1a64(s);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// Moves every copy of the text with the lowest (to_validation) or highest (to train) hash.
void move_extreme(const std::vector<std::string>& docs, bool to_validation, CorpusSplit& split) {
  const auto pick = std::min_element(docs.begin(), docs.end(), [&](const auto& a, const auto& b) {
    return to_validation ? unit_hash(a) < unit_hash(b) : unit_hash(a) > unit_hash(b);
  });
  const std::string chosen = *pick;
  split.train.clear();
  split.validation.clear();
  for (const std::string& d : docs) {
    const bool in_validation = to_validation ? d == chosen : d != chosen;
    (in_validation ? split.validation : split.train).push_back(d);
  }
}

}  // namespace

CorpusSplit split_documents(const std::vector<std::string>& docs, double validation_fraction) {
  LLM0_CHECK(validation_fraction >= 0.0 && validation_fraction < 1.0,
             "validation_fraction={} must be in [0, 1)", validation_fraction);
  CorpusSplit split;
  for (const std::string& d : docs)
    (unit_hash(d) < validation_fraction ? split.validation : split.train).push_back(d);
  const bool distinct = std::any_of(docs.begin(), docs.end(), [&](const auto& d) { return d != docs[0]; });
  if (!distinct) {  // zero or one distinct text: everything trains
    split.train = docs;
    split.validation.clear();
  } else if (split.validation.empty() && validation_fraction > 0.0) {
    move_extreme(docs, true, split);
  } else if (split.train.empty()) {
    move_extreme(docs, false, split);
  }
  return split;
}

void write_jsonl(const std::string& path, const std::vector<std::string>& docs) {
  AtomicFile file(path);
  std::string line;
  for (const std::string& d : docs) {
    nlohmann::json j = {{"text", d}};
    line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    line += '\n';
    file.write(line.data(), line.size());
  }
  file.commit();
}

size_t utf8_char_count(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace llm0
