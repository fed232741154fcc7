// Unit tests of the explorer's pure parts (decode.js): `node --test src/notebook/explorer/js/tests/`.
// The classic script is run with vm in a context whose `window` is the context itself.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const DIR = path.join(__dirname, "..");

function load(...files) {
  const ctx = { atob, console, Float32Array, Uint8Array, Uint16Array, DataView };
  ctx.window = ctx;
  vm.createContext(ctx);
  for (const f of files) vm.runInContext(fs.readFileSync(path.join(DIR, f), "utf8"), ctx, { filename: f });
  return ctx.zooExplorer2;
}

const b64 = (bytes) => Buffer.from(bytes).toString("base64");
const f32b64 = (values) => {
  const buf = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => buf.writeFloatLE(v, 4 * i));
  return buf.toString("base64");
};

test("base64 to bytes, as the standard writes it", () => {
  const Z = load("decode.js");
  assert.deepStrictEqual(Array.from(Z.bytes("TWFu")), [77, 97, 110]);
  assert.deepStrictEqual(Array.from(Z.bytes("TQ==")), [77]);
  assert.deepStrictEqual(Array.from(Z.bytes("//79AA==")), [0xff, 0xfe, 0xfd, 0x00]);
  assert.strictEqual(Z.bytes("").length, 0);
});

test("10-bit values, least significant bit first, as encode.rs packs them", () => {
  const Z = load("decode.js");
  // pack10(&[1023, 0]) == [0xff, 0x03, 0x00, 0x00, 0x00]
  assert.deepStrictEqual(Array.from(Z.unpack(Uint8Array.from([0xff, 0x03, 0, 0, 0]), 10, 2)), [1023, 0]);
  const values = [];
  for (let i = 0; i < 1001; i++) values.push(i);
  values.push(1023, 0, 7);
  const bytes = new Uint8Array(Math.ceil((values.length * 10) / 8) + 2);
  values.forEach((v, i) => {
    const bit = 10 * i, word = v << (bit & 7);
    for (let k = 0; k < 3; k++) bytes[(bit >> 3) + k] |= (word >> (8 * k)) & 0xff;
  });
  assert.deepStrictEqual(Array.from(Z.unpack(bytes, 10, values.length)), values);
  assert.throws(() => Z.unpack(new Uint8Array(2), 10, 2, "w"), /w: 2 bytes, 2 values need 3/);
});

test("16-bit little-endian values", () => {
  const Z = load("decode.js");
  assert.deepStrictEqual(Array.from(Z.unpack(Uint8Array.from([1, 0, 0xff, 0xff]), 16, 2)), [1, 65535]);
});

test("f32 little-endian arrays, -Infinity included", () => {
  const Z = load("decode.js");
  const got = Z.f32(f32b64([1.5, -0.25, -Infinity, 3.4028234663852886e38]), 4);
  assert.deepStrictEqual(Array.from(got), [1.5, -0.25, -Infinity, 3.4028234663852886e38]);
  // the -inf bit pattern, written by hand
  assert.strictEqual(Z.f32(b64([0, 0, 0x80, 0xff]), 1)[0], -Infinity);
  assert.throws(() => Z.f32(b64([0, 0, 0]), 1, "dots"), /dots: 3 bytes, 1 f32 values need 4/);
});

test("numbers as the explorer prints them", () => {
  const Z = load("decode.js");
  assert.strictEqual(Z.fmt(0.12345), "0.123");
  assert.strictEqual(Z.fmt(-1.0005, 2), "-1.00");
  assert.strictEqual(Z.fmt(-0.0001), "0.000");
  assert.strictEqual(Z.fmt(-Infinity), "masked");
  assert.strictEqual(Z.fmt(12.5), "12.500");
});

