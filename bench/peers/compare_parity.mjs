// Compares llm0 with llama.cpp for scripts/parity_llamacpp.sh:
//   - greedy ids: llm0's `generate --temperature 0 --json` output vs parity.mjs's generated_ids;
//     the first N must be identical (both stop early only on end-of-generation, at the same step);
//   - first-step log-probabilities: llm0's last-position logits (`llm0 forward` .npy [T, V],
//     log-softmax in double) vs llama.cpp's for the tokens parity.mjs listed, |diff| <= tol.
// Prints one JSON line with the verdict and exits 1 on a mismatch.
// Usage: node compare_parity.mjs LLM0.json LOGITS.npy LLAMA.json [N=64] [TOL=1e-4]
import {logSoftmax, readGreedyPair, readNpy} from "./parity_util.mjs";

const [llm0Path, npyPath, llamaPath, nArg, tolArg] = process.argv.slice(2);
const N = Number(nArg ?? 64), tol = Number(tolArg ?? 1e-4);
const {ours, theirs, a, b, firstDiff} = readGreedyPair(llm0Path, llamaPath, N);
const logits = readNpy(npyPath);
const lp = logSoftmax(logits.row(logits.shape[0] - 1));
let maxDiff = 0, worst = null;
for (const {id, logprob} of theirs.first_step) {
    const d = Math.abs(lp[id] - logprob);
    if (d > maxDiff) { maxDiff = d; worst = id; }
}
const top = theirs.first_step[0];
const distinct = new Set(a).size;
const idsOk = firstDiff < 0 && (a.length === N || ours.stop_reason === "eos");
const result = {
    ids_identical: idsOk, compared: a.length, first_difference: firstDiff, distinct_ids: distinct,
    logprob_max_abs_diff: maxDiff, logprob_worst_id: worst, logprobs_compared: theirs.first_step.length,
    top1: {id: top.id, llm0: lp[top.id], llama_cpp: top.logprob},
    pass: idsOk && maxDiff <= tol,
};
if (firstDiff >= 0) result.diverged = {llm0: a.slice(firstDiff, firstDiff + 8), llama_cpp: b.slice(firstDiff, firstDiff + 8)};
console.log(JSON.stringify(result));
process.exit(result.pass ? 0 : 1);
