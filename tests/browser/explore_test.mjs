// Browser tests of the `llm0 explore` pages (run by tests/browser/test_explore.sh, which starts the
// server and writes the static export): Debian's chromium driven by playwright-core. Per page: no
// console errors, no request leaving 127.0.0.1 (every other host is aborted and fails the test),
// screenshots at 1280×800 and 390×844, the page no wider than a 390 px phone (with the panels
// filled; on the model page also with a long sentence), the language switch changes every
// heading; and the lessons' numbers equal the CLI's: the stepper (9 vs 4 K/V, 19 vs 10 q·k per head after three clicks),
// the growth table at L = 1,024, the teaching world's cache-vs-recompute outputs, the swap test, a pasted DeepSeek-V2 config (69,120 B/token), the
// heat maps (rows sum to 100%, upper triangle empty). The export is checked again from file://.
// Usage: LLM0=... ROOT=... PORT=... EXPORT=DIR EXPORT_RC=FILE EXPORT_LOG=FILE ARTIFACTS=DIR node explore_test.mjs
import assert from "node:assert/strict";
import {execFile, execFileSync} from "node:child_process";
import fs from "node:fs";
import {fitsPhone, harness, headings, languageSwitch, noPanelErrors, settled, text} from "./browser_common.mjs";

const {LLM0, ROOT, PORT, EXPORT, ARTIFACTS} = process.env;
const BASE = `http://127.0.0.1:${PORT}/explore/`;
const PAGES = ["index", "retrieve-v", "kv-cache", "lineage", "model"];
const cli = (args) => JSON.parse(execFileSync(LLM0, [...args, "--json", "--threads", "1"], {cwd: ROOT, encoding: "utf8"}));
const h = await harness();
const check = h.check;

