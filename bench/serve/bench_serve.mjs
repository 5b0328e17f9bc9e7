// Load generator for scripts/bench_serve.sh: N concurrent streamed completions against an
// OpenAI-compatible server (llm0 serve or llama.cpp's llama-server), prompts given as token ids so
// both servers see the same tokens. Prints one JSON line.
//   node bench_serve.mjs throughput URL STREAMS PROMPT_LEN MAX_TOKENS VOCAB SEED
//     -> {streams, tokens, seconds, tokens_per_second (aggregate: all generated tokens / wall
//         time from the first request to the last token), ttft_median_ms}
//   node bench_serve.mjs prefix URL PREFIX_LEN VOCAB SEED REPS
//     -> {cold_ttft_median_ms, warm_ttft_median_ms}: time to first token of a request whose
//        PREFIX_LEN-token prefix is new, then of one with the same prefix and another 8-token tail
// Token ids are drawn from [256, VOCAB - 16) (no special tokens) with a seeded LCG.
const [mode, url, ...rest] = process.argv.slice(2);

function ids(n, seed, vocab) {
  let s = BigInt(seed) * 6364136223846793005n + 1442695040888963407n;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (s * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n);
    out.push(256 + Number((s >> 33n) % BigInt(vocab - 272)));
  }
  return out;
}

// One streamed completion; resolves {ttft_ms, tokens, end} (end: performance.now() at the last byte).
async function stream(prompt, maxTokens) {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/completions`, {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({prompt, max_tokens: maxTokens, temperature: 0, stream: true, ignore_eos: true,
                          stream_options: {include_usage: true}})});
  if (r.status !== 200) throw new Error(`status ${r.status}: ${await r.text()}`);
  const decoder = new TextDecoder();
  let buf = "", ttft = null, chunks = 0, usage = null;
  for await (const piece of r.body) {
    buf += decoder.decode(piece, {stream: true});
    let at;
    while ((at = buf.indexOf("\n\n")) >= 0) {
      const event = buf.slice(0, at).trim();
      buf = buf.slice(at + 2);
      if (!event.startsWith("data: ") || event === "data: [DONE]") continue;
      const j = JSON.parse(event.slice(6));
      if (j.usage) usage = j.usage;
      const text = j.choices?.[0]?.text ?? "";
      if (text.length || j.choices?.[0]?.logprobs) { chunks++; if (ttft === null) ttft = performance.now() - t0; }
    }
  }
  return {ttft_ms: ttft ?? performance.now() - t0, tokens: usage?.completion_tokens ?? chunks, end: performance.now()};
}

// The first fetch of a process sets up its HTTP client (tens of ms): done before any timing.
await (await fetch(`${url}/health`)).text();

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };

if (mode === "throughput") {
  const [streams, promptLen, maxTokens, vocab, seed] = rest.map(Number);
  const t0 = performance.now();
  const results = await Promise.all([...Array(streams).keys()].map((i) => stream(ids(promptLen, seed * 1000 + i, vocab), maxTokens)));
  const end = Math.max(...results.map((r) => r.end));
  const tokens = results.reduce((a, r) => a + r.tokens, 0);
  const seconds = (end - t0) / 1000;
  console.log(JSON.stringify({streams, tokens, seconds, tokens_per_second: tokens / seconds,
                              ttft_median_ms: median(results.map((r) => r.ttft_ms))}));
} else if (mode === "prefix") {
  const [prefixLen, vocab, seed, reps] = rest.map(Number);
  const cold = [], warm = [];
  for (let k = 0; k < reps; k++) {
    const prefix = ids(prefixLen, seed * 1000 + k, vocab);
    cold.push((await stream([...prefix, ...ids(8, seed * 1000 + 500 + k, vocab)], 1)).ttft_ms);
    warm.push((await stream([...prefix, ...ids(8, seed * 1000 + 700 + k, vocab)], 1)).ttft_ms);
  }
  console.log(JSON.stringify({cold_ttft_median_ms: median(cold), warm_ttft_median_ms: median(warm), cold, warm}));
} else {
  console.error("usage: node bench_serve.mjs throughput URL STREAMS PROMPT_LEN MAX_TOKENS VOCAB SEED | prefix URL PREFIX_LEN VOCAB SEED REPS");
  process.exit(2);
}
