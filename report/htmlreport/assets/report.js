// bcdump report: zoom, hover and links. No libraries; nothing is fetched.
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = [];
  function fail(msg) { errors.push(String(msg)); root.setAttribute("data-errors", errors.join(" | ")); }
  window.addEventListener("error", function (e) { fail(e.message || "error"); });
  document.addEventListener("securitypolicyviolation", function (e) { fail("blocked " + e.blockedURI); });

  // The embedded data is parsed when first needed (hover values, "show
  // all"): opening the page does not wait for megabytes of JSON.
  var data = null, flows = null;
  function getData() {
    if (!data) {
      data = JSON.parse(document.getElementById("bcdump-data").textContent);
      flows = {};
      (data.flows || []).forEach(function (f) { flows[f.id] = f; });
    }
    return data;
  }
  var dur = parseFloat(document.getElementById("charts").getAttribute("data-duration"));
  if (!(dur > 0)) { dur = 1; }
  var W = 920;
  var view = [0, dur];
  var plots = Array.prototype.slice.call(document.querySelectorAll("svg.chart svg.plot"));
  var charts = Array.prototype.slice.call(document.querySelectorAll("svg.chart"));
  var tip = document.getElementById("tip");
  var range = document.getElementById("range");

  function r1(v) { return Math.round(v * 10) / 10; }
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
    getData();
    var f = flowEl && flows[flowEl.getAttribute("data-flow")];
    if (!f) { return ""; }
    var s = f.series, i = Math.floor(t / s.width) - s.start;
    if (i < 0 || i >= s.dg_c2s.length) { return ""; }
    var id = svg.id.slice(f.id.length + 1);
    switch (id) {
      case "rtt": return s.rtt_min[i] < 0 ? "no ACK matched" : "RTT " + s.rtt_min[i] + "–" + s.rtt_max[i] + " ms";
      case "dg": return "c2s " + r1(s.dg_c2s[i]) + "/s, s2c " + r1(s.dg_s2c[i]) + "/s";
      case "bytes": return "c2s " + r1(s.bytes_c2s[i]) + " B/s, s2c " + r1(s.bytes_s2c[i]) + " B/s";
      case "re": return "retransmissions " + r1(s.retransmits[i]) + "/s";
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

  // Ladders: an ACK lights up the datagram it cleared (one listener for
  // all arrows).
  function ackTargets(g) {
    var svg = g.closest("svg");
    return g.getAttribute("data-acks").split(" ").map(function (fr) {
      return svg.querySelector('g.dg[data-frame="' + fr + '"]');
    }).filter(Boolean);
  }
  var ladders = document.getElementById("ladders");
  ladders.addEventListener("mouseover", function (e) {
    var g = e.target.closest && e.target.closest("g.dg[data-acks]");
    if (g && !(e.relatedTarget && g.contains(e.relatedTarget))) { ackTargets(g).forEach(function (t) { t.classList.add("lit"); }); }
  });
  ladders.addEventListener("mouseout", function (e) {
    var g = e.target.closest && e.target.closest("g.dg[data-acks]");
    if (g && !(e.relatedTarget && g.contains(e.relatedTarget))) { ackTargets(g).forEach(function (t) { t.classList.remove("lit"); }); }
  });

  // Anomaly rows jump to their ladder arrow, or to the charts around them.
  function flash(el) {
    el.classList.add("hl");
    setTimeout(function () { el.classList.remove("hl"); }, 2500);
  }
  document.getElementById("anomalies").addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("button.expand")) { return; }
    var tr = e.target.closest && e.target.closest("tr.anomaly, tr.acode");
    if (!tr || !tr.hasAttribute("data-t")) { return; }
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

  // Tables hold their first rows as HTML; "show all" draws the rest from
  // the embedded data, formatted as the page's Go template formats them.
  var DASH = "\u2013";
  function orDash(v) { return v === null || v === undefined ? DASH : String(v); }
  function secs(t) { return t.toFixed(3) + " s"; }
  function relT(t) { return t === null || t === undefined ? DASH : secs(t); }
  function ms(v) { return v.toFixed(1); }
  function pct(v) { return ((v || 0) * 100).toFixed(1) + "%"; }
  function cell(tr, text, cls) {
    var td = document.createElement("td");
    if (cls) { td.className = cls; }
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function link(td, href, text, cls) {
    var a = document.createElement("a");
    if (cls) { a.className = cls; }
    a.href = "#" + href; a.textContent = text;
    td.appendChild(a);
  }
  function rtt(p, dir) { var r = p.rtt_ms && p.rtt_ms[dir]; return r ? ms(r.p50) + " / " + ms(r.p95) : DASH; }
  var rowsOf = {
    players: function (d, server) {
      var byAddr = {};
      (d.flows || []).forEach(function (f) { byAddr[f.client] = f; });
      return d.servers[server].players.map(function (p) {
        var tr = document.createElement("tr"), f = byAddr[p.address], ratio = p.retransmit_ratio || {};
        tr.className = "player";
        cell(tr, p.name || DASH, "pname"); cell(tr, orDash(p.peer_id));
        var a = cell(tr, f ? "" : p.address);
        if (f) { link(a, f.id, p.address); }
        cell(tr, p.already_connected ? "before the capture" : relT(p.joined_t)); cell(tr, relT(p.entered_t));
        cell(tr, (p.left_t === null || p.left_t === undefined ? "" : relT(p.left_t) + " ") + p.left_text);
        var v = p.verdict;
        cell(tr, v.verdict === "never entered" ? v.verdict + ": " + v.cause : v.verdict,
          "verdict " + (v.verdict === "entered" ? "vd-entered" : v.verdict === "never entered" ? "vd-never" : "vd-unknown")).title = v.text;
        cell(tr, p.checksum.verdict, "verdict v-" + p.checksum.verdict).title = p.checksum.text;
        cell(tr, rtt(p, "c2s")); cell(tr, rtt(p, "s2c"));
        cell(tr, pct(ratio.c2s) + " / " + pct(ratio.s2c));
        cell(tr, f ? f.anomalies[2] + " / " + f.anomalies[1] + " / " + f.anomalies[0] : DASH);
        return tr;
      });
    },
    timeline: function (d, server) {
      return d.servers[server].timeline.map(function (l) {
        var tr = document.createElement("tr");
        tr.className = "ev-" + l.event;
        cell(tr, secs(l.t)); cell(tr, String(l.frame)); cell(tr, l.event); cell(tr, l.text);
        return tr;
      });
    },
    anomalies: function (d, code) {
      return d.anomalies.filter(function (a) { return a.code === code; }).map(function (a) {
        var tr = document.createElement("tr");
        tr.className = "anomaly sub sev-" + a.severity;
        tr.setAttribute("data-t", String(a.t)); tr.setAttribute("data-flow", a.flow || "");
        tr.setAttribute("data-frame", String(a.frame)); tr.setAttribute("data-ladder", a.ladder || "");
        cell(tr, a.code, "code"); cell(tr, a.severity); cell(tr, ""); cell(tr, String(a.frame)); cell(tr, secs(a.t));
        cell(tr, a.flow || ""); cell(tr, a.message);
        var go = cell(tr, "");
        if (a.ladder) { link(go, a.ladder, "ladder", "go-ladder"); go.appendChild(document.createTextNode(" ")); }
        if (a.flow) { link(go, a.flow, "charts", "go-chart"); }
        return tr;
      });
    }
  };
  function showAll(btn) {
    var tbody = document.getElementById(btn.getAttribute("data-table")).tBodies[0];
    var rows = rowsOf[btn.getAttribute("data-rows")](getData(), parseInt(btn.getAttribute("data-server"), 10) || 0);
    var frag = document.createDocumentFragment();
    rows.slice(tbody.rows.length).forEach(function (tr) { frag.appendChild(tr); });
    tbody.appendChild(frag);
    btn.parentNode.remove();
  }
  document.querySelectorAll("button.show-all").forEach(function (btn) {
    btn.addEventListener("click", function () { showAll(btn); });
  });
  // A code's row opens (and closes) every occurrence the data lists.
  document.querySelectorAll("button.expand").forEach(function (btn) {
    btn.addEventListener("click", function () {
      var tr = btn.closest("tr"), code = btn.getAttribute("data-code");
      if (btn.classList.toggle("open")) {
        var frag = document.createDocumentFragment();
        rowsOf.anomalies(getData(), code).forEach(function (r) { frag.appendChild(r); });
        tr.parentNode.insertBefore(frag, tr.nextSibling);
        btn.textContent = btn.textContent.replace("\u25b8", "\u25be");
      } else {
        while (tr.nextSibling && tr.nextSibling.classList && tr.nextSibling.classList.contains("sub")) { tr.parentNode.removeChild(tr.nextSibling); }
        btn.textContent = btn.textContent.replace("\u25be", "\u25b8");
      }
    });
  });

  apply();
  root.setAttribute("data-ready", "1");
  // The time the page took to open: from navigation start to here, the
  // script done and the whole page laid out (reading its height forces
  // the layout the first paint would do).
  void document.body.offsetHeight;
  root.setAttribute("data-open-ms", String(Math.round(performance.now())));
})();
