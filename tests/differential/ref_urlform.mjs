// Reference side of test_urlform.py: npm qs.
//   node ref_urlform.mjs parse      form on stdin -> JSON of qs.parse (no array or depth limits)
//   node ref_urlform.mjs stringify  JSON on stdin -> qs.stringify(v, {encodeValuesOnly: true})
import qs from 'qs';
import { readFileSync } from 'fs';

const input = readFileSync(0, 'utf8');
const mode = process.argv[2];
const limits = { arrayLimit: 1e9, depth: 1e9, parameterLimit: Infinity };
if (mode === 'parse') {
  process.stdout.write(JSON.stringify(qs.parse(input, limits)));
} else if (mode === 'stringify') {
  process.stdout.write(qs.stringify(JSON.parse(input), { encodeValuesOnly: true }));
} else {
  process.stderr.write('usage: ref_urlform.mjs parse|stringify\n');
  process.exit(2);
}
