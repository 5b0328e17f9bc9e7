// Loads the explorer's classic scripts in order (no ES modules: Chromium refuses module imports and
// fetch() from file://, and the static export must open from disk). <body data-page="ID"> names
// the page; the common scripts come first, then the page's widgets, then boot.js.
// baked-data.js is an empty stub in the binary; `llm0 explore --export DIR` writes the real one.
(function () {
  "use strict";
  var COMMON = ["../baked-data.js", "i18n/zh.js", "i18n/en.js", "i18n.js", "dom.js", "api.js", "panel.js",
                "blocks.js", "shell.js"];
  var PAGES = {
    "index": ["pages/index.js"],
    "retrieve-v": ["widgets/token-picker.js", "widgets/swap-test.js", "widgets/formula.js", "widgets/shape-diagram.js",
                   "widgets/convex-check.js", "widgets/sink-row.js", "widgets/shared-kv.js",
                   "pages/retrieve-v.js"],
    "kv-cache": ["widgets/kv-rules.js", "widgets/stepper.js", "widgets/growth.js", "widgets/cache-check.js",
                 "widgets/ledger.js", "pages/kv-cache.js"],
    "lineage": ["widgets/timeline.js", "widgets/config-paste.js", "pages/lineage.js"],
    "train": ["widgets/ticks.js", "widgets/line-chart.js", "widgets/heatmap.js", "widgets/train-run.js",
              "widgets/train-form.js", "widgets/train-status.js", "widgets/train-charts.js", "widgets/train-samples.js",
              "widgets/train-attention.js", "pages/train.js"],
    "model": ["widgets/heatmap.js", "widgets/continuation.js", "pages/model.js"]
  };
  var own = PAGES[document.body.getAttribute("data-page")] || [];
  var base = document.currentScript.src.replace(/load\.js(\?.*)?$/, "");
  COMMON.concat(own, ["boot.js"]).forEach(function (name) {
    var s = document.createElement("script");
    s.src = base + name;
    s.async = false;  // dynamically inserted scripts run in insertion order only when not async
    document.body.appendChild(s);
  });
})();
