// TextStream: stop strings + hold-back + UTF-8 guard over streamed token bytes (text_stream.h).
#include "infer/text_stream.h"

#include "infer/generator_text.h"

namespace llm0 {

TextStream::TextStream(std::vector<std::string> stops) : stops_(std::move(stops)) {}

bool TextStream::push(std::string_view bytes, std::string& out) {
  if (done_) return false;
  const size_t old_size = text_.size();
  text_ += bytes;
  size_t which = 0;
  const size_t at = find_stop_string(text_, old_size, stops_, &which);
  if (at != std::string_view::npos) {
    stop_ = stops_[which];
    emit(at, out);
    out += utf8_.flush();
    done_ = true;
    return true;
  }
  emit(text_.size() - stop_string_holdback(text_, stops_), out);
  return false;
}

void TextStream::finish(std::string& out) {
  if (done_) return;
  emit(text_.size(), out);
  out += utf8_.flush();
  done_ = true;
}

void TextStream::emit(size_t end, std::string& out) {
  if (end <= emitted_) return;
  out += utf8_.push(std::string_view(text_).substr(emitted_, end - emitted_));
  emitted_ = end;
}

}  // namespace llm0
