// The course's static blocks in our own words: 常见误解 (misconceptions), 证据三问 (three questions
// of evidence), 一句话 (one sentence), 下一个缺口 (the next gap), 你可能会问 (questions). Their text
// lives in the i18n tables under PREFIX.myths / .evidence / .oneLine / .next / .faq.
(function (x) {
  "use strict";

  x.blocks = function (parent, prefix) {
    var t = x.t, s = x.strings[x.lang];
    var get = function (k) { var v = s[prefix + "." + k]; return v === undefined ? x.strings.zh[prefix + "." + k] : v; };
    var wrap = x.el("div", {class: "blocks"});

    var myths = get("myths") || [];
    wrap.appendChild(x.el("section", {class: "block myths"}, x.el("h2", {text: t("blocks.myths")}),
      myths.map(function (m) { return x.el("div", {class: "myth"}, x.el("p", {class: "myth-claim", text: m[0]}),
                                                                   x.el("p", {text: m[1]})); })));
    var ev = get("evidence") || [];
    wrap.appendChild(x.el("section", {class: "block evidence"}, x.el("h2", {text: t("blocks.evidence")}),
      x.el("ol", null, ev.map(function (q) { return x.el("li", null, x.el("strong", {text: q[0]}), " ", q[1]); }))));
    wrap.appendChild(x.el("section", {class: "block one-line"}, x.el("h2", {text: t("blocks.oneLine")}),
      x.el("p", {class: "one-line-text", text: get("oneLine")})));
    wrap.appendChild(x.el("section", {class: "block next"}, x.el("h2", {text: t("blocks.next")}),
      x.el("p", {text: get("next")})));
    var faq = get("faq") || [];
    wrap.appendChild(x.el("section", {class: "block faq"}, x.el("h2", {text: t("blocks.faq")}),
      faq.map(function (q) { return x.el("details", null, x.el("summary", {text: q[0]}), x.el("p", {text: q[1]})); })));
    parent.appendChild(wrap);
  };
})(window.llm0x = window.llm0x || {});
