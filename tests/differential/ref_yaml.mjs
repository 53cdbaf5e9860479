// Reference YAML 1.2 implementation for test_yaml.py: the npm package `yaml` (eemeli/yaml).
//   node ref_yaml.mjs parse [--multi]  YAML on stdin -> tagged JSON on stdout
//   node ref_yaml.mjs stringify        tagged JSON on stdin -> YAML on stdout
// Tagged JSON keeps what plain JSON loses: {"$int": "123"} integers (exact, as BigInt),
// {"$float": "nan"|"inf"|"-inf"|"-0"} special floats, {"$bytes": base64}, {"$map": [[k, v], ...]}
// mappings (JavaScript objects would move integer-like keys first); other numbers are floats.
import YAML from "yaml";
import { readFileSync } from "node:fs";
import { taggedFloatValue, toTagged, walkPlain } from "./ref_common.mjs";

const input = readFileSync(0, "utf8");
const mode = process.argv[2];

// Bytes, dates and mappings (ref_common.mjs tags numbers, arrays and plain objects).
function yamlTagged(v, rec) {
    if (v instanceof Uint8Array) return { $bytes: Buffer.from(v).toString("base64") };
    if (v instanceof Date) return { $date: v.toISOString() };
    if (v instanceof Map) return { $map: [...v].map(([k, x]) => [rec(k), rec(x)]) };
    return undefined;
}

// A float: keep a fraction digit so that 2.0 is not written as the integer 2.
function floatScalar(f) {
    const s = new YAML.Scalar(f);
    s.minFractionDigits = 1;
    return s;
}

function fromTagged(v) {
    if (typeof v === "number") return floatScalar(v);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
        if ("$int" in v) return BigInt(v.$int);
        if ("$float" in v) return floatScalar(taggedFloatValue(v.$float));
        if ("$map" in v) return new Map(v.$map.map(([k, x]) => [fromTagged(k), fromTagged(x)]));
        if ("$bytes" in v) return new Uint8Array(Buffer.from(v.$bytes, "base64"));
    }
    return walkPlain(v, fromTagged);
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
    const toJS = { maxAliasCount: -1, mapAsMap: true };
    const values = docs.map((d) => toTagged(d.toJS(toJS), yamlTagged));
    const out = process.argv.includes("--multi") ? values : values[0] ?? null;
    process.stdout.write(JSON.stringify(out));
} else if (mode === "stringify") {
    const doc = new YAML.Document(fromTagged(JSON.parse(input)), { customTags: ["binary"] });
    process.stdout.write(doc.toString());
} else {
    process.stderr.write("usage: ref_yaml.mjs parse|stringify\n");
    process.exit(2);
}
