// Loads the explorer's classic scripts in order (no ES modules: Chromium refuses module imports and
// fetch() from file://, and the static export must open from disk). A page names its own scripts
// in <body data-scripts="widgets/stepper.js pages/kv-cache.js">; the common ones come first.
// baked-data.js is an empty stub in the binary; `llm0 explore --export DIR` writes the real one.
(function () {
  "use strict";
  var common = ["../baked-data.js", "i18n/zh.js", "i18n/en.js", "i18n.js", "dom.js", "api.js", "panel.js",
                "blocks.js", "shell.js"];
  var own = (document.body.getAttribute("data-scripts") || "").split(/\s+/).filter(Boolean);
  var base = document.currentScript.src.replace(/load\.js(\?.*)?$/, "");
  common.concat(own, ["boot.js"]).forEach(function (name) {
    var s = document.createElement("script");
    s.src = base + name;
    s.async = false;  // dynamically inserted scripts run in insertion order only when not async
    document.body.appendChild(s);
  });
})();
