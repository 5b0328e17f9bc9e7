// llama.cpp's tokenization of text lines (node-llama-cpp's prebuilt CPU build), for the
// tokenizer check of scripts/parity_llamacpp.sh: loads a GGUF file (vocabulary only) and prints
// one line per input line: the token ids, space-separated, without BOS, special-token text
// ("<s>") matched as the special token, as Hugging Face tokenizers (and llm0) match added tokens
// (llama_tokenize with add_special false, parse_special true).
// Usage: node tokenize.mjs --model FILE.gguf --lines FILE.txt
import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

const argv = process.argv.slice(2);
const arg = (name) => argv[argv.indexOf(name) + 1];
if (!argv.includes("--model") || !argv.includes("--lines"))
    throw new Error("usage: tokenize.mjs --model FILE.gguf --lines FILE.txt");
const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error});
const model = await llama.loadModel({modelPath: arg("--model"), gpuLayers: 0, vocabOnly: true});
for (const line of readFileSync(arg("--lines"), "utf8").split("\n").filter((l) => l.length > 0))
    console.log(model.tokenize(line, true).join(" "));
await model.dispose();
await llama.dispose();
