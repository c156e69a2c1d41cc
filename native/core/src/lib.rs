//! toolparse's engine without Python.
//!
//! The parts of the native core that need nothing of Python: scanning text
//! for markers, lexicons, the JSON and value readers and their helpers, and
//! the grammars' tables, read from data (`grammar`; every registered
//! grammar's data is generated into `grammars/`). The
//! binding crate (`native/`, `toolparse._native`) builds the Python engine's
//! twin on them; nothing here links libpython, so `cargo test -p
//! toolparse-core` runs without it, and nothing here is `unsafe`.
//!
//! Text is code points: the readers are generic over [`lexicon::Unit`] (one,
//! two or four bytes a character, as a PEP 393 string stores them), and
//! positions count characters, as Python's `str` indices do.

#![forbid(unsafe_code)]

pub mod bundled;
pub mod call_env;
pub mod calls;
pub mod calls_json;
pub mod coercion;
pub mod context;
pub mod engine;
pub mod entities;
pub mod fragment;
pub mod fxhash;
pub mod grammar;
pub mod host;
pub mod ids;
pub mod json;
pub mod lexicon;
pub mod markers;
pub mod parser;
pub mod pieces;
pub mod points;
pub mod prefixes;
pub mod printable;
mod printable_table;
pub mod pyliteral;
pub mod runtime;
pub mod rust_calls;
pub mod scan;
pub mod sink;
pub mod start_scanner;
pub mod tags;
pub mod text;
pub mod typer;
pub mod typing;
pub mod value;
pub mod wide;
