// The clickable formula of scaled dot-product attention (Vaswani et al. 2017, eq. 1):
// Attention(Q, K, V) = softmax(QKᵀ/√d_k)·V. Each underlined term is a button; clicking it explains
// its role. Rendered with KaTeX (vendor/katex/, embedded in the binary) when info.katex is true,
// else as plain text.
(function (x) {
  "use strict";
  var TERMS = [  // [id, TeX, plain text]
    ["softmax", "\\operatorname{softmax}", "softmax"], ["Q", "Q", "Q"], ["KT", "K^{\\top}", "Kᵀ"],
    ["sqrt", "\\sqrt{d_k}", "√d_k"], ["V", "V", "V"]];
  var katexPromise = null;

  // Loads KaTeX once (classic script + stylesheet, relative to the page, so file:// works).
  x.loadKatex = function (info) {
    if (!info.katex) return Promise.resolve(null);
    if (window.katex) return Promise.resolve(window.katex);
    if (!katexPromise) katexPromise = new Promise(function (resolve) {
      document.head.appendChild(x.el("link", {rel: "stylesheet", href: "vendor/katex/katex.min.css"}));
      var s = x.el("script", {src: "vendor/katex/katex.min.js"});
      s.onload = function () { resolve(window.katex || null); };
      s.onerror = function () { resolve(null); };
      document.head.appendChild(s);
    });
    return katexPromise;
  };

  x.widgets = x.widgets || {};
  x.widgets.formula = function (parent, info) {
    var st = x.state.formula = x.state.formula || {term: "softmax"};
    var panel = x.panel(parent, {id: "formula", title: "rv.formula.title", intro: "rv.formula.intro",
      provenance: "rv.formula.prov", command: "llm0 lesson attention"});
    var line = x.el("div", {class: "formula", id: "formula-line"});
    var explain = x.el("div", {class: "term-explain", id: "term-explain", "aria-live": "polite"});
    panel.body.appendChild(line);
    panel.body.appendChild(explain);

    function piece(katex, tex, text) {
      var span = x.el("span");
      if (katex) katex.render(tex, span, {throwOnError: false});
      else span.textContent = text;
      return span;
    }
    function draw(katex) {
      line.textContent = "";
      var term = function (i) {
        var t = TERMS[i];
        return x.el("button", {type: "button", class: "term", "data-term": t[0], "aria-pressed": String(st.term === t[0]),
          onclick: function () { st.term = t[0]; draw(katex); }}, piece(katex, t[1], t[2]));
      };
      line.appendChild(piece(katex, "\\mathrm{Attention}(Q,K,V) =", "Attention(Q, K, V) = "));
      [term(0), piece(katex, "\\Big(", "("), term(1), term(2), piece(katex, "\\,/\\,", " / "), term(3),
       piece(katex, "\\Big)", ")"), piece(katex, "\\cdot", " · "), term(4)].forEach(function (n) { line.appendChild(n); });
      explain.textContent = "";
      explain.appendChild(x.el("strong", {text: x.t("rv.formula." + st.term + ".name")}));
      explain.appendChild(document.createTextNode(" " + x.t("rv.formula." + st.term)));
    }
    draw(null);
    x.loadKatex(info).then(function (katex) { if (katex) draw(katex); });
    panel.body.appendChild(x.el("p", {class: "formula-sum", text: x.t("rv.formula.sum")}));
  };
})(window.llm0x = window.llm0x || {});
