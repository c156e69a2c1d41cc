//! Python's own test of a printable character, for the core's readers that
//! must say what `str.isprintable` says (an error's message, a lane's take).

extern "C" {
    /// CPython's own test behind `str.isprintable` (`Py_UNICODE_ISPRINTABLE`),
    /// from the interpreter the extension is loaded into.
    fn _PyUnicode_IsPrintable(ch: u32) -> std::os::raw::c_int;
}

/// CPython's `Py_UNICODE_ISPRINTABLE(c)`: the running interpreter's Unicode
/// data, so that both engines agree under every Python version.
pub fn is_printable(c: u32) -> bool {
    // SAFETY: CPython's function, declared above as it is in
    // `Include/cpython/unicodeobject.h` (3.11 to 3.13: `int
    // _PyUnicode_IsPrintable(Py_UCS4 ch)`, `Py_UCS4` a `uint32_t`); a pure
    // lookup in the interpreter's Unicode tables that takes any value (one past
    // 0x10FFFF is not printable) and touches no object. Private API: the
    // public way, `chr(c).isprintable()`, makes a `str` a character.
    unsafe { _PyUnicode_IsPrintable(c) != 0 }
}
