//! Python's own test of a printable character, handed to the core at the
//! module's start (`toolparse_core::printable::use_test`), so that both
//! engines say what this interpreter's `str.isprintable` says, under every
//! Python version.

extern "C" {
    /// CPython's own test behind `str.isprintable` (`Py_UNICODE_ISPRINTABLE`),
    /// from the interpreter the extension is loaded into.
    fn _PyUnicode_IsPrintable(ch: u32) -> std::os::raw::c_int;
}

/// CPython's `Py_UNICODE_ISPRINTABLE(c)`.
pub fn interpreter_is_printable(c: u32) -> bool {
    // SAFETY: a pure function of a code point, exported by the interpreter
    // this extension is loaded into; any `u32` is a valid argument.
    unsafe { _PyUnicode_IsPrintable(c) != 0 }
}

pub use toolparse_core::printable::is_printable;
