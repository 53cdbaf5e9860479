// Reference BSON implementation for test_bson.py: js-bson (npm "bson" 7).
//   node ref_bson.mjs encode   canonical Extended JSON v2 on stdin -> BSON bytes on stdout
//   node ref_bson.mjs decode   BSON bytes on stdin -> canonical Extended JSON v2 on stdout
//   node ref_bson.mjs encode-lines / decode-lines   the same for many documents at once: one
//        per line, BSON as standard base64 (test_bson_fidelity.py)
// Canonical mode keeps every type apart (Int32, Long, Double, Decimal128 ...), so the Python
// side compares exact values without going through JavaScript numbers.
import { BSON, EJSON } from 'bson';
import fs from 'fs';

const mode = process.argv[2];
const input = fs.readFileSync(0);
const deserializeOptions = {
    promoteValues: false,
    promoteLongs: false,
    promoteBuffers: false,
    bsonRegExp: true,
    validation: { utf8: true },
};
const lines = () => input.toString('utf8').split('\n').filter((l) => l.length > 0);
if (mode === 'encode-lines') {
    const out = lines().map((l) =>
        Buffer.from(BSON.serialize(EJSON.parse(l, { relaxed: false }))).toString('base64'));
    process.stdout.write(out.join('\n') + '\n');
} else if (mode === 'decode-lines') {
    const out = lines().map((l) =>
        EJSON.stringify(BSON.deserialize(Buffer.from(l, 'base64'), deserializeOptions),
                        { relaxed: false }));
    process.stdout.write(out.join('\n') + '\n');
} else if (mode === 'encode') {
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
