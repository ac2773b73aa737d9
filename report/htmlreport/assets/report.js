// bcdump report: zoom, hover and links. No libraries; nothing is fetched.
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = [];
  function fail(msg) { errors.push(String(msg)); root.setAttribute("data-errors", errors.join(" | ")); }
  window.addEventListener("error", function (e) { fail(e.message || "error"); });
  document.addEventListener("securitypolicyviolation", function (e) { fail("blocked " + e.blockedURI); });

  var data = JSON.parse(document.getElementById("bcdump-data").textContent);
  var dur = data.duration > 0 ? data.duration : 1;
  var W = 920;
  var view = [0, dur];
  var flows = {};
  (data.flows || []).forEach(function (f) { flows[f.id] = f; });
  var plots = Array.prototype.slice.call(document.querySelectorAll("svg.chart svg.plot"));
  var charts = Array.prototype.slice.call(document.querySelectorAll("svg.chart"));
  var tip = document.getElementById("tip");
  var range = document.getElementById("range");

  function fmt(t) { return t.toFixed(t < 10 ? 3 : 2) + "s"; }
  function apply() {
    var x0 = view[0] / dur * W, w = Math.max((view[1] - view[0]) / dur * W, 1e-6);
    plots.forEach(function (p) { p.setAttribute("viewBox", x0 + " 0 " + w + " " + p.viewBox.baseVal.height); });
    document.querySelectorAll("svg.chart text.tl").forEach(function (t) {
      var f = parseFloat(t.getAttribute("data-f"));
      t.textContent = fmt(view[0] + f * (view[1] - view[0]));
    });
    range.textContent = view[0] === 0 && view[1] === dur ? "" : "Showing " + fmt(view[0]) + " – " + fmt(view[1]) + ".";
  }
  function zoom(a, b) {
    if (b < a) { var c = a; a = b; b = c; }
    a = Math.max(0, a); b = Math.min(dur, b);
    if (b - a < dur * 1e-6) { return; }
    view = [a, b]; apply();
  }
  // The plot's place on screen, from its chart's box (an inner <svg>'s own
  // box is that of what it draws, which the cursor line changes).
  var CHART_W = 1000, PLOT_X = 64;
  function timeAt(plot, clientX) {
    var r = plot.parentNode.getBoundingClientRect(), k = r.width / CHART_W;
    var f = k > 0 ? (clientX - r.left - PLOT_X * k) / (W * k) : 0;
    return view[0] + Math.min(Math.max(f, 0), 1) * (view[1] - view[0]);
  }
  function setAll(sel, attrs) {
    plots.forEach(function (p) {
      var el = p.querySelector(sel);
      if (!el) { return; }
      Object.keys(attrs).forEach(function (k) { el.setAttribute(k, attrs[k]); });
    });
  }
  function values(svg, t) {
    var flowEl = svg.closest(".flow");
    var f = flowEl && flows[flowEl.getAttribute("data-flow")];
    if (!f) { return ""; }
    var s = f.series, i = Math.floor(t / s.width) - s.start;
    if (i < 0 || i >= s.dg_c2s.length) { return ""; }
    var id = svg.id.slice(f.id.length + 1);
    switch (id) {
      case "rtt": return s.rtt_min[i] < 0 ? "no ACK matched" : "RTT " + s.rtt_min[i] + "–" + s.rtt_max[i] + " ms";
      case "dg": return "c2s " + s.dg_c2s[i] + "/s, s2c " + s.dg_s2c[i] + "/s";
      case "bytes": return "c2s " + s.bytes_c2s[i] + " B/s, s2c " + s.bytes_s2c[i] + " B/s";
      case "re": return "retransmissions " + s.retransmits[i] + "/s";
    }
    return "";
  }
  var drag = null;
  charts.forEach(function (svg) {
    var plot = svg.querySelector("svg.plot");
    svg.addEventListener("mousedown", function (e) { drag = { plot: plot, t: timeAt(plot, e.clientX) }; e.preventDefault(); });
    svg.addEventListener("mousemove", function (e) {
      var t = timeAt(plot, e.clientX), x = t / dur * W;
      setAll(".cursor", { x1: x, x2: x });
      if (drag) {
        var a = Math.min(drag.t, t) / dur * W, b = Math.max(drag.t, t) / dur * W;
        setAll(".sel", { x: a, width: b - a });
      }
      var mark = e.target.closest && e.target.closest(".mark");
      tip.textContent = fmt(t) + (mark ? "\n" + mark.textContent : "") + (values(svg, t) ? "\n" + values(svg, t) : "");
      tip.style.left = (e.clientX + 14) + "px"; tip.style.top = (e.clientY + 14) + "px"; tip.hidden = false;
    });
    svg.addEventListener("mouseleave", function () { tip.hidden = true; setAll(".cursor", { x1: -10, x2: -10 }); });
    svg.addEventListener("dblclick", function () { zoom(0, dur); });
  });
  window.addEventListener("mouseup", function (e) {
    if (!drag) { return; }
    var t = timeAt(drag.plot, e.clientX), t0 = drag.t;
    drag = null; setAll(".sel", { width: 0 });
    if (Math.abs(t - t0) > (view[1] - view[0]) / 200) { zoom(t0, t); }
  });
  document.getElementById("reset").addEventListener("click", function () { zoom(0, dur); });

  // Ladders: an ACK lights up the datagram it cleared.
  document.querySelectorAll("svg.ladder g.dg[data-acks]").forEach(function (g) {
    var svg = g.closest("svg");
    var targets = g.getAttribute("data-acks").split(" ").map(function (fr) {
      return svg.querySelector('g.dg[data-frame="' + fr + '"]');
    }).filter(Boolean);
    g.addEventListener("mouseenter", function () { targets.forEach(function (t) { t.classList.add("lit"); }); });
    g.addEventListener("mouseleave", function () { targets.forEach(function (t) { t.classList.remove("lit"); }); });
  });

  // Anomaly rows jump to their ladder arrow, or to the charts around them.
  function flash(el) {
    el.classList.add("hl");
    setTimeout(function () { el.classList.remove("hl"); }, 2500);
  }
  document.querySelectorAll("tr.anomaly").forEach(function (tr) {
    tr.addEventListener("click", function (e) {
      var t = parseFloat(tr.getAttribute("data-t")) || 0, flow = tr.getAttribute("data-flow");
      var lad = tr.getAttribute("data-ladder"), frame = tr.getAttribute("data-frame");
      var pad = Math.max(dur / 50, 0.5);
      zoom(t - pad, t + pad);
      var wantChart = e.target.classList.contains("go-chart");
      if (lad && !wantChart) {
        var box = document.getElementById(lad);
        var g = box && box.querySelector('g.dg[data-frame="' + frame + '"]');
        if (g) { g.classList.add("lit"); setTimeout(function () { g.classList.remove("lit"); }, 2500); }
        if (box) { flash(box); box.scrollIntoView({ block: "center" }); }
      } else if (flow) {
        var fl = document.getElementById(flow);
        if (fl) { flash(fl); fl.scrollIntoView({ block: "start" }); }
      }
      e.preventDefault();
    });
  });
  apply();
  root.setAttribute("data-ready", "1");
})();
