/* attention-zoo's attention explorer, part 1 of the files that SCRIPT in mod.rs joins: the pure parts
   (decoding the payload, formatting numbers, layout arithmetic), no DOM. Every part is a
   complete classic script (ES2017, no modules) sharing the namespace window.zooExplorer2; a part
   already defined at this version or a newer one is left as it is (the newest version wins, a
   re-definition changes nothing). */
(function () {
  "use strict";
  const VERSION = 2;
  const Z = (window.zooExplorer2 = window.zooExplorer2 || { parts: {} });
  if ((Z.version || 0) > VERSION || Z.parts.decode >= VERSION) return;
  Z.version = VERSION;
  Z.parts.decode = VERSION;

  // base64 (standard, with padding) to bytes
  Z.bytes = function (b64) {
    const bin = atob(b64), out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };

  // n values of `bits` bits: value i at bit `bits * i`, least significant bit first (bits 16:
  // little-endian u16)
  Z.unpack = function (bytes, bits, n, what) {
    if (bytes.length * 8 < n * bits) {
      throw new Error((what || "weights") + ": " + bytes.length + " bytes, " + n + " values need " + Math.ceil((n * bits) / 8));
    }
    const out = new Uint16Array(n), mask = (1 << bits) - 1;
    if (bits === 16) {
      for (let i = 0; i < n; i++) out[i] = bytes[2 * i] | (bytes[2 * i + 1] << 8);
      return out;
    }
    for (let j = 0, bit = 0; j < n; j++, bit += bits) {
      const b = bit >> 3;
      const word = bytes[b] | ((bytes[b + 1] | 0) << 8) | ((bytes[b + 2] | 0) << 16);
      out[j] = (word >>> (bit & 7)) & mask;
    }
    return out;
  };

  // base64 of little-endian f32 to a Float32Array of n values (-Infinity stays -Infinity)
  Z.f32 = function (b64, n, what) {
    const bytes = Z.bytes(b64 || "");
    if (bytes.length < 4 * n) throw new Error((what || "values") + ": " + bytes.length + " bytes, " + n + " f32 values need " + 4 * n);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = view.getFloat32(4 * i, true);
    return out;
  };

  // a number as the explorer prints it: fixed decimals, "masked" for -Infinity, no "-0.000"
  Z.fmt = function (v, decimals) {
    const d = decimals == null ? 3 : decimals;
    if (v === -Infinity) return "masked";
    if (v === Infinity) return "inf";
    if (Number.isNaN(v)) return "NaN";
    const s = v.toFixed(d);
    return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
  };

  // offsets into the flattened [layer][head][...] arrays
  Z.at = {
    weight: (k, l, h, r, c) => ((l * k.heads + h) * k.rows.length + r) * k.cols.length + c,
    // left: [layer][head][Lq or 1][dim]
    left: (k, n, l, h, r) => ((l * k.heads + h) * (n.left.per_query ? k.rows.length : 1) + (n.left.per_query ? r : 0)) * n.dim,
    // right: [layer][head][Lk][dim], or [layer][head][Lq][Lk][dim] when per_query
    right: (k, n, l, h, r, c) =>
      n.right.per_query
        ? (((l * k.heads + h) * k.rows.length + r) * k.cols.length + c) * n.dim
        : ((l * k.heads + h) * k.cols.length + c) * n.dim,
  };

  // how many values each of a kind's neuron arrays holds
  Z.neuronSizes = function (k, n) {
    const lh = k.layers * k.heads, R = k.rows.length, C = k.cols.length;
    return {
      left: lh * (n.left.per_query ? R : 1) * n.dim,
      right: lh * (n.right.per_query ? R * C : C) * n.dim,
      pairs: lh * R * C,
    };
  };

  // a kind's neuron terms decoded (null when the payload has none)
  Z.decodeNeurons = function (k) {
    const n = k.neurons;
    if (!n) return null;
    const size = Z.neuronSizes(k, n), what = k.name + ": neurons ";
    return {
      score: n.score || "",
      dim: n.dim,
      left: { label: n.left.label, per_query: !!n.left.per_query, values: Z.f32(n.left.values, size.left, what + "left") },
      right: { label: n.right.label, per_query: !!n.right.per_query, values: Z.f32(n.right.values, size.right, what + "right") },
      dots: Z.f32(n.dots, size.pairs, what + "dots"),
      scaling: n.scaling || "",
      scores: Z.f32(n.scores, size.pairs, what + "scores"),
      weights: Z.f32(n.weights, size.pairs, what + "weights"),
    };
  };

  // the payload's kinds, decoded: weights as integers over `scale`, neurons as f32 arrays
  Z.decodeData = function (data) {
    const bits = data.bits || 16;
    const kinds = (data.kinds || []).map(function (k) {
      const n = k.layers * k.heads * k.rows.length * k.cols.length;
      const out = { name: k.name, rows: k.rows, cols: k.cols, layers: k.layers, heads: k.heads };
      out.q = Z.unpack(Z.bytes(k.weights), bits, n, k.name + ": weights");
      out.neurons = Z.decodeNeurons(Object.assign({}, k, { rows: k.rows, cols: k.cols }));
      return out;
    });
    if (!kinds.length) throw new Error("no kinds of attention");
    return { title: data.title || "", decimals: data.decimals == null ? 3 : data.decimals, scale: data.scale || 65535, kinds: kinds };
  };

  // the largest absolute finite value of values[from .. from + n)
  Z.absMax = function (values, from, n) {
    let m = 0;
    for (let i = from; i < from + n; i++) if (Number.isFinite(values[i])) m = Math.max(m, Math.abs(values[i]));
    return m;
  };

  // the neuron view's cell width: strips of `dim` cells in about `budget` pixels, 3 to 14 each
  Z.cellWidth = function (dim, budget) {
    return Math.max(3, Math.min(14, Math.floor((budget || 224) / Math.max(1, dim))));
  };

  // the model view's zoom: a thumbnail about 72 pixels on its longer side, at least 1 per cell
  Z.thumbZoom = (R, C) => Math.max(1, Math.round(72 / Math.max(R, C)));

  // the detail heatmap's cell: 12 to 44 pixels, about 520 pixels in all
  Z.detailCell = (R, C) => Math.max(12, Math.min(44, Math.floor(520 / Math.max(R, C))));

  // a file name part: lower case, runs of anything else than letters and digits as one "-"
  Z.slug = (s) => String(s).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "") || "attention";

  // light to dark blue for the heatmaps (an exact zero is white)
  const RAMP = [[222, 235, 247], [198, 219, 239], [158, 202, 225], [107, 174, 214], [66, 146, 198], [33, 113, 181], [8, 81, 156], [8, 48, 107]];
  Z.ramp = function (w) {
    const t = Math.max(0, Math.min(1, w)) * (RAMP.length - 1), i = Math.min(RAMP.length - 2, Math.floor(t)), f = t - i;
    const a = RAMP[i], b = RAMP[i + 1];
    return [0, 1, 2].map((j) => Math.round(a[j] + (b[j] - a[j]) * f));
  };

  // a diverging colour for v in [-m, m]: blue (negative), white (0), red (positive)
  Z.diverging = function (v, m) {
    if (!Number.isFinite(v) || !(m > 0)) return [255, 255, 255];
    const t = Math.max(-1, Math.min(1, v / m)), far = t < 0 ? [33, 102, 172] : [178, 24, 43], a = Math.abs(t);
    return [0, 1, 2].map((j) => Math.round(255 + (far[j] - 255) * a));
  };

  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  Z.headColour = (h) => (h < PALETTE.length ? PALETTE[h] : "hsl(" + Math.round((h * 137.508) % 360) + ",55%,42%)");

  // relative luminance of "rgb(...)"/"rgba(...)"/"#rrggbb" (null when unreadable or transparent)
  Z.luminance = function (css) {
    let c = null, m = /^rgba?\(([^)]*)\)/.exec(String(css).trim());
    if (m) {
      const p = m[1].split(/[ ,/]+/).filter(Boolean).map(parseFloat);
      if (p.length > 3 && p[3] === 0) return null;
      c = p.slice(0, 3);
    } else if ((m = /^#([0-9a-f]{6})$/i.exec(String(css).trim()))) {
      c = [0, 2, 4].map((i) => parseInt(m[1].slice(i, i + 2), 16));
    }
    if (!c || c.length < 3 || c.some(Number.isNaN)) return null;
    const lin = c.map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : Math.pow((v / 255 + 0.055) / 1.055, 2.4)));
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  };
})();
