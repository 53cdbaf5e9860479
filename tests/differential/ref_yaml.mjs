// Reference YAML 1.2 implementation for test_yaml.py: the npm package `yaml` (eemeli/yaml).
//   node ref_yaml.mjs parse [--multi]  YAML on stdin -> tagged JSON on stdout
//   node ref_yaml.mjs stringify        tagged JSON on stdin -> YAML on stdout
// Tagged JSON keeps what plain JSON loses: {"$int": "123"} integers (exact, as BigInt),
// {"$float": "nan"|"inf"|"-inf"|"-0"} special floats, {"$bytes": base64}, {"$map": [[k, v], ...]}
// mappings (JavaScript objects would move integer-like keys first); other numbers are floats.
import YAML from "yaml";
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
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString("base64") };
    if (v instanceof Date) return { $date: v.toISOString() };
    if (Array.isArray(v)) return v.map(toTagged);
    if (v instanceof Map) return { $map: [...v].map(([k, x]) => [toTagged(k), toTagged(x)]) };
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
        if ("$float" in v) {
            const f = { nan: NaN, inf: Infinity, "-inf": -Infinity, "-0": -0 }[v.$float];
            const s = new YAML.Scalar(f);
            s.minFractionDigits = 1;
            return s;
        }
        if ("$map" in v) return new Map(v.$map.map(([k, x]) => [fromTagged(k), fromTagged(x)]));
        if ("$bytes" in v) return new Uint8Array(Buffer.from(v.$bytes, "base64"));
        const o = {};
        for (const k of Object.keys(v)) o[k] = fromTagged(v[k]);
        return o;
    }
    if (typeof v === "number") {
        // A float: keep a fraction digit so that 2.0 is not written as the integer 2.
        const s = new YAML.Scalar(v);
        s.minFractionDigits = 1;
        return s;
    }
    return v;
}

if (mode === "parse") {
    const opts = { intAsBigInt: true, schema: "core", customTags: ["binary"], uniqueKeys: false };
    const docs = YAML.parseAllDocuments(input, opts);
    for (const d of docs) {
        if (d.errors && d.errors.length) {
            process.stderr.write(String(d.errors[0]) + "\n");
            process.exit(1);
        }
    }
    const values = docs.map((d) => toTagged(d.toJS({ maxAliasCount: -1, mapAsMap: true })));
    const out = process.argv.includes("--multi") ? values : values[0] ?? null;
    process.stdout.write(JSON.stringify(out));
} else if (mode === "stringify") {
    const doc = new YAML.Document(fromTagged(JSON.parse(input)), { customTags: ["binary"] });
    process.stdout.write(doc.toString());
} else {
    process.stderr.write("usage: ref_yaml.mjs parse|stringify\n");
    process.exit(2);
}
