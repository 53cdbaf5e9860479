// The Rust serde crates next to polycodec (loadtest/external/run), two paths per crate:
// "generic" decodes into the crate's value type (serde_json::Value, serde_cbor::Value,
// toml::Value, serde_yaml::Value, ron::Value; rmp-serde into serde_json::Value, as Debian has
// no rmpv; csv StringRecords) and encodes that value back; "typed" decodes into
// #[derive(Deserialize)] structs for bench.json's records and encodes them.
//   polycodec-rust-peer DATADIR MS    prints format,op,library,ops_per_s lines
// Decoders read the bytes our encoder wrote (DATADIR/bench.<format>); every typed decode is
// checked equal to the records serde_json reads from bench.json before anything is timed.
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
struct Record {
    id: i64,
    active: bool,
    score: f64,
    name: String,
    tags: Vec<String>,
    samples: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
struct Wrapped {
    records: Vec<Record>,
}

// One CSV row of bench.json as our CSV encoder flattens it (tags.0 ... samples.15).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
struct CsvRow {
    #[serde(rename = "id")]
    f_id: i64,
    #[serde(rename = "active")]
    f_active: bool,
    #[serde(rename = "score")]
    f_score: f64,
    #[serde(rename = "name")]
    f_name: String,
    #[serde(rename = "tags.0")]
    f_tags_0: String,
    #[serde(rename = "tags.1")]
    f_tags_1: String,
    #[serde(rename = "tags.2")]
    f_tags_2: String,
    #[serde(rename = "samples.0")]
    f_samples_0: i64,
    #[serde(rename = "samples.1")]
    f_samples_1: i64,
    #[serde(rename = "samples.2")]
    f_samples_2: i64,
    #[serde(rename = "samples.3")]
    f_samples_3: i64,
    #[serde(rename = "samples.4")]
    f_samples_4: i64,
    #[serde(rename = "samples.5")]
    f_samples_5: i64,
    #[serde(rename = "samples.6")]
    f_samples_6: i64,
    #[serde(rename = "samples.7")]
    f_samples_7: i64,
    #[serde(rename = "samples.8")]
    f_samples_8: i64,
    #[serde(rename = "samples.9")]
    f_samples_9: i64,
    #[serde(rename = "samples.10")]
    f_samples_10: i64,
    #[serde(rename = "samples.11")]
    f_samples_11: i64,
    #[serde(rename = "samples.12")]
    f_samples_12: i64,
    #[serde(rename = "samples.13")]
    f_samples_13: i64,
    #[serde(rename = "samples.14")]
    f_samples_14: i64,
    #[serde(rename = "samples.15")]
    f_samples_15: i64,
}

fn measure<F: FnMut() -> usize>(mut f: F, ms: u64) -> f64 {
    let mut rates = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let window = Duration::from_millis(ms);
        let mut n = 0u64;
        let mut now = start;
        while now - start < window {
            black_box(f());
            n += 1;
            now = Instant::now();
        }
        rates.push(n as f64 / (now - start).as_secs_f64());
    }
    rates.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rates[2]
}

fn emit<F: FnMut() -> usize>(fmt: &str, op: &str, lib: &str, ms: u64, f: F) {
    println!("{},{},{},{:.1}", fmt, op, lib, measure(f, ms));
}

// A library's two rows of a format: encode, then decode.
fn lib_rows<E: FnMut() -> usize, D: FnMut() -> usize>(fmt: &str, lib: &str, ms: u64, enc: E, dec: D) {
    emit(fmt, "encode", lib, ms, enc);
    emit(fmt, "decode", lib, ms, dec);
}

// The records in a generic value of the array of records.
fn array_len(v: serde_json::Value) -> usize {
    v.as_array().unwrap().len()
}

fn read(dir: &str, name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/{}", dir, name)).unwrap_or_else(|e| panic!("{}: {}", name, e))
}

