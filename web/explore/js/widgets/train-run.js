// One training run as the page knows it: every record of its RUN/metrics.jsonl (the formats of
// docs/explore-api.md "Training"), sorted into what the charts draw, and the connection that feeds
// them — GET train/NAME for the history, then GET train/NAME/events?from=K (server-sent events,
// one record per message, `event: reset` when the file was rewritten and the records start over,
// `event: end` when the trainer is gone), or in a static export the baked
// history replayed as if it were arriving. The run outlives a redraw (the language switch): the
// page sets run.onchange to its current drawing function.
(function (x) {
  "use strict";

  // A record store. Steps re-logged after a resume (the steps a killed session trained past its
  // last checkpoint) replace the earlier ones: a "start" record with resumed = true at step S drops
  // what was recorded past S, as loss_curve.svg keeps the last entry per step.
  function Store() {
    this.count = 0;      // records taken, the `from` of a reconnection
    this.steps = [];     // step records (loss, lr, tokens_per_s, mfu, eta_s, ...)
    this.vals = [];      // validation records (val_loss, val_perplexity, unigram/bigram_baseline)
    this.samples = [];   // samples records
    this.attention = []; // attention records
    this.starts = [];    // start records, one per trainer process
    this.replans = [];   // {step, replanned_total_steps, previous_total_steps}
    this.dones = [];     // done records, one per finished session
    this.planned = null; // {step: 0, planned_total_steps}
    this.timeLimit = null;  // {step, stopped_by_time_limit, total_steps}
    this.lastEvent = "";  // "start" or "done": which of the two came last
  }
  Store.prototype.add = function (r) {
    this.count++;
    if (r.event === "start") {
      if (r.resumed) {
        var S = r.step, keep = function (a) { return a.filter(function (e) { return e.step <= S; }); };
        this.steps = keep(this.steps); this.vals = keep(this.vals);
        this.samples = keep(this.samples); this.attention = keep(this.attention);
      }
      this.starts.push(r);
      this.lastEvent = "start";
    } else if (r.event === "done") { this.dones.push(r); this.lastEvent = "done"; }
    else if (r.samples) this.samples.push(r);
    else if (r.attention) this.attention.push(r);
    else if (r.val_loss !== undefined) this.vals.push(r);
    else if (r.replanned_total_steps !== undefined) this.replans.push(r);
    else if (r.planned_total_steps !== undefined) this.planned = r;
    else if (r.stopped_by_time_limit !== undefined) this.timeLimit = r;
    else if (r.loss !== undefined) {
      while (this.steps.length && this.steps[this.steps.length - 1].step >= r.step) this.steps.pop();
      this.steps.push(r);
    }
  };
  Store.prototype.last = function (a) { return a.length ? a[a.length - 1] : null; };
  // The schedule's length as last recorded (a re-plan changes it).
  Store.prototype.totalSteps = function () {
    var best = null, at = -1;
    var consider = function (step, v) { if (v !== undefined && v !== null && step >= at) { best = v; at = step; } };
    if (this.planned) consider(0, this.planned.planned_total_steps);
    this.starts.forEach(function (r) { consider(r.step, r.total_steps); });
    this.replans.forEach(function (r) { consider(r.step, r.replanned_total_steps); });
    var s = this.last(this.steps);
    if (s) consider(s.step, s.total_steps);
    var d = this.last(this.dones);
    if (d) consider(d.step, d.total_steps);
    return best;
  };
  // Whether the last session ended with a done record (as opposed to running, or killed).
  Store.prototype.sessionDone = function () { return this.lastEvent === "done"; };
  x.TrainStore = Store;

  // run = x.trainRun(name): {name, store, detail (GET train/NAME), live, ended, attach(), follow(),
  // replay(), close(), onchange, onend}. onchange(run) is called (at most every 200 ms) after
  // records arrive; onend(run) once the server says the trainer is gone.
  x.trainRun = function (name) {
    var run = {name: name, store: new Store(), detail: null, live: false, ended: false, error: null,
               onchange: function () {}, onend: null, replaying: false};
    var es = null, timer = null, replayTimer = null;
    function changed() {
      if (timer) return;
      timer = setTimeout(function () { timer = null; run.onchange(run); }, 200);
    }
    function now() { clearTimeout(timer); timer = null; run.onchange(run); }

    function refresh() {
      return x.apiNow("train/" + encodeURIComponent(name)).then(function (d) {
        run.detail = d; run.error = null;
        return d;
      });
    }
    function listen() {
      if (es) es.close();
      run.live = true; run.ended = false;
      es = new EventSource("api/train/" + encodeURIComponent(name) + "/events?from=" + run.store.count);
      es.onmessage = function (m) {
        try { run.store.add(JSON.parse(m.data)); } catch (e) { return; }
        changed();
      };
      // The file was rewritten (a resume drops the records past its checkpoint): every record
      // follows again from the first.
      es.addEventListener("reset", function () { run.store = new Store(); changed(); });
      es.addEventListener("end", function (m) {
        es.close(); es = null; run.live = false; run.ended = true;
        try { run.endInfo = JSON.parse(m.data); } catch (e) { run.endInfo = null; }
        var after = function () { now(); if (run.onend) run.onend(run); };
        refresh().then(after, after);
      });
      // A dropped connection (the server restarted, the network blinked): EventSource would
      // start over from record 0, so reconnect by hand from the records already taken.
      es.onerror = function () {
        if (!es) return;
        es.close(); es = null;
        setTimeout(function () { if (run.live) listen(); }, 1000);
      };
    }
    // Static export: the baked history fed in as if arriving, ~4 s for any length of run.
    function replay(records) {
      run.replaying = true;
      var i = 0, per = Math.max(1, Math.ceil(records.length / 80));
      clearInterval(replayTimer);
      replayTimer = setInterval(function () {
        for (var k = 0; k < per && i < records.length; k++) run.store.add(records[i++]);
        if (i >= records.length) { clearInterval(replayTimer); run.replaying = false; now(); return; }
        changed();
      }, 50);
    }

    // Loads the history; follows the run live while it trains (or replays it when static).
    run.attach = function () {
      run.store = new Store();
      return refresh().then(function (d) {
        if (x.isStatic()) { replay(d.records || []); return; }
        (d.records || []).forEach(function (r) { run.store.add(r); });
        now();
        if (d.running) listen();
      }, function (e) { run.error = e; now(); });
    };
    // After a resume (or a start) the trainer appends to the same file: follow it from here.
    run.follow = function () { refresh().then(function () { listen(); now(); }, function (e) { run.error = e; now(); }); };
    run.replay = function () { run.store = new Store(); replay((run.detail && run.detail.records) || []); };
    run.close = function () {
      run.live = false;
      if (es) es.close();
      es = null;
      clearInterval(replayTimer);
      clearTimeout(timer);
    };
    return run;
  };
})(window.llm0x = window.llm0x || {});