test("layouts of the payload's arrays", () => {
  const Z = load("decode.js");
  const k = { layers: 2, heads: 3, rows: ["a", "b"], cols: ["x", "y", "z"] };
  assert.strictEqual(Z.at.weight(k, 1, 2, 1, 2), ((1 * 3 + 2) * 2 + 1) * 3 + 2);
  const dot = { dim: 4, left: { per_query: true }, right: { per_query: false } };
  assert.strictEqual(Z.at.left(k, dot, 1, 2, 1), ((1 * 3 + 2) * 2 + 1) * 4);
  assert.strictEqual(Z.at.right(k, dot, 1, 2, 1, 2), ((1 * 3 + 2) * 3 + 2) * 4);
  const additive = { dim: 4, left: { per_query: false }, right: { per_query: true } };
  assert.strictEqual(Z.at.left(k, additive, 1, 2, 1), (1 * 3 + 2) * 4);
  assert.strictEqual(Z.at.right(k, additive, 1, 2, 1, 2), (((1 * 3 + 2) * 2 + 1) * 3 + 2) * 4);
  assert.deepStrictEqual(JSON.parse(JSON.stringify(Z.neuronSizes(k, additive))), { left: 24, right: 144, pairs: 36 });
  assert.strictEqual(Z.cellWidth(16, 224), 14);
  assert.strictEqual(Z.cellWidth(64, 224), 3);
  assert.strictEqual(Z.thumbZoom(40, 40), 2);
  assert.strictEqual(Z.detailCell(5, 6), 44);
  assert.strictEqual(Z.detailCell(40, 40), 13);
  assert.strictEqual(Z.slug("Decoder self-attention"), "decoder-self-attention");
});

test("a whole payload decodes, neurons included", () => {
  const Z = load("decode.js");
  const data = {
    title: "t", decimals: 3, bits: 16, scale: 65535,
    kinds: [{
      name: "k", rows: ["a"], cols: ["x", "y"], layers: 1, heads: 1, weights: b64([0xff, 0xff, 0, 0]),
      neurons: {
        score: "scaled dot", dim: 2, scaling: "\u00f7 \u221a2",
        left: { label: "q", per_query: true, values: f32b64([1, 2]) },
        right: { label: "k", per_query: false, values: f32b64([3, 4, 5, 6]) },
        dots: f32b64([11, 17]), scores: f32b64([7.5, -Infinity]), weights: f32b64([1, 0]),
      },
    }, { name: "none", rows: ["a"], cols: ["x"], layers: 1, heads: 1, weights: b64([0, 0]) }],
  };
  const d = Z.decodeData(data);
  assert.deepStrictEqual(Array.from(d.kinds[0].q), [65535, 0]);
  assert.deepStrictEqual(Array.from(d.kinds[0].neurons.scores), [7.5, -Infinity]);
  assert.deepStrictEqual(Array.from(d.kinds[0].neurons.right.values), [3, 4, 5, 6]);
  assert.strictEqual(d.kinds[1].neurons, null);
});

test("colours: luminance, diverging scale, heads", () => {
  const Z = load("decode.js");
  assert.strictEqual(Z.luminance("rgb(255, 255, 255)"), 1);
  assert.strictEqual(Z.luminance("#000000"), 0);
  assert.strictEqual(Z.luminance("rgba(0, 0, 0, 0)"), null);
  assert.deepStrictEqual(Array.from(Z.diverging(0, 1)), [255, 255, 255]);
  assert.deepStrictEqual(Array.from(Z.diverging(-1, 1)), [33, 102, 172]);
  assert.deepStrictEqual(Array.from(Z.diverging(2, 1)), [178, 24, 43]);
  assert.strictEqual(Z.headColour(0), "#1f77b4");
});

test("every part loads in mod.rs's order, once: a second load changes nothing", () => {
  const mod = fs.readFileSync(path.join(DIR, "..", "mod.rs"), "utf8");
  const files = [.../const SCRIPT: &str = concat!\(([\s\S]*?)\);/.exec(mod)[1].matchAll(/include_str!\("js\/([^"]+)"\)/g)].map((m) => m[1]);
  assert.ok(files.length >= 6 && files[0] === "decode.js" && files[files.length - 1] === "mount.js", files.join(","));
  const ctx = { atob, console, document: {}, performance: { now: () => 0 } };
  ctx.window = ctx;
  vm.createContext(ctx);
  for (const f of files) vm.runInContext(fs.readFileSync(path.join(DIR, f), "utf8"), ctx, { filename: f });
  const mount = ctx.zooExplorerMount, Explorer = ctx.zooExplorer2.Explorer;
  assert.strictEqual(typeof mount, "function");
  assert.strictEqual(mount.version, 2);
  for (const f of files) vm.runInContext(fs.readFileSync(path.join(DIR, f), "utf8"), ctx, { filename: f });
  assert.strictEqual(ctx.zooExplorerMount, mount);
  assert.strictEqual(ctx.zooExplorer2.Explorer, Explorer);
});
