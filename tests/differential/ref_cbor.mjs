// Reference CBOR implementation for the differential tests: cbor-x.
//   node ref_cbor.mjs encode  < typed JSON  > CBOR bytes
//   node ref_cbor.mjs decode  < CBOR        > typed JSON
// Typed JSON (shared with test_cbor.py): {"$int": "decimal"} (BigInt beyond 2^53, tags 2/3
// beyond 64 bits), {"$float": number or "NaN"/"Infinity"/"-Infinity"/"-0.0"},
// {"$bytes": base64}, {"$map": [[k, v], ...]} (any keys, order kept), {"$ts": "RFC 3339"}
// (tag 0), {"$tag": [n, value]} for other tags; strings, booleans, null and arrays as
// themselves.
import { readFileSync } from "node:fs";
import { Decoder, Encoder, Tag, addExtension } from "cbor-x";

// Tag 0 is kept as its text (cbor-x would make a Date and drop digits past milliseconds).
class DateText {
  constructor(text) { this.text = text; }
}
addExtension({
  Class: DateText,
  tag: 0,
  encode: (d, encode) => encode(d.text),
  decode: (text) => new DateText(text),
});

function toTyped(x) {
  if (x === null || typeof x === "boolean" || typeof x === "string") return x;
  if (typeof x === "bigint") return { $int: x.toString() };
  if (typeof x === "number") {
    if (Number.isNaN(x)) return { $float: "NaN" };
    if (x === Infinity) return { $float: "Infinity" };
    if (x === -Infinity) return { $float: "-Infinity" };
    if (Object.is(x, -0)) return { $float: "-0.0" };
    if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return { $int: String(x) };
    return { $float: x };
  }
  if (x instanceof Uint8Array) return { $bytes: Buffer.from(x).toString("base64") };
  if (Array.isArray(x)) return x.map(toTyped);
  if (x instanceof DateText) return { $ts: x.text };
  if (x instanceof Date) return { $ts: x.toISOString() };
  if (x instanceof Tag) return { $tag: [x.tag, toTyped(x.value)] };
  if (x instanceof Map) return { $map: [...x.entries()].map(([k, v]) => [toTyped(k), toTyped(v)]) };
  if (x === undefined) return { $undefined: true };
  return { $map: Object.entries(x).map(([k, v]) => [k, toTyped(v)]) };
}

function fromTyped(t) {
  if (t === null || typeof t !== "object") return t;
  if (Array.isArray(t)) return t.map(fromTyped);
  if ("$int" in t) {
    const b = BigInt(t.$int);
    return b >= -BigInt(Number.MAX_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b;
  }
  if ("$float" in t) return t.$float === "-0.0" ? -0 : Number(t.$float);
  if ("$bytes" in t) return new Uint8Array(Buffer.from(t.$bytes, "base64"));
  if ("$ts" in t) return new DateText(t.$ts);
  if ("$tag" in t) return new Tag(fromTyped(t.$tag[1]), t.$tag[0]);
  return new Map(t.$map.map(([k, v]) => [fromTyped(k), fromTyped(v)]));
}

const input = readFileSync(0);
if (process.argv[2] === "encode") {
  const enc = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false });
  process.stdout.write(enc.encode(fromTyped(JSON.parse(input.toString("utf8")))));
} else {
  const dec = new Decoder({ useRecords: false, mapsAsObjects: false });
  process.stdout.write(JSON.stringify(toTyped(dec.decode(input))));
}
