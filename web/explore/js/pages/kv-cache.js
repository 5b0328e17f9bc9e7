// Page "lesson 8 — KV cache": the stepper, the growth slider, cache vs recompute, the anchor
// ledger, then the course's static blocks.
(function (x) {
  "use strict";
  x.renderPage = function (main, info) {
    main.appendChild(x.el("p", {class: "question", text: x.t("kv.question")}));
    x.widgets.stepper(main, info);
    x.widgets.growth(main, info);
    x.widgets.cacheCheck(main, info);
    x.widgets.ledger(main, info);
    main.appendChild(x.el("section", {class: "block why"}, x.el("h2", {text: x.t("kv.why.title")}),
      x.el("p", {text: x.t("kv.why.text")}), x.el("p", {text: x.t("kv.why.onlyKV")})));
    main.appendChild(x.el("section", {class: "block try"}, x.el("h2", {text: x.t("rv.try.title")}),
      x.el("ol", null, x.t("kv.try").map(function (s) { return x.el("li", {text: s}); }))));
    x.blocks(main, "kv");
  };
})(window.llm0x = window.llm0x || {});
