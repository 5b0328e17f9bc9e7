// What the explorer's browser tests share (explore_test.mjs, train_test.mjs): Debian's chromium
// driven by playwright-core; named checks with a pass/fail summary; pages that abort and record
// every request leaving 127.0.0.1 and collect console errors; waiting for panels to settle; the
// phone-width check; the language switch.
import assert from "node:assert/strict";
import {chromium} from "playwright-core";

// h = await harness(): {browser, check(name, fn), newPage(w, h), outside, console: {errors,
// expected}, finish(artifacts)}. A test resets h.console per page and counts in `expected` the
// console errors it provokes on purpose (an HTTP 4xx it asked for).
export async function harness() {
  const browser = await chromium.launch({executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
                                         args: process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : []});
  const h = {browser, outside: [], results: [], console: {errors: [], expected: 0}};
  h.check = async (name, fn) => {
    const t0 = Date.now();
    try { await fn(); h.results.push([name, true]); console.log(`ok   ${name} (${Date.now() - t0} ms)`); }
    catch (e) { h.results.push([name, false]); console.log(`FAIL ${name}: ${e.stack || e}`); }
  };
  h.newPage = async (width, height) => {
    const context = await browser.newContext({viewport: {width, height}});
    await context.route("**/*", (route) => {
      const u = new URL(route.request().url());
      if (u.protocol === "file:" || u.protocol === "data:" || u.hostname === "127.0.0.1") return route.continue();
      h.outside.push(u.href);
      return route.abort();
    });
    const page = await context.newPage();
    page.on("console", (m) => { if (m.type() === "error") h.console.errors.push(`${page.url()}: ${m.text()}`); });
    page.on("pageerror", (e) => h.console.errors.push(`${page.url()}: uncaught ${e.message}`));
    return page;
  };
  // Fails unless exactly the expected console errors happened since h.console was reset.
  h.consoleClean = () => assert.equal(h.console.errors.length, h.console.expected, `console errors:\n${h.console.errors.join("\n")}`);
  h.finish = async (artifacts) => {
    await h.check("no request left 127.0.0.1", async () => assert.deepEqual(h.outside, []));
    await browser.close();
    const failed = h.results.filter((r) => !r[1]).length;
    console.log(`${h.results.length - failed}/${h.results.length} passed; screenshots in ${artifacts}`);
    process.exit(failed ? 1 : 0);
  };
  return h;
}

// Waits until no panel still says "computing" (every request answered or failed).
export async function settled(page, timeout = 60000) {
  await page.waitForFunction(() => document.querySelector("main") && !document.querySelector(".loading"), null, {timeout});
}
export async function noPanelErrors(page) {
  const errors = await page.$$eval(".panel-error:not([hidden])", (els) => els.map((e) => e.textContent));
  assert.deepEqual(errors, [], `panel errors on ${page.url()}`);
}
export const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim());
export const headings = (page) => page.$$eval("h1, h2, h3", (els) => els.map((e) => e.textContent.trim()));

// A phone (390 px): the page is never wider than the viewport — tables scroll in their own box,
// long words and commands wrap. On failure, the elements reaching past the right edge are named.
export async function fitsPhone(page, what) {
  const r = await page.evaluate(() => {
    const W = window.innerWidth;
    const clipped = (e) => {  // inside a box that scrolls or clips (a table's own scroller)
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== "visible") return true;
      return false;
    };
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > W + 0.5 && !clipped(e))
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? "#" + e.id : ""}.${[...e.classList].join(".")} right=${Math.round(e.getBoundingClientRect().right)}`);
    return {scroll: document.documentElement.scrollWidth, W, wide: wide.slice(0, 12)};
  });
  assert.ok(r.scroll <= r.W, `${what}: page ${r.scroll} px wide in a ${r.W} px viewport; past the edge:\n${r.wide.join("\n")}`);
}

// The switch to English changes every heading (the same number of them), and back to Chinese.
export async function languageSwitch(page) {
  const before = await headings(page);
  await page.click("#lang-switch");
  await page.waitForFunction(() => document.documentElement.lang === "en");
  await settled(page);
  const after = await headings(page);
  assert.equal(after.length, before.length, "the same headings in both languages");
  after.forEach((h, i) => assert.notEqual(h, before[i], `heading ${i} did not change: ${h}`));
  await page.click("#lang-switch");
  await page.waitForFunction(() => document.documentElement.lang === "zh-CN");
  await settled(page);
}
