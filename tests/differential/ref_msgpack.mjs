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
import { fromTyped, toTyped } from "./ref_common.mjs";

// Timestamps are read as {sec, nsec} so that nanoseconds survive (Date keeps milliseconds).
const extensionCodec = new ExtensionCodec();
extensionCodec.register({
  type: -1,
  encode: () => null,
  decode: (data) => ({ __ts: decodeTimestampToTimeSpec(data) }),
});

// The package's values as typed JSON (ref_common.mjs walks the rest).
function msgpackToTyped(x) {
  if (x instanceof ExtData) return { $ext: [x.type, Buffer.from(x.data).toString("base64")] };
  if (x.__ts) return { $ts: [Number(x.__ts.sec), x.__ts.nsec] };
  return undefined;
}

function msgpackFromTyped(t, rec) {
  if ("$ts" in t) {
    return new ExtData(-1, encodeTimeSpecToTimestamp({ sec: t.$ts[0], nsec: t.$ts[1] }));
  }
  if ("$ext" in t) return new ExtData(t.$ext[0], new Uint8Array(Buffer.from(t.$ext[1], "base64")));
  const o = {};
  for (const [k, v] of t.$map) o[typeof k === "object" ? rec(k) : k] = rec(v);
  return o;
}

const input = readFileSync(0);
const options = { useBigInt64: true, extensionCodec };
if (process.argv[2] === "encode") {
  const value = fromTyped(JSON.parse(input.toString("utf8")), msgpackFromTyped);
  process.stdout.write(encode(value, options));
} else {
  process.stdout.write(JSON.stringify(toTyped(decode(input, options), msgpackToTyped)));
}
