// Reference bencode implementation for test_bencode.py: npm "bencode" 4 (webtorrent).
//   node ref_bencode.mjs encode   JSON on stdin -> bencode bytes on stdout
//   node ref_bencode.mjs decode   bencode bytes on stdin -> JSON on stdout, byte strings as
//                                 {"$utf8": "text"} when valid UTF-8, else {"$hex": "..."}
//   node ref_bencode.mjs reencode bencode bytes on stdin -> encode(decode(bytes)) on stdout
import bencode from 'bencode';
import fs from 'fs';

const mode = process.argv[2];
const input = fs.readFileSync(0);
const utf8 = new TextDecoder('utf-8', { fatal: true });

function view(v) {
    if (v instanceof Uint8Array) {
        try {
            return { $utf8: utf8.decode(v) };
        } catch {
            return { $hex: Buffer.from(v).toString('hex') };
        }
    }
    if (Array.isArray(v)) {
        return v.map(view);
    }
    if (v !== null && typeof v === 'object') {
        const out = {};
        for (const k of Object.keys(v)) {
            out[k] = view(v[k]);
        }
        return out;
    }
    return v;
}

if (mode === 'encode') {
    process.stdout.write(Buffer.from(bencode.encode(JSON.parse(input.toString('utf8')))));
} else if (mode === 'decode') {
    process.stdout.write(JSON.stringify(view(bencode.decode(input))));
} else if (mode === 'reencode') {
    process.stdout.write(Buffer.from(bencode.encode(bencode.decode(input))));
} else {
    console.error('usage: ref_bencode.mjs encode|decode|reencode');
    process.exit(2);
}
