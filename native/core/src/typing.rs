//! Schema-driven decisions while a call's JSON arguments stream: the
//! interface between the JSON reader ([`crate::json`]) and inline coercion
//! (`toolparse.readers.json.ValueTyper`, implemented by
//! `toolparse.coercion.inline.SchemaTyper`).
//!
//! The reader calls a typer at structural points only, never per character:
//! each value's start, each key, each array item, each container's end, and
//! once with each value it was asked to collect whole. Keys and canonical
//! JSON are generalized UTF-8 (see [`crate::wide`]).

/// Decides, as values begin, which stream as they are and which are
/// collected and coerced when complete (the Python protocol `ValueTyper`,
/// method for method).
pub trait ValueTyper {
    /// What a typer's failure is (a Python exception, for a Python-backed one).
    type Error;

    /// A value begins with the code point `first`; true to receive it whole
    /// in [`ValueTyper::finish_buffered`].
    fn begin_value(&mut self, first: u32) -> Result<bool, Self::Error>;

    /// An object key (decoded, as the model wrote it); false to drop that member.
    fn key(&mut self, key: &[u8]) -> Result<bool, Self::Error>;

    /// The next value is an item of the innermost array.
    fn array_item(&mut self) -> Result<(), Self::Error>;

    /// The innermost container that [`ValueTyper::begin_value`] let stream has closed.
    fn end_container(&mut self) -> Result<(), Self::Error>;

    /// The canonical JSON of a value asked for whole: append what to write
    /// instead to `out`.
    fn finish_buffered(&mut self, canonical: &[u8], out: &mut Vec<u8>) -> Result<(), Self::Error>;
}
