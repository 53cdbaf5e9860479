// Reference side of test_edn.py: edn-data (npm) parses and generates EDN.
//   node ref_edn.mjs parse          EDN on stdin -> tagged JSON on stdout
//   node ref_edn.mjs parse-each     JSON array of EDN texts -> JSON array of parse results
//   node ref_edn.mjs simple [keys]  tagged JSON -> toEDNStringFromSimpleObject (keys: keyword
//                                   (default) or string)
//   node ref_edn.mjs rich           tagged JSON -> toEDNString (keywords, sets, lists, chars,
//                                   symbols, tags, #inst from the tags below)
// A parse error prints {"$error": message}.
//
// Tagged JSON, both ways: {"$float": "NaN"|"Infinity"|"-Infinity"}, {"$bigint": "digits"},
// {"$inst": "RFC 3339"} (parse: the instant in milliseconds, {"$inst": ms}), and for `rich`
// input {"$key": name}, {"$sym": name}, {"$char": c}, {"$set": [...]}, {"$list": [...]},
// {"$map": [[k, v], ...]}, {"$tag": name, "$val": v}. Parsed EDN uses polycodec's shapes:
// keywords and symbols as their names, characters as strings, lists and sets as arrays, a
// tagged element #t v as {"#t": v}.
import { parseEDNString, toEDNString, toEDNStringFromSimpleObject } from 'edn-data';
import { orError, parseModes, runModes } from './ref_common.mjs';

const parseOptions = {
  mapAs: 'object',
  keywordAs: 'string',
  symbolAs: 'string',
  charAs: 'string',
  listAs: 'array',
  setAs: 'array',
};

function tag(v) {
  if (typeof v === 'number' && !Number.isFinite(v)) return { $float: String(v) };
  if (typeof v === 'bigint') return { $bigint: v.toString() };
  if (v instanceof Date) return { $inst: v.getTime() };
  if (Array.isArray(v)) return v.map(tag);
  if (v && typeof v === 'object') {
    if (typeof v.tag === 'string' && 'val' in v && Object.keys(v).length === 2) {
      return { ['#' + v.tag]: tag(v.val) };
    }
    const o = {};
    for (const k of Object.keys(v)) o[k] = tag(v[k]);
    return o;
  }
  return v;
}

function one(v, k) {
  return v && typeof v === 'object' && !Array.isArray(v) && k in v;
}

// Tagged JSON -> the values edn-data's generators take.
function untag(v, rich) {
  if (Array.isArray(v)) return v.map((x) => untag(x, rich));
  if (v && typeof v === 'object') {
    if (one(v, '$float')) return Number(v.$float);
    if (one(v, '$bigint')) return BigInt(v.$bigint);
    if (one(v, '$inst')) return new Date(v.$inst);
    if (rich) {
      if (one(v, '$key')) return { key: v.$key };
      if (one(v, '$sym')) return { sym: v.$sym };
      if (one(v, '$char')) return { char: v.$char };
      if (one(v, '$set')) return { set: untag(v.$set, rich) };
      if (one(v, '$list')) return { list: untag(v.$list, rich) };
      if (one(v, '$map')) return { map: v.$map.map(([k, x]) => [untag(k, rich), untag(x, rich)]) };
      if (one(v, '$tag')) return { tag: v.$tag, val: untag(v.$val, rich) };
      // a plain JSON object: a map with string keys
      return { map: Object.keys(v).map((k) => [k, untag(v[k], rich)]) };
    }
    const o = {};
    for (const k of Object.keys(v)) o[k] = untag(v[k], rich);
    return o;
  }
  return v;
}

runModes('ref_edn.mjs parse|parse-each|simple [keyword|string]|rich', {
  ...parseModes(orError((text) => tag(parseEDNString(text, parseOptions)))),
  simple: (input) => {
    const keysAs = process.argv[3] || 'keyword';
    return toEDNStringFromSimpleObject(untag(JSON.parse(input), false), { keysAs });
  },
  rich: (input) => toEDNString(untag(JSON.parse(input), true)),
});