fn check<T: PartialEq + std::fmt::Debug>(what: &str, got: &T, want: &T) {
    if got != want {
        eprintln!("rust peer: {} reads our bytes as different data", what);
        std::process::exit(1);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = &args[1];
    let ms: u64 = args[2].parse().unwrap();
    let json = read(dir, "bench.json");
    let recs: Vec<Record> = serde_json::from_slice(&json).unwrap();
    let jv: serde_json::Value = serde_json::from_slice(&json).unwrap();

    // serde_json
    {
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        lib_rows("json", "serde_json 1.0.87 generic", ms, || serde_json::to_vec(&v).unwrap().len(),
            || array_len(serde_json::from_slice(&json).unwrap()));
        lib_rows("json", "serde_json 1.0.87 typed", ms, || serde_json::to_vec(&recs).unwrap().len(),
            || serde_json::from_slice::<Vec<Record>>(&json).unwrap().len());
    }
    // rmp-serde (MessagePack)
    {
        let b = read(dir, "bench.msgpack");
        let v: serde_json::Value = rmp_serde::from_slice(&b).unwrap();
        check("rmp-serde generic", &v, &jv);
        let t: Vec<Record> = rmp_serde::from_slice(&b).unwrap();
        check("rmp-serde typed", &t, &recs);
        lib_rows("msgpack", "rmp-serde 1.1.1 generic (serde_json::Value)", ms,
            || rmp_serde::to_vec_named(&v).unwrap().len(), || array_len(rmp_serde::from_slice(&b).unwrap()));
        lib_rows("msgpack", "rmp-serde 1.1.1 typed", ms, || rmp_serde::to_vec_named(&recs).unwrap().len(),
            || rmp_serde::from_slice::<Vec<Record>>(&b).unwrap().len());
    }
    // serde_cbor
    {
        let b = read(dir, "bench.cbor");
        let v: serde_cbor::Value = serde_cbor::from_slice(&b).unwrap();
        let t: Vec<Record> = serde_cbor::from_slice(&b).unwrap();
        check("serde_cbor typed", &t, &recs);
        lib_rows("cbor", "serde_cbor 0.11.2 generic", ms, || serde_cbor::to_vec(&v).unwrap().len(), || {
            match serde_cbor::from_slice::<serde_cbor::Value>(&b).unwrap() {
                serde_cbor::Value::Array(a) => a.len(),
                _ => 0,
            }
        });
        lib_rows("cbor", "serde_cbor 0.11.2 typed", ms, || serde_cbor::to_vec(&recs).unwrap().len(),
            || serde_cbor::from_slice::<Vec<Record>>(&b).unwrap().len());
    }
    // csv
    {
        let b = read(dir, "bench.csv");
        let rows = |b: &[u8]| -> Vec<csv::StringRecord> {
            csv::Reader::from_reader(b).records().map(|r| r.unwrap()).collect()
        };
        let sr = rows(&b);
        let header = csv::Reader::from_reader(&b[..]).headers().unwrap().clone();
        check("csv generic rows", &sr.len(), &recs.len());
        let typed = |b: &[u8]| -> Vec<CsvRow> {
            csv::Reader::from_reader(b).deserialize().map(|r| r.unwrap()).collect()
        };
        let t = typed(&b);
        check("csv typed", &t.len(), &recs.len());
        check("csv typed names", &t.iter().map(|r| r.f_name.clone()).collect::<Vec<_>>(),
              &recs.iter().map(|r| r.name.clone()).collect::<Vec<_>>());
        lib_rows("csv", "csv 1.1.6 generic (StringRecord)", ms, || {
            let mut w = csv::Writer::from_writer(Vec::with_capacity(b.len()));
            w.write_record(&header).unwrap();
            for r in &sr {
                w.write_record(r).unwrap();
            }
            w.into_inner().unwrap().len()
        }, || rows(&b).len());
        lib_rows("csv", "csv 1.1.6 typed", ms, || {
            let mut w = csv::Writer::from_writer(Vec::with_capacity(b.len()));
            for r in &t {
                w.serialize(r).unwrap();
            }
            w.into_inner().unwrap().len()
        }, || typed(&b).len());
    }
    // toml ({"records": [...]}, as bench writes it)
    {
        let s = String::from_utf8(read(dir, "bench.toml")).unwrap();
        let v: toml::Value = toml::from_str(&s).unwrap();
        let t: Wrapped = toml::from_str(&s).unwrap();
        check("toml typed", &t.records, &recs);
        lib_rows("toml", "toml 0.5.11 generic", ms, || toml::to_string(&v).unwrap().len(),
            || s.parse::<toml::Value>().unwrap().as_table().unwrap().len());
        lib_rows("toml", "toml 0.5.11 typed", ms, || toml::to_string(&t).unwrap().len(),
            || toml::from_str::<Wrapped>(&s).unwrap().records.len());
    }
    // serde_yaml
    {
        let s = String::from_utf8(read(dir, "bench.yaml")).unwrap();
        let v: serde_yaml::Value = serde_yaml::from_str(&s).unwrap();
        let t: Vec<Record> = serde_yaml::from_str(&s).unwrap();
        check("serde_yaml typed", &t, &recs);
        lib_rows("yaml", "serde_yaml 0.8.26 generic", ms, || serde_yaml::to_string(&v).unwrap().len(), || {
            serde_yaml::from_str::<serde_yaml::Value>(&s).unwrap().as_sequence().unwrap().len()
        });
        lib_rows("yaml", "serde_yaml 0.8.26 typed", ms, || serde_yaml::to_string(&recs).unwrap().len(),
            || serde_yaml::from_str::<Vec<Record>>(&s).unwrap().len());
    }
    // ron
    {
        let s = String::from_utf8(read(dir, "bench.ron")).unwrap();
        let v: ron::Value = ron::from_str(&s).unwrap();
        lib_rows("ron", "ron 0.7.1 generic", ms, || ron::to_string(&v).unwrap().len(), || {
            match ron::from_str::<ron::Value>(&s).unwrap() {
                ron::Value::Seq(a) => a.len(),
                _ => 0,
            }
        });
        match ron::from_str::<Vec<Record>>(&s) {
            Ok(t) => {
                check("ron typed", &t, &recs);
                lib_rows("ron", "ron 0.7.1 typed", ms, || ron::to_string(&recs).unwrap().len(),
                    || ron::from_str::<Vec<Record>>(&s).unwrap().len());
            }
            Err(e) => println!("# ron typed: not timed (ron reads our map-form records only as a Value: {})", e),
        }
    }
}
