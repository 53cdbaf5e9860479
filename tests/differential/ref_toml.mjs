// Reference TOML 1.0 implementation for test_toml.py: the npm package `smol-toml`.
//   node ref_toml.mjs parse       TOML on stdin -> tagged JSON on stdout
//   node ref_toml.mjs stringify   tagged JSON on stdin -> TOML on stdout
// Tagged JSON: {"$int": "123"} integers (exact, BigInt), {"$float": "nan"|"inf"|"-inf"|"-0"}
// special floats, {"$date": kind, "v": text} date-times (kind: offset, local-datetime,
// local-date, local-time); other numbers are floats.
import { parse, stringify, TomlDate } from "smol-toml";
import { readFileSync } from "node:fs";

const input = readFileSync(0, "utf8");
const mode = process.argv[2];

function toTagged(v) {
    if (typeof v === "bigint") return { $int: v.toString() };
    if (typeof v === "number") {
        if (Number.isNaN(v)) return { $float: "nan" };
        if (v === Infinity) return { $float: "inf" };
        if (v === -Infinity) return { $float: "-inf" };
        if (Object.is(v, -0)) return { $float: "-0" };
        return v;
    }
    if (v instanceof TomlDate) {
        const kind = v.isDate() ? "local-date" : v.isTime() ? "local-time"
            : v.isLocal() ? "local-datetime" : "offset";
        return { $date: kind, v: v.toISOString() };
    }
    if (Array.isArray(v)) return v.map(toTagged);
    if (v !== null && typeof v === "object") {
        const o = {};
        for (const k of Object.keys(v)) o[k] = toTagged(v[k]);
        return o;
    }
    return v;
}

function fromTagged(v) {
    if (Array.isArray(v)) return v.map(fromTagged);
    if (v !== null && typeof v === "object") {
        if ("$int" in v) return BigInt(v.$int);
        if ("$float" in v) return { nan: NaN, inf: Infinity, "-inf": -Infinity, "-0": -0 }[v.$float];
        if ("$date" in v) return new TomlDate(v.v);
        const o = {};
        for (const k of Object.keys(v)) o[k] = fromTagged(v[k]);
        return o;
    }
    return v;
}

if (mode === "parse") {
    process.stdout.write(JSON.stringify(toTagged(parse(input, { integersAsBigInt: true }))));
} else if (mode === "stringify") {
    // Numbers are floats here (integers arrive as BigInt), so 2.0 stays a float.
    process.stdout.write(stringify(fromTagged(JSON.parse(input)), { numbersAsFloat: true }));
} else {
    process.stderr.write("usage: ref_toml.mjs parse|stringify\n");
    process.exit(2);
}
