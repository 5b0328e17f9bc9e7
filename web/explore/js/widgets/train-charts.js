// The training page's charts, all from the run's own records: the loss (train loss per step,
// validation points with their perplexity, the unigram and bigram baselines dashed, re-plans as
// dotted verticals), and beside it the learning rate, tokens/s and achieved GFLOP/s under the
// two ceilings the trainer measured at start (sgemm, FMA or BF16 peak). Each widget returns
// {update(run)} and redraws only when its records changed or the width did.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};
  var C = {train: "#1f77b4", val: "#d62728", unigram: "#7f7f7f", bigram: "#2ca02c", lr: "#8c564b", tps: "#17becf",
           flops: "#1f77b4", sgemm: "#ff7f0e", peak: "#9467bd", replan: "#c9561a"};

  // The x axis of every chart: the steps so far and the schedule's length, so the curve grows into
  // a frame that already shows where the run ends.
  function xExtra(store) {
    var total = store.totalSteps(), e = [];
    if (total) e.push(total);
    return e;
  }
  // A tokens/s tick in thousands ("1.5k"): the step m × 10^k in thousands needs max(0, 3 - k) decimals.
  function thousands(v, t) {
    if (v === 0 || t.step < 100) return x.tickLabel(v, t);
    var k = Math.floor(Math.log10(t.step) + 1e-9);
    return x.tickLabel(v / 1000, {decimals: Math.max(0, 3 - k)}) + "k";
  }
  function width(node) { return Math.min(1000, node.clientWidth || 600); }
  function replanLines(store) {
    return store.replans.map(function (r) {
      return {x: r.step, colour: C.replan, title: x.t("train.replan.item", {step: r.step, from: x.fmtInt(r.previous_total_steps),
                                                                            to: x.fmtInt(r.replanned_total_steps)})};
    });
  }

  x.widgets.trainLoss = function (parent) {
    var panel = x.panel(parent, {id: "train-loss", title: "train.loss.title", intro: "train.loss.intro"});
    var fig = x.el("figure", {class: "chart-box"});
    var legend = x.el("div"), notes = x.el("div", {class: "baseline-notes"});
    panel.body.appendChild(fig);
    panel.body.appendChild(legend);
    panel.body.appendChild(notes);
    var seen = "";
    return {update: function (run) {
      var s = run.store, v = s.last(s.vals), w = width(panel.body);
      var key = [s.steps.length, s.vals.length, s.replans.length, s.totalSteps(), w].join("/");
      if (key === seen) return;
      seen = key;
      var uni = v ? v.unigram_baseline : undefined, bi = v ? v.bigram_baseline : undefined;
      fig.textContent = "";
      fig.appendChild(x.lineChart({id: "chart-loss", width: w, height: w < 480 ? 240 : 300, xMinStep: 1,
        xLabel: x.t("train.axis.step"), yLabel: x.t("train.axis.loss"), xExtra: xExtra(s),
        series: [{id: "train", colour: C.train, points: s.steps.map(function (r) { return [r.step, r.loss]; })},
                 {id: "val", colour: C.val, markers: true, points: s.vals.map(function (r) { return [r.step, r.val_loss]; }),
                  pointTitle: function (p) { return x.t("train.loss.point", {step: p[0], loss: p[1].toFixed(3),
                                                                             ppl: Math.exp(p[1]).toFixed(1)}); }}],
        hlines: [{id: "unigram", y: uni, colour: C.unigram, dash: "7 4", title: x.t("train.loss.unigram")},
                 {id: "bigram", y: bi, colour: C.bigram, dash: "3 3", title: x.t("train.loss.bigram")}],
        vlines: replanLines(s)}));
      legend.textContent = "";
      var entries = [{colour: C.train, text: x.t("train.legend.train")},
                     {colour: C.val, marker: true, text: v ? x.t("train.legend.valNow", {loss: v.val_loss.toFixed(3),
                       ppl: v.val_perplexity.toFixed(1), step: v.step}) : x.t("train.legend.val")}];
      if (isFinite(uni)) entries.push({colour: C.unigram, dash: "7 4", text: x.t("train.legend.unigram", {v: uni.toFixed(2)})});
      if (isFinite(bi)) entries.push({colour: C.bigram, dash: "3 3", text: x.t("train.legend.bigram", {v: bi.toFixed(2)})});
      if (s.replans.length) entries.push({colour: C.replan, dash: "2 3", text: x.t("train.legend.replan")});
      legend.appendChild(x.chartLegend(entries));
      notes.textContent = "";
      notes.appendChild(x.el("p", {id: "note-unigram", text: x.t("train.loss.unigram")}));
      notes.appendChild(x.el("p", {id: "note-bigram", text: x.t("train.loss.bigram")}));
      notes.appendChild(x.el("p", {text: x.t("train.loss.perplexity")}));
    }};
  };

  // Three small charts in a grid: learning rate, tokens/s, GFLOP/s against the ceilings.
  x.widgets.trainSpeed = function (parent) {
    var panel = x.panel(parent, {id: "train-speed", title: "train.speed.title", intro: "train.speed.intro"});
    var grid = x.el("div", {class: "chart-grid"});
    panel.body.appendChild(grid);
    var cells = ["lr", "tps", "flops"].map(function (id) {
      var fig = x.el("figure", {class: "chart-box"}), cap = x.el("figcaption");
      var cell = x.el("div", {class: "chart-cell", id: "cell-" + id}, x.el("h3", {text: x.t("train.speed." + id)}), fig, cap);
      grid.appendChild(cell);
      return {fig: fig, cap: cap, cell: cell};
    });
    var seen = "";
    return {update: function (run) {
      var s = run.store, w = Math.min(760, cells[0].cell.clientWidth || 320);
      var key = [s.steps.length, s.starts.length, s.totalSteps(), w].join("/");
      if (key === seen) return;
      seen = key;
      var start = s.last(s.starts), last = s.last(s.steps), extra = xExtra(s);
      var chart = function (i, opts) {
        cells[i].fig.textContent = "";
        opts.width = w; opts.height = 200; opts.xMinStep = 1; opts.xExtra = extra; opts.xLabel = x.t("train.axis.step");
        opts.vlines = replanLines(s);
        cells[i].fig.appendChild(x.lineChart(opts));
      };
      chart(0, {id: "chart-lr", yLabel: x.t("train.axis.lr"), yExtra: [0],
                series: [{id: "lr", colour: C.lr, points: s.steps.map(function (r) { return [r.step, r.lr]; })}]});
      cells[0].cap.textContent = start ? x.t("train.speed.lrCap", {lr: start.lr, min: start.min_lr, warmup: start.warmup_steps})
                                       : (last ? x.t("train.speed.lrNow", {lr: last.lr.toExponential(2)}) : "");
      chart(1, {id: "chart-tps", yLabel: x.t("train.axis.tps"), yExtra: [0],
                yFormat: thousands,
                series: [{id: "tps", colour: C.tps, points: s.steps.map(function (r) { return [r.step, r.tokens_per_s]; })}]});
      cells[1].cap.textContent = last ? x.t("train.speed.tpsCap", {tps: x.fmtInt(last.tokens_per_s),
        seen: x.fmtInt(last.tokens_seen)}) : "";
      // Achieved GFLOP/s = mfu × the sgemm ceiling (mfu is achieved / sgemm peak, start record).
      var hasMfu = start && start.sgemm_gflops && last && last.mfu !== undefined;
      cells[2].fig.textContent = "";
      if (hasMfu) chart(2, {id: "chart-flops", yLabel: x.t("train.axis.gflops"), yExtra: [0],
                series: [{id: "flops", colour: C.flops, points: hasMfu ? s.steps.filter(function (r) { return r.mfu !== undefined; })
                  .map(function (r) { return [r.step, r.mfu * start.sgemm_gflops]; }) : []}],
                hlines: start ? [{id: "sgemm", y: start.sgemm_gflops, colour: C.sgemm, dash: "7 4",
                                  title: x.t("train.speed.sgemm", {g: Number(start.sgemm_gflops).toFixed(1)})},
                                 {id: "peak", y: start.peak_gflops, colour: C.peak, dash: "3 3",
                                  title: x.t("train.speed.peak", {name: start.peak_name, g: Number(start.peak_gflops).toFixed(1)})}] : []});
      cells[2].cap.textContent = "";
      if (hasMfu) cells[2].cap.appendChild(x.chartLegend([
        {colour: C.flops, text: x.t("train.speed.mfuNow", {mfu: x.fmtPct(last.mfu), fma: x.fmtPct(last.mfu_fma), name: start.peak_name})},
        {colour: C.sgemm, dash: "7 4", text: x.t("train.speed.sgemm", {g: Number(start.sgemm_gflops).toFixed(1)})},
        {colour: C.peak, dash: "3 3", text: x.t("train.speed.peak", {name: start.peak_name, g: Number(start.peak_gflops).toFixed(1)})}]));
      else cells[2].cap.textContent = x.t("train.speed.noMfu");
    }};
  };
})(window.llm0x = window.llm0x || {});