async function stepper(page) {
  for (let i = 0; i < 3; i++) await page.click("#step-next");
  const want = {"kv-nocache": 9, "kv-cache": 4, "qk-nocache": 19, "qk-cache": 10};
  for (const [id, n] of Object.entries(want)) {
    assert.equal(await text(page, `#${id}-rule`), String(n), `${id} by the rule`);
    assert.equal(await text(page, `#${id}-engine`), String(n), `${id} by the engine`);
  }
  assert.equal(await page.isDisabled("#step-next"), true, "a fourth step with G = 3");
}
async function growth(page, cliGrowth) {
  await page.fill("#growth-L", "1024");
  await page.dispatchEvent("#growth-L", "change");
  await page.waitForSelector('#growth-table tr[data-length="1024"]', {timeout: 60000});
  const rows = await page.$$eval("#growth-table tbody tr[data-length]", (trs) => trs.map((tr) =>
    [...tr.children].map((td) => td.textContent.replace(/,/g, ""))));
  const want = cliGrowth.growth.map((g) => [g.length, g.kv_no_cache, g.kv_cache, g.qk_no_cache, g.qk_cache].map(String));
  assert.deepEqual(rows.map((r) => [r[0], r[1], r[2], r[4], r[5]]), want, "growth table = llm0 lesson kv-cache --up-to 1024");
  const fit = await page.$$eval("#growth-table tr.fit-row td", (tds) => tds.map((t) => t.textContent));
  const f = cliGrowth.fit;
  assert.deepEqual([fit[1], fit[2], fit[4], fit[5]], [f.kv_no_cache, f.kv_cache, f.qk_no_cache, f.qk_cache].map((v) => "n" + v.toFixed(2)));
  assert.match(await text(page, "#growth-rule"), /✓/);
}
// Lesson 8's teaching-world card: the max |difference| between the cached and the full outputs
// is the CLI's cache_check, and the verdict says they are the same.
async function worldCache(page) {
  const c = cli(["lesson", "attention"]).cache_check;
  await page.waitForSelector("#same-world .max-abs-diff");
  assert.equal(await text(page, "#same-world .max-abs-diff"), c.max_abs_diff.toExponential(2));
  const rows = await page.$$eval("#same-world tbody tr:not(.sum)", (trs) => trs.map((tr) => tr.children[2].textContent));
  assert.deepEqual(rows, c.cached.map((r) => r.map((v) => v.toFixed(3)).join(" ")), "cached output vectors = CLI");
  assert.match(await page.$eval("#same-world .verdict", (e) => e.className), /\bok\b/);
}
// The anchor ledger's fixed state in the CLI's words and format (`llm0 kv` prints "fixed state
// 153,944,064 B (146.81 MiB)"): the same number, formatted by the same rule.
async function ledgerFixedState(page) {
  const out = execFileSync(LLM0, ["kv", "configs/reference/course-anchor-hybrid.json"], {cwd: ROOT, encoding: "utf8"});
  const fixed = /fixed state\s+[\d,]+ B \(([^)]+)\)/.exec(out);
  assert.ok(fixed, `no fixed state line in llm0 kv's output:\n${out}`);
  const note = await text(page, "#ledger .note");
  assert.ok(note.includes(fixed[1]), `the ledger's note gives the fixed state as llm0 kv does (${fixed[1]}): ${note}`);
}
// Every visible string of a Chinese page comes from the zh table: the engine's English name of a
// lesson model ("… (random weights, seed 1)") is translated.
async function noEnglishModelNames(page) {
  const body = await page.evaluate(() => document.body.innerText);
  assert.ok(!body.includes("random weights"), "English 'random weights' on the Chinese page");
  assert.ok(body.includes("随机权重"), "the lesson models named in Chinese");
}
async function swapTest(page, asker) {
  await page.click(`#swap-test .token-picker button[data-token="${asker}"]`);
  await page.waitForSelector(`#swap-test .token-picker button[data-token="${asker}"][aria-pressed="true"]`);
  const s = cli(["lesson", "attention", "--asker", asker]).swap_test;
  for (const [step, delta, cosId, cos] of [[3, s.delta_v, "#swap-cos-v", s.cos_v], [1, s.delta_k, "#swap-cos-k", s.cos_k]]) {
    await page.click(`#swap-step-${step}`);
    assert.equal(await text(page, "#swap-delta"), delta.toFixed(3), `swap test (${asker}, step ${step}): distance`);
    assert.equal(await text(page, cosId), cos.toFixed(3), `swap test (${asker}, step ${step}): cosine`);
    const sums = await page.$$eval("#swap-test .engine-sum .ok, #swap-test .engine-sum .bad", (e) => e.map((x) => x.textContent));
    assert.deepEqual(sums, ["✓", "✓"], "the sum rows equal the engine's retrieved vectors");
  }
  await page.click("#swap-step-3");
  if (Number.isFinite(s.ratio)) assert.equal(await text(page, "#swap-ratio"), s.ratio.toFixed(1) + "×");
}
// Lesson 5's shared-KV answer: the ratio and the engine's bytes as `llm0 lesson attention --json`.
async function sharedKv(page) {
  const a = cli(["lesson", "attention"]).shared_kv;
  await page.waitForSelector("#skv-ratio");
  assert.match(await text(page, "#skv-ratio"), new RegExp(a.ratio.toFixed(3).replace(".", "\\.")));
  const cells = await page.$$eval("#skv-table tbody td:nth-child(4)", (tds) => tds.map((t) => t.textContent));
  assert.deepEqual(cells, [a.gqa, a.shared].map((s) => `${s.bytes[0].engine_bytes} / ${s.bytes[0].ledger_bytes}`));
}
async function paste(page) {
  const v2 = fs.readFileSync(`${ROOT}/configs/reference/deepseek-v2.json`, "utf8");
  await page.fill("#paste-config", v2);
  await page.click("#paste-go");
  await page.waitForSelector("#paste-per-token", {timeout: 60000});
  assert.equal(await text(page, "#paste-per-token"), "69,120 B");
  assert.match(await text(page, "#paste-measured"), /\d/, "the engine's measurement on a small model of the kind");
  assert.match(await text(page, "#paste-verdict"), /✓/, "engine bytes = ledger bytes on the small model");
  // The ledger's formulas and notes in Chinese on the Chinese page (x.ledgerText): a hybrid (state,
  // conv window, its note), a sliding window, MLA with a multi-token-prediction note.
  for (const name of ["qwen3-next-80b-a3b", "mistral-7b-v0.1", "deepseek-v3"]) {
    await page.fill("#paste-config", fs.readFileSync(`${ROOT}/configs/reference/${name}.json`, "utf8"));
    await page.click("#paste-go");
    await page.waitForSelector("#paste-per-token", {timeout: 60000});
    const out = await text(page, "#paste-out");
    assert.doesNotMatch(out, /per token|per layer|shared by|held for|fixed, per|counted|unknown:|conv window|\bstate\b/,
                        `${name}: English ledger words on the Chinese page: ${out}`);
  }
  // Malformed input: an error in the panel (the server's 400 is the one console error allowed).
  h.console.expected++;
  await page.fill("#paste-config", "{\"model_type\": \"llama\", \"hidden_size\": ");
  await page.click("#paste-go");
  await page.waitForSelector("#config-paste .panel-error:not([hidden])");
  assert.match(await text(page, "#config-paste .panel-error"), /\S{3,}/);
  // The page still works: the good config again (the language switch re-runs what the box holds).
  await page.fill("#paste-config", v2);
  await page.click("#paste-go");
  await page.waitForSelector("#paste-per-token", {timeout: 60000});
}
async function heatmaps(page) {
  const layers = await page.$$eval("#heat-layer option", (o) => o.map((e) => e.value));
  assert.ok(layers.length >= 1);
  for (const l of layers) {
    await page.selectOption("#heat-layer", l);
    const maps = await page.$$eval(".heatmap", (hs) => hs.map((h) => [...h.querySelectorAll("tbody tr")].map((tr, t) => {
      const tds = [...tr.querySelectorAll("td:not(.row-sum)")];
      return {t, sum: tds.reduce((a, td) => a + Number(td.dataset.w || 0), 0), sumText: tr.querySelector(".row-sum").textContent,
              upper: tds.slice(t + 1).map((td) => td.className + "|" + td.textContent + "|" + (td.dataset.w || ""))};
    })));
    assert.ok(maps.length >= 1, `layer ${l}: heat maps drawn`);
    for (const rows of maps) for (const r of rows) {
      // Weights are float32 softmax outputs printed in full: the row sums to 1 within float32 rounding.
      assert.ok(Math.abs(r.sum - 1) < 1e-4, `layer ${l} row ${r.t} sums to ${r.sum}`);
      assert.equal(r.sumText, "100%");
      assert.ok(r.upper.every((u) => u === "masked||"), `layer ${l} row ${r.t}: the upper triangle is blank`);
    }
  }
}
// The model page with a long sentence (a word longer than a phone's line, spaces elsewhere) in
// both panels, at the phone's width.
async function longSentence(page) {
  const s = "Once upon a time, Timandhisverylongfriendnamewentfaraway ━━━━━━ far away.";
  await page.fill("#heat-text", s);
  await page.click("#heat-go");
  await page.fill("#gen-text", s);
  await page.click("#gen-go");
  await settled(page);
  await noPanelErrors(page);
  await page.waitForFunction(() => document.querySelectorAll("#gen-steps tbody tr").length > 1, null, {timeout: 60000});
  await page.waitForTimeout(4000);  // the continuation's animation (90 ms a step) has run
}
// Every provenance command the page shows runs as printed (llm0 = the binary under test, from the
// repository root) and exits 0; a `--json` one prints JSON. Commands seen on an earlier page are
// not run again. `llm0 kv config.json` (the paste panel) runs in a folder holding the pasted text as
// config.json.
const ranCommands = new Set();
async function provenanceCommands(page) {
  const cmds = await page.$$eval(".prov-cmd", (els) => els.map((e) => e.textContent.trim()));
  const pasted = await page.$eval("#paste-config", (e) => e.value).catch(() => null);
  const pasteDir = fs.mkdtempSync("/tmp/llm0-explore-paste-");
  if (pasted !== null) fs.writeFileSync(`${pasteDir}/config.json`, pasted);
  for (const cmd of cmds) {
    if (ranCommands.has(cmd)) continue;
    ranCommands.add(cmd);
    assert.match(cmd, /^llm0 /, cmd);
    let out;
    try {
      out = execFileSync("bash", ["-c", `"$LLM0" ${cmd.slice(5)}`], {cwd: / config\.json /.test(cmd) ? pasteDir : ROOT,
                                                                    encoding: "utf8", maxBuffer: 1 << 28,
                                                                    env: {...process.env, OMP_NUM_THREADS: "1"}});
    } catch (e) {
      throw new Error(`the page's command failed: ${cmd}\n${e.stderr || e}`);
    }
    if (/ --json( |$)/.test(cmd)) JSON.parse(out);
  }
  fs.rmSync(pasteDir, {recursive: true});
}
// The sentence boxes are checked on the page, in the page's language: empty, and longer than the
// request URI carries (春眠不觉晓 × 400); the second is never sent (no HTTP 414).
async function sentenceChecks(page) {
  for (const [box, go] of [["#heat-text", "#heat-go"], ["#gen-text", "#gen-go"]]) {
    for (const [s, want] of [["", "句子是空的"], ["春眠不觉晓".repeat(400), "句子太长"]]) {
      await page.fill(box, s);
      await page.click(go);
      const errors = await page.$$eval(".panel-error:not([hidden])", (els) => els.map((e) => e.textContent));
      assert.ok(errors.some((e) => e.includes(want)), `${box} "${s.slice(0, 10)}": ${errors.join(" | ")}`);
    }
  }
  // A server refusal in Chinese with the English detail: a missing parameter's code.
  const msg = await page.evaluate(() => window.llm0x.api("lesson/attention-map", {}).then(() => "", (e) => e.message));
  assert.ok(msg.startsWith("缺少参数 text") && msg.includes("parameter \"text\" is required"), msg);
  h.console.expected += 1;  // the 400 it asked for
  // Each step's text is its decoded delta: together they are the generated text, even where a
  // token ends inside a character (stories260K spells Chinese in byte tokens).
  const d = await page.evaluate(() => window.llm0x.api("lesson/generate-steps", {text: "小明把", tokens: 12}));
  assert.equal(d.steps.map((s) => s.text).join(""), d.generated_text);
  assert.ok(!d.steps.some((s) => /<0x/.test(s.text)), "a raw byte in a step's text");
}
// Byte figures round as the CLI's format_bytes does (printf: a tie to even), on exact integers: the
// CLI's own line for DeepSeek-V3 (70,272 B = 68.625 KiB), and a total past 2^53 sent as a string.
async function byteFormat(page) {
  const line = execFileSync(LLM0, ["kv", "configs/reference/deepseek-v3.json"], {cwd: ROOT, encoding: "utf8"});
  const cli = /KV per token\s+70,272 B \(([^)]*)\)/.exec(line);
  assert.ok(cli, line);
  assert.equal(await page.evaluate(() => window.llm0x.fmtBytes(70272)), cli[1]);
  const exact = await page.evaluate(() => window.llm0x.api("kv/reference/deepseek-v3", {context: 1099511627776}));
  const want = (BigInt(exact.exact.kv_bytes_per_token) * 1099511627776n).toString();
  assert.equal(exact.exact.kv_bytes_at_context, want);
  assert.equal(await page.evaluate((s) => window.llm0x.fmtInt(s), want), BigInt(want).toLocaleString("en-US"));
}
// The CLI's growth table to L = 1,024 takes seconds: computed while the browser works.
const kvCli = new Promise((resolve, reject) => execFile(LLM0, ["lesson", "kv-cache", "--prompt-len", "2", "--generate", "3",
  "--up-to", "1024", "--json", "--threads", "1"], {cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26},
  (e, out) => (e ? reject(e) : resolve(JSON.parse(out)))));
