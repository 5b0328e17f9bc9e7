// evaluate_corpus (see corpus_eval.h): the full windows through BatchLoader::eval_batch, the tail
// as one shorter row.
#include "train/corpus_eval.h"

#include "core/check.h"
#include "train/batch_loader.h"
#include "train/corpus.h"
#include "train/thread_lanes.h"

namespace llm0 {

CorpusEval evaluate_corpus(Model& model, const Tokenizer& tokenizer,
                           const std::vector<std::string>& docs, int seq_len, int batch_size) {
  const ModelConfig& cfg = model.config();
  LLM0_CHECK(!docs.empty(), "no document to evaluate");
  LLM0_CHECK(seq_len >= 1 && seq_len <= cfg.max_position_embeddings,
             "--seq-len {} must be in [1, {}] (the model's max_position_embeddings)", seq_len,
             cfg.max_position_embeddings);
  LLM0_CHECK(batch_size >= 1, "--batch-size {} must be at least 1", batch_size);
  LLM0_CHECK(tokenizer.vocab_size() <= cfg.vocab_size,
             "the tokenizer has {} tokens but the model's vocab_size is {}", tokenizer.vocab_size(),
             cfg.vocab_size);
  CorpusEval r;
  r.seq_len = seq_len, r.batch_size = batch_size;
  std::vector<int32_t> stream = {tokenizer.eos_id()};
  for (const std::string& d : docs) {
    for (int id : tokenizer.encode(d)) stream.push_back(id);
    stream.push_back(tokenizer.eos_id());
    r.characters += (int64_t)utf8_char_count(d);
  }
  r.documents = (int64_t)docs.size();
  const int64_t targets = (int64_t)stream.size() - 1;
  ThreadLanes lanes(model);
  long count = 0;
  int64_t done = 0;  // targets scored so far: stream[1 .. done]
  if (targets >= seq_len) {
    const BatchLoader loader(stream, batch_size, seq_len, 0);
    Batch batch;
    for (int64_t i = 0; i < loader.num_eval_batches(); ++i) {
      loader.eval_batch(i, batch);
      r.total_nats +=
          lanes.forward(batch.inputs.data(), batch.targets.data(), batch.B, batch.T, &count);
      r.tokens += count;
    }
    done = loader.num_eval_windows() * seq_len;
  }
  if (done < targets) {  // the last window: stream[done .. N-2] predicting stream[done+1 .. N-1]
    const int T = (int)(targets - done);
    const std::vector<int> inputs(stream.begin() + done, stream.end() - 1);
    const std::vector<int> next(stream.begin() + done + 1, stream.end());
    r.total_nats += lanes.forward(inputs.data(), next.data(), 1, T, &count);
    r.tokens += count;
  }
  LLM0_CHECK(r.tokens == targets, "evaluated {} targets of {}", r.tokens, targets);
  return r;
}

}  // namespace llm0
