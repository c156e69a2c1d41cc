//! Building toolparse's own event classes (`toolparse.events`) from Rust.
//!
//! The events are frozen, slotted dataclasses. Like the Python engine's
//! `new_text_delta`, an event is allocated as `object.__new__` would and its
//! slots are filled as their member descriptors would fill them (at the
//! offsets the descriptors give, checked once): no `__init__`, no Python frame.

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyList, PyType};

struct EventClass {
    class: Py<PyType>,
    /// Where each slot lies in an instance (its member descriptor's offset).
    offsets: Vec<isize>,
}

/// `Py_T_OBJECT_EX`: the type code of a `__slots__` member.
const T_OBJECT_EX: i32 = 16;

struct EventClasses {
    text: EventClass,
    reasoning: EventClass,
    call_delta: EventClass,
    call_start: EventClass,
    tool_call: EventClass,
    error: Py<PyType>,
    issue: EventClass,
    reasoning_class: Py<PyType>,
    start_class: Py<PyType>,
    delta_class: Py<PyType>,
}

static CLASSES: GILOnceCell<EventClasses> = GILOnceCell::new();

fn event_class(events: &Bound<'_, PyModule>, name: &str, fields: &[&str]) -> PyResult<EventClass> {
    let class = events.getattr(name)?.downcast_into::<PyType>()?;
    let dict = class.getattr("__dict__")?;
    let mut offsets = Vec::with_capacity(fields.len());
    for field in fields {
        let descriptor = dict.get_item(field)?;
        // (a member descriptor of an object slot: its offset is where the slot
        // lies in an instance of `class`, checked to be there)
        let tp = class.as_ptr().cast::<ffi::PyTypeObject>();
        let d = descriptor.as_ptr();
        // SAFETY: the GIL is held (`class`'s token) and `class`, `descriptor`
        // are alive (bound here). `class` is a type (downcast above), so its
        // struct is read for `tp_basicsize`. `d` is read as a member
        // descriptor only when its type is exactly `member_descriptor`, whose
        // instances are `PyMemberDescrObject`s (descrobject.h, 3.11 to 3.13)
        // pointing at their `PyMemberDef`, alive as long as the type that
        // defines the member, a base of `class` (checked, and kept alive by
        // it). (pyo3-ffi 0.25 types `d_member` as a `PyGetSetDef`: CPython's is
        // a `PyMemberDef`, as cast.)
        let offset = unsafe {
            if ffi::Py_TYPE(d) != std::ptr::addr_of_mut!(ffi::PyMemberDescr_Type)
                || ffi::PyType_IsSubtype(tp, (*d.cast::<ffi::PyDescrObject>()).d_type) == 0
            {
                None
            } else {
                let member =
                    (*d.cast::<ffi::PyMemberDescrObject>()).d_member as *const ffi::PyMemberDef;
                let at = (*member).offset;
                let fits = at >= std::mem::size_of::<ffi::PyObject>() as isize
                    && at + std::mem::size_of::<*mut ffi::PyObject>() as isize
                        <= (*tp).tp_basicsize;
                ((*member).type_code == T_OBJECT_EX && fits).then_some(at)
            }
        };
        match offset {
            Some(offset) => offsets.push(offset),
            None => {
                return Err(PyTypeError::new_err(format!(
                    "{name}.{field} is not a slot"
                )))
            }
        }
    }
    Ok(EventClass {
        class: class.unbind(),
        offsets,
    })
}

fn classes(py: Python<'_>) -> PyResult<&EventClasses> {
    CLASSES.get_or_try_init(py, || {
        let events = py.import("toolparse.events")?;
        Ok(EventClasses {
            text: event_class(&events, "TextDelta", &["text"])?,
            reasoning: event_class(&events, "ReasoningDelta", &["text", "raw"])?,
            call_delta: event_class(
                &events,
                "ToolCallDelta",
                &["index", "id", "arguments_delta"],
            )?,
            call_start: event_class(&events, "ToolCallStart", &["index", "id", "name"])?,
            tool_call: event_class(
                &events,
                "ToolCall",
                &[
                    "index",
                    "id",
                    "name",
                    "arguments",
                    "raw",
                    "issues",
                    "parsed",
                    "validation_error",
                ],
            )?,
            error: events
                .getattr("ToolCallError")?
                .downcast_into::<PyType>()?
                .unbind(),
            issue: event_class(
                &py.import("toolparse.coercion.coerce")?,
                "Issue",
                &["path", "expected", "got", "action"],
            )?,
            reasoning_class: events
                .getattr("ReasoningDelta")?
                .downcast_into::<PyType>()?
                .unbind(),
            start_class: events
                .getattr("ToolCallStart")?
                .downcast_into::<PyType>()?
                .unbind(),
            delta_class: events
                .getattr("ToolCallDelta")?
                .downcast_into::<PyType>()?
                .unbind(),
        })
    })
}

