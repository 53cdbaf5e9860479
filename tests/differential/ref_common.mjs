// Shared pieces of the node reference scripts (ref_*.mjs) of the differential tests.
// Each script keeps only what is particular to its npm package; the walks between the
// package's values and the JSON the Python side reads are written here once.
import { readFileSync } from "node:fs";

// Names of the numbers plain JSON cannot carry, in the order NaN, Infinity, -Infinity, -0.
export const TYPED_FLOATS = ["NaN", "Infinity", "-Infinity", "-0.0"]; // binary_values.py
export const TAGGED_FLOATS = ["nan", "inf", "-inf", "-0"]; // test_toml.py, test_yaml.py

// The name (from `names`) of x when it is NaN, +-Infinity or -0, else undefined.
export function specialFloat(x, names) {
  if (Number.isNaN(x)) return names[0];
  if (x === Infinity) return names[1];
  if (x === -Infinity) return names[2];
  if (Object.is(x, -0)) return names[3];
  return undefined;
}

// The number a tagged-float name stands for.
export function taggedFloatValue(name) {
  return { nan: NaN, inf: Infinity, "-inf": -Infinity, "-0": -0 }[name];
}

// Typed JSON of binary_values.py (ref_cbor.mjs, ref_msgpack.mjs): {"$int": "decimal"},
// {"$float": number or a TYPED_FLOATS name}, {"$bytes": base64}, {"$map": [[k, v], ...]};
// strings, booleans, null and arrays as themselves. `other(x, rec)` turns the package's own
// classes into typed JSON (rec converts a nested value) and returns undefined for a plain
// object, which becomes a $map of its entries.
export function toTyped(x, other) {
  const rec = (y) => toTyped(y, other);
  if (x === null || typeof x === "boolean" || typeof x === "string") return x;
  if (typeof x === "bigint") return { $int: x.toString() };
  if (typeof x === "number") {
    const name = specialFloat(x, TYPED_FLOATS);
    if (name !== undefined) return { $float: name };
    if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return { $int: String(x) };
    return { $float: x };
  }
  if (x instanceof Uint8Array) return { $bytes: Buffer.from(x).toString("base64") };
  if (Array.isArray(x)) return x.map(rec);
  const t = other(x, rec);
  if (t !== undefined) return t;
  return { $map: Object.entries(x).map(([k, v]) => [k, rec(v)]) };
}

// The inverse of toTyped for $int, $float and $bytes (integers beyond 2^53 as BigInt);
// `other(t, rec)` builds every other object (the package's classes and $map).
export function fromTyped(t, other) {
  const rec = (y) => fromTyped(y, other);
  if (t === null || typeof t !== "object") return t;
  if (Array.isArray(t)) return t.map(rec);
  if ("$int" in t) {
    const b = BigInt(t.$int);
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    return b >= -max && b <= max ? Number(b) : b;
  }
  if ("$float" in t) return t.$float === "-0.0" ? -0 : Number(t.$float);
  if ("$bytes" in t) return new Uint8Array(Buffer.from(t.$bytes, "base64"));
  return other(t, rec);
}

// Tagged JSON of test_toml.py and test_yaml.py: {"$int": "123"} for BigInt integers,
// {"$float": a TAGGED_FLOATS name} for special floats, other numbers as themselves.
// `other(v, rec)` tags the package's own classes (undefined for anything else); arrays and
// plain objects are walked here.
export function toTagged(v, other) {
  const rec = (y) => toTagged(y, other);
  if (typeof v === "bigint") return { $int: v.toString() };
  if (typeof v === "number") {
    const name = specialFloat(v, TAGGED_FLOATS);
    return name === undefined ? v : { $float: name };
  }
  const t = other(v, rec);
  if (t !== undefined) return t;
  return walkPlain(v, rec);
}

// Arrays and plain objects with `rec` applied to each element; anything else as it is.
export function walkPlain(v, rec) {
  if (Array.isArray(v)) return v.map(rec);
  if (v !== null && typeof v === "object") {
    const o = {};
    for (const k of Object.keys(v)) o[k] = rec(v[k]);
    return o;
  }
  return v;
}

// `parse` with a thrown error turned into {"$error": message}.
export function orError(parse) {
  return (text) => {
    try {
      return parse(text);
    } catch (e) {
      return { $error: String(e.message) };
    }
  };
}

// The modes `parse` (one text on stdin -> JSON of parseText(text)) and `parse-each` (a JSON
// array of texts -> the JSON array of their results), for runModes.
export function parseModes(parseText) {
  return {
    parse: (input) => JSON.stringify(parseText(input)),
    "parse-each": (input) => JSON.stringify(JSON.parse(input).map(parseText)),
  };
}

// Reads stdin as UTF-8 and writes modes[process.argv[2]](input) to stdout; an unknown mode
// throws `usage: USAGE`.
export function runModes(usage, modes) {
  const input = readFileSync(0, "utf8");
  const mode = process.argv[2];
  if (!Object.hasOwn(modes, mode)) throw new Error(`usage: ${usage}`);
  process.stdout.write(modes[mode](input));
}

// The reference side of test_hjson.py and test_json5.py (SCRIPT names it in the usage line):
//   node SCRIPT parse        text on stdin -> tagged JSON on stdout
//   node SCRIPT parse-each   JSON array of texts -> JSON array of parse results
//   node SCRIPT stringify    tagged JSON on stdin -> stringify(value)
// A parse error prints {"$error": message}. Tagged JSON: non-finite numbers are
// {"$float": "NaN" | "Infinity" | "-Infinity"}.
export function runTextReference(script, parse, stringify) {
  const tag = (v) =>
    typeof v === "number" && !Number.isFinite(v) ? { $float: String(v) } : walkPlain(v, tag);
  const untag = (v) =>
    v && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 &&
        typeof v.$float === "string"
      ? Number(v.$float)
      : walkPlain(v, untag);
  runModes(`${script} parse|parse-each|stringify`, {
    ...parseModes(orError((text) => tag(parse(text)))),
    stringify: (input) => stringify(untag(JSON.parse(input))),
  });
}
