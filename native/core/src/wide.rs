//! Python `str` text kept losslessly in Rust bytes.
//!
//! A Python string may hold lone surrogates, which no Rust `String` can.
//! Where the engine keeps text as Python gave it (a member's key, a call's
//! name, the canonical JSON a Python value encodes to), it is kept here as
//! *generalized UTF-8*: UTF-8 in which a surrogate code point is written in
//! three bytes like any other BMP code point (what Python's `surrogatepass`
//! error handler writes and reads back). Valid text is plain UTF-8.

/// Append code point `c` (any of 0..=0x10FFFF, surrogates included).
#[inline]
pub fn push_code_point(out: &mut Vec<u8>, c: u32) {
    if c < 0x80 {
        out.push(c as u8);
    } else if c < 0x800 {
        out.extend_from_slice(&[0xC0 | (c >> 6) as u8, 0x80 | (c & 0x3F) as u8]);
    } else if c < 0x10000 {
        out.extend_from_slice(&[
            0xE0 | (c >> 12) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]);
    } else {
        out.extend_from_slice(&[
            0xF0 | (c >> 18) as u8,
            0x80 | ((c >> 12) & 0x3F) as u8,
            0x80 | ((c >> 6) & 0x3F) as u8,
            0x80 | (c & 0x3F) as u8,
        ]);
    }
}

/// Append the code points `units` (a Python string's data) as they are.
pub fn push_units<T: Copy + Into<u32>>(out: &mut Vec<u8>, units: &[T]) {
    out.reserve(units.len());
    // (ASCII runs, most text, a byte each: copied in one go)
    let mut k = 0;
    while k < units.len() {
        let ascii = units[k..]
            .iter()
            .position(|&u| u.into() >= 0x80)
            .map_or(units.len(), |p| k + p);
        out.extend(units[k..ascii].iter().map(|&u| u.into() as u8));
        if ascii == units.len() {
            break;
        }
        push_code_point(out, units[ascii].into());
        k = ascii + 1;
    }
}

/// The code points of generalized UTF-8 `bytes` (as [`push_code_point`] writes them).
pub fn chars(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let lead = *bytes.get(i)?;
        let (len, mut c) = match lead {
            0x00..=0x7F => (1, u32::from(lead)),
            0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
            0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
            _ => (4, u32::from(lead & 0x07)),
        };
        for &b in bytes.iter().skip(i + 1).take(len - 1) {
            c = (c << 6) | u32::from(b & 0x3F);
        }
        i += len;
        Some(c)
    })
}

/// How many code points `bytes` holds (Python's `len`).
pub fn code_points(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// The first `n` code points of `bytes` (Python's `text[:n]`).
pub fn head(bytes: &[u8], n: usize) -> &[u8] {
    let mut seen = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if seen == n {
                return &bytes[..i];
            }
            seen += 1;
        }
    }
    bytes
}

#[inline]
pub fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

/// `c`, or U+FFFD for a surrogate (`toolparse.events.replace_lone_surrogates`:
/// the engine has joined surrogate pairs, so any surrogate left is a lone one).
#[inline]
pub fn replaced(c: u32) -> u32 {
    if is_surrogate(c) {
        0xFFFD
    } else {
        c
    }
}

/// `replace_lone_surrogates(text)` of generalized UTF-8 `text` (a name read
/// from the markup): each surrogate's three bytes (`ED A0..BF xx`) become
/// U+FFFD's (`EF BF BD`), in place (the same length).
pub fn replace_surrogates(mut text: Vec<u8>) -> Vec<u8> {
    let mut k = 0;
    while k + 2 < text.len() {
        if text[k] == 0xED && text[k + 1] >= 0xA0 {
            text[k..k + 3].copy_from_slice(&[0xEF, 0xBF, 0xBD]);
            k += 3;
        } else {
            k += 1;
        }
    }
    text
}

/// Append `json.encoder.encode_basestring(replace_lone_surrogates(text))[1:-1]`
/// of the code points `chars`: quotes, backslashes and control characters
/// escaped as that function escapes them, everything else as it is.
pub fn push_json_body(out: &mut Vec<u8>, chars: impl IntoIterator<Item = u32>) {
    push_json_chars(out, chars.into_iter().map(replaced));
}