/// An instance of `class` with its slots set to `values` (in the order given
/// when the class was looked up).
#[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
fn build(py: Python<'_>, class: &EventClass, values: &[&Bound<'_, PyAny>]) -> PyResult<PyObject> {
    debug_assert_eq!(values.len(), class.offsets.len());
    let tp = class.class.as_ptr().cast::<ffi::PyTypeObject>();
    // SAFETY: the GIL is held (`py`). `tp` is a type, alive while `CLASSES`
    // holds it; its allocator (`object.__new__`'s: `PyType_GenericAlloc` for
    // these dataclasses) returns a new reference to a zeroed instance of
    // `tp_basicsize` bytes, or NULL with an exception set. Each offset was
    // checked by `event_class` to hold a whole object pointer inside that
    // size, at a `T_OBJECT_EX` member of `tp` or a base: each is written once,
    // while empty (NULL, so nothing is leaked), with a new reference to a live
    // object, as the member's `__set__` would write it; nothing runs between
    // the allocation and the writes that could see the instance half filled
    // (an incref runs no code, and the collector runs only when an object is
    // allocated). The instance is then owned by the returned `PyObject`.
    unsafe {
        let alloc = (*tp).tp_alloc.unwrap_or(ffi::PyType_GenericAlloc);
        let obj = alloc(tp, 0); // (slots zeroed: empty)
        if obj.is_null() {
            return Err(PyErr::fetch(py));
        }
        for (&offset, value) in class.offsets.iter().zip(values) {
            // (what the member descriptor's __set__ does to an empty slot)
            *(obj.cast::<u8>().offset(offset).cast::<*mut ffi::PyObject>()) =
                (*value).clone().into_ptr();
        }
        Ok(PyObject::from_owned_ptr(py, obj))
    }
}

/// `[event]`.
#[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
pub fn alone(py: Python<'_>, event: PyObject) -> PyResult<Bound<'_, PyList>> {
    // SAFETY: the GIL is held (`py`). `PyList_New(1)` returns a new list whose
    // one item is NULL, or NULL with an exception set; `PyList_SET_ITEM` fills
    // index 0 (in bounds) of that list, which no one else sees yet, stealing
    // `event`'s reference (given up by `into_ptr`); the list is then owned by
    // the returned `Bound`, an exact list.
    unsafe {
        let list = ffi::PyList_New(1);
        if list.is_null() {
            return Err(PyErr::fetch(py));
        }
        ffi::PyList_SET_ITEM(list, 0, event.into_ptr()); // (steals the reference)
        Ok(Bound::from_owned_ptr(py, list).downcast_into_unchecked())
    }
}

/// `ToolCallDelta(index, id, arguments_delta)`, alone (not in a list).
pub fn call_delta_event(
    py: Python<'_>,
    index: &Bound<'_, PyAny>,
    id: &Bound<'_, PyAny>,
    arguments_delta: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    build(py, &classes(py)?.call_delta, &[index, id, arguments_delta])
}

/// `TextDelta(text)`, alone.
#[inline(always)] // (the text lane's path: one stretch of code, see Engine::feed)
pub fn text_event(py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<PyObject> {
    build(py, &classes(py)?.text, &[text])
}

/// `ReasoningDelta(text, raw)`, alone.
pub fn reasoning_event(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    raw: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    build(py, &classes(py)?.reasoning, &[text, raw])
}

/// `ToolCallStart(index, id, name)`.
pub fn call_start(
    py: Python<'_>,
    index: &Bound<'_, PyAny>,
    id: &Bound<'_, PyAny>,
    name: &Bound<'_, PyAny>,
) -> PyResult<PyObject> {
    build(py, &classes(py)?.call_start, &[index, id, name])
}

/// `ToolCall(index, id, name, arguments, raw, issues, parsed,
/// validation_error)`, every field given, in that order.
pub fn tool_call(py: Python<'_>, fields: &[&Bound<'_, PyAny>; 8]) -> PyResult<PyObject> {
    build(py, &classes(py)?.tool_call, fields)
}

/// The class `ToolCallError` (built by its constructor: errors are rare).
pub fn error_class(py: Python<'_>) -> PyResult<&Py<PyType>> {
    Ok(&classes(py)?.error)
}

/// The class `ReasoningDelta`.
pub fn reasoning_class(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
    Ok(classes(py)?.reasoning_class.bind(py).clone())
}

/// The classes `ToolCallStart` and `ToolCallDelta`.
pub fn call_classes(py: Python<'_>) -> PyResult<(&Py<PyType>, &Py<PyType>)> {
    let c = classes(py)?;
    Ok((&c.start_class, &c.delta_class))
}

/// `Issue(path, expected, got, action)` (`toolparse.coercion.coerce.Issue`,
/// a frozen slotted dataclass like the events).
pub fn issue(py: Python<'_>, fields: &[&Bound<'_, PyAny>; 4]) -> PyResult<PyObject> {
    build(py, &classes(py)?.issue, fields)
}
