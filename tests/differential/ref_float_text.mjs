// Reference side of test_float_text.py: the float text of JavaScript.
//   node ref_float_text.mjs   one double per line on stdin as 16 hex digits (its IEEE 754
//                             bits, big-endian) -> JSON.stringify of it, one per line
// JSON.stringify writes a finite number as Number.prototype.toString does (ECMA-262
// section 6.1.6.1.20: the shortest round-trip digits, exponent notation below 1e-6 and from
// 1e21 on, "e+" in positive exponents); -0 is "0".
import { readFileSync } from 'fs';

const view = new DataView(new ArrayBuffer(8));
const out = [];
for (const line of readFileSync(0, 'utf8').split('\n')) {
  if (line === '') continue;
  view.setBigUint64(0, BigInt('0x' + line));
  out.push(JSON.stringify(view.getFloat64(0)));
}
process.stdout.write(out.join('\n') + '\n');