/// Append `json.encoder.encode_basestring(text)[1:-1]` of the code points
/// `chars`, lone surrogates kept (as that function keeps them).
pub fn push_json_chars(out: &mut Vec<u8>, chars: impl IntoIterator<Item = u32>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for c in chars {
        match c {
            0x22 => out.extend_from_slice(b"\\\""),
            0x5C => out.extend_from_slice(b"\\\\"),
            0x0A => out.extend_from_slice(b"\\n"),
            0x0D => out.extend_from_slice(b"\\r"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            c if c < 0x20 => out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(c >> 4) as usize],
                HEX[(c & 0xF) as usize],
            ]),
            c => push_code_point(out, c),
        }
    }
}

/// `text` as a Rust string (U+FFFD for each surrogate).
pub fn lossy(bytes: &[u8]) -> String {
    chars(bytes)
        .map(|c| char::from_u32(replaced(c)).unwrap_or('\u{FFFD}'))
        .collect()
}

/// Whether `c` is a high (leading) UTF-16 surrogate.
pub fn is_high(c: u32) -> bool {
    (0xD800..=0xDBFF).contains(&c)
}

/// Whether `c` is a low (trailing) UTF-16 surrogate.
pub fn is_low(c: u32) -> bool {
    (0xDC00..=0xDFFF).contains(&c)
}

/// `join_surrogate_pairs`: UTF-16 surrogate pairs joined into the characters
/// they encode; lone surrogates kept.
pub fn join_surrogate_pairs(text: &mut Vec<u32>) {
    if !text.iter().any(|&c| (0xD800..=0xDFFF).contains(&c)) {
        return;
    }
    let mut out = Vec::with_capacity(text.len());
    let mut k = 0;
    while k < text.len() {
        let c = text[k];
        if is_high(c) && k + 1 < text.len() && is_low(text[k + 1]) {
            out.push(0x10000 + ((c - 0xD800) << 10) + (text[k + 1] - 0xDC00));
            k += 2;
        } else {
            out.push(c);
            k += 1;
        }
    }
    *text = out;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(cps: &[u32]) -> Vec<u8> {
        let mut out = Vec::new();
        push_units(&mut out, cps);
        out
    }

    fn body(text: &str) -> String {
        let mut out = Vec::new();
        push_json_body(&mut out, text.chars().map(u32::from));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn valid_text_is_plain_utf8() {
        let text = "a\u{e9}\u{20ac}\u{1F600}";
        let cps: Vec<u32> = text.chars().map(u32::from).collect();
        assert_eq!(wide(&cps), text.as_bytes());
        assert_eq!(chars(text.as_bytes()).collect::<Vec<_>>(), cps);
        assert_eq!(code_points(text.as_bytes()), 4);
    }

    #[test]
    fn surrogates_round_trip_and_are_replaced_on_request() {
        let cps = [0x61, 0xD800, 0xDE00, 0x62];
        let bytes = wide(&cps);
        assert_eq!(bytes, b"a\xed\xa0\x80\xed\xb8\x80b");
        assert_eq!(chars(&bytes).collect::<Vec<_>>(), cps);
        assert_eq!(code_points(&bytes), 4);
        assert_eq!(head(&bytes, 2), b"a\xed\xa0\x80");
        assert_eq!(head(&bytes, 9), &bytes[..]);
        assert_eq!(lossy(&bytes), "a\u{FFFD}\u{FFFD}b");
        let mut out = Vec::new();
        push_json_body(&mut out, chars(&bytes));
        assert_eq!(out, "a\u{FFFD}\u{FFFD}b".as_bytes());
        let mut named = b"\xed\xa0\x80\xc3\xa9\xf0\x9f\x98\x80".to_vec();
        named.extend_from_slice(&bytes);
        let expected = "\u{FFFD}\u{e9}\u{1F600}a\u{FFFD}\u{FFFD}b";
        assert_eq!(replace_surrogates(named), expected.as_bytes());
    }

    #[test]
    fn escapes_are_encode_basestrings() {
        assert_eq!(body("plain \u{e9} \u{7f}"), "plain \u{e9} \u{7f}");
        assert_eq!(body("q\"b\\"), "q\\\"b\\\\");
        assert_eq!(body("\n\r\t\u{8}\u{c}"), "\\n\\r\\t\\b\\f");
        assert_eq!(body("\u{0}\u{1f}\u{1b}"), "\\u0000\\u001f\\u001b");
        assert_eq!(body(""), "");
    }
}
