// What the model writes as it learns: the samples records of the run (at every validation, the
// same prompts continued with the same seed, temperature 0.8, top-k 40, so only the weights
// differ from one line to the next). One list per prompt, oldest first, each line tagged with its
// step and that validation's loss: read down it and the noise turns into verse. The newest line
// is marked; the list scrolls inside its box and follows the newest line unless scrolled up.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};

  x.widgets.trainSamples = function (parent) {
    var panel = x.panel(parent, {id: "train-samples", title: "train.samples.title", intro: "train.samples.intro"});
    var out = x.el("div", {class: "sample-lists"}), cap = x.el("p", {class: "field-hint"});
    panel.body.appendChild(cap);
    panel.body.appendChild(out);
    var seen = -1, boxes = {};
    return {update: function (run) {
      var s = run.store;
      if (s.samples.length === seen) return;
      seen = s.samples.length;
      var last = s.last(s.samples);
      cap.textContent = last ? x.t("train.samples.cap", {n: last.sample_tokens, temp: last.temperature, k: last.top_k,
                                                          seed: last.sample_seed}) : x.t("train.samples.none");
      var valAt = {};
      s.vals.forEach(function (v) { valAt[v.step] = v.val_loss; });
      var prompts = [];
      s.samples.forEach(function (r) { r.samples.forEach(function (p) { if (prompts.indexOf(p.prompt) < 0) prompts.push(p.prompt); }); });
      var scrolled = {};
      Object.keys(boxes).forEach(function (p) {  // a list scrolled up by the reader stays where it is
        var b = boxes[p];
        scrolled[p] = b.scrollHeight - b.scrollTop - b.clientHeight > 8 ? b.scrollTop : null;
      });
      out.textContent = "";
      boxes = {};
      prompts.forEach(function (prompt, i) {
        var rows = [];
        s.samples.forEach(function (r) {
          r.samples.forEach(function (p) { if (p.prompt === prompt) rows.push({step: r.step, text: p.text, newest: r === last}); });
        });
        var list = x.el("ol", {class: "sample-list", "data-prompt": prompt}, rows.map(function (row) {
          var loss = valAt[row.step];
          return x.el("li", {class: row.newest ? "newest" : null, "data-step": row.step},
            x.el("span", {class: "sample-step", text: x.t("train.samples.step", {step: row.step}) +
                                                     (loss !== undefined ? " · " + loss.toFixed(2) : "")}),
            x.el("span", {class: "sample-text"}, x.el("strong", {text: prompt}), x.el("span", {text: row.text})));
        }));
        var box = x.el("div", {class: "sample-box"}, list);
        out.appendChild(x.el("div", {class: "sample-prompt", id: "samples-" + i},
          x.el("h3", {text: x.t("train.samples.prompt", {p: prompt})}), box));
        boxes[prompt] = box;
        box.scrollTop = scrolled[prompt] !== undefined && scrolled[prompt] !== null ? scrolled[prompt] : box.scrollHeight;
      });
    }};
  };
})(window.llm0x = window.llm0x || {});
