// Reference side of test_dotenv.py: npm dotenv's parse().
//   node ref_dotenv.mjs parse    dotenv text on stdin -> JSON object on stdout
import dotenv from 'dotenv';
import { readFileSync } from 'fs';

const input = readFileSync(0);
const mode = process.argv[2];
if (mode === 'parse') {
  process.stdout.write(JSON.stringify(dotenv.parse(input)));
} else {
  process.stderr.write('usage: ref_dotenv.mjs parse\n');
  process.exit(2);
}
