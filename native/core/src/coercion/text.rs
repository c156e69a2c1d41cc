//! The few `str` methods coercion uses, with Python's Unicode rules
//! (`strip`, `split`, `casefold`, `isdigit`, `int`), on code points.

use super::unicode_tables::{CASEFOLD, DECIMAL, OTHER_DIGITS};
use crate::tags::is_python_space;

/// `text.strip()`.
pub fn strip(text: &[u32]) -> &[u32] {
    let start = text
        .iter()
        .position(|&c| !is_python_space(c))
        .unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|&c| !is_python_space(c))
        .map_or(start, |k| k + 1);
    &text[start..end]
}

/// `"".join(text.split())`: every whitespace character removed.
pub fn no_space(text: &[u32]) -> Vec<u32> {
    text.iter()
        .copied()
        .filter(|&c| !is_python_space(c))
        .collect()
}

/// `text.casefold()`.
pub fn casefold(text: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(text.len());
    for &c in text {
        match CASEFOLD.binary_search_by_key(&c, |&(k, _)| k) {
            Ok(at) => out.extend(CASEFOLD[at].1.iter().copied().filter(|&f| f != 0)),
            Err(_) => out.push(c),
        }
    }
    out
}

fn in_ranges(c: u32, ranges: &[(u32, u32)]) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The digit value of a decimal character (`unicodedata.decimal`).
pub fn decimal(c: u32) -> Option<u32> {
    let at = DECIMAL.partition_point(|&(_, hi, _)| hi < c);
    let &(lo, hi, first) = DECIMAL.get(at)?;
    (lo <= c && c <= hi).then(|| u32::from(first) + (c - lo))
}

/// `char.isdigit()`.
pub fn is_digit(c: u32) -> bool {
    decimal(c).is_some() || in_ranges(c, OTHER_DIGITS)
}

/// `int(text)` of a text of decimal characters only, below 10**19; None otherwise.
pub fn small_int(text: &[u32]) -> Option<u64> {
    if text.is_empty() || text.len() > 19 {
        return None;
    }
    text.iter()
        .try_fold(0u64, |n, &c| Some(n * 10 + u64::from(decimal(c)?)))
}

/// `text == "true"` / `"false"` after `text.lower()` (no other character
/// lowers to these letters): Some(the boolean), else None.
pub fn boolean_word(text: &[u32]) -> Option<bool> {
    let lowered: Vec<u8> = text
        .iter()
        .map(|&c| {
            u8::try_from(c)
                .ok()
                .filter(u8::is_ascii)
                .map(|b| b.to_ascii_lowercase())
        })
        .collect::<Option<_>>()?;
    match lowered.as_slice() {
        b"true" => Some(true),
        b"false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cps(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    #[test]
    fn unicode_rules() {
        assert_eq!(super::super::unicode_tables::UNICODE_VERSION, "14.0.0");
        assert_eq!(strip(&cps("\u{1c} a b\u{3000}")), cps("a b").as_slice());
        assert_eq!(strip(&cps(" \t")), &[] as &[u32]);
        assert_eq!(casefold(&cps("Straße ΣΑΣ ſ")), cps("strasse σασ s"));
        assert_eq!(no_space(&cps(" a\u{a0}b\n")), cps("ab"));
        assert!(is_digit(0xB2) && decimal(0xB2).is_none());
        assert_eq!(small_int(&cps("\u{661}\u{662}")), Some(12));
        assert_eq!(boolean_word(&cps("TrUe")), Some(true));
        assert_eq!(boolean_word(&cps("yes")), None);
    }
}
