// Reference BSON implementation for test_bson.py: js-bson (npm "bson" 7).
//   node ref_bson.mjs encode   canonical Extended JSON v2 on stdin -> BSON bytes on stdout
//   node ref_bson.mjs decode   BSON bytes on stdin -> canonical Extended JSON v2 on stdout
// Canonical mode keeps every type apart (Int32, Long, Double, Decimal128 ...), so the Python
// side compares exact values without going through JavaScript numbers.
import { BSON, EJSON } from 'bson';
import fs from 'fs';

const mode = process.argv[2];
const input = fs.readFileSync(0);
if (mode === 'encode') {
    const value = EJSON.parse(input.toString('utf8'), { relaxed: false });
    process.stdout.write(Buffer.from(BSON.serialize(value)));
} else if (mode === 'decode') {
    const value = BSON.deserialize(input, {
        promoteValues: false,
        promoteLongs: false,
        promoteBuffers: false,
        bsonRegExp: true,
        validation: { utf8: true },
    });
    process.stdout.write(EJSON.stringify(value, { relaxed: false }));
} else {
    console.error('usage: ref_bson.mjs encode|decode');
    process.exit(2);
}
