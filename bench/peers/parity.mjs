// llama.cpp side of the llm0 parity check (scripts/parity_llamacpp.sh): loads a GGUF file with
// node-llama-cpp's prebuilt CPU llama.cpp, F32 KV cache and flash attention off (on this CPU
// flash attention shifts log-probabilities by ~1e-3), feeds the prompt token ids as they are
// (no tokenization) and decodes greedily. Prints one JSON object:
//   {generated_ids: [...], first_step: [{id, logprob}, ...] (the `top` most likely, in order),
//    stop: "eog" | "max_new_tokens", llama_cpp: "<release tag>"}
// With --steps-top K > 0 it adds steps: [[{id, logprob}, ...], ...], the K most likely tokens at
// every generated step (bench/peers/compare_quant.mjs reads them).
// Usage: node parity.mjs --model FILE.gguf --prompt-ids "1 2 3" [--n 64] [--top 32] [--threads 2]
//                        [--steps-top 0]
import {readFileSync} from "node:fs";
import {getLlama, LlamaLogLevel} from "node-llama-cpp";

function parseArgs(argv) {
    const args = {n: 64, top: 32, threads: 2, stepsTop: 0};
    for (let i = 0; i < argv.length; i += 2) {
        const key = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c) => c.toUpperCase());
        args[key] = argv[i + 1];
    }
    if (args.model == null || args.promptIds == null)
        throw new Error("usage: parity.mjs --model FILE.gguf --prompt-ids \"1 2 3\" [--n 64] [--top 32] [--threads 2]");
    args.promptIds = args.promptIds.trim().split(/\s+/).map(Number);
    for (const k of ["n", "top", "threads", "stepsTop"]) args[k] = Number(args[k]);
    return args;
}

async function main() {
    const args = parseArgs(process.argv.slice(2));
    const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error,
                                  maxThreads: args.threads});
    const model = await llama.loadModel({modelPath: args.model, gpuLayers: 0});
    const contextSize = args.promptIds.length + args.n + 1;
    const context = await model.createContext({
        contextSize, batchSize: contextSize, sequences: 1, threads: args.threads,
        flashAttention: false,
        experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32",
    });
    const sequence = context.getSequence();
    const generated = [];
    let firstStep = null, stop = "max_new_tokens";
    const eog = new Set([model.tokens.eos, model.tokens.eot].filter((t) => t != null));
    const steps = sequence.evaluateWithMetadata(args.promptIds, {probabilities: true},
                                                {temperature: 0, yieldEogToken: true});
    const everyStep = [];
    const mostLikely = (probabilities, k) => {  // sorted, most likely first
        const out = [];
        for (const [id, p] of probabilities) {
            if (out.length >= k) break;
            out.push({id, logprob: Math.log(p)});
        }
        return out;
    };
    for await (const step of steps) {
        if (firstStep == null) firstStep = mostLikely(step.probabilities, args.top);
        if (args.stepsTop > 0) everyStep.push(mostLikely(step.probabilities, args.stepsTop));
        if (eog.has(step.token)) { stop = "eog"; break; }
        generated.push(step.token);
        if (generated.length >= args.n) break;
    }
    const info = JSON.parse(readFileSync(new URL(
        "./node_modules/node-llama-cpp/llama/llama.cpp.info.json", import.meta.url), "utf8"));
    const result = {generated_ids: generated, first_step: firstStep, stop, llama_cpp: info.tag};
    if (args.stepsTop > 0) result.steps = everyStep;
    console.log(JSON.stringify(result));
    await context.dispose();
    await model.dispose();
    await llama.dispose();
}

main().catch((e) => { console.error(`parity.mjs: ${e.stack ?? e}`); process.exit(1); });
