//! A block's raw text, held as narrowly as its characters allow.
//!
//! The reference keeps a block's raw text as Python `str` pieces: one byte a
//! character while the text is Latin-1. Held as `u32` code points, a long
//! call (a 1 MB argument) would take four times that. [`Points`] keeps one
//! byte a character until a wider one arrives, then four (PEP 393's rule,
//! with two of its widths): positions stay code-point indices either way.

use std::borrow::Cow;

/// The largest buffer [`Points::recycle`] keeps for the next block.
const RECYCLED_BYTES: usize = 4096;

/// Code points, one byte each while all are below U+0100.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Points {
    Narrow(Vec<u8>),
    Wide(Vec<u32>),
}

impl Default for Points {
    fn default() -> Self {
        Points::Narrow(Vec::new())
    }
}

impl Points {
    pub fn len(&self) -> usize {
        match self {
            Points::Narrow(v) => v.len(),
            Points::Wide(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hand this (finished) block's buffer, emptied, to `into` where `into`
    /// has no buffer yet: the next block's raw text grows in it rather than from
    /// nothing. Only a small narrow buffer is kept (a long call's is freed).
    pub fn recycle(self, into: &mut Points) {
        if let Points::Narrow(mut buffer) = self {
            if buffer.capacity() <= RECYCLED_BYTES && into.capacity() == 0 {
                buffer.clear();
                *into = Points::Narrow(buffer);
            }
        }
    }

    fn capacity(&self) -> usize {
        match self {
            Points::Narrow(v) => v.capacity(),
            Points::Wide(v) => v.capacity(),
        }
    }

    /// Append the code points `units`, of any width.
    pub fn extend<T: Copy + Into<u32>>(&mut self, units: &[T]) {
        if let Points::Narrow(narrow) = self {
            if units.iter().all(|&u| u.into() <= 0xFF) {
                // (`as u8` keeps every bit: each is below 0x100)
                narrow.extend(units.iter().map(|&u| u.into() as u8));
                return;
            }
            let wide: Vec<u32> = narrow.iter().map(|&b| u32::from(b)).collect();
            *self = Points::Wide(wide);
        }
        if let Points::Wide(wide) = self {
            wide.extend(units.iter().map(|&u| u.into()));
        }
    }

    /// The code point at `i` (`i < len()`).
    pub fn at(&self, i: usize) -> u32 {
        match self {
            Points::Narrow(v) => u32::from(v[i]),
            Points::Wide(v) => v[i],
        }
    }

    /// The code points `a..b`, as `u32`s (copied when held narrow).
    pub fn points(&self, a: usize, b: usize) -> Cow<'_, [u32]> {
        match self {
            Points::Narrow(v) => Cow::Owned(v[a..b].iter().map(|&c| u32::from(c)).collect()),
            Points::Wide(v) => Cow::Borrowed(&v[a..b]),
        }
    }

    /// Where the code points `a..b` are, for an event.
    pub fn text(&self, a: usize, b: usize) -> crate::sink::Text<'_> {
        use crate::sink::Text;
        match self {
            Points::Narrow(v) => Text::Latin1(&v[a..b]),
            Points::Wide(v) => Text::Points(&v[a..b]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_until_a_wide_character_arrives() {
        let mut points = Points::default();
        points.extend(&[b'a', 0xE9u8]);
        points.extend(&[u32::from(b'b')]);
        assert_eq!(points, Points::Narrow(vec![b'a', 0xE9, b'b']));
        points.extend(&[0x1F600u32, 0xD800]);
        assert_eq!(
            points,
            Points::Wide(vec![0x61, 0xE9, 0x62, 0x1F600, 0xD800])
        );
        points.extend(b"c");
        assert_eq!(points.len(), 6);
        assert_eq!(points.at(3), 0x1F600);
        assert_eq!(points.at(5), u32::from(b'c'));
        assert_eq!(&*points.points(1, 3), &[0xE9, 0x62]);
    }

    #[test]
    fn slices_read_the_same_narrow_or_wide() {
        let text: Vec<u32> = "héllo <x>".chars().map(u32::from).collect();
        let mut narrow = Points::default();
        narrow.extend(&text);
        let wide = Points::Wide(text.clone());
        assert!(matches!(narrow, Points::Narrow(_)));
        for a in 0..text.len() {
            for b in a..=text.len() {
                assert_eq!(narrow.points(a, b), wide.points(a, b));
                assert_eq!(&*narrow.points(a, b), &text[a..b]);
            }
        }
    }
}
