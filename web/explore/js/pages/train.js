// Page "train from zero": start a run of `llm0 train` from the page (the server runs that exact
// command as a child process), watch it live — loss against the baselines, learning rate, speed
// against the machine's ceilings, samples and attention maps at every validation — stop, resume,
// and open the lessons on the result. `?run=NAME` opens a run: one in progress (started here, in
// another tab or in a terminal) is followed live, a finished one shows its whole history; a static
// export replays its baked finished runs. Data: GET /explore/api/train and train/NAME[/events].
(function (x) {
  "use strict";
  x.state = x.state || {};
  var T = x.state.train = x.state.train || {};

  function setUrlRun(name) {
    var u = new URL(location.href);
    u.searchParams.set("run", name);
    history.replaceState(null, "", u.pathname + u.search);
  }

  // The runs of the runs directory, newest activity first as the server lists them.
  function runsList(parent, info) {
    var panel = x.panel(parent, {id: "train-runs", title: "train.runs.title", intro: "train.runs.intro"});
    var runs = info.runs || [];
    if (!runs.length) { panel.body.appendChild(x.el("p", {class: "field-hint", text: x.t("train.runs.none", {dir: info.runs_dir || "runs"})})); return; }
    var baked = function (r) { return !x.isStatic() || Object.prototype.hasOwnProperty.call(window.LLM0_BAKED, x.canonicalKey("train/" + r.name)); };
    panel.body.appendChild(x.el("div", {class: "table-wrap"}, x.el("table", {id: "runs-table"},
      x.el("thead", null, x.el("tr", null, ["train.runs.name", "train.runs.config", "train.runs.steps", "train.runs.val", "train.runs.state"]
        .map(function (k) { return x.el("th", {text: x.t(k)}); }))),
      x.el("tbody", null, runs.map(function (r) {
        var state = r.running ? "training" : r.done ? "finished" : "resumable";
        return x.el("tr", {"data-run": r.name, class: T.run && T.run.name === r.name ? "current" : null},
          x.el("td", null, baked(r) ? x.el("a", {href: "?run=" + encodeURIComponent(r.name), text: r.name}) : r.name),
          x.el("td", {text: r.config || "—"}),
          x.el("td", {text: r.steps !== undefined && r.steps !== null ? x.fmtInt(r.steps) + (r.total_steps ? " / " + x.fmtInt(r.total_steps) : "") : "—"}),
          x.el("td", {text: typeof r.val_loss === "number" ? r.val_loss.toFixed(3) : "—"}),
          x.el("td", {text: x.t("train.runs.state." + state)}));
      })))));
  }

  function render(main) {
    var info = T.info;
    var slot = T.slot;
    slot.textContent = "";
    if (!info) return;
    var params = new URLSearchParams(location.search);
    var name = params.get("run") || (T.run && T.run.name) || info.running ||
               (x.isStatic() ? ((info.runs || []).filter(function (r) { return r.done; })[0] || {}).name : null);
    if (name && !(T.run && T.run.name === name)) {
      if (T.run) T.run.close();
      T.run = x.trainRun(name);
      T.run.attach();
    }
    if (T.run) {
      var run = T.run, view = x.el("div", {id: "run-view"});
      slot.appendChild(view);
      var widgets = [x.widgets.trainStatus(view, run, function () { run.follow(); refreshInfo(main); }),
                     x.widgets.trainLoss(view), x.widgets.trainSpeed(view), x.widgets.trainSamples(view),
                     x.widgets.trainAttention(view)];
      run.onchange = function (r) { widgets.forEach(function (w) { w.update(r); }); };
      run.onend = function () { refreshInfo(main); };
      run.onchange(run);
    }
    if (!x.isStatic()) {
      var formSlot = x.el("div");
      slot.appendChild(formSlot);
      x.widgets.trainForm(formSlot, info, function (a) {
        if (T.run) T.run.close();
        T.run = x.trainRun(a.run);
        T.run.startCommand = a.command;
        setUrlRun(a.run);
        T.run.attach();
        refreshInfo(main, true);
      }, function (fresh) { T.info = fresh; render(main); });
    } else {
      slot.appendChild(x.el("p", {class: "note", id: "train-static", text: x.t("train.static")}));
    }
    runsList(slot, info);
    if (T.scrollToRun && document.getElementById("run-view")) {
      T.scrollToRun = false;
      document.getElementById("run-view").scrollIntoView({block: "start"});
    }
  }
  // GET train again (the runs list, whether a training runs), then redraw the page.
  function refreshInfo(main, scroll) {
    x.apiNow("train").then(function (fresh) { T.info = fresh; T.scrollToRun = !!scroll; render(main); },
                           function () { /* the page keeps what it has */ });
  }

  x.renderPage = function (main) {
    T.slot = x.el("div", {id: "train-page"});
    main.appendChild(T.slot);
    if (!T.resizeHooked) {
      T.resizeHooked = true;
      var pending = null;
      window.addEventListener("resize", function () {
        clearTimeout(pending);
        pending = setTimeout(function () { if (T.run) T.run.onchange(T.run); }, 150);
      });
    }
    if (T.info) { render(main); return; }
    var panel = x.panel(T.slot, {id: "train-loading", title: "train.form.title"});
    panel.load(x.apiNow("train"), function (info) { T.info = info; render(main); });
  };
})(window.llm0x = window.llm0x || {});
