//! What is worked out once from a Python object (a tool's schema) and kept
//! by that object's identity, shared by every parser of the process.
//!
//! A parser is built per request, and most requests declare the same tools:
//! what a tool's schema says (its property names, how each member is read)
//! is worked out for the first parser and read by the next ones. As with the
//! typer's plans, a schema is taken not to change once used. The object is
//! kept with its entry, so that its address (the key) is not reused while
//! the entry lives.
//!
//! The lock is never held across a call into Python, nor while a Python
//! object is let go (either may run Python code that comes back here, or
//! gives the GIL to a thread that does): what is evicted is let go after the
//! lock is. Bounded: past `max` entries (some keys come from the model), it
//! starts afresh.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

use crate::fxhash::FxHashMap;

struct Entries<V> {
    /// (keyed by addresses, which the model does not choose: FxHash)
    by_object: FxHashMap<usize, (PyObject, V)>,
    /// Entries over all objects (as the writers count them).
    count: usize,
}

/// Values of type `V`, one per Python object, kept by its identity.
pub struct Kept<V> {
    entries: Mutex<Option<Entries<V>>>,
    max: usize,
}

impl<V> Kept<V> {
    /// An empty store of at most `max` entries.
    pub const fn new(max: usize) -> Self {
        Kept {
            entries: Mutex::new(None),
            max,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Entries<V>>> {
        // (a poisoned lock holds no broken state: every change is one insert)
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What `read` makes of the value kept for `object`, if one is. `read`
    /// runs under the lock: it must not call Python (cloning an `Arc` is
    /// what it is for).
    pub fn read<R>(
        &self,
        object: &Bound<'_, PyAny>,
        read: impl FnOnce(&V) -> Option<R>,
    ) -> Option<R> {
        let guard = self.lock();
        let (_, value) = guard.as_ref()?.by_object.get(&(object.as_ptr() as usize))?;
        read(value)
    }

    /// Change the value kept for `object` (a new one, `V::default()`, first):
    /// `write` returns how many entries it added. It runs under the lock: it
    /// must neither call Python nor let a Python object go (it adds).
    pub fn write(&self, object: &Bound<'_, PyAny>, write: impl FnOnce(&mut V) -> usize)
    where
        V: Default,
    {
        let evicted = {
            let mut guard = self.lock();
            let entries = guard.get_or_insert_with(|| Entries {
                by_object: FxHashMap::default(),
                count: 0,
            });
            let evicted = if entries.count >= self.max {
                entries.count = 0;
                std::mem::take(&mut entries.by_object)
            } else {
                FxHashMap::default()
            };
            let (_, value) = entries
                .by_object
                .entry(object.as_ptr() as usize)
                .or_insert_with(|| (object.clone().unbind(), V::default()));
            entries.count += write(value);
            evicted
        };
        drop(evicted); // (Python objects let go with the lock released)
    }

    /// Let every entry go (for tests, and to let objects go).
    pub fn clear(&self) {
        let old = self.lock().take();
        drop(old);
    }

    /// How many entries are kept.
    pub fn count(&self) -> usize {
        self.lock().as_ref().map_or(0, |e| e.count)
    }
}

impl<T: Clone> Kept<Option<T>> {
    /// The value kept for `object`, or else what `work` makes of it (with the
    /// lock released: it may call Python), kept from then on.
    pub fn get_or_work(
        &self,
        object: &Bound<'_, PyAny>,
        work: impl FnOnce() -> PyResult<T>,
    ) -> PyResult<T> {
        if let Some(found) = self.read(object, Clone::clone) {
            return Ok(found);
        }
        let value = work()?;
        self.write(object, |kept| match kept {
            Some(_) => 0, // (kept meanwhile: nothing let go under the lock)
            None => {
                *kept = Some(value.clone());
                1
            }
        });
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pyo3::types::PyDict;

    #[test]
    fn kept_by_identity_counted_and_bounded() {
        pyo3::prepare_freethreaded_python();
        Python::with_gil(|py| {
            let store: Kept<Option<usize>> = Kept::new(3);
            let a = PyDict::new(py).into_any();
            let b = PyDict::new(py).into_any();
            assert_eq!(store.read(&a, |v| *v), None);
            store.write(&a, |v| usize::from(v.replace(1).is_none()));
            store.write(&a, |v| usize::from(v.replace(1).is_none())); // (no new entry)
            assert_eq!(store.count(), 1);
            assert_eq!(store.read(&a, |v| *v), Some(1));
            // (an equal object that is another object is another entry)
            assert_eq!(store.read(&b, |v| *v), None);
            store.write(&b, |v| usize::from(v.replace(2).is_none()));
            let kept = a.get_refcnt();
            store.clear();
            assert_eq!(a.get_refcnt(), kept - 1); // (the object was kept alive, and let go)
            for value in 0..3 {
                let other = PyDict::new(py).into_any();
                store.write(&other, |v| usize::from(v.replace(value).is_none()));
            }
            assert_eq!(store.count(), 3);
            store.write(&a, |v| usize::from(v.replace(9).is_none())); // (past the bound: afresh)
            assert_eq!(store.count(), 1);
            assert_eq!(store.read(&a, |v| *v), Some(9));
        });
    }
}
