/**
 * The page's own script, as text inlined into the report (ES5-style, no build step, no
 * network): it draws the score and wall-time charts with uPlot from the embedded report data,
 * shows heatmap tooltips, opens a step's changes when its chart point is clicked, and reloads
 * a live run's page. `window.hermitReport` exposes the data and the charts (tests read it).
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  "use strict";
  performance.mark("hermit-report-start");
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var styles = JSON.parse(document.getElementById("report-styles").textContent);
  var report = { data: data, charts: {} };
  window.hermitReport = report;

  function styleOf(status) { return styles.status[status] || styles.unknown; }
  function fmt(value) { return value === null || value === undefined ? "—" : value.toFixed(3); }

  function marker(ctx, shape, x, y, size, color) {
    ctx.save();
    ctx.fillStyle = color;
    ctx.strokeStyle = color;
    ctx.lineWidth = 2;
    ctx.beginPath();
    if (shape === "circle") { ctx.arc(x, y, size, 0, 2 * Math.PI); ctx.fill(); }
    else if (shape === "ring") { ctx.arc(x, y, size, 0, 2 * Math.PI); ctx.stroke(); }
    else if (shape === "cross") { ctx.moveTo(x - size, y - size); ctx.lineTo(x + size, y + size); ctx.moveTo(x + size, y - size); ctx.lineTo(x - size, y + size); ctx.stroke(); }
    else if (shape === "diamond") { ctx.moveTo(x, y - size - 1); ctx.lineTo(x + size + 1, y); ctx.lineTo(x, y + size + 1); ctx.lineTo(x - size - 1, y); ctx.closePath(); ctx.fill(); }
    else if (shape === "triangle") { ctx.moveTo(x, y - size - 1); ctx.lineTo(x + size + 1, y + size); ctx.lineTo(x - size - 1, y + size); ctx.closePath(); ctx.fill(); }
    else if (shape === "bar") { ctx.fillRect(x - 2, y - size - 2, 4, 2 * size + 4); }
    else { ctx.fillRect(x - size, y - size, 2 * size, 2 * size); }
    ctx.restore();
  }

  // Steps are whole numbers: ticks at 1, 2, 5, 10, … apart, never between two steps.
  function stepAxis() {
    return { label: "step", incrs: [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000], values: function (u, ticks) { return ticks.map(function (v) { return Number.isInteger(v) ? String(v) : ""; }); } };
  }

  function width(element) { return Math.max(320, element.clientWidth - 8); }

  function scoreChart() {
    var element = document.getElementById("score-chart");
    var steps = data.steps;
    if (!element || steps.length === 0 || typeof uPlot === "undefined") return;
    var xs = steps.map(function (s) { return s.step; });
    var candidate = steps.map(function (s) { return s.scores.candidate; });
    var accepted = steps.map(function (s) { return s.scores.accepted; });
    var batch = steps.map(function (s) { return s.scores.batch; });
    var screening = steps.map(function (s) { return s.scores.screening; });
    var values = [].concat(candidate, accepted, batch, screening).filter(function (v) { return v !== null; });
    if (data.test) values.push(data.test.base.score, data.test.final.score);
    values = values.filter(function (v) { return v !== null; });
    var low = Math.min.apply(null, [0].concat(values));
    var high = Math.max.apply(null, [1].concat(values));
    var span = high - low;
    var series = [
      { label: "step" },
      { label: "accepted version (val)", stroke: "#009E73", width: 2, spanGaps: true, paths: uPlot.paths.stepped({ align: 1 }), points: { show: false } },
      { label: "candidate (val)", stroke: "#444444", width: 0, paths: function () { return null; }, points: { show: false } },
      { label: "acting batch (train)", stroke: "#8a8a8a", width: 1, dash: [4, 4], spanGaps: true, points: { show: false } },
    ];
    var columns = [xs, accepted, candidate, batch];
    if (screening.some(function (v) { return v !== null; })) {
      series.push({ label: "screening (train minibatch)", stroke: "#56B4E9", width: 0, paths: function () { return null; }, points: { show: true, size: 7, fill: "#56B4E9" } });
      columns.push(screening);
    }
    function drawMarks(u) {
      var ctx = u.ctx;
      // Steps without a candidate score sit in a shaded band under the score range: never at 0.
      var bandTop = u.valToPos(low - span * 0.04, "y", true);
      var bandBottom = u.bbox.top + u.bbox.height;
      var bottom = (bandTop + bandBottom) / 2;
      ctx.save();
      ctx.fillStyle = "rgba(0,0,0,0.05)";
      ctx.fillRect(u.bbox.left, bandTop, u.bbox.width, bandBottom - bandTop);
      ctx.fillStyle = "#6b6b6b"; ctx.font = (10 * devicePixelRatio) + "px sans-serif"; ctx.textAlign = "left";
      ctx.fillText("no score", u.bbox.left + 4 * devicePixelRatio, bandTop + 11 * devicePixelRatio);
      ctx.restore();
      for (var i = 0; i < xs.length; i++) {
        var x = u.valToPos(xs[i], "x", true);
        var style = styleOf(steps[i].status);
        var y = candidate[i] === null ? bottom : u.valToPos(candidate[i], "y", true);
        marker(ctx, style.shape, x, y, 4 * devicePixelRatio, style.color);
        if (steps[i].repaired) { ctx.save(); ctx.strokeStyle = "#CC79A7"; ctx.lineWidth = 1.5; ctx.setLineDash([3, 2]); ctx.beginPath(); ctx.arc(x, y, 8 * devicePixelRatio, 0, 2 * Math.PI); ctx.stroke(); ctx.restore(); }
      }
      if (!data.test) return;
      [["test: base", data.test.base.score, "#444444"], ["test: final", data.test.final.score, "#0072B2"]].forEach(function (line) {
        if (line[1] === null) return;
        var y = u.valToPos(line[1], "y", true);
        ctx.save();
        ctx.strokeStyle = line[2]; ctx.fillStyle = line[2]; ctx.setLineDash([8, 4]); ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
        ctx.font = (11 * devicePixelRatio) + "px sans-serif"; ctx.textAlign = "right";
        ctx.fillText(line[0] + " " + fmt(line[1]), u.bbox.left + u.bbox.width - 4, y - 4 * devicePixelRatio);
        ctx.restore();
      });
    }
    var chart = new uPlot({
      width: width(element), height: 320,
      scales: { x: { time: false, range: function (u, min, max) { return [min - 0.5, max + 0.5]; } }, y: { range: [low - span * 0.16, high + span * 0.05] } },
      axes: [stepAxis(), { label: "score", values: function (u, ticks) { return ticks.map(function (v) { return v < low - span * 0.01 ? "" : String(Number(v.toFixed(3))); }); } }],
      series: series,
      hooks: { draw: [drawMarks] },
      legend: { live: true },
    }, columns, element);
    chart.over.addEventListener("click", function () {
      var index = chart.cursor.idx;
      if (index === null || index === undefined) return;
      openStep(xs[index]);
    });
    report.charts.score = chart;
  }

  function timeChart() {
    var element = document.getElementById("time-chart");
    var steps = data.steps.filter(function (s) { return s.durationMs !== null; });
    if (!element || steps.length === 0 || typeof uPlot === "undefined") return;
    var xs = steps.map(function (s) { return s.step; });
    var total = steps.map(function (s) { return s.durationMs / 1000; });
    var evolver = steps.map(function (s) { return s.evolverMs === null ? null : s.evolverMs / 1000; });
    report.charts.time = new uPlot({
      width: width(element), height: 200,
      scales: { x: { time: false, range: function (u, min, max) { return [min - 0.5, max + 0.5]; } }, y: { range: function (u, min, max) { return [0, Math.max(max, 0.001) * 1.1]; } } },
      axes: [stepAxis(), { label: "seconds" }],
      series: [
        { label: "step" },
        { label: "step wall time (s)", stroke: "#0072B2", fill: "rgba(0,114,178,0.35)", paths: uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false } },
        { label: "of which the Evolver (s)", stroke: "#E69F00", width: 2, points: { show: xs.length < 60 } },
      ],
    }, [xs, total, evolver], element);
  }

  function openStep(step) {
    var block = document.getElementById("step-" + step);
    if (!block) return;
    block.open = true;
    block.scrollIntoView({ block: "start" });
  }

  // Line diffs are drawn when a step's block is first opened (DOM text, never parsed as HTML).
  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function fileBlock(file) {
    var block = element("div", "file");
    var head = element("div", "file-head");
    head.setAttribute("data-file", file.path);
    head.appendChild(element("span", "change " + file.change, file.change));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(element("code", "", file.path));
    head.appendChild(element("span", "add", " +" + file.added));
    head.appendChild(element("span", "del", " \u2212" + file.removed));
    if (file.note) head.appendChild(element("span", "muted", " (" + file.note + ")"));
    block.appendChild(head);
    if (file.hunks.length === 0) return block;
    var diff = element("div", "diff");
    file.hunks.forEach(function (hunk) {
      diff.appendChild(element("div", "hunk", "@@ \u2212" + hunk.oldStart + "," + hunk.oldLines + " +" + hunk.newStart + "," + hunk.newLines + " @@"));
      hunk.lines.forEach(function (line) {
        var kind = line.charAt(0) === "+" ? "add" : line.charAt(0) === "-" ? "del" : line.charAt(0) === "\\" ? "meta" : "ctx";
        diff.appendChild(element("div", "line " + kind, line));
      });
    });
    block.appendChild(diff);
    return block;
  }

  function fillFiles(container, files) {
    if (!container || container.hasChildNodes()) return;
    var added = 0, removed = 0;
    files.forEach(function (file) { added += file.added; removed += file.removed; });
    container.appendChild(element("p", "", files.length + " file" + (files.length === 1 ? "" : "s") + " changed, +" + added + " \u2212" + removed));
    files.forEach(function (file) { container.appendChild(fileBlock(file)); });
  }

  function diffsOnOpen() {
    document.querySelectorAll("details.step").forEach(function (block) {
      var step = data.steps[Number(block.getAttribute("data-index"))];
      var fill = function () {
        if (!block.open) return;
        fillFiles(block.querySelector('[data-files="diff"]'), step.diff);
        if (step.repair) fillFiles(block.querySelector('[data-files="repair"]'), step.repair.diff);
      };
      block.addEventListener("toggle", fill);
      fill();
    });
  }

  function tooltips() {
    var tip = document.getElementById("tip");
    var maps = {};
    data.heatmaps.forEach(function (map) { maps[map.id] = map; });
    document.querySelectorAll("svg.heatmap").forEach(function (svg) {
      var map = maps[svg.getAttribute("data-heatmap")];
      svg.addEventListener("mousemove", function (event) {
        var target = event.target;
        if (!target || !target.hasAttribute || !target.hasAttribute("data-state")) { tip.hidden = true; return; }
        var row = map.rows[Number(target.getAttribute("data-row"))];
        var column = map.columns[Number(target.getAttribute("data-col"))];
        var cell = row.cells[Number(target.getAttribute("data-col"))];
        var text = row.instance + " · " + (/^[0-9]+$/.test(column.key) ? "step " : "") + column.label + "\n";
        if (cell.state === "score") text += "score " + fmt(cell.score) + (cell.trials > 1 ? " (mean of " + (cell.trials - cell.missing) + " of " + cell.trials + " trials)" : "");
        else if (cell.state === "failed") text += "failed: " + cell.error;
        else text += "not evaluated";
        tip.textContent = text;
        tip.hidden = false;
        tip.style.left = (event.pageX + 12) + "px";
        tip.style.top = (event.pageY + 12) + "px";
      });
      svg.addEventListener("mouseleave", function () { tip.hidden = true; });
      svg.addEventListener("click", function (event) {
        var column = map.columns[Number(event.target.getAttribute && event.target.getAttribute("data-col"))];
        if (column && /^[0-9]+$/.test(column.key)) openStep(column.key);
      });
    });
  }

  function keepOpenAcrossReloads() {
    var key = "hermit-report-open:" + data.run.id;
    try {
      var open = JSON.parse(sessionStorage.getItem(key) || "[]");
      open.forEach(function (id) { var block = document.getElementById(id); if (block) block.open = true; });
    } catch (error) { /* storage unavailable: nothing to restore */ }
    if (!data.run.live) return;
    setTimeout(function () {
      try {
        var ids = Array.prototype.map.call(document.querySelectorAll("details[open]"), function (block) { return block.id; });
        sessionStorage.setItem(key, JSON.stringify(ids));
      } catch (error) { /* storage unavailable */ }
      location.reload();
    }, 15000);
  }

  diffsOnOpen();
  scoreChart();
  timeChart();
  tooltips();
  keepOpenAcrossReloads();
  if (window.performance && performance.mark) performance.mark("hermit-report-drawn");
  window.addEventListener("resize", function () {
    Object.keys(report.charts).forEach(function (name) {
      var chart = report.charts[name];
      chart.setSize({ width: width(chart.root.parentElement), height: chart.height });
    });
  });
})();
`;
