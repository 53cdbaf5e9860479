// Reference side of test_hjson.py: hjson-js (npm hjson) parses and stringifies.
//   node ref_hjson.mjs parse       HJSON on stdin -> tagged JSON on stdout
//   node ref_hjson.mjs parse-each  JSON array of HJSON texts -> JSON array of parse results
//   node ref_hjson.mjs stringify   tagged JSON on stdin -> Hjson.stringify (default options)
// A parse error prints {"$error": message}.
// Tagged JSON: non-finite numbers are {"$float": "NaN" | "Infinity" | "-Infinity"}.
import Hjson from 'hjson';
import { runTextReference } from './ref_common.mjs';

runTextReference('ref_hjson.mjs', (text) => Hjson.parse(text), (v) => Hjson.stringify(v));
