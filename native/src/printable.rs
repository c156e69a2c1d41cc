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
    // SAFETY: a pure function of a code point, exported by the interpreter
    // this extension is loaded into; any `u32` is a valid argument.
    unsafe { _PyUnicode_IsPrintable(c) != 0 }
}
