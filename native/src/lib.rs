//! toolparse's native core, `toolparse._native`.
//!
//! The Python engine (`toolparse.engine`) is the reference; this crate runs
//! parts of the same engine natively, behind the same Python interface, and
//! the test suite runs both and compares them event for event. It never
//! names a model or a grammar: what it runs comes from the compiled tables.
//!
//! What is native today: the per-delta path (`Shell.feed`), with the engine's
//! lanes (`Lane`, decided by [`scan`]) and the events they build.

/// `$body` with `$units` bound to the code points of the Python `str` at
/// `$text` (one, two or four bytes each, as PEP 393 stores them): the body is
/// compiled for each width. Unsafe: `$text` must be a `str`, the GIL held.
#[macro_export]
macro_rules! with_units {
    ($text:expr, $units:ident => $body:expr) => {{
        let text: *mut pyo3::ffi::PyObject = $text;
        let n = pyo3::ffi::PyUnicode_GET_LENGTH(text) as usize;
        let data = pyo3::ffi::PyUnicode_DATA(text);
        match pyo3::ffi::PyUnicode_KIND(text) {
            pyo3::ffi::PyUnicode_1BYTE_KIND => {
                let $units = std::slice::from_raw_parts(data as *const u8, n);
                $body
            }
            pyo3::ffi::PyUnicode_2BYTE_KIND => {
                let $units = std::slice::from_raw_parts(data as *const u16, n);
                $body
            }
            _ => {
                let $units = std::slice::from_raw_parts(data as *const u32, n);
                $body
            }
        }
    }};
}

pub mod calls_py;
pub mod ctx;
pub mod engine;
pub mod events;
pub mod fast;
pub mod fastvalue;
pub mod held;
pub mod kept;
pub mod machine;
pub mod points;
pub mod printable;
pub mod pycoerce;
pub mod pyengine;
pub mod pyjson;
pub mod pylexicon;
pub mod pyliteral;
pub mod pytext;
pub mod pytyper;
pub mod pyvalue;
pub mod regions;
pub mod rt;
pub mod tables;
pub mod typer;

// (the core's modules, under the names the binding's modules use for them)
pub use toolparse_core::{
    calls, calls_json, entities, fxhash, json, lexicon, markers, pieces, prefixes, scan, tags,
    text, typing, value, wide,
};

use pyo3::prelude::*;

// The allocator of the crate's own memory: mimalloc, as pydantic-core's. A
// call's reading makes and lets go of a few dozen small buffers, and glibc's
// malloc and free cost about 150 instructions a pair: with mimalloc a run of
// fifty small calls takes 5% fewer instructions. (Python's own objects stay
// with Python's allocator.)
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // (the core's readers say what this interpreter's `str.isprintable` says)
    toolparse_core::printable::use_test(printable::interpreter_is_printable);
    m.add_class::<calls_py::PyMemberCall>()?;
    m.add_class::<calls_py::CallArgs>()?;
    m.add_class::<pyengine::Core>()?;
    pyengine::add_feed(&m.py().get_type::<pyengine::Core>())?;
    m.add_function(wrap_pyfunction!(pyengine::_record_reads, m)?)?;
    m.add_class::<pylexicon::PyLexicon>()?;
    m.add_class::<pytext::PyTextScanner>()?;
    m.add_class::<pytyper::PySchemaTyper>()?;
    m.add_class::<tables::PyTables>()?;
    fastvalue::add_functions(m)?;
    m.add_class::<pyvalue::PyValueReader>()?;
    pyjson::register(m)?;
    pyliteral::add_functions(m)?;
    pycoerce::add_functions(m)?;
    // (the engine's bounds, which the tests compare with the reference's)
    m.add("THOUGHT_WINDOW", engine::THOUGHT_WINDOW)?;
    m.add("GATHER", engine::GATHER)?;
    m.add("GATHER_QUIET", engine::GATHER_QUIET)?;
    m.add("WINDOW", engine::WINDOW)?;
    m.add("MAX_KEPT", scan::MAX_KEPT)?;
    m.add("LOOKAHEAD", rt::LOOKAHEAD_CHARS)?;
    m.add("TRIAL", engine::TRIAL)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
