// Reference TOML 1.0 implementation for test_toml.py: the npm package `smol-toml`.
//   node ref_toml.mjs parse       TOML on stdin -> tagged JSON on stdout
//   node ref_toml.mjs stringify   tagged JSON on stdin -> TOML on stdout
// Tagged JSON: {"$int": "123"} integers (exact, BigInt), {"$float": "nan"|"inf"|"-inf"|"-0"}
// special floats, {"$date": kind, "v": text} date-times (kind: offset, local-datetime,
// local-date, local-time); other numbers are floats.
import { parse, stringify, TomlDate } from "smol-toml";
import { readFileSync } from "node:fs";
import { taggedFloatValue, toTagged, walkPlain } from "./ref_common.mjs";

const input = readFileSync(0, "utf8");
const mode = process.argv[2];

function fromTagged(v) {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
        if ("$int" in v) return BigInt(v.$int);
        if ("$float" in v) return taggedFloatValue(v.$float);
        if ("$date" in v) return new TomlDate(v.v);
    }
    return walkPlain(v, fromTagged);
}

// TOML date-times as {"$date": kind, "v": text} (ref_common.mjs tags the rest).
function tomlTagged(v) {
    if (!(v instanceof TomlDate)) return undefined;
    const kind = v.isDate() ? "local-date" : v.isTime() ? "local-time"
        : v.isLocal() ? "local-datetime" : "offset";
    return { $date: kind, v: v.toISOString() };
}

if (mode === "parse") {
    const value = parse(input, { integersAsBigInt: true });
    process.stdout.write(JSON.stringify(toTagged(value, tomlTagged)));
} else if (mode === "stringify") {
    // Numbers are floats here (integers arrive as BigInt), so 2.0 stays a float.
    process.stdout.write(stringify(fromTagged(JSON.parse(input)), { numbersAsFloat: true }));
} else {
    process.stderr.write("usage: ref_toml.mjs parse|stringify\n");
    process.exit(2);
}
