/* attention-zoo's attention explorer: mounts into <div class="zoo-explorer" id=...>, reading the
   JSON of its .zoo-explorer-data child. Included once per explorer; the first definition of the
   newest version wins and a re-definition changes nothing. Plain ES2017, no modules, no network. */
(function () {
  "use strict";
  var VERSION = 1;
  if (window.zooExplorerMount && window.zooExplorerMount.version >= VERSION) return;

  var SVGNS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  // light to dark blue for the heatmaps; an exact zero is white (the subsequent mask shows)
  var RAMP = [[222, 235, 247], [198, 219, 239], [158, 202, 225], [107, 174, 214], [66, 146, 198], [33, 113, 181], [8, 81, 156], [8, 48, 107]];
  var ROW_H = 18, TOP = 24, FONT = "12px sans-serif", GAP = 190, MIN_LINE = 0.005;

  var CSS = [
    ".zoo-explorer-ui{font:12px/1.3 sans-serif;color:inherit;margin:4px 0;text-align:left}",
    ".zoo-explorer-ui *{box-sizing:border-box}",
    ".zoo-explorer-title{font-weight:bold;font-size:13px;margin:2px 0 6px}",
    ".zoo-explorer-controls{display:flex;flex-wrap:wrap;align-items:center;gap:6px 14px;margin-bottom:8px}",
    ".zoo-explorer-group{display:inline-flex;flex-wrap:wrap;align-items:center;gap:4px}",
    ".zoo-explorer-ui button{font:12px sans-serif;cursor:pointer;border-radius:4px;padding:2px 8px;margin:0;line-height:1.4}",
    ".zoo-explorer-kind{border:1px solid #888;background:transparent;color:inherit}",
    ".zoo-explorer-kind[aria-pressed=true]{background:#444;color:#fff;border-color:#444}",
    ".zoo-explorer-head{border:2px solid var(--zoo-head);background:var(--zoo-head);color:#fff;min-width:28px}",
    ".zoo-explorer-head[aria-pressed=false]{background:transparent;color:inherit;opacity:.55}",
    ".zoo-explorer-layer{font:12px sans-serif;padding:1px 2px}",
    ".zoo-explorer-caption{font-size:11px;opacity:.75;margin:0 0 4px}",
    ".zoo-explorer-headview{display:inline-block;padding:4px 6px;margin-bottom:10px}",
    ".zoo-explorer-headbody{display:flex;align-items:flex-start;gap:6px}",
    ".zoo-explorer-ui svg.zoo-explorer-lines{display:block;max-width:none;height:auto;overflow:visible;flex:none}",
    ".zoo-explorer-token{cursor:pointer}",
    ".zoo-explorer-token text{fill:currentColor;font:12px sans-serif}",
    ".zoo-explorer-token rect{fill:transparent}",
    ".zoo-explorer-token.zoo-explorer-on rect{fill:rgba(128,128,128,.25)}",
    ".zoo-explorer-token.zoo-explorer-pinned rect{fill:rgba(128,128,128,.45)}",
    ".zoo-explorer-readout{display:grid;font:11px/18px monospace;flex:none}",
    ".zoo-explorer-readout>div{height:18px;padding:0 3px;text-align:right;white-space:nowrap}",
    ".zoo-explorer-readout .zoo-explorer-rh{height:24px;line-height:24px;font-weight:bold}",
    ".zoo-explorer-hint{font:11px sans-serif;opacity:.7;padding-top:" + TOP + "px;max-width:230px;white-space:normal}",
    ".zoo-explorer-sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}",
    ".zoo-explorer-model{padding:4px 6px;display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}",
    ".zoo-explorer-grid{display:grid;gap:4px;align-items:center;justify-items:center;justify-content:start;flex:none}",
    ".zoo-explorer-grid>span.zoo-explorer-current{font-weight:bold}",
    ".zoo-explorer-grid>span{font-size:11px;white-space:nowrap}",
    ".zoo-explorer-grid canvas{display:block;image-rendering:pixelated;max-width:none;height:auto;cursor:pointer;outline:1px solid rgba(128,128,128,.5);background:#fff}",
    ".zoo-explorer-grid canvas.zoo-explorer-selected{outline:3px solid #444}",
    ".zoo-explorer-detail{flex:none}",
    ".zoo-explorer-matrix{display:grid;gap:0}",
    ".zoo-explorer-matrix>div{overflow:hidden}",
    ".zoo-explorer-label{font-size:11px;white-space:nowrap;text-overflow:ellipsis}",
    ".zoo-explorer-label[data-side=row]{text-align:right;padding-right:4px;align-self:center}",
    ".zoo-explorer-label[data-side=col]{writing-mode:vertical-rl;transform:rotate(180deg);justify-self:center;padding-top:4px;max-height:110px}",
    ".zoo-explorer-cell{font:10px monospace;display:flex;align-items:center;justify-content:center;border:1px solid rgba(255,255,255,.35)}",
    ".zoo-explorer-value{font:11px monospace;min-height:16px;margin-top:4px}",
    ".zoo-explorer-error{color:#b00;font:12px monospace}"
  ].join("\n");

  function el(tag, cls, parent, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }

  function svg(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function headColour(h) {
    return h < PALETTE.length ? PALETTE[h] : "hsl(" + Math.round((h * 137.508) % 360) + ",55%,42%)";
  }

  function ramp(w) {
    var t = Math.max(0, Math.min(1, w)) * (RAMP.length - 1), i = Math.min(RAMP.length - 2, Math.floor(t)), f = t - i;
    var a = RAMP[i], b = RAMP[i + 1];
    return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
  }

  // value i sits at bit `bits * i` of the byte stream, least significant bit first (bits 16:
  // little-endian u16); the weight is value / scale
  function decode(kind, bits, n) {
    var bin = atob(kind.weights), mask = (1 << bits) - 1, out = new Uint16Array(n);
    if (bin.length * 8 < n * bits) throw new Error(kind.name + ": " + bin.length + " bytes of weights, " + n + " values need " + Math.ceil(n * bits / 8));
    if (bits === 16) {
      for (var i = 0; i < n; i++) out[i] = bin.charCodeAt(2 * i) | (bin.charCodeAt(2 * i + 1) << 8);
    } else {
      for (var j = 0, bit = 0; j < n; j++, bit += bits) {
        var byte = bit >> 3;
        var word = bin.charCodeAt(byte) | ((bin.charCodeAt(byte + 1) | 0) << 8) | ((bin.charCodeAt(byte + 2) | 0) << 16);
        out[j] = (word >>> (bit & 7)) & mask;
      }
    }
    return out;
  }

  function addStyle(root) {
    var host = root.getRootNode ? root.getRootNode() : document;
    var where = host.nodeType === 11 ? host : document.head || document.body;
    if (host.querySelector && host.querySelector("style.zoo-explorer-style-" + VERSION)) return;
    var s = document.createElement("style");
    s.className = "zoo-explorer-style-" + VERSION;
    s.textContent = CSS;
    where.appendChild(s);
  }

  var measurer = null;
  function textWidth(s) {
    if (!measurer) {
      measurer = document.createElement("canvas").getContext("2d");
      measurer.font = FONT;
    }
    return Math.ceil(measurer.measureText(s).width);
  }

  function Explorer(root, data) {
    this.root = root;
    this.data = data;
    this.decimals = data.decimals == null ? 3 : data.decimals;
    this.scale = data.scale || 65535;
    var bits = data.bits || 16;
    this.kinds = data.kinds.map(function (k) {
      var n = k.layers * k.heads * k.rows.length * k.cols.length;
      return { name: k.name, rows: k.rows, cols: k.cols, layers: k.layers, heads: k.heads, q: decode(k, bits, n) };
    });
    if (!this.kinds.length) throw new Error("no kinds of attention");
    this.kind = 0;
    this.layer = 0;
    this.visible = [];
    this.focus = -1;
    this.pinned = false;
    this.build();
  }

  Explorer.prototype.q = function (layer, head, row, col) {
    var k = this.kinds[this.kind];
    return k.q[((layer * k.heads + head) * k.rows.length + row) * k.cols.length + col];
  };

  Explorer.prototype.fmt = function (q) {
    return (q / this.scale).toFixed(this.decimals);
  };

  Explorer.prototype.build = function () {
    var self = this, ui = el("div", "zoo-explorer-ui", null);
    if (this.data.title) el("div", "zoo-explorer-title", ui, this.data.title);
    var controls = el("div", "zoo-explorer-controls", ui);
    if (this.kinds.length > 1) {
      var kinds = el("span", "zoo-explorer-group zoo-explorer-kinds", controls);
      this.kindButtons = this.kinds.map(function (k, i) {
        var b = el("button", "zoo-explorer-kind", kinds, k.name);
        b.type = "button";
        b.setAttribute("data-kind", i);
        b.addEventListener("click", function () { self.setKind(i); });
        return b;
      });
    }
    var layerGroup = el("label", "zoo-explorer-group", controls, "layer ");
    this.layerSelect = el("select", "zoo-explorer-layer", layerGroup);
    this.layerSelect.addEventListener("change", function () { self.setLayer(+self.layerSelect.value); });
    this.headGroup = el("span", "zoo-explorer-group zoo-explorer-heads", controls);

    var headview = el("div", "zoo-explorer-headview", ui);
    el("div", "zoo-explorer-caption", headview, "head view: query tokens (left) to key tokens (right), a line per head as strong as its weight; hover or click a query token; click a head to hide it, double-click to show it alone");
    var body = el("div", "zoo-explorer-headbody", headview);
    this.svg = svg("svg", { "class": "zoo-explorer-lines" }, body);
    this.readout = el("div", "zoo-explorer-readout", body);

    var model = el("div", "zoo-explorer-model", ui);
    var left = el("div", "", model);
    el("div", "zoo-explorer-caption", left, "model view: every layer and head (white: exactly 0); click one to open it");
    this.grid = el("div", "zoo-explorer-grid", left);
    this.detail = el("div", "zoo-explorer-detail", model);

    this.setKind(0, true);
    this.root.appendChild(ui);
  };

  Explorer.prototype.setKind = function (i, first) {
    var k = this.kinds[i];
    this.kind = i;
    if (this.kindButtons) this.kindButtons.forEach(function (b, j) { b.setAttribute("aria-pressed", String(j === i)); });
    this.layer = Math.min(this.layer, k.layers - 1);
    this.layerSelect.textContent = "";
    for (var l = 0; l < k.layers; l++) el("option", "", this.layerSelect, String(l)).value = String(l);
    this.layerSelect.value = String(this.layer);
    this.layerSelect.disabled = k.layers < 2;
    var visible = [];
    for (var h = 0; h < k.heads; h++) visible.push(first || this.visible[h] !== false);
    this.visible = visible;
    this.buildHeadChips();
    this.focus = -1;
    this.pinned = false;
    this.buildHeadView();
    this.buildModel();
    this.openDetail(this.layer, 0);
  };

  Explorer.prototype.buildHeadChips = function () {
    var self = this, k = this.kinds[this.kind];
    this.headGroup.textContent = "";
    el("span", "", this.headGroup, k.heads > 1 ? "heads" : "head");
    this.headChips = [];
    for (var h = 0; h < k.heads; h++) {
      (function (h) {
        var b = el("button", "zoo-explorer-head", self.headGroup, String(h));
        b.type = "button";
        b.title = "head " + h + ": click to hide or show, double-click to show it alone";
        b.setAttribute("data-head", h);
        b.style.setProperty("--zoo-head", headColour(h));
        b.addEventListener("click", function () { self.visible[h] = !self.visible[h]; self.applyHeads(); });
        b.addEventListener("dblclick", function () { self.solo(h); });
        self.headChips.push(b);
      })(h);
    }
    this.applyHeads(true);
  };

  Explorer.prototype.solo = function (h) {
    for (var i = 0; i < this.visible.length; i++) this.visible[i] = i === h;
    this.applyHeads();
  };

  Explorer.prototype.applyHeads = function (chipsOnly) {
    var self = this;
    this.headChips.forEach(function (b, h) { b.setAttribute("aria-pressed", String(self.visible[h])); });
    if (chipsOnly) return;
    if (this.headGroups) this.headGroups.forEach(function (g, h) { g.style.display = self.visible[h] ? "" : "none"; });
    this.refocus();
    this.markThumbs();
  };

  // the head view: token columns and, for the selected layer, a line per (head, row, col)
  Explorer.prototype.buildHeadView = function () {
    var self = this, k = this.kinds[this.kind], s = this.svg;
    var wl = 0, wr = 0, i;
    for (i = 0; i < k.rows.length; i++) wl = Math.max(wl, textWidth(k.rows[i]));
    for (i = 0; i < k.cols.length; i++) wr = Math.max(wr, textWidth(k.cols[i]));
    // at least the width of the column's heading, "queries"
    wl = Math.max(Math.min(wl, 220), textWidth("queries")) + 10;
    wr = Math.min(wr, 220) + 10;
    this.xl = wl + 4;
    this.xr = wl + GAP - 4;
    var height = TOP + Math.max(k.rows.length, k.cols.length) * ROW_H + 4, width = wl + GAP + wr;
    s.textContent = "";
    s.setAttribute("width", width);
    s.setAttribute("height", height);
    s.setAttribute("viewBox", "0 0 " + width + " " + height);
    s.style.width = width + "px";
    s.style.height = height + "px";
    svg("text", { x: wl - 6, y: 14, "text-anchor": "end", "font-size": "11", "font-style": "italic", fill: "currentColor" }, s).textContent = "queries";
    svg("text", { x: wl + GAP + 6, y: 14, "font-size": "11", "font-style": "italic", fill: "currentColor" }, s).textContent = "keys";
    this.linesAll = svg("g", { "class": "zoo-explorer-all" }, s);
    this.linesFocus = svg("g", { "class": "zoo-explorer-focus" }, s);
    this.rowTokens = this.tokenColumn(s, k.rows, "row", 0, wl);
    this.colTokens = this.tokenColumn(s, k.cols, "col", wl + GAP, wr);
    this.drawLines();
  };

  Explorer.prototype.tokenColumn = function (s, tokens, side, x, w) {
    var self = this, col = svg("g", { "class": "zoo-explorer-tokens", "data-side": side }, s), out = [];
    tokens.forEach(function (t, i) {
      var g = svg("g", { "class": "zoo-explorer-token", "data-side": side, "data-index": i }, col);
      svg("rect", { x: x, y: TOP + i * ROW_H, width: w, height: ROW_H, rx: 3 }, g);
      var text = svg("text", side === "row" ? { x: x + w - 6, y: TOP + i * ROW_H + 13, "text-anchor": "end" } : { x: x + 6, y: TOP + i * ROW_H + 13 }, g);
      text.textContent = t;
      svg("title", {}, g).textContent = side === "row" ? "query " + i + ": " + t + " (hover to read its weights, click to pin)" : "key " + i + ": " + t;
      if (side === "row") {
        g.addEventListener("mouseenter", function () { if (!self.pinned) self.setFocus(i); });
        g.addEventListener("mouseleave", function () { if (!self.pinned) self.setFocus(-1); });
        g.addEventListener("click", function () {
          if (self.pinned && self.focus === i) { self.pinned = false; self.setFocus(-1); }
          else { self.pinned = true; self.setFocus(i); }
        });
      }
      out.push(g);
    });
    return out;
  };

  Explorer.prototype.line = function (parent, h, r, c, q) {
    var y1 = TOP + r * ROW_H + ROW_H / 2, y2 = TOP + c * ROW_H + ROW_H / 2;
    var e = document.createElementNS(SVGNS, "line");
    e.setAttribute("x1", this.xl);
    e.setAttribute("y1", y1);
    e.setAttribute("x2", this.xr);
    e.setAttribute("y2", y2);
    e.setAttribute("stroke-opacity", (q / this.scale).toFixed(3));
    e.setAttribute("data-head", h);
    e.setAttribute("data-row", r);
    e.setAttribute("data-col", c);
    e.setAttribute("data-weight", this.fmt(q));
    parent.appendChild(e);
  };

  // every line of the layer at or above MIN_LINE, one group per head (hidden heads: display none)
  Explorer.prototype.drawLines = function () {
    var k = this.kinds[this.kind], R = k.rows.length, C = k.cols.length, min = MIN_LINE * this.scale;
    var frag = document.createDocumentFragment();
    this.headGroups = [];
    for (var h = 0; h < k.heads; h++) {
      var g = svg("g", { stroke: headColour(h), "stroke-width": 2, "data-head": h }, frag);
      if (!this.visible[h]) g.style.display = "none";
      var base = (this.layer * k.heads + h) * R * C;
      for (var r = 0; r < R; r++) {
        for (var c = 0; c < C; c++) {
          var q = k.q[base + r * C + c];
          if (q >= min && q > 0) this.line(g, h, r, c, q);
        }
      }
      this.headGroups.push(g);
    }
    this.linesAll.textContent = "";
    this.linesAll.appendChild(frag);
    this.refocus();
  };

  Explorer.prototype.setLayer = function (l) {
    this.layer = l;
    if (this.layerSelect.value !== String(l)) this.layerSelect.value = String(l);
    this.drawLines();
    this.markThumbs();
  };

  Explorer.prototype.setFocus = function (r) {
    this.focus = r;
    this.refocus();
  };

  // the focused row's lines (every nonzero weight, however small) and its readout
  Explorer.prototype.refocus = function () {
    var self = this, k = this.kinds[this.kind], r = this.focus, C = k.cols.length;
    this.linesFocus.textContent = "";
    this.rowTokens.forEach(function (g, i) {
      g.classList.toggle("zoo-explorer-on", i === r);
      g.classList.toggle("zoo-explorer-pinned", i === r && self.pinned);
    });
    this.linesAll.style.display = r < 0 ? "" : "none";
    var ro = this.readout;
    ro.textContent = "";
    var heads = [];
    for (var h = 0; h < k.heads; h++) if (this.visible[h]) heads.push(h);
    if (r < 0) {
      ro.style.gridTemplateColumns = "";
      el("div", "zoo-explorer-hint", ro, "hover a query token to read its weights (one column per head, one line per key); click it to pin");
      return;
    }
    ro.style.gridTemplateColumns = "repeat(" + Math.max(1, heads.length) + ", auto)";
    heads.forEach(function (h) {
      var g = svg("g", { stroke: headColour(h), "stroke-width": 2.5, "data-head": h }, self.linesFocus);
      for (var c = 0; c < C; c++) {
        var q = self.q(self.layer, h, r, c);
        if (q > 0) self.line(g, h, r, c, Math.max(q, 0));
      }
      var head = el("div", "zoo-explorer-rh", ro, "head " + h);
      head.style.color = headColour(h);
    });
    var frag = document.createDocumentFragment();
    for (var c = 0; c < C; c++) {
      heads.forEach(function (h) {
        var q = self.q(self.layer, h, r, c), w = self.fmt(q), rgb = headColour(h);
        var d = el("div", "zoo-explorer-w", frag);
        d.setAttribute("data-head", h);
        d.setAttribute("data-col", c);
        d.setAttribute("data-weight", w);
        el("span", "zoo-explorer-sr", d, "head " + h + ": " + k.cols[c] + " ");
        d.appendChild(document.createTextNode(w));
        d.title = "head " + h + ": " + k.rows[r] + " \u2192 " + k.cols[c] + " " + w;
        d.style.boxShadow = "inset 4px 0 0 " + rgb;
        d.style.opacity = q > 0 ? String(0.55 + 0.45 * Math.min(1, 4 * q / self.scale)) : "0.4";
        if (q / self.scale >= 0.1) d.style.fontWeight = "bold";
      });
    }
    ro.appendChild(frag);
  };
  /* explorer_model.js, which mod.rs appends to this file (one script, one scope), holds the model
     view, the detail panel and the mounting, and closes the function opened above. */
