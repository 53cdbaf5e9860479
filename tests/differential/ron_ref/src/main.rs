// ron_ref decode: RON on stdin -> ron::Value -> JSON on stdout (maps as [[key, value], ...]
//                 pairs so that any key kind survives; floats always with a '.' or exponent).
// ron_ref encode [--pretty]: JSON on stdin -> serde_json::Value -> RON on stdout.
use std::io::{Read, Write};

fn json_string(out: &mut String, s: &str) {
    out.push_str(&serde_json::to_string(s).unwrap());
}

fn float(out: &mut String, f: f64) {
    if f.is_nan() {
        out.push_str("NaN");
    } else if f.is_infinite() {
        out.push_str(if f > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        let s = format!("{:?}", f); // Debug keeps ".0" / exponent
        out.push_str(&s);
    }
}

fn walk(out: &mut String, v: &ron::Value) {
    match v {
        ron::Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        ron::Value::Char(c) => json_string(out, &c.to_string()),
        ron::Value::String(s) => json_string(out, s),
        ron::Value::Number(ron::Number::Integer(i)) => out.push_str(&i.to_string()),
        ron::Value::Number(ron::Number::Float(f)) => float(out, f.get()),
        ron::Value::Option(None) | ron::Value::Unit => out.push_str("null"),
        ron::Value::Option(Some(x)) => walk(out, x),
        ron::Value::Seq(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                walk(out, x);
            }
            out.push(']');
        }
        ron::Value::Map(m) => {
            out.push_str("{\"$pairs\":[");
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                walk(out, k);
                out.push(',');
                walk(out, x);
                out.push(']');
            }
            out.push_str("]}");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mode = args.get(1).map(String::as_str).unwrap_or("");
    let out = match mode {
        "decode" => match ron::from_str::<ron::Value>(&input) {
            Ok(v) => {
                let mut s = String::new();
                walk(&mut s, &v);
                s
            }
            Err(e) => {
                eprintln!("ron error: {}", e);
                std::process::exit(2);
            }
        },
        "encode" => {
            let v: serde_json::Value = serde_json::from_str(&input).unwrap();
            if args.iter().any(|a| a == "--pretty") {
                ron::ser::to_string_pretty(&v, ron::ser::PrettyConfig::default()).unwrap()
            } else {
                ron::to_string(&v).unwrap()
            }
        }
        _ => {
            eprintln!("usage: ron_ref decode|encode [--pretty]");
            std::process::exit(64);
        }
    };
    std::io::stdout().write_all(out.as_bytes()).unwrap();
}
