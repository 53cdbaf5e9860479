// Reference side of test_json5.py: json5 (npm json5) parses and stringifies.
//   node ref_json5.mjs parse       JSON5 on stdin -> tagged JSON on stdout
//   node ref_json5.mjs parse-each  JSON array of JSON5 texts -> JSON array of parse results
//   node ref_json5.mjs stringify [SPACE] tagged JSON on stdin -> JSON5.stringify(v, null, SPACE)
// A parse error prints {"$error": message}.
// Tagged JSON: non-finite numbers are {"$float": "NaN" | "Infinity" | "-Infinity"}.
import JSON5 from 'json5';
import { readFileSync } from 'fs';

function tag(v) {
  if (typeof v === 'number' && !Number.isFinite(v)) return { $float: String(v) };
  if (Array.isArray(v)) return v.map(tag);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v)) o[k] = tag(v[k]);
    return o;
  }
  return v;
}
function untag(v) {
  if (Array.isArray(v)) return v.map(untag);
  if (v && typeof v === 'object') {
    if (Object.keys(v).length === 1 && typeof v.$float === 'string') return Number(v.$float);
    const o = {};
    for (const k of Object.keys(v)) o[k] = untag(v[k]);
    return o;
  }
  return v;
}

const input = readFileSync(0, 'utf8');
const mode = process.argv[2];
if (mode === 'parse') {
  let v;
  try {
    v = tag(JSON5.parse(input));
  } catch (e) {
    v = { $error: String(e.message) };
  }
  process.stdout.write(JSON.stringify(v));
} else if (mode === 'parse-each') {
  // A JSON array of documents in, a JSON array of tagged results (or {$error}) out.
  const out = JSON.parse(input).map((doc) => {
    try {
      return tag(JSON5.parse(doc));
    } catch (e) {
      return { $error: String(e.message) };
    }
  });
  process.stdout.write(JSON.stringify(out));
} else if (mode === 'stringify') {
  process.stdout.write(JSON5.stringify(untag(JSON.parse(input)), null, process.argv[3] ? Number(process.argv[3]) : undefined));
} else {
  throw new Error('usage: ref_json5.mjs parse|parse-each|stringify');
}
