//! The runtime tables of the Python grammar objects: the core's
//! [`toolparse_core::runtime`], read once per `CompiledGrammar` and kept by
//! its identity.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;

pub use toolparse_core::runtime::*;

use crate::tables;

/// The grammars read so far, by the identity of their Python objects (kept
/// alive here, so an identity is never reused).
struct Registry {
    grammars: crate::fxhash::FxHashMap<usize, (PyObject, Arc<GrammarRt>)>,
}

static REGISTRY: Mutex<Option<Registry>> = Mutex::new(None);

/// Grammars the registry keeps at most: past it, it starts afresh (the Python
/// side compiles at most a few dozen; a caller building grammars without end
/// must not grow it without end).
const MAX_GRAMMARS: usize = 512;

fn with_registry<R>(f: impl FnOnce(&mut Registry) -> R) -> R {
    let mut guard = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    let registry = guard.get_or_insert_with(|| Registry {
        grammars: Default::default(),
    });
    f(registry)
}

/// The runtime tables of the Python `CompiledGrammar` `compiled` (its data
/// read once, then kept by its identity).
pub fn grammar_of(compiled: &Bound<'_, PyAny>) -> PyResult<Arc<GrammarRt>> {
    match cached(compiled) {
        Some(found) => Ok(found),
        None => build_kept(compiled, Arc::new(tables::read(compiled)?)),
    }
}

fn cached(compiled: &Bound<'_, PyAny>) -> Option<Arc<GrammarRt>> {
    let id = compiled.as_ptr() as usize;
    with_registry(|r| r.grammars.get(&id).map(|(_, g)| g.clone()))
}

/// The Python `CompiledGrammar` a grammar's runtime tables were read from.
pub fn compiled_of<'py>(py: Python<'py>, grammar: &GrammarRt) -> PyResult<Bound<'py, PyAny>> {
    grammar
        .handle
        .as_ref()
        .and_then(|handle| handle.downcast_ref::<PyObject>())
        .map(|compiled| compiled.bind(py).clone())
        .ok_or_else(|| PyValueError::new_err("a grammar read from no Python grammar"))
}

/// The runtime tables of `compiled`, of its data `tables`, kept in the registry.
fn build_kept(
    compiled: &Bound<'_, PyAny>,
    tables: Arc<tables::Tables>,
) -> PyResult<Arc<GrammarRt>> {
    let py = compiled.py();
    let id = compiled.as_ptr() as usize;
    // (auto's members: each member's Python object, shared if read before;
    // one not read yet is built of the data that came with auto's)
    let mut failed = None;
    let members = if tables.auto.is_some() {
        Some(
            compiled
                .getattr(intern!(py, "auto"))?
                .getattr(intern!(py, "members"))?,
        )
    } else {
        None
    };
    let mut member_of = |name: &str, data: &Arc<tables::Tables>| {
        let found = members
            .as_ref()
            .ok_or_else(|| PyValueError::new_err("auto's members not found"))
            .and_then(|members| members.get_item(name))
            .and_then(|member| match cached(&member) {
                Some(found) => Ok(found),
                None => build_kept(&member, data.clone()),
            });
        found.map_err(|err| {
            let why = err.to_string();
            failed = Some(err);
            why
        })
    };
    let handle: Arc<dyn std::any::Any + Send + Sync> = Arc::new(compiled.clone().unbind());
    let read = build(tables, Some(handle), &mut member_of);
    let read = match (read, failed) {
        (Ok(read), _) => Arc::new(read),
        (Err(_), Some(err)) => return Err(err),
        (Err(why), None) => return Err(PyValueError::new_err(why)),
    };
    with_registry(|r| {
        if r.grammars.len() >= MAX_GRAMMARS {
            r.grammars.clear();
        }
        r.grammars
            .insert(id, (compiled.clone().unbind(), read.clone()));
    });
    Ok(read)
}
