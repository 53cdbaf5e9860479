// Reference side of test_json5.py: json5 (npm json5) parses and stringifies.
//   node ref_json5.mjs parse       JSON5 on stdin -> tagged JSON on stdout
//   node ref_json5.mjs parse-each  JSON array of JSON5 texts -> JSON array of parse results
//   node ref_json5.mjs stringify [SPACE] tagged JSON on stdin -> JSON5.stringify(v, null, SPACE)
// A parse error prints {"$error": message}.
// Tagged JSON: non-finite numbers are {"$float": "NaN" | "Infinity" | "-Infinity"}.
import JSON5 from 'json5';
import { runTextReference } from './ref_common.mjs';

const space = process.argv[3] ? Number(process.argv[3]) : undefined;
runTextReference('ref_json5.mjs', (text) => JSON5.parse(text),
                 (v) => JSON5.stringify(v, null, space));
