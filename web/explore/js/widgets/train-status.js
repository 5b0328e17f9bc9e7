// The run's own panel on the training page: its state (training, stopping, stopped and
// resumable, finished), the exact `llm0 train …` command it equals, the latest numbers (step of
// the schedule, elapsed / ETA, losses, tokens/s, MFU against the measured ceilings), the re-plan
// events, and its buttons: Stop (POST train/NAME/stop), Resume (POST train/NAME/resume) and, on a
// finished run, "open the lessons on this model" (POST /explore/api/model {run}).
(function (x) {
  "use strict";
  x.widgets = x.widgets || {};

  // Seconds as "42 s", "3 min 05 s", "1 h 02 min" (in the page's language).
  x.fmtDuration = function (s) {
    if (s === undefined || s === null || !isFinite(s)) return "—";
    s = Math.max(0, Math.round(s));
    var two = function (n) { return String(n).padStart(2, "0"); };
    if (s < 60) return x.t("dur.s", {s: s});
    if (s < 3600) return x.t("dur.ms", {m: Math.floor(s / 60), s: two(s % 60)});
    return x.t("dur.hm", {h: Math.floor(s / 3600), m: two(Math.floor(s / 60) % 60)});
  };

  // "training", "stopping", "replaying", "resumable", "finished" or "ended" (no done record: killed).
  function stateOf(run) {
    var s = run.store, d = s.last(s.dones);
    if (run.live || (run.detail && run.detail.running)) return run.stopping ? "stopping" : "training";
    if (run.replaying) return "replaying";  // a static export playing its records back: not killed
    if (s.sessionDone() && d) return d.stopped_by === "" || d.stopped_by === "the time limit" ? "finished" : "resumable";
    return s.steps.length ? "ended" : "empty";
  }
  x.trainRunState = stateOf;

  x.widgets.trainStatus = function (parent, run, onResumed) {
    var panel = x.panel(parent, {id: "train-run", title: "train.run.title"});
    panel.node.querySelector("h2").textContent = x.t("train.run.title", {run: run.name});
    var head = x.el("div", {class: "run-head"}), cmd = x.el("div", {id: "run-command-box"});
    var stats = x.el("dl", {class: "stats", id: "run-stats"}), replans = x.el("div", {id: "run-replans"});
    var buttons = x.el("div", {class: "controls", id: "run-buttons"}), extra = x.el("div");
    [head, cmd, stats, replans, buttons, extra].forEach(function (n) { panel.body.appendChild(n); });
    var lessons = x.state.trainLessons = x.state.trainLessons || {};

    function stat(id, key, value, sub) {
      return [x.el("dt", {text: x.t(key)}), x.el("dd", {id: id}, x.el("span", {class: "stat-v", text: value}),
                                                sub ? x.el("span", {class: "stat-sub", text: sub}) : null)];
    }
    function act(id, key, cls, fn) { return x.el("button", {type: "button", id: id, class: cls, text: x.t(key), onclick: fn}); }

    function stop() {
      panel.clearError();
      run.stopping = true;
      x.apiPost("train/" + encodeURIComponent(run.name) + "/stop", null, "{}").then(function () { run.onchange(run); },
        function (e) { run.stopping = false; panel.showError(e); run.onchange(run); });
      run.onchange(run);
    }
    function resume() {
      panel.clearError();
      x.apiPost("train/" + encodeURIComponent(run.name) + "/resume", null, "{}").then(function (a) {
        run.stopping = false;
        run.resumeCommand = a.command;
        onResumed(a);
      }, panel.showError);
    }
    function openLessons() {
      panel.clearError();
      x.apiPost("model", null, JSON.stringify({run: run.name})).then(function (a) {
        lessons[run.name] = a || true;
        run.onchange(run);
      }, panel.showError);
    }

    // Rebuilt only when they change: a button replaced under the pointer loses its click.
    function drawButtons(st) {
      var key = [st, run.detail && run.detail.checkpoint, !!run.detail].join("/");
      if (key === buttons.dataset.key) return;
      buttons.dataset.key = key;
      buttons.textContent = "";
      if (x.isStatic()) {
        if (run.detail) buttons.appendChild(act("run-replay", "train.btn.replay", "secondary", function () { run.replay(); }));
        return;
      }
      if (st === "training") buttons.appendChild(act("run-stop", "train.btn.stop", "secondary", stop));
      if (st === "training") buttons.appendChild(x.el("span", {class: "field-hint", id: "run-stop-hint", text: x.t("train.run.stopHint")}));
      if (st === "stopping") buttons.appendChild(x.el("button", {type: "button", id: "run-stop", class: "secondary", disabled: true,
                                                                 text: x.t("train.btn.stopping")}));
      var ckpt = run.detail && run.detail.checkpoint;
      if ((st === "resumable" || st === "ended") && ckpt) buttons.appendChild(act("run-resume", "train.btn.resume", "", resume));
      if (st !== "training" && st !== "stopping" && ckpt) buttons.appendChild(act("run-lessons", "train.btn.lessons", "secondary", openLessons));
    }

    function drawHead(st, start, done) {
      head.textContent = "";
      head.appendChild(x.el("span", {id: "run-state", class: "run-state " + st, "data-state": st,
                                     text: x.t("train.state." + st, {by: done ? x.t("train.stoppedBy." + (done.stopped_by || "schedule")) : ""})}));
      if (run.replaying) head.appendChild(x.el("span", {class: "field-hint", text: " " + x.t("train.replaying")}));
      if (start) head.appendChild(x.el("span", {class: "field-hint", text: " " + x.t("train.run.model", {
        config: (start.config && start.config.model_type) || start.model_type, params: x.fmtInt(start.parameters),
        B: start.batch_size, T: start.seq_len, threads: start.threads, precision: start.precision})}));
    }
    // Each session's command (RUN/command.txt): the start, then every resume.
    function drawCommands(start) {
      cmd.textContent = "";
      var d0 = run.detail || {}, commands = (d0.commands && d0.commands.length ? d0.commands : [d0.command]).filter(Boolean);
      if (!commands.length && run.startCommand) commands = [run.startCommand];
      if (run.resumeCommand && commands.indexOf(run.resumeCommand) < 0) commands.push(run.resumeCommand);
      commands.forEach(function (command, i) {
        cmd.appendChild(x.el("p", {class: "provenance"}, x.el("span", {class: "prov-label", text: x.t(i ? "train.run.resumed" : "train.run.command")}),
          x.el("code", {class: "prov-cmd run-command", id: i ? null : "run-command"}, command.split(" ").map(function (w, j) {
            return [j ? " " : "", x.el("span", {class: "word", text: w})];
          }))));
      });
      if (commands.length) {
        var timed = start ? start.time_limit_minutes > 0 : / --time-limit-minutes /.test(commands[0]);
        cmd.appendChild(x.el("p", {class: "field-hint", id: "run-repro", text: x.t(timed ? "train.form.reproMinutes" : "train.form.reproSteps")}));
      } else if (run.detail) cmd.appendChild(x.el("p", {class: "field-hint", text: x.t("train.run.terminal")}));
    }
    function drawStats(st, start, total) {
      var s = run.store, last = s.last(s.steps), v = s.last(s.vals);
      stats.textContent = "";
      var pct = last && total ? " (" + x.fmtPct(last.step / total, 0) + ")" : "";
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-step", "train.stat.step",
        last ? x.fmtInt(last.step) + (total ? " / " + x.fmtInt(total) : "") : "—", pct)));
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-time", "train.stat.time", last ? x.fmtDuration(last.elapsed_s) : "—",
        last && last.eta_s !== undefined && st === "training" ? x.t("train.stat.eta", {eta: x.fmtDuration(last.eta_s)}) : "")));
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-loss", "train.stat.loss", last ? last.loss.toFixed(3) : "—",
        last ? x.t("train.stat.tokens", {n: x.fmtInt(last.tokens_seen)}) : "")));
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-val", "train.stat.val", v ? v.val_loss.toFixed(3) : "—",
        v ? x.t("train.stat.ppl", {ppl: v.val_perplexity.toFixed(1), step: v.step}) : "")));
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-tps", "train.stat.tps", last ? x.fmtInt(last.tokens_per_s) : "—", "")));
      stats.appendChild(x.el("div", {class: "stat"}, stat("stat-mfu", "train.stat.mfu",
        last && last.mfu !== undefined ? x.fmtPct(last.mfu) : "—",
        last && last.mfu_fma !== undefined && start ? x.t("train.stat.mfuFma", {fma: x.fmtPct(last.mfu_fma), name: start.peak_name}) : "")));
    }
    function drawEvents() {
      var s = run.store;
      replans.textContent = "";
      var events = s.replans.map(function (r) {
        return x.t("train.replan.item", {step: r.step, from: x.fmtInt(r.previous_total_steps), to: x.fmtInt(r.replanned_total_steps)});
      });
      if (s.planned) events.unshift(x.t("train.replan.planned", {n: x.fmtInt(s.planned.planned_total_steps)}));
      if (s.timeLimit) events.push(x.t("train.replan.timeLimit", {step: s.timeLimit.step}));
      s.dones.forEach(function (d) {
        events.push(x.t("train.replan.done", {step: d.step, by: x.t("train.stoppedBy." + (d.stopped_by || "schedule"))}));
      });
      if (events.length) replans.appendChild(x.el("div", {class: "events"}, x.el("h3", {text: x.t("train.replan.title")}),
        x.el("ul", null, events.map(function (e) { return x.el("li", {text: e}); }))));
    }
    function drawExtra(st, done) {
      extra.textContent = "";
      if (lessons[run.name]) extra.appendChild(x.el("p", {class: "note", id: "run-lesson-links"}, x.t("train.lessons.loaded", {run: run.name}), " ",
        [["retrieve-v.html", "nav.retrieveV"], ["kv-cache.html", "nav.kvCache"], ["model.html", "nav.model"]].map(function (l, i) {
          return [i ? " · " : "", x.el("a", {href: l[0], text: x.t(l[1])})];
        })));
      if (st === "finished" && done) extra.appendChild(x.el("p", {class: "note", id: "run-summary", text: x.t("train.done.summary", {
        step: done.step, train: Number(done.final_train_loss).toFixed(3), val: Number(done.final_val_loss).toFixed(3),
        uni: Number(done.unigram_baseline).toFixed(2), bi: Number(done.bigram_baseline).toFixed(2), tps: x.fmtInt(done.tokens_per_s)})}));
      var d = run.detail;
      if (d && !d.running && d.exit_status !== undefined && d.exit_status !== null && d.exit_status !== 0)
        extra.appendChild(x.el("div", {class: "panel-error", id: "run-failed"}, x.t("train.run.failed", {rc: d.exit_status}),
          d.log_tail ? x.el("pre", {class: "log-tail", text: [].concat(d.log_tail).join("\n")}) : null));
    }

    return {update: function () {
      var s = run.store, st = stateOf(run), start = s.last(s.starts), done = s.last(s.dones);
      if (run.error) panel.showError(run.error);
      drawHead(st, start, done);
      drawCommands(start);
      drawStats(st, start, s.totalSteps());
      drawEvents();
      drawButtons(st);
      drawExtra(st, done);
    }};
  };
})(window.llm0x = window.llm0x || {});
