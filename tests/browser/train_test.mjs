// Browser test of the training page (run by tests/browser/test_train.sh, which starts `llm0
// explore --runs RUNS` on an empty runs directory): the whole course loop from the page. The chart
// ticks' JavaScript twin against the C++ rule's hand-derived cases; the corpus prepared with the
// page's button; the form (llm0-small by default, llm0-tiny marked as the demo); a step-count run of
// llm0-tiny started from it, whose command on the page is the server's answer; the loss curve
// growing live, a second tab attaching to the same run, the samples of the three prompts (the
// learner's own among them) and the attention maps (rows summing to 100%, the upper triangle
// blank) appearing; Stop leaving a resumable checkpoint (the done record says "a stop request"),
// Resume running it to the end of its schedule; the page's loss-chart ticks equal to the run's
// loss_curve.svg; "open the lessons" loading the run's checkpoint as the model page's model; the
// phone width and the language switch; then `llm0 explore --export` replaying the finished run
// from file:// with every record. Screenshots in ARTIFACTS (explore-train.png: mid-run, for the
// README's docs/explore-train.png).
// Usage: LLM0=... ROOT=... PORT=... RUNS=DIR WORK=DIR ARTIFACTS=DIR node train_test.mjs
import assert from "node:assert/strict";
import {execFileSync} from "node:child_process";
import fs from "node:fs";
import {fitsPhone, harness, languageSwitch, noPanelErrors, settled, text} from "./browser_common.mjs";

