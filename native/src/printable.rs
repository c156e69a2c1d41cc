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
    // SAFETY: CPython's function, declared above as it is in
    // `Include/cpython/unicodeobject.h` (3.11 to 3.13: `int
    // _PyUnicode_IsPrintable(Py_UCS4 ch)`, `Py_UCS4` a `uint32_t`); a pure
    // lookup in the interpreter's Unicode tables that takes any value (one past
    // 0x10FFFF is not printable) and touches no object. Private API: the
    // public way, `chr(c).isprintable()`, makes a `str` a character.
    unsafe { _PyUnicode_IsPrintable(c) != 0 }
}

pub use toolparse_core::printable::is_printable;
