//! Building toolparse's own event classes (`toolparse.events`) from Rust.
//!
//! The events are frozen, slotted dataclasses. Like the Python engine's
//! `new_text_delta`, an event is allocated as `object.__new__` would and its
//! slots are filled through their member descriptors (`tp_descr_set`, a C
//! call each): no `__init__`, no Python frame.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyList, PyType};

struct EventClass {
    class: Py<PyType>,
    slots: Vec<PyObject>,
}

struct EventClasses {
    text: EventClass,
    call_delta: EventClass,
}

static CLASSES: GILOnceCell<EventClasses> = GILOnceCell::new();

fn event_class(events: &Bound<'_, PyModule>, name: &str, fields: &[&str]) -> PyResult<EventClass> {
    let class = events.getattr(name)?.downcast_into::<PyType>()?;
    let dict = class.getattr("__dict__")?;
    let mut slots = Vec::with_capacity(fields.len());
    for field in fields {
        let descriptor = dict.get_item(field)?;
        // (a member descriptor: one that sets a slot)
        let settable = unsafe { (*ffi::Py_TYPE(descriptor.as_ptr())).tp_descr_set.is_some() };
        if !settable {
            return Err(PyTypeError::new_err(format!("{name}.{field} is not a slot")));
        }
        slots.push(descriptor.unbind());
    }
    Ok(EventClass { class: class.unbind(), slots })
}

fn classes(py: Python<'_>) -> PyResult<&EventClasses> {
    CLASSES.get_or_try_init(py, || {
        let events = py.import("toolparse.events")?;
        Ok(EventClasses {
            text: event_class(&events, "TextDelta", &["text"])?,
            call_delta: event_class(&events, "ToolCallDelta", &["index", "id", "arguments_delta"])?,
        })
    })
}

/// An instance of `class` with its slots set to `values` (in the order given
/// when the class was looked up).
fn build(py: Python<'_>, class: &EventClass, values: &[&Bound<'_, PyAny>]) -> PyResult<PyObject> {
    debug_assert_eq!(values.len(), class.slots.len());
    unsafe {
        let tp = class.class.as_ptr() as *mut ffi::PyTypeObject;
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = alloc(tp, 0);
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        let event = PyObject::from_owned_ptr(py, obj);
        for (descriptor, value) in class.slots.iter().zip(values) {
            let set = (*ffi::Py_TYPE(descriptor.as_ptr())).tp_descr_set.expect("a slot's descriptor");
            if set(descriptor.as_ptr(), obj, value.as_ptr()) < 0 {
                return Err(PyErr::fetch(py));
            }
        }
        Ok(event)
    }
}

/// `[TextDelta(text)]`.
pub fn text_delta(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    let event = build(py, &classes(py)?.text, &[text])?;
    Ok(PyList::new(py, [event])?.into_any().unbind())
}

/// `[ToolCallDelta(index, id, arguments_delta)]`.
pub fn call_delta(
    py: Python<'_>,
    index: &Bound<'_, PyAny>,
    id: &Bound<'_, PyAny>,
    arguments_delta: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    let event = build(py, &classes(py)?.call_delta, &[index, id, arguments_delta])?;
    Ok(PyList::new(py, [event])?.into_any().unbind())
}