const {LLM0, ROOT, PORT, RUNS, WORK, ARTIFACTS} = process.env;
const BASE = `http://127.0.0.1:${PORT}/explore/`;
const RUN = "page-run", STEPS = 4000;
const h = await harness();
fs.mkdirSync(ARTIFACTS, {recursive: true});
const shot = (page, name) => page.screenshot({path: `${ARTIFACTS}/${name}.png`, fullPage: true});
const records = () => fs.readFileSync(`${RUNS}/${RUN}/metrics.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l));
const trainPoints = (page) => page.$eval('#chart-loss polyline[data-series="train"]', (e) => Number(e.dataset.n)).catch(() => 0);
const state = (page) => page.$eval("#run-state", (e) => e.dataset.state).catch(() => "");
async function waitState(page, want, timeout) {
  await page.waitForFunction((w) => { const e = document.querySelector("#run-state"); return e && e.dataset.state === w; },
                             want, {timeout});
}
// Each heat map's rows sum to 1 (float32 softmax) and print 100%; the cells above the diagonal are blank.
async function heatRows(page, scope) {
  const maps = await page.$$eval(`${scope} .heatmap`, (hs) => hs.map((m) => [...m.querySelectorAll("tbody tr")].map((tr, t) => {
    const tds = [...tr.querySelectorAll("td:not(.row-sum)")];
    return {t, sum: tds.reduce((a, td) => a + Number(td.dataset.w || 0), 0), sumText: tr.querySelector(".row-sum").textContent,
            upper: tds.slice(t + 1).every((td) => td.className === "masked")};
  })));
  assert.ok(maps.length >= 1, "heat maps drawn");
  for (const rows of maps) for (const r of rows) {
    assert.ok(Math.abs(r.sum - 1) < 1e-4, `row ${r.t} sums to ${r.sum}`);
    assert.equal(r.sumText, "100%");
    assert.ok(r.upper, `row ${r.t}: the upper triangle is blank`);
  }
  return maps.length;
}

const page = await h.newPage(1280, 800);
h.console = {errors: [], expected: 0};
await page.goto(BASE + "train.html");
await settled(page);

// The hand-derived cases of tests/test_loss_curve.cpp (ChartTicks), run through the JS twin.
await h.check("chart ticks: the JavaScript twin gives the C++ rule's cases", async () => {
  const got = await page.evaluate(() => {
    const L = (lo, hi, n, min) => { const t = window.llm0x.niceTicks(lo, hi, n, min); return t.values.map((v) => window.llm0x.tickLabel(v, t)); };
    return [L(3.12, 7.92), L(7.92, 3.12), L(0, 3094, 8, 1), L(0.0123, 0.0456), L(0.25, 0.65), L(5, 5), L(0, 0), L(1, 1, 8, 1),
            L(100, 100, 8, 1), window.llm0x.tickLabel(-0.0, window.llm0x.niceTicks(0, 0))];
  });
  assert.deepEqual(got, [["3", "4", "5", "6", "7", "8"], ["3", "4", "5", "6", "7", "8"],
    ["0", "500", "1000", "1500", "2000", "2500", "3000", "3500"], ["0.01", "0.02", "0.03", "0.04", "0.05"],
    ["0.2", "0.3", "0.4", "0.5", "0.6", "0.7"], ["4.7", "4.8", "4.9", "5.0", "5.1", "5.2", "5.3"],
    ["-0.6", "-0.4", "-0.2", "0.0", "0.2", "0.4", "0.6"], ["0", "1", "2"], ["94", "96", "98", "100", "102", "104", "106"], "0.0"]);
  assert.equal(await page.evaluate(() => { try { window.llm0x.niceTicks(0, 1, 2); return "no"; } catch (e) { return "threw"; } }), "threw");
});

await h.check("prepare the corpus from the page", async () => {
  await noPanelErrors(page);
  assert.equal(await page.$("#train-go[disabled]") !== null, true, "no start without a corpus");
  await page.click("#corpus-prepare");
  await page.waitForSelector("#corpus-status.ok", {timeout: 60000});
  assert.match(await text(page, "#corpus-status"), /5,672/, "fortunes-zh's documents");
  assert.ok(fs.existsSync(`${RUNS}/corpus/train.jsonl`) && fs.existsSync(`${RUNS}/corpus/validation.jsonl`));
});

await h.check("the form: llm0-small by default, llm0-tiny the demo, the corpus ready", async () => {
  assert.equal(await page.$eval("#train-preset", (e) => e.value), "llm0-small");
  const tiny = await page.$eval('#train-preset option[value="llm0-tiny"]', (e) => e.textContent);
  assert.match(tiny, /一分钟演示/);
  assert.match(await page.$eval("#corpus-status", (e) => e.className), /\bok\b/);
  assert.match(await text(page, "#train-repro"), /不能逐位复现/, "a time budget is said not to be reproducible");
  const nav = await page.$$eval(".site-nav a", (as) => as.map((a) => a.getAttribute("href")));
  assert.deepEqual(nav.slice(0, 2), ["index.html", "train.html"], "first in the navigation after the home page");
});

let answer = null;
await h.check("start llm0-tiny for a step count from the page: the command is the server's", async () => {
  await page.selectOption("#train-preset", "llm0-tiny");
  await page.check("#train-mode-steps");
  assert.match(await text(page, "#train-repro"), /可以逐位复现/);
  await page.fill("#train-steps", String(STEPS));
  await page.fill("#train-threads", "1");
  await page.fill("#train-prompt", "白日依山尽");
  await page.fill("#train-name", RUN);
  const posted = page.waitForResponse((r) => r.url().endsWith("/explore/api/train") && r.request().method() === "POST");
  await page.click("#train-go");
  const response = await posted;
  answer = await response.json();
  assert.equal(response.status(), 200, JSON.stringify(answer));
  assert.equal(answer.run, RUN);
  for (const w of ["llm0 train ", "--config configs/llm0-tiny.json", `--max-steps ${STEPS}`, "--threads 1",
                   "--sample-prompt 白日依山尽", `/${RUN}`])
    assert.ok(answer.command.includes(w), `the command has ${w}: ${answer.command}`);
  await page.waitForSelector("#run-command");
  assert.equal(await text(page, "#run-command"), answer.command, "the page shows the exact command");
  assert.equal(new URL(page.url()).searchParams.get("run"), RUN);
});

await h.check("live: the curve grows, samples and heat maps appear", async () => {
  await page.waitForFunction(() => { const p = document.querySelector('#chart-loss polyline[data-series="train"]'); return p && p.dataset.n >= 2; },
                             null, {timeout: 60000});
  const n1 = await trainPoints(page);
  await page.waitForFunction((n) => Number(document.querySelector('#chart-loss polyline[data-series="train"]').dataset.n) > n,
                             n1, {timeout: 30000});
  assert.match(await text(page, "#stat-step"), new RegExp(`/ ${STEPS.toLocaleString("en-US")}`));
  await page.waitForSelector(".sample-list li", {timeout: 60000});
  const prompts = await page.$$eval(".sample-list", (ls) => ls.map((l) => l.dataset.prompt));
  assert.deepEqual(prompts, ["床前明月光", "春眠不觉晓", "白日依山尽"]);
  const texts = await page.$$eval(".sample-list li .sample-text", (ts) => ts.map((t) => t.textContent));
  assert.ok(texts.every((t) => t.length > 5), `continuations: ${texts}`);
  await page.waitForSelector("#train-attention .heatmap", {timeout: 30000});
  await heatRows(page, "#train-attention");
  assert.equal(await page.$$eval("#chart-loss .hline", (ls) => ls.map((l) => l.dataset.line).join()), "unigram,bigram");
  assert.ok((await page.$$eval('#chart-loss circle[data-series="val"]', (c) => c.length)) >= 1, "validation points");
  assert.ok((await page.$$eval('#chart-lr polyline', (c) => c.length)) === 1, "the learning rate drawn");
  assert.equal(await state(page), "training");
});

await h.check("a second tab attaches to the run in progress", async () => {
  const other = await h.newPage(1000, 800);
  await other.goto(BASE + "train.html?run=" + RUN);
  await other.waitForFunction(() => { const p = document.querySelector('#chart-loss polyline[data-series="train"]'); return p && p.dataset.n >= 2; },
                              null, {timeout: 30000});
  const n1 = await trainPoints(other);
  await other.waitForFunction((n) => Number(document.querySelector('#chart-loss polyline[data-series="train"]').dataset.n) > n,
                              n1, {timeout: 30000});
  assert.equal(await state(other), "training");
  await other.context().close();
});

await h.check("mid-run screenshots", async () => {
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "live-train-midrun-1280");
  // The README's picture: the run, its loss curve and speed charts (the top of the run's view).
  const box = await page.evaluate(() => {
    const a = document.querySelector("#run-view").getBoundingClientRect(), b = document.querySelector("#train-speed").getBoundingClientRect();
    return {x: 0, y: a.top + window.scrollY - 8, width: 1280, height: b.bottom - a.top + 16};
  });
  await page.screenshot({path: `${ARTIFACTS}/explore-train.png`, clip: box, fullPage: true});
});

await h.check("stop: a resumable checkpoint, the done record says a stop request", async () => {
  assert.equal(await state(page), "training", "still training when Stop is pressed (raise STEPS if not)");
  await page.click("#run-stop");
  await waitState(page, "resumable", 120000);
  const done = records().filter((r) => r.event === "done");
  assert.equal(done.length, 1);
  assert.equal(done[0].stopped_by, "a stop request");
  assert.ok(done[0].step < STEPS, `stopped at ${done[0].step}`);
  assert.ok(fs.existsSync(`${RUNS}/${RUN}/checkpoint`), "a checkpoint");
  assert.match(await text(page, "#stat-step"), new RegExp(`^${done[0].step.toLocaleString("en-US")} / `));
  await page.waitForSelector("#run-resume");
});

await h.check("resume: it runs to the end of its schedule", async () => {
  await page.click("#run-resume");
  await waitState(page, "training", 30000);
  await waitState(page, "finished", 300000);
  const cmds = await page.$$eval(".run-command", (cs) => cs.map((c) => c.textContent));
  assert.equal(cmds.length, 2, cmds.join("\n"));
  assert.match(cmds[1], /--resume/);
  const done = records().filter((r) => r.event === "done");
  assert.equal(done.length, 2);
  assert.equal(done[1].step, STEPS);
  assert.equal(done[1].stopped_by, "");
  assert.match(await text(page, "#stat-step"), new RegExp(`^${STEPS.toLocaleString("en-US")} / ${STEPS.toLocaleString("en-US")}`));
  assert.match(await text(page, "#run-summary"), new RegExp(done[1].final_val_loss.toFixed(3)));
  // every record once on the page (the steps a session re-logs are replaced, not added; a
  // rewritten file's records, resent after `event: reset`, replace what the page had)
  assert.equal(await trainPoints(page), STEPS);
  const all = records();
  assert.equal(await page.$$eval('#chart-loss circle[data-series="val"]', (c) => c.length), all.filter((r) => r.val_loss !== undefined).length);
  assert.equal(await page.$$eval('.sample-list[data-prompt="白日依山尽"] li', (l) => l.length), all.filter((r) => r.samples).length);
});

await h.check("the loss chart's ticks are loss_curve.svg's (one rule, two languages)", async () => {
  const svg = fs.readFileSync(`${RUNS}/${RUN}/loss_curve.svg`, "utf8");
  const labels = (anchor) => svg.split("\n").filter((l) => l.includes(`text-anchor="${anchor}">`) && !l.includes("rotate"))
    .map((l) => l.slice(l.lastIndexOf(`text-anchor="${anchor}">`) + anchor.length + 15, l.lastIndexOf("</text>")))
    .filter((s) => /^-?[\d.]+$/.test(s));
  const chart = await page.$eval("#chart-loss", (e) => [e.dataset.xTicks, e.dataset.yTicks]);
  assert.equal(chart[0], labels("middle").join(","), "x ticks");
  assert.equal(chart[1], labels("end").join(","), "y ticks");
});

await h.check("open the lessons on the finished run's checkpoint", async () => {
  await page.click("#run-lessons");
  await page.waitForSelector("#run-lesson-links a[href='model.html']");
  await page.click("#run-lesson-links a[href='model.html']");
  await page.waitForURL(/model\.html/);
  await settled(page);
  await noPanelErrors(page);
  assert.match(await text(page, "#model-info"), new RegExp(RUN));
  await heatRows(page, "#heatmap");
  await page.goto(BASE + "train.html?run=" + RUN);
  await settled(page);
  await waitState(page, "finished", 30000);
});

await h.check("phone width and the language switch", async () => {
  await languageSwitch(page);
  await page.setViewportSize({width: 390, height: 844});
  await page.waitForTimeout(500);  // the charts redraw at the new width
  await fitsPhone(page, "train at 390×844");
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, "live-train-390x844");
  await page.setViewportSize({width: 1280, height: 800});
  await page.waitForTimeout(500);
  await shot(page, "live-train-1280x800");
  h.consoleClean();
  await page.context().close();
});

await h.check("the static export replays the finished run", async () => {
  execFileSync(LLM0, ["explore", "--runs", RUNS, "--export", `${WORK}/export`, "--export-up-to", "8", "--threads", "1"],
               {cwd: ROOT, encoding: "utf8"});
  h.console = {errors: [], expected: 0};
  const all = records();
  const replay = await h.newPage(1280, 800);
  await replay.goto(`file://${WORK}/export/train.html?run=${RUN}`);
  await waitState(replay, "finished", 60000);
  await replay.waitForSelector("#run-replay");
  assert.equal(await replay.$("#train-start"), null, "no start form in a static copy");
  await replay.waitForFunction((n) => Number(document.querySelector('#chart-loss polyline[data-series="train"]').dataset.n) === n,
                               STEPS, {timeout: 30000});
  const nSamples = new Set(all.filter((r) => r.samples).map((r) => r.step)).size;
  assert.equal(await replay.$$eval('.sample-list[data-prompt="白日依山尽"] li', (l) => l.length), nSamples);
  assert.equal(await replay.$$eval("#attn-step option", (o) => o.length), new Set(all.filter((r) => r.attention).map((r) => r.step)).size);
  await heatRows(replay, "#train-attention");
  await shot(replay, "export-train-1280x800");
  await replay.setViewportSize({width: 390, height: 844});
  await replay.waitForTimeout(500);
  await fitsPhone(replay, "exported train at 390×844");
  await shot(replay, "export-train-390x844");
  h.consoleClean();
  await replay.context().close();
});

await h.finish(ARTIFACTS);
