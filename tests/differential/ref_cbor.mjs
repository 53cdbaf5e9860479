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
import { fromTyped, toTyped } from "./ref_common.mjs";

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

// The package's values as typed JSON (ref_common.mjs walks the rest).
function cborToTyped(x, rec) {
  if (x instanceof DateText) return { $ts: x.text };
  if (x instanceof Date) return { $ts: x.toISOString() };
  if (x instanceof Tag) return { $tag: [x.tag, rec(x.value)] };
  if (x instanceof Map) return { $map: [...x.entries()].map(([k, v]) => [rec(k), rec(v)]) };
  if (x === undefined) return { $undefined: true };
  return undefined;
}

function cborFromTyped(t, rec) {
  if ("$ts" in t) return new DateText(t.$ts);
  if ("$tag" in t) return new Tag(rec(t.$tag[1]), t.$tag[0]);
  return new Map(t.$map.map(([k, v]) => [rec(k), rec(v)]));
}

const input = readFileSync(0);
if (process.argv[2] === "encode") {
  const enc = new Encoder({ useRecords: false, mapsAsObjects: false, tagUint8Array: false });
  process.stdout.write(enc.encode(fromTyped(JSON.parse(input.toString("utf8")), cborFromTyped)));
} else {
  const dec = new Decoder({ useRecords: false, mapsAsObjects: false });
  process.stdout.write(JSON.stringify(toTyped(dec.decode(input), cborToTyped)));
}
