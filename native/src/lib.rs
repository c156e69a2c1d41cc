//! toolparse's native core, `toolparse._native`.
//!
//! The Python engine (`toolparse.engine`) is the reference; this crate runs
//! parts of the same engine natively, behind the same Python interface, and
//! the test suite runs both and compares them event for event. It never
//! names a model or a grammar: what it runs comes from the compiled tables.
//!
//! What is native today: the per-delta path (`Shell.feed`), with the engine's
//! lanes (`Lane`, decided by [`scan`]) and the events they build.

pub mod events;
pub mod lane;
pub mod scan;
pub mod shell;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<lane::Lane>()?;
    m.add_class::<shell::Shell>()?;
    m.add("STRING_RUN", shell::STRING_RUN)?;
    m.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
