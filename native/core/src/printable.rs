//! Whether a character is printable, as Python's `str.isprintable` says.
//!
//! Readers need it where they must write what Python writes: `repr` of a
//! string, an error message that shows a character escaped. Python answers
//! from its own Unicode database, whose version moves with the interpreter,
//! so a host embedded in Python hands the core its interpreter's test once
//! ([`use_test`]); without one the core answers from its own table, made by
//! `tools/printable.py` from Python 3.11's database (Unicode 14.0).

use std::sync::OnceLock;

use crate::printable_table::PRINTABLE;
pub use crate::printable_table::UNICODE_VERSION;

static TEST: OnceLock<fn(u32) -> bool> = OnceLock::new();

/// Answer [`is_printable`] with `test` from now on (the embedding
/// interpreter's own). The first test given stays: a process has one Unicode
/// database; a later call with another test is ignored.
pub fn use_test(test: fn(u32) -> bool) {
    let _ = TEST.set(test);
}

/// Whether `c` is printable (`chr(c).isprintable()`).
#[inline]
pub fn is_printable(c: u32) -> bool {
    match TEST.get() {
        Some(test) => test(c),
        None => in_table(c),
    }
}

/// The core's own answer, from its table.
pub fn in_table(c: u32) -> bool {
    if (0x20..0x7F).contains(&c) {
        return true;
    }
    PRINTABLE
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_answers_as_python_does() {
        // (a few of `str.isprintable`'s answers, Unicode 14)
        for c in [0x20, 0x41, 0x7E, 0xA1, 0xE9, 0x4E2D, 0x1F600] {
            assert!(in_table(c), "{c:#x}");
        }
        for c in [
            0x0, 0xA, 0x7F, 0x85, 0xA0, 0xAD, 0x2028, 0xD800, 0xE000, 0x10FFFF,
        ] {
            assert!(!in_table(c), "{c:#x}");
        }
    }

    #[test]
    fn table_is_sorted_and_disjoint() {
        for pair in PRINTABLE.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 + 1 < pair[1].0);
        }
    }
}
