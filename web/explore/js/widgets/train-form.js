// The training page's start form: preset, a time budget or a step count, seed, dropout, threads,
// the learner's own sample prompt and the run's name, sent as POST /explore/api/train; the corpus
// it trains on, with a "prepare the corpus" button (POST /explore/api/train/corpus, the way `make
// run` prepares it) while it is missing. The exact `llm0 train …` command is the server's answer,
// shown by the run's panel. `info` is GET /explore/api/train; onStarted(answer) follows the run.
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};

  // A fresh run name: the preset without "llm0-", then the local date and time (YYYYMMDD-HHMMSS).
  function runName(preset) {
    var d = new Date(), two = function (n) { return String(n).padStart(2, "0"); };
    return preset.replace(/^llm0-/, "") + "-" + d.getFullYear() + two(d.getMonth() + 1) + two(d.getDate()) + "-" +
           two(d.getHours()) + two(d.getMinutes()) + two(d.getSeconds());
  }
  function presetLabel(p) {
    var n = p.parameters >= 1e6 ? (p.parameters / 1e6).toFixed(2) + "M" : Math.round(p.parameters / 1e3) + "k";
    var tag = x.t("train.preset.tag." + p.name);
    return p.name + " · " + x.t("train.preset.params", {n: n}) + (tag === "train.preset.tag." + p.name ? "" : " · " + tag);
  }

  // The form's fields, bound to st (x.state.trainForm, so they survive a redraw and the language
  // switch); redraw() draws the form again after a choice that changes it.
  function fieldsGrid(info, st, redraw) {
    var d = info.defaults || {};
    function field(labelKey, input, hint) {
      return x.el("label", {class: "field"}, x.el("span", {class: "field-name", text: x.t(labelKey)}), input,
                  hint ? x.el("span", {class: "field-hint", text: hint}) : null);
    }
    function bind(input, key, asNumber) {
      input.addEventListener("input", function () { st[key] = asNumber ? Number(input.value) : input.value; });
      return input;
    }

    // Preset: llm0-small first (the server's order), llm0-tiny marked as the one-minute demo.
    var preset = x.el("select", {id: "train-preset", onchange: function () {
      st.config = preset.value;
      if (!st.nameTyped) st.name = runName(st.config);
      if (st.mode === "minutes") st.minutes = st.config === "llm0-tiny" ? 1 : (d.minutes || 10);
      redraw();
    }}, (info.presets || []).map(function (p) {
      return x.el("option", {value: p.name, selected: p.name === st.config, text: presetLabel(p)});
    }));
    var chosen = (info.presets || []).filter(function (p) { return p.name === st.config; })[0];
    var note = x.t("train.preset.note." + st.config);
    if (note === "train.preset.note." + st.config) note = chosen && chosen.note ? chosen.note : "";

    var modeMin = x.el("input", {type: "radio", name: "train-mode", id: "train-mode-minutes", checked: st.mode === "minutes",
                                 onchange: function () { st.mode = "minutes"; redraw(); }});
    var modeSteps = x.el("input", {type: "radio", name: "train-mode", id: "train-mode-steps", checked: st.mode === "steps",
                                   onchange: function () { st.mode = "steps"; redraw(); }});
    var minutes = bind(x.el("input", {type: "number", id: "train-minutes", min: "0.1", step: "any", value: st.minutes,
                                      disabled: st.mode !== "minutes"}), "minutes", true);
    var steps = bind(x.el("input", {type: "number", id: "train-steps", min: "1", step: "1", value: st.steps,
                                    disabled: st.mode !== "steps"}), "steps", true);
    var seed = bind(x.el("input", {type: "number", id: "train-seed", min: "0", step: "1", value: st.seed}), "seed", true);
    var dropout = bind(x.el("input", {type: "number", id: "train-dropout", min: "0", max: "0.9", step: "0.05", value: st.dropout}),
                       "dropout", true);
    var threads = bind(x.el("input", {type: "number", id: "train-threads", min: "1", max: info.threads_max || null, step: "1",
                                      value: st.threads}), "threads", true);
    var prompt = bind(x.el("input", {type: "text", id: "train-prompt", value: st.prompt, placeholder: x.t("train.form.promptHolder"),
                                     class: "wide-input"}), "prompt");
    var name = bind(x.el("input", {type: "text", id: "train-name", value: st.name, class: "wide-input",
                                   pattern: "[A-Za-z0-9][A-Za-z0-9._-]{0,63}", oninput: function () { st.nameTyped = true; }}), "name");

    return x.el("div", {class: "form-grid"},
      field("train.form.preset", preset, note),
      x.el("div", {class: "field", role: "group", "aria-label": x.t("train.form.length")},
        x.el("span", {class: "field-name", text: x.t("train.form.length")}),
        x.el("span", {class: "mode-row"}, x.el("label", null, modeMin, x.t("train.form.minutes")), minutes),
        x.el("span", {class: "mode-row"}, x.el("label", null, modeSteps, x.t("train.form.steps")), steps)),
      field("train.form.seed", seed), field("train.form.dropout", dropout),
      field("train.form.threads", threads, x.t("train.form.threadsMax", {n: info.threads_max || "?"})),
      field("train.form.prompt", prompt, x.t("train.form.promptHint", {prompts: (d.prompts || []).join("、")})),
      field("train.form.name", name, x.t("train.form.nameHint", {dir: info.runs_dir || "runs"})));
  }

  x.widgets.trainForm = function (parent, info, onStarted, onInfo) {
    var d = info.defaults || {};
    var st = x.state.trainForm = x.state.trainForm || {
      config: d.config || "llm0-small", mode: "minutes", minutes: d.minutes || 10, steps: 2000,
      seed: d.seed === undefined ? 1337 : d.seed, dropout: d.dropout === undefined ? 0.1 : d.dropout,
      threads: d.threads || 1, prompt: "", name: "", corpus: d.corpus || "fortunes-zh"};
    if (!st.name) st.name = runName(st.config);
    var panel = x.panel(parent, {id: "train-start", title: "train.form.title", intro: "train.form.intro"});
    var body = panel.body;
    var corpora = info.corpora || [];
    var corpus = function () { return corpora.filter(function (c) { return c.source === st.corpus; })[0]; };
    if (!corpus() && corpora.length) st.corpus = corpora[0].source;

    body.appendChild(fieldsGrid(info, st, redraw));
    body.appendChild(x.el("p", {class: "note", id: "train-repro", text: x.t(st.mode === "minutes" ? "train.form.reproMinutes"
                                                                                          : "train.form.reproSteps")}));
    corpusRow(body);

    var go = x.el("button", {type: "button", id: "train-go", text: x.t("train.form.go"), onclick: start,
                             disabled: !!info.running || !(corpus() && corpus().ready) || !!info.preparing});
    body.appendChild(x.el("div", {class: "controls"}, go,
      info.running ? x.el("span", {class: "field-hint", id: "train-busy", text: x.t("train.form.busy", {run: info.running})}) : null));

    function corpusRow(into) {
      var c = corpus();
      var select = x.el("select", {id: "train-corpus", onchange: function () { st.corpus = select.value; redraw(); }},
        corpora.map(function (k) {
          return x.el("option", {value: k.source, selected: k.source === st.corpus,
                                 text: x.t("train.corpus.name." + k.source) + (k.ready ? "" : " · " + x.t("train.corpus.missing"))});
        }));
      var status;
      if (info.preparing) {
        // the preparation's own last log line (the server's corpora[i].log_tail) as its progress
        var prep = corpora.filter(function (k) { return k.source === info.preparing; })[0] || {};
        var tail = String(prep.log_tail || "").trim().split("\n").pop();
        status = x.el("span", {id: "corpus-status", class: "loading", text: x.t("train.corpus.preparing", {source: info.preparing}) +
                                                                              (tail ? " " + tail : "")});
      }
      else if (c && c.ready) status = x.el("span", {id: "corpus-status", class: "ok", text: c.documents !== undefined
        ? x.t("train.corpus.ready", {dir: c.dir, docs: x.fmtInt(c.documents), chars: x.fmtInt(c.characters || 0)})
        : x.t("train.corpus.readyDir", {dir: c.dir})});
      else status = x.el("button", {type: "button", id: "corpus-prepare", class: "secondary",
                                    text: x.t("train.corpus.prepare", {dir: c ? c.dir : ""}), onclick: prepare});
      into.appendChild(x.el("div", {class: "controls corpus-row"},
        x.el("label", null, x.el("span", {class: "field-name", text: x.t("train.form.corpus")}), select), status));
      if (c && !c.ready && !info.preparing)
        into.appendChild(x.el("p", {class: "field-hint", text: x.t("train.corpus.why." + c.source)}));
    }

    // POST train/corpus, then GET train every second until the preparation is over.
    function prepare() {
      panel.clearError();
      x.apiPost("train/corpus", null, JSON.stringify({source: st.corpus})).then(function () {
        info.preparing = st.corpus;
        redraw();
        poll();
      }, panel.showError);
    }
    function poll() {
      setTimeout(function () {
        x.apiNow("train").then(function (fresh) {
          if (fresh.preparing) { if (!document.getElementById("train-start")) return; poll(); return; }
          onInfo(fresh);
        }, panel.showError);
      }, 1000);
    }
    if (info.preparing) poll();

    function start() {
      panel.clearError();
      var bodyJson = {config: st.config, seed: st.seed, dropout: st.dropout, threads: st.threads, out: st.name,
                      corpus: st.corpus};
      if (st.mode === "minutes") bodyJson.minutes = st.minutes; else bodyJson.max_steps = st.steps;
      if (String(st.prompt).trim()) bodyJson.prompt = st.prompt;
      go.disabled = true;
      x.apiPost("train", null, JSON.stringify(bodyJson)).then(function (a) {
        st.name = runName(st.config);  // the next start gets a new name
        st.nameTyped = false;
        onStarted(a);
      }, function (e) { go.disabled = false; panel.showError(e); });
    }
    function redraw() {
      var fresh = x.el("div");
      panel.node.replaceWith(fresh);
      x.widgets.trainForm(fresh, info, onStarted, onInfo);
      fresh.replaceWith(fresh.firstChild);
    }
    return panel;
  };
})(window.llm0x = window.llm0x || {});
