/* The explorer, part 2 (see SCRIPT in mod.rs): DOM helpers, the theme, and the Explorer: its controls and
   the frames of its views, which head_view.js, model_view.js, neuron_view.js and export.js fill. */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.core >= VERSION) return;
  Z.parts.core = VERSION;

  const SVGNS = (Z.SVGNS = "http://www.w3.org/2000/svg");
  Z.FONT = "12px sans-serif";

  Z.el = function (tag, cls, parent, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  };

  Z.svg = function (tag, attrs, parent) {
    const e = document.createElementNS(SVGNS, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  };

  Z.button = function (cls, parent, text, onClick) {
    const b = Z.el("button", cls, parent, text);
    b.type = "button";
    if (onClick) b.addEventListener("click", onClick);
    return b;
  };

  let measurer = null;
  // the width of `s` in pixels, in `font` (default: 12px sans-serif)
  Z.textWidth = function (s, font) {
    if (!measurer) measurer = document.createElement("canvas").getContext("2d");
    measurer.font = font || Z.FONT;
    return Math.ceil(measurer.measureText(s).width);
  };

  // "dark" or "light": JupyterLab's own attribute on <body> where there is one, else the
  // lightness of the text the output inherits (light text: a dark page)
  Z.themeOf = function (root) {
    const lab = document.body && document.body.getAttribute("data-jp-theme-light");
    if (lab === "true" || lab === "false") return lab === "true" ? "light" : "dark";
    const y = Z.luminance(getComputedStyle(root.parentNode || root).color);
    return y != null && y > 0.4 ? "dark" : "light";
  };

  Z.applyTheme = function (root) {
    const t = Z.themeOf(root);
    if (root.getAttribute("data-zoo-theme") !== t) root.setAttribute("data-zoo-theme", t);
  };

  // one observer for the page: JupyterLab switches themes by changing <body>'s attributes
  Z.watchTheme = function () {
    if (Z.themeObserver || !window.MutationObserver || !document.body) return;
    Z.themeObserver = new MutationObserver(function () {
      document.querySelectorAll(".zoo-explorer[data-zoo-theme]").forEach(Z.applyTheme);
    });
    Z.themeObserver.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light", "data-jp-theme-name", "class", "style"] });
  };

  // an explorer in `root` drawing `data` (the payload)
  Z.Explorer = function (root, data) {
    this.root = root;
    const d = Z.decodeData(data);
    this.title = d.title;
    this.decimals = d.decimals;
    this.scale = d.scale;
    this.kinds = d.kinds;
    this.kind = 0;
    this.layer = 0;
    this.visible = [];
    this.focus = -1;
    this.pinned = false;
    this.query = 0; // the neuron view's query: the last focused one
    this.build();
  };
  const P = Z.Explorer.prototype;

  P.k = function () {
    return this.kinds[this.kind];
  };

  P.q = function (layer, head, row, col) {
    const k = this.kinds[this.kind];
    return k.q[Z.at.weight(k, layer, head, row, col)];
  };

  P.fmt = function (q) {
    return (q / this.scale).toFixed(this.decimals);
  };

  P.build = function () {
    const self = this, ui = (this.ui = Z.el("div", "zoo-explorer-ui", null));
    if (this.title) Z.el("div", "zoo-explorer-title", ui, this.title);
    const controls = Z.el("div", "zoo-explorer-controls", ui);
    if (this.kinds.length > 1) {
      const kinds = Z.el("span", "zoo-explorer-group zoo-explorer-kinds", controls);
      this.kindButtons = this.kinds.map(function (k, i) {
        const b = Z.button("zoo-explorer-kind", kinds, k.name, () => self.setKind(i));
        b.setAttribute("data-kind", i);
        return b;
      });
    }
    const layerGroup = Z.el("label", "zoo-explorer-group", controls, "layer ");
    this.layerSelect = Z.el("select", "zoo-explorer-layer", layerGroup);
    this.layerSelect.addEventListener("change", () => self.setLayer(+self.layerSelect.value));
    this.headGroup = Z.el("span", "zoo-explorer-group zoo-explorer-heads", controls);
    this.buildExportBar(controls);

    const headview = (this.headview = Z.el("div", "zoo-explorer-headview", ui));
    Z.el("div", "zoo-explorer-caption", headview,
      "head view: query tokens (left) to key tokens (right), a line per head as strong as its weight; hover, click or tab to a query token (arrow keys move, Enter pins, Escape unpins); click a head to hide it, double-click to show it alone");
    const body = Z.el("div", "zoo-explorer-headbody", headview);
    this.svgEl = Z.svg("svg", { class: "zoo-explorer-lines" }, body);
    this.readout = Z.el("div", "zoo-explorer-readout", body);
    this.readout.setAttribute("aria-live", "polite");

    this.neuronBox = Z.el("div", "zoo-explorer-neurons", ui);

    const model = (this.modelBox = Z.el("div", "zoo-explorer-model", ui));
    const left = Z.el("div", "", model);
    Z.el("div", "zoo-explorer-caption", left, "model view: every layer and head (white: exactly 0); click one to open it");
    this.grid = Z.el("div", "zoo-explorer-grid", left);
    this.detail = Z.el("div", "zoo-explorer-detail", model);

    this.setKind(0, true);
    this.root.appendChild(ui);
  };

  P.setKind = function (i, first) {
    const k = this.kinds[i];
    this.kind = i;
    if (this.kindButtons) this.kindButtons.forEach((b, j) => b.setAttribute("aria-pressed", String(j === i)));
    this.layer = Math.min(this.layer, k.layers - 1);
    this.layerSelect.textContent = "";
    for (let l = 0; l < k.layers; l++) Z.el("option", "", this.layerSelect, String(l)).value = String(l);
    this.layerSelect.value = String(this.layer);
    this.layerSelect.disabled = k.layers < 2;
    const visible = [];
    for (let h = 0; h < k.heads; h++) visible.push(first || this.visible[h] !== false);
    this.visible = visible;
    this.buildHeadChips();
    this.focus = -1;
    this.pinned = false;
    this.query = 0;
    this.neuronHead = null;
    this.buildHeadView();
    this.buildModel();
    this.openDetail(this.layer, 0);
    this.buildNeurons();
  };

  P.buildHeadChips = function () {
    const self = this, k = this.k();
    this.headGroup.textContent = "";
    Z.el("span", "", this.headGroup, k.heads > 1 ? "heads" : "head");
    this.headChips = [];
    for (let h = 0; h < k.heads; h++) {
      const b = Z.button("zoo-explorer-head", this.headGroup, String(h), function () {
        self.visible[h] = !self.visible[h];
        self.applyHeads();
      });
      b.title = "head " + h + ": click to hide or show, double-click to show it alone";
      b.setAttribute("data-head", h);
      const colour = Z.headColour(h), y = Z.luminance(colour);
      b.style.setProperty("--zoo-head", colour);
      // black or white, whichever reads better on the head's colour
      b.style.setProperty("--zoo-head-text", y != null && y > 0.179 ? "#000" : "#fff");
      b.addEventListener("dblclick", () => self.solo(h));
      this.headChips.push(b);
    }
    this.applyHeads(true);
  };

  P.solo = function (h) {
    for (let i = 0; i < this.visible.length; i++) this.visible[i] = i === h;
    this.applyHeads();
  };

  P.applyHeads = function (chipsOnly) {
    const self = this;
    this.headChips.forEach((b, h) => b.setAttribute("aria-pressed", String(self.visible[h])));
    if (chipsOnly) return;
    if (this.headGroups) this.headGroups.forEach((g, h) => (g.style.display = self.visible[h] ? "" : "none"));
    this.refocus();
    this.markThumbs();
  };

  P.setLayer = function (l) {
    this.layer = l;
    if (this.layerSelect.value !== String(l)) this.layerSelect.value = String(l);
    this.drawLines();
    this.markThumbs();
    this.drawNeurons();
  };
})();
