//! [`Held`]: a field of a frozen Python class that changes.
//!
//! The native classes are frozen (PyO3 takes no borrow flag to read them: its
//! flags are atomic, and the two a text-lane delta took cost about 0.12 of
//! the benchmark's floor, 1.74x -> 1.62x). What changes lives in a `Held` (Python objects, or a state of
//! several fields) or in a `GILProtected<Cell<_>>` (a number): only the GIL's
//! holder touches either, and a `Held` is never borrowed across a call into
//! Python (a read clones the references it needs out of it).

use std::cell::{Ref, RefCell, RefMut};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::PyVisit;

/// A value that only the GIL's holder reads or replaces (`GILProtected`'s
/// rule, with a borrow from the garbage collector's `__traverse__` too).
pub struct Held<T>(RefCell<T>);

// SAFETY: as `GILProtected`'s: every access to the `RefCell` proves the GIL
// held, by a `Python` token (`borrow`, `borrow_mut`, `set`) or by a `PyVisit`,
// which PyO3 makes only inside `tp_traverse`, where the collector holds the GIL.
// So only one thread at a time touches the cell, and the GIL's hand-over
// between threads orders their accesses (it is a lock); a thread that gets
// the GIL while another's borrow is open (that one called into Python, which
// let the GIL go) sees the borrow flag and gets an error, never an alias.
// `T: Send`, as a `&mut T` may then be used on any thread. (The module does
// not declare itself free of the GIL, PyO3's default: a free-threaded CPython
// turns the GIL back on when it imports it, unless the user forces it off
// with `PYTHON_GIL=0`, at their own risk, as for any such module.)
unsafe impl<T: Send> Sync for Held<T> {}

impl<T> Held<T> {
    pub fn new(value: T) -> Self {
        Held(RefCell::new(value))
    }

    /// Read it (an error, not a panic, where it is being changed).
    pub fn borrow<'a>(&'a self, _py: Python<'a>) -> PyResult<Ref<'a, T>> {
        self.0
            .try_borrow()
            .map_err(|_| PyRuntimeError::new_err("native state read while it changes"))
    }

    /// Change it (an error, not a panic, where it is being read).
    pub fn borrow_mut<'a>(&'a self, _py: Python<'a>) -> PyResult<RefMut<'a, T>> {
        self.0
            .try_borrow_mut()
            .map_err(|_| PyRuntimeError::new_err("native state changed while it is read"))
    }

    /// Replace what it holds; the old value is let go after the borrow ends.
    pub fn set(&self, py: Python<'_>, value: T) -> PyResult<()> {
        let old = std::mem::replace(&mut *self.borrow_mut(py)?, value);
        drop(old);
        Ok(())
    }

    /// What it holds, for the garbage collector (None while it is changed:
    /// what it holds then is not visited, and stays alive).
    pub fn traverse<'a>(&'a self, _visit: &PyVisit<'a>) -> Option<Ref<'a, T>> {
        self.0.try_borrow().ok()
    }
}

impl<T> Held<Py<T>> {
    /// The object it holds.
    pub fn bind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, T>> {
        Ok(self.borrow(py)?.bind(py).clone())
    }
}

impl<T> Held<Option<Py<T>>> {
    /// The object it holds, if any.
    pub fn bind<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, T>>> {
        Ok(self.borrow(py)?.as_ref().map(|o| o.bind(py).clone()))
    }
}
