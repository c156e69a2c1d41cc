//! toolparse's native core, `toolparse._native`: `toolparse-core`'s engine,
//! driven from Python.
//!
//! The engine lives in the core crate, generic over its host. This crate is
//! the Python host (`ctx::PyHost`: ids from a seed or a caller's factory,
//! pydantic checks, the literals the core's reader declines, the shadow read
//! of unclosed reasoning), the sink that builds the `toolparse.events`
//! objects (`pysink::Out`), and the boundary (`pyengine::Core`), with the
//! Python faces of the core's parts that the differential tests use. The
//! Python engine (`toolparse.engine`) is the reference; the test suite runs
//! both and compares them event for event. Nothing here names a model or a
//! grammar: what runs comes from the compiled tables.

// Every `unsafe` in this crate says why it is sound (`// SAFETY:` above the
// block, `# Safety` on an `unsafe fn`), and each unsafe operation inside an
// `unsafe fn` is in a block of its own with its own note: clippy checks both.
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(clippy::missing_safety_doc)]
#![deny(unsafe_op_in_unsafe_fn)]

/// `$body` with `$units` bound to the code points of `$text`, a
/// `&Bound<PyString>` (one, two or four bytes each, as PEP 393 stores them):
/// the body is compiled for each width. Safe: see [`units`].
#[macro_export]
macro_rules! with_units {
    ($text:expr, $units:ident => $body:expr) => {
        match $crate::units($text) {
            $crate::lexicon::Name::U8($units) => $body,
            $crate::lexicon::Name::U16($units) => $body,
            $crate::lexicon::Name::U32($units) => $body,
        }
    };
}

/// The code points of the Python `str` `text`, in place (one, two or four
/// bytes each, as PEP 393 stores them), for as long as `text` is borrowed.
#[inline(always)]
pub fn units<'a>(text: &'a Bound<'_, pyo3::types::PyString>) -> lexicon::Name<'a> {
    // SAFETY: a `Bound<PyString>` is a `str` (exact or a subclass, which has
    // the same PEP 393 layout), held by a reference that outlives the borrow
    // `'a`, and its `Python` token proves the GIL held; `units_at` asks no more.
    unsafe { units_at(text.as_ptr()) }
}

/// [`units`] of the object at `text`, for a `str` only a raw pointer
/// reaches (an item borrowed from a tuple).
///
/// # Safety
///
/// `text` must point to a `str` object (exact or a subclass), the GIL must be
/// held, and the object must stay alive for `'a` through a reference someone
/// else holds. (Its code points then cannot change during `'a`: CPython writes
/// into a `str` only while building it, or in place when one reference alone
/// holds it, as `s += t` does; `PyString::data` rests on the same.)
#[inline(always)]
pub unsafe fn units_at<'a>(text: *mut pyo3::ffi::PyObject) -> lexicon::Name<'a> {
    use lexicon::Name;
    use pyo3::ffi;
    // SAFETY: `text` is a `str` and the GIL is held (the caller's contract).
    // Under 3.11 a string made by the legacy `Py_UNICODE` API may not have
    // its PEP 393 form yet: `PyUnicode_READY` makes it (0 for every other
    // string, and always under 3.12 and later, which have no such strings).
    if unsafe { ffi::PyUnicode_READY(text) } != 0 {
        // SAFETY: the GIL is held (the caller's contract).
        unsafe { unready() }
    }
    // SAFETY: a ready `str` with the GIL held: its length, its kind (1, 2 or
    // 4, nothing else once ready) and its data (never null once ready, even
    // when empty: the data ends with a NUL) are read as CPython's own macros
    // read them, and the data holds `n` code points of that width, alive and
    // unchanged for `'a` (the caller's contract).
    unsafe {
        let n = ffi::PyUnicode_GET_LENGTH(text) as usize;
        let data = ffi::PyUnicode_DATA(text);
        match ffi::PyUnicode_KIND(text) {
            ffi::PyUnicode_1BYTE_KIND => Name::U8(std::slice::from_raw_parts(data.cast(), n)),
            ffi::PyUnicode_2BYTE_KIND => Name::U16(std::slice::from_raw_parts(data.cast(), n)),
            _ => Name::U32(std::slice::from_raw_parts(data.cast(), n)),
        }
    }
}

/// A `str` `PyUnicode_READY` failed on (under 3.11 only a failed allocation):
/// loud, as a panic is at every boundary; out of line, off the hot path.
///
/// # Safety
///
/// The GIL must be held.
#[cold]
#[inline(never)]
unsafe fn unready() -> ! {
    // SAFETY: the GIL is held (this function's contract).
    let err = PyErr::fetch(unsafe { Python::assume_gil_acquired() });
    panic!("a str whose code points could not be read: {err}");
}

pub mod calls_py;
pub mod ctx;
pub mod events;
pub mod fastvalue;
pub mod held;
pub mod kept;
pub mod printable;
pub mod pycoerce;
pub mod pyengine;
pub mod pyjson;
pub mod pylexicon;
pub mod pyliteral;
pub mod pyscanner;
pub mod pysink;
pub mod pytext;
pub mod pytyper;
pub mod pyvalue;
pub mod rt;
pub mod tables;
pub mod typer;

// (the core's modules, under the names the binding's modules use for them)
pub use toolparse_core::{
    calls, calls_json, engine, entities, fxhash, json, lexicon, markers, pieces, points, prefixes,
    scan, tags, text, typing, value, wide,
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
    m.add_function(wrap_pyfunction!(pyengine::_plans_worked_out, m)?)?;
    m.add_class::<pylexicon::PyLexicon>()?;
    m.add_class::<pytext::PyTextScanner>()?;
    m.add_class::<pytyper::PySchemaTyper>()?;
    m.add_class::<tables::PyTables>()?;
    fastvalue::add_functions(m)?;
    m.add_class::<pyvalue::PyValueReader>()?;
    pyjson::register(m)?;
    pyliteral::add_functions(m)?;
    pycoerce::add_functions(m)?;
    pyscanner::add_functions(m)?; // (tests: the start scanner from data against the reference)
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

#[cfg(test)]
mod tests {
    use super::*;
    use pyo3::types::PyString;

    #[test]
    fn units_read_every_width_and_a_subclass_in_place() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let sub = py
                .eval(c"type('Sub', (str,), {})", None, None)
                .expect("a subclass of str");
            for text in ["", "ascii", "café ÿ", "Ω ≠ ∞", "emoji 🙂 and 𝕏"] {
                let points: Vec<u32> = text.chars().map(u32::from).collect();
                let plain = PyString::new(py, text);
                assert_eq!(units(&plain).code_points(), points);
                assert_eq!(with_units!(&plain, u => u.len()), points.len());
                // (a subclass's characters lie apart from the object)
                let other = sub.call1((text,)).expect("an instance");
                let other = other.downcast::<PyString>().expect("a str");
                assert_eq!(units(other).code_points(), points);
            }
        });
    }
}
