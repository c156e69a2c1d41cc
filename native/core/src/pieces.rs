//! `toolparse.readers.pieces.Pieces`: append-only text, read as a whole.
//!
//! The Python class joins runs of small `str`s so that a stream of tiny
//! deltas does not cost an object each; a Rust buffer has no such overhead,
//! so here it is one growing buffer (amortized O(1) per byte appended). The
//! text is kept as Python wrote it, lone surrogates included (see
//! [`crate::wide`]), and `length` counts code points, as `len()` does.

use crate::wide;

/// Append-only text (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pieces {
    text: Vec<u8>,
    /// The text's length in code points (Python's `len`).
    pub length: usize,
}

impl Pieces {
    pub fn new() -> Self {
        Pieces::default()
    }

    /// Room for `bytes` bytes before the buffer grows.
    pub fn with_capacity(bytes: usize) -> Self {
        Pieces {
            text: Vec::with_capacity(bytes),
            length: 0,
        }
    }

    /// Append `piece` (generalized UTF-8, see [`crate::wide`]).
    pub fn append(&mut self, piece: &[u8]) {
        self.text.extend_from_slice(piece);
        self.length += wide::code_points(piece);
    }

    /// Append the code points `units` (as [`wide::push_units`] writes them).
    pub fn push_units<T: Copy + Into<u32>>(&mut self, units: &[T]) {
        wide::push_units(&mut self.text, units);
        self.length += units.len();
    }

    /// Append `text`, valid UTF-8 of `chars` code points.
    pub fn push_str(&mut self, text: &str, chars: usize) {
        self.text.extend_from_slice(text.as_bytes());
        self.length += chars;
    }

    /// The whole text so far.
    pub fn text(&self) -> &[u8] {
        &self.text
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.length = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_join_and_count_code_points() {
        let mut pieces = Pieces::new();
        assert_eq!(pieces.text(), b"");
        pieces.append(b"ab");
        pieces.append("\u{e9}\u{1F600}".as_bytes());
        pieces.append(b"");
        assert_eq!(pieces.text(), "ab\u{e9}\u{1F600}".as_bytes());
        assert_eq!(pieces.length, 4);
        pieces.clear();
        assert_eq!((pieces.text(), pieces.length), (&b""[..], 0));
    }
}