kvCli.catch(() => {});  // awaited (and reported) by the growth check
fs.mkdirSync(ARTIFACTS, {recursive: true});
// The export is written in the background (test_explore.sh): its exit status lands in EXPORT_RC.
async function exportWritten() {
  for (let i = 0; i < 1200 && !fs.existsSync(process.env.EXPORT_RC); i++) await new Promise((r) => setTimeout(r, 100));
  const rc = fs.existsSync(process.env.EXPORT_RC) ? fs.readFileSync(process.env.EXPORT_RC, "utf8").trim() : "none after 120 s";
  if (rc !== "0") throw new Error(`llm0 explore --export failed (${rc}):\n${fs.readFileSync(process.env.EXPORT_LOG, "utf8")}`);
}
for (const [origin, base] of [["live", BASE], ["export", `file://${EXPORT}/`]]) {
  if (origin === "export") await check("export written", exportWritten);
  for (const id of PAGES) {
    await check(`${origin} ${id}`, async () => {
      h.console = {errors: [], expected: 0};
      // One load per page: the checks at 1280×800, a screenshot, then the same page (after the
      // clicks) laid out again at 390×844 for the second screenshot.
      const page = await h.newPage(1280, 800);
      await page.goto(base + id + ".html");
      await settled(page);
      await noPanelErrors(page);
      if (id === "kv-cache") { await stepper(page); await growth(page, await kvCli); await worldCache(page); }
      if (id === "retrieve-v") { await swapTest(page, "给了"); await swapTest(page, "小王"); await sharedKv(page); }
      if (id === "lineage" && origin === "live") { await paste(page); await byteFormat(page); }
      if (id === "model") await heatmaps(page);
      if (origin === "live") await provenanceCommands(page);
      if (id === "model" && origin === "live") await sentenceChecks(page);
      await languageSwitch(page);
      if (id === "kv-cache") { await ledgerFixedState(page); await noEnglishModelNames(page); }
      await page.evaluate(() => window.scrollTo(0, 0));  // the sticky header at the top of the picture
      await page.screenshot({path: `${ARTIFACTS}/${origin}-${id}-1280x800.png`, fullPage: true});
      await page.setViewportSize({width: 390, height: 844});
      await fitsPhone(page, `${id} at 390×844`);
      if (id === "model" && origin === "live") { await longSentence(page); await fitsPhone(page, "model, a long sentence, at 390×844"); }
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({path: `${ARTIFACTS}/${origin}-${id}-390x844.png`, fullPage: true});
      await page.context().close();
      h.consoleClean();
    });
  }
}
await h.finish(ARTIFACTS);
