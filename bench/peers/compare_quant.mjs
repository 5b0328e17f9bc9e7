// Compares llm0 with llama.cpp on a quantized GGUF (tests/peer/test_gguf_quant_parity.sh). llm0
// runs the weights dequantized to float32; llama.cpp also quantizes the activations (to Q8_0 or
// Q8_K) inside its quantized dot products, so the two log-probabilities differ by more than
// float32 rounding and a greedy decode may part where two tokens are nearly tied.
//   - D_i: at each generated step i where both engines saw the same context, the largest
//     |log p_llm0 - log p_llama| over llama.cpp's K most likely tokens (parity.mjs --steps-top K);
//     llm0's log-probabilities come from `llm0 forward` over prompt + llm0's generated ids
//     (.npy [T, V]; step i is row P - 1 + i).
//   - The first step k where the greedy ids differ: llm0 picks a, llama.cpp b. Their margins
//     m_llm0 = lp_llm0(a) - lp_llm0(b) and m_llama = lp_llama(b) - lp_llama(a) sum to the two
//     engines' disagreement about lp(a) - lp(b). It is a near-tie when that sum is at most 2 D,
//     D = the largest disagreement on any other token at steps 0..k (each of lp(a), lp(b) may
//     move by D), and b is among llama.cpp's K candidates.
// MODE exact: the first N ids must be identical (and D <= TOL when TOL is given: llama.cpp run on
// ggml's float32 widening of the same file, where only float32 rounding separates the engines).
// MODE near-tie: identical, or parted at a near-tie.
// Prints one JSON line (where and by how much they differ) and exits 1 when the mode fails.
// Usage: node compare_quant.mjs LLM0.json LOGITS.npy LLAMA.json N MODE [TOL]
import {logSoftmax, readGreedyPair, readNpy} from "./parity_util.mjs";

const [llm0Path, npyPath, llamaPath, nArg, mode, tolArg] = process.argv.slice(2);
const N = Number(nArg), tol = tolArg === undefined ? Infinity : Number(tolArg);
if (!(N > 0) || !["exact", "near-tie"].includes(mode))
    throw new Error("usage: compare_quant.mjs LLM0.json LOGITS.npy LLAMA.json N exact|near-tie");
const {ours, theirs, a, b, firstDiff: k} = readGreedyPair(llm0Path, llamaPath, N);
const logits = readNpy(npyPath);
const P = ours.prompt_ids.length;
// D over steps 0..lastShared (contexts identical there), skipping a and b at step k.
const lastShared = k < 0 ? Math.min(a.length, b.length) - 1 : k;
if (lastShared < 0 || logits.shape[0] < P + lastShared)
    throw new Error(`${npyPath}: ${logits.shape[0]} rows for ${P} prompt ids and step ${lastShared}`);
let D = 0, Dstep = -1, Dfirst = 0;
const lp0 = [];
for (let i = 0; i <= lastShared; i++) {
    lp0.push(logSoftmax(logits.row(P - 1 + i)));
    for (const {id, logprob} of theirs.steps[i]) {
        if (i === k && (id === a[k] || id === b[k])) continue;
        const d = Math.abs(lp0[i][id] - logprob);
        if (i === 0) Dfirst = Math.max(Dfirst, d);
        if (d > D) { D = d; Dstep = i; }
    }
}
const result = {mode, compared: a.length, identical: k < 0, first_difference: k,
                logprob_max_abs_diff: D, at_step: Dstep, first_step_max_abs_diff: Dfirst,
                top_k: theirs.steps[0].length};
let pass = k < 0 && (a.length === N || ours.stop_reason === "eos") && D <= tol;
if (k >= 0) {
    const ids = {llm0: a[k], llama_cpp: b[k]};
    const theirA = theirs.steps[k].find((t) => t.id === a[k]);
    const mOurs = lp0[k][a[k]] - lp0[k][b[k]];
    const mTheirs = theirA ? theirs.steps[k].find((t) => t.id === b[k]).logprob - theirA.logprob : null;
    const nearTie = mTheirs !== null && mOurs + mTheirs <= 2 * D;
    Object.assign(result, {diverged_at: k, picks: ids, margin_llm0: mOurs, margin_llama_cpp: mTheirs,
                           near_tie: nearTie,
                           after: {llm0: a.slice(k, k + 6), llama_cpp: b.slice(k, k + 6)}});
    pass = mode === "near-tie" && nearTie;
}
result.pass = pass;
console.log(JSON.stringify(result));
process.exit(pass ? 0 : 1);
