//! Reads every generated grammar file (`grammars/*.json`) into tables and
//! says how long each read took: `cargo run --release -p toolparse-core
//! --example read_grammars`.
use std::time::Instant;

use toolparse_core::grammar::Tables;

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .expect("the generated grammars")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    paths.sort();
    for path in paths {
        let text = std::fs::read_to_string(&path).expect("a grammar file");
        let start = Instant::now();
        let tables = Tables::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let took = start.elapsed().as_secs_f64() * 1e3;
        println!("{:16} {:8} bytes {took:8.3} ms", tables.name, text.len());
    }
}
