// Reference MessagePack implementation for the differential tests: @msgpack/msgpack.
//   node ref_msgpack.mjs encode  < typed JSON  > msgpack bytes
//   node ref_msgpack.mjs decode  < msgpack     > typed JSON
// Typed JSON (shared with test_msgpack.py): {"$int": "decimal"}, {"$float": number or
// "NaN"/"Infinity"/"-Infinity"/"-0.0"}, {"$bytes": base64}, {"$map": [[k, v], ...]},
// {"$ts": [sec, nsec]} (timestamp extension -1), {"$ext": [type, base64]}; strings, booleans,
// null and arrays as themselves.
import { readFileSync } from "node:fs";
import {
  encode, decode, ExtData, ExtensionCodec, decodeTimestampToTimeSpec, encodeTimeSpecToTimestamp,
} from "@msgpack/msgpack";

// Timestamps are read as {sec, nsec} so that nanoseconds survive (Date keeps milliseconds).
const extensionCodec = new ExtensionCodec();
extensionCodec.register({
  type: -1,
  encode: () => null,
  decode: (data) => ({ __ts: decodeTimestampToTimeSpec(data) }),
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
  if (x instanceof ExtData) return { $ext: [x.type, Buffer.from(x.data).toString("base64")] };
  if (x.__ts) return { $ts: [Number(x.__ts.sec), x.__ts.nsec] };
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
  if ("$ts" in t) return new ExtData(-1, encodeTimeSpecToTimestamp({ sec: t.$ts[0], nsec: t.$ts[1] }));
  if ("$ext" in t) return new ExtData(t.$ext[0], new Uint8Array(Buffer.from(t.$ext[1], "base64")));
  const o = {};
  for (const [k, v] of t.$map) o[typeof k === "object" ? fromTyped(k) : k] = fromTyped(v);
  return o;
}

const input = readFileSync(0);
const options = { useBigInt64: true, extensionCodec };
if (process.argv[2] === "encode") {
  process.stdout.write(encode(fromTyped(JSON.parse(input.toString("utf8"))), options));
} else {
  process.stdout.write(JSON.stringify(toTyped(decode(input, options))));
}
