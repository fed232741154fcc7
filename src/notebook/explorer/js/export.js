/* The explorer, part 6 (see SCRIPT in mod.rs): export. The buttons "SVG" and "PNG" save the chosen view (head,
   model or neuron view) as a file, offline (a Blob and an a[download]; the PNG is the SVG drawn on a
   canvas). Each SVG stands alone: xmlns, width, height and viewBox, its colours resolved (no CSS
   variables, no currentColor), generic fonts. Files are named
   attention-<kind>-layer<l>-head<h>-<view>.svg (or .png). */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.export >= VERSION) return;
  Z.parts.export = VERSION;

  const P = Z.Explorer.prototype;
  const VIEWS = [["head", "head view"], ["model", "model view"], ["neuron", "neuron view"]];
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

  P.buildExportBar = function (controls) {
    const self = this, g = Z.el("span", "zoo-explorer-group zoo-explorer-export", controls, "save ");
    this.viewSelect = Z.el("select", "zoo-explorer-view", g);
    this.viewSelect.setAttribute("aria-label", "the view to save");
    VIEWS.forEach((v) => (Z.el("option", "", this.viewSelect, v[1]).value = v[0]));
    ["svg", "png"].forEach(function (kind) {
      const b = Z.button("zoo-explorer-save", g, kind.toUpperCase(), () => self.save(self.viewSelect.value, kind));
      b.setAttribute("data-export", kind);
      b.title = "save the chosen view as " + kind.toUpperCase();
    });
  };

  // the page's colours as the explorer shows them now: text and background
  P.colours = function () {
    const cs = getComputedStyle(this.ui);
    const bg = cs.getPropertyValue("--zoo-bg").trim();
    const dark = this.root.getAttribute("data-zoo-theme") === "dark";
    return { fg: cs.color, bg: bg && !/var\(/.test(bg) ? bg : dark ? "#111111" : "#ffffff" };
  };

  // a copy of a live SVG element with every computed colour and font written out
  function inline(orig, copy) {
    const o = orig.querySelectorAll("*"), c = copy.querySelectorAll("*"), drop = [];
    for (let i = 0; i < o.length; i++) {
      const e = c[i], tag = o[i].tagName.toLowerCase();
      ["class", "style", "tabindex", "role", "aria-label", "aria-pressed"].forEach((a) => e.removeAttribute(a));
      if (tag === "title") continue;
      const cs = getComputedStyle(o[i]);
      for (const a of ["fill", "stroke", "color"]) if (/currentColor|var\(/i.test(e.getAttribute(a) || "")) e.setAttribute(a, a === "color" ? cs.color : cs[a]);
      if (cs.display === "none" || cs.visibility === "hidden") {
        drop.push(e);
        continue;
      }
      const fill = cs.fill === "rgba(0, 0, 0, 0)" ? "none" : cs.fill;
      if (tag !== "g" && tag !== "svg") {
        e.setAttribute("fill", fill);
        e.setAttribute("stroke", cs.stroke);
        if (cs.stroke !== "none") e.setAttribute("stroke-width", cs.strokeWidth);
        for (const a of ["opacity", "fill-opacity", "stroke-opacity"]) if (cs.getPropertyValue(a) !== "1") e.setAttribute(a, cs.getPropertyValue(a));
      }
      if (tag === "text") {
        e.setAttribute("font-family", /mono/.test(cs.fontFamily) ? "monospace" : "sans-serif");
        e.setAttribute("font-size", cs.fontSize);
        if (cs.fontStyle !== "normal") e.setAttribute("font-style", cs.fontStyle);
        if (cs.fontWeight !== "400") e.setAttribute("font-weight", cs.fontWeight);
      }
    }
    drop.forEach((e) => e.parentNode && e.parentNode.removeChild(e));
    return copy;
  }

  // a standalone SVG document: a background, a caption, and the body (SVG markup) below it
  P.wrap = function (caption, body, w, h) {
    const col = this.colours(), width = Math.ceil(Math.max(w, Z.textWidth(caption) + 16)), height = Math.ceil(h + 26);
    return {
      width: width,
      height: height,
      text:
        '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" viewBox="0 0 ' + width + " " + height +
        '" font-family="sans-serif" font-size="12">' +
        '<rect width="100%" height="100%" fill="' + col.bg + '"/>' +
        '<text x="6" y="16" font-weight="bold" fill="' + col.fg + '">' + esc(caption) + "</text>" +
        '<g transform="translate(0,24)" color="' + col.fg + '">' + body + "</g></svg>",
    };
  };

  P.liveSvg = function (node) {
    const copy = inline(node, node.cloneNode(true)), ser = new XMLSerializer();
    let body = "";
    for (const child of Array.from(copy.childNodes)) body += ser.serializeToString(child);
    return { body: body.replace(/ xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, ""), w: +node.getAttribute("width"), h: +node.getAttribute("height") };
  };

  // one heatmap as a path per shade (32 shades, exact zeros white), cell pixels per weight
  P.heatPaths = function (x, y, cell, l, h) {
    const k = this.k(), R = k.rows.length, C = k.cols.length, base = Z.at.weight(k, l, h, 0, 0), paths = {};
    for (let i = 0; i < R * C; i++) {
      const q = k.q[base + i], key = q === 0 ? "z" : Math.round((q / this.scale) * 31);
      paths[key] = (paths[key] || "") + "M" + (x + cell * (i % C)) + " " + (y + cell * Math.floor(i / C)) + "h" + cell + "v" + cell + "h-" + cell + "z";
    }
    return Object.keys(paths)
      .map((key) => '<path fill="rgb(' + (key === "z" ? [255, 255, 255] : Z.ramp(key / 31)).join(",") + ')" d="' + paths[key] + '"/>')
      .join("");
  };

  // the model view from the data: the grid of every layer and head, then the open one large
  P.modelSvg = function () {
    const k = this.k(), R = k.rows.length, C = k.cols.length, zoom = Z.thumbZoom(R, C), col = this.colours();
    const lw = Z.textWidth("layer " + (k.layers - 1)) + 10, tw = Math.max(C * zoom, Z.textWidth("head " + (k.heads - 1))) + 6, th = R * zoom + 6;
    let out = "";
    for (let h = 0; h < k.heads; h++) out += '<text x="' + (lw + h * tw) + '" y="12" font-weight="bold" fill="' + Z.headColour(h) + '">head ' + h + "</text>";
    for (let l = 0; l < k.layers; l++) {
      out += '<text x="0" y="' + (20 + l * th + (R * zoom) / 2 + 4) + '" fill="' + col.fg + '">layer ' + l + "</text>";
      for (let h = 0; h < k.heads; h++) {
        out += this.heatPaths(lw + h * tw, 18 + l * th, zoom, l, h);
        if (l === this.openLayer && h === this.openHead) {
          out += '<rect x="' + (lw + h * tw - 1.5) + '" y="' + (18 + l * th - 1.5) + '" width="' + (C * zoom + 3) + '" height="' + (R * zoom + 3) + '" fill="none" stroke="' + col.fg + '" stroke-width="2"/>';
        }
      }
    }
    const gw = lw + k.heads * tw, gh = 18 + k.layers * th;
    // the open heatmap, with its tokens
    const cell = Math.min(14, Z.detailCell(R, C)), rw = Math.min(160, Math.max(...k.rows.map(Z.textWidth))) + 8;
    const ch = Math.min(160, Math.max(...k.cols.map(Z.textWidth))) + 8, x0 = gw + 24 + rw, y0 = 18 + ch;
    out += '<text x="' + (gw + 24) + '" y="12" fill="' + col.fg + '">layer ' + this.openLayer + ", head " + this.openHead + ": queries down, keys across</text>";
    out += this.heatPaths(x0, y0, cell, this.openLayer, this.openHead);
    k.rows.forEach((t, r) => (out += '<text x="' + (x0 - 4) + '" y="' + (y0 + r * cell + cell / 2 + 4) + '" text-anchor="end" font-size="11" fill="' + col.fg + '">' + esc(t) + "</text>"));
    k.cols.forEach((t, c) => (out += '<text transform="translate(' + (x0 + c * cell + cell / 2 + 4) + "," + (y0 - 4) + ') rotate(-90)" font-size="11" fill="' + col.fg + '">' + esc(t) + "</text>"));
    return { body: out, w: x0 + C * cell + 8, h: Math.max(gh, y0 + R * cell + 4) };
  };

  // the chosen view as a standalone SVG, with the names that its file takes
  P.exportSvg = function (view) {
    const k = this.k();
    let part, head, layer;
    if (view === "model") {
      part = this.modelSvg();
      layer = this.openLayer;
      head = this.openHead;
    } else if (view === "neuron") {
      if (!this.neuronSvg) throw new Error(k.name + " has no neuron view");
      part = this.liveSvg(this.neuronSvg);
      layer = this.neuronShown.layer;
      head = this.neuronShown.head;
    } else {
      part = this.liveSvg(this.svgEl);
      layer = this.layer;
      const shown = this.visible.map((v, h) => (v ? h : -1)).filter((h) => h >= 0);
      head = shown.length === this.visible.length ? "all" : shown.join("+");
    }
    const caption = (this.title ? this.title + ": " : "") + k.name + ", layer " + layer + ", head " + head + ", " + view + " view";
    const doc = this.wrap(caption, part.body, part.w, part.h);
    doc.name = "attention-" + Z.slug(k.name) + "-layer" + layer + "-head" + head + "-" + view;
    return doc;
  };

  Z.download = function (blob, name) {
    const a = document.createElement("a"), url = URL.createObjectURL(blob);
    a.href = url;
    a.download = name;
    a.style.display = "none";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };

  Z.svgToPng = function (doc, scale) {
    return new Promise(function (ok, fail) {
      const img = new Image();
      img.onload = function () {
        const cv = document.createElement("canvas");
        cv.width = Math.round(doc.width * scale);
        cv.height = Math.round(doc.height * scale);
        const ctx = cv.getContext("2d");
        ctx.scale(scale, scale);
        ctx.drawImage(img, 0, 0, doc.width, doc.height);
        cv.toBlob((b) => (b ? ok(b) : fail(new Error("the canvas gave no PNG"))), "image/png");
      };
      img.onerror = () => fail(new Error("the SVG did not load as an image"));
      img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(doc.text);
    });
  };

  P.save = function (view, kind) {
    const self = this;
    let doc;
    try {
      doc = this.exportSvg(view);
    } catch (e) {
      this.say(e.message);
      return Promise.resolve(null);
    }
    if (kind === "svg") {
      Z.download(new Blob([doc.text], { type: "image/svg+xml" }), doc.name + ".svg");
      return Promise.resolve(doc.name + ".svg");
    }
    return Z.svgToPng(doc, 2).then(
      (blob) => (Z.download(blob, doc.name + ".png"), doc.name + ".png"),
      (e) => self.say("PNG: " + e.message)
    );
  };

  // a short message beside the export buttons
  P.say = function (text) {
    if (!this.sayEl) this.sayEl = Z.el("span", "zoo-explorer-say", this.viewSelect.parentNode);
    this.sayEl.textContent = " " + text;
  };
})();
