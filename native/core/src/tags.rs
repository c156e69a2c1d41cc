//! The shape of a tag, matched by hand: `toolparse.engine.lexicon`'s `_TAG`,
//! `_TAG_SO_FAR`, `_NAME_END` and `_NAME_SO_FAR`, bounds included.
//!
//! Each pattern there is deterministic (a name run cannot end in a space, a
//! space run cannot hold a name character), so one pass that takes each run
//! whole and checks its bound matches exactly what the regex matches: no
//! backtracking, and a look at no more than a tag's length.

/// The longest name a tag may have (`TAG_NAME`'s `{1,256}`).
pub const NAME_LONGEST: usize = 256;

/// The most spaces around a tag's name (`[ \t\r\n]{0,16}`).
pub const SPACES_LONGEST: usize = 16;

/// The longest tag: `</`, spaces, a name, spaces, `/>` (`_TAG_LONGEST`).
pub const TAG_LONGEST: usize = 1 + 1 + SPACES_LONGEST + NAME_LONGEST + SPACES_LONGEST + 1 + 1;

/// Python's `\s` in a `str` pattern (the same as `str.isspace`, Unicode 14):
/// Rust's `char::is_whitespace` differs (it leaves out U+001C to U+001F, the
/// information separators Python counts as spaces).
pub const fn is_python_space(c: u32) -> bool {
    matches!(
        c,
        0x09..=0x0D
            | 0x1C..=0x20
            | 0x85
            | 0xA0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
    )
}

/// The ASCII characters a tag's name may hold, one bit each (the names of the
/// tags a model writes are ASCII: one test a character, not two matches).
const NAME_ASCII: u128 = {
    let mut mask = 0u128;
    let mut c = 0u32;
    while c < 128 {
        let excluded =
            matches!(c, 0x3C | 0x3E | 0x2F | 0x3D | 0x22 | 0x27 | 0x26) || is_python_space(c);
        if !excluded {
            mask |= 1u128 << c;
        }
        c += 1;
    }
    mask
};

/// A character a tag's name may hold: `[^\s<>/=\"'&]`.
#[inline]
pub fn is_name_char(c: u32) -> bool {
    if c < 128 {
        NAME_ASCII & (1u128 << c) != 0
    } else {
        !is_python_space(c)
    }
}

/// The spaces a tag may hold around its name: `[ \t\r\n]`.
#[inline]
fn is_tag_space(c: u32) -> bool {
    matches!(c, 0x20 | 0x09 | 0x0D | 0x0A)
}

const LT: u32 = b'<' as u32;
const GT: u32 = b'>' as u32;
const SLASH: u32 = b'/' as u32;

/// How far the run of `is` characters from `i` goes, looking at no more than
/// `most + 1` of them (enough to tell a run over the bound).
#[inline]
fn run<T: Copy + Into<u32>>(text: &[T], i: usize, most: usize, is: impl Fn(u32) -> bool) -> usize {
    let stop = text.len().min(i.saturating_add(most + 1));
    let mut j = i;
    while j < stop && is(text[j].into()) {
        j += 1;
    }
    j
}

/// A tag read by `_TAG` (or begun, by `_TAG_SO_FAR`): `</` or `<`, the name at
/// `name.0..name.1`, and `/>` or `>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tag {
    pub closing: bool,
    pub name: (usize, usize),
    pub empty: bool,
    /// Where the tag ends (`_TAG`), or, for a tag begun, whether spaces follow
    /// the name (a space ends it: `_TAG_SO_FAR`'s `spelled` is longer than its name).
    pub end: usize,
    pub spaced: bool,
}

/// `_TAG.match(text, at)` on `text` (already cut at the search's end).
pub fn tag_at<T: Copy + Into<u32>>(text: &[T], at: usize) -> Option<Tag> {
    let n = text.len();
    if at >= n || text[at].into() != LT {
        return None;
    }
    let mut i = at + 1;
    let closing = i < n && text[i].into() == SLASH;
    if closing {
        let j = run(text, i + 1, SPACES_LONGEST, is_tag_space);
        if j - (i + 1) > SPACES_LONGEST {
            return None;
        }
        i = j;
    }
    let name_end = run(text, i, NAME_LONGEST, is_name_char);
    if name_end == i || name_end - i > NAME_LONGEST {
        return None;
    }
    let mut k = run(text, name_end, SPACES_LONGEST, is_tag_space);
    if k - name_end > SPACES_LONGEST {
        return None;
    }
    let empty = k < n && text[k].into() == SLASH;
    if empty {
        k += 1;
    }
    if k < n && text[k].into() == GT {
        Some(Tag {
            closing,
            name: (i, name_end),
            empty,
            end: k + 1,
            spaced: name_end < k,
        })
    } else {
        None
    }
}

/// `_TAG_SO_FAR.match(text, at)`: a tag begun at `at` that reaches the end of
/// the text (`end` is the text's length).
pub fn tag_so_far<T: Copy + Into<u32>>(text: &[T], at: usize) -> Option<Tag> {
    let n = text.len();
    if at >= n || text[at].into() != LT {
        return None;
    }
    let mut i = at + 1;
    let closing = i < n && text[i].into() == SLASH;
    if closing {
        let j = run(text, i + 1, SPACES_LONGEST, is_tag_space);
        if j - (i + 1) > SPACES_LONGEST {
            return None;
        }
        i = j;
    }
    let name_end = run(text, i, NAME_LONGEST, is_name_char);
    if name_end - i > NAME_LONGEST {
        return None;
    }
    let mut k = name_end;
    if name_end > i {
        k = run(text, name_end, SPACES_LONGEST, is_tag_space);
        if k - name_end > SPACES_LONGEST {
            return None;
        }
    }
    let empty = k < n && text[k].into() == SLASH;
    if empty {
        k += 1;
    }
    (k == n).then_some(Tag {
        closing,
        name: (i, name_end),
        empty,
        end: n,
        spaced: name_end < k - usize::from(empty),
    })
}

/// `_NAME_END.match(text, at)`: a name and `>`; where the name ends.
pub fn name_end_at<T: Copy + Into<u32>>(text: &[T], at: usize) -> Option<usize> {
    let j = run(text, at, NAME_LONGEST, is_name_char);
    (j > at && j - at <= NAME_LONGEST && j < text.len() && text[j].into() == GT).then_some(j)
}

/// `_NAME_SO_FAR.match(text, at)`: the rest of the text is (the beginning of) a name.
pub fn name_so_far<T: Copy + Into<u32>>(text: &[T], at: usize) -> bool {
    let n = text.len();
    n.saturating_sub(at) <= NAME_LONGEST && run(text, at, NAME_LONGEST, is_name_char) >= n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    #[test]
    fn python_spaces_are_rusts_and_the_separators() {
        for c in 0..=0x10FFFFu32 {
            let rust = char::from_u32(c).is_some_and(char::is_whitespace);
            let separator = (0x1C..=0x1F).contains(&c);
            assert_eq!(is_python_space(c), rust || separator, "U+{c:04X}");
        }
    }

    #[test]
    fn name_characters_are_the_patterns_class() {
        // `[^\s<>/=\"'&]`, spelled out: the ASCII table must say the same
        for c in 0..=0x10FFFFu32 {
            let excluded = "<>/=\"'&".chars().any(|x| u32::from(x) == c) || is_python_space(c);
            assert_eq!(is_name_char(c), !excluded, "U+{c:04X}");
        }
    }

    #[test]
    fn a_tag_and_its_bounds() {
        let t = units("x<a>");
        assert_eq!(tag_at(&t, 1).map(|t| (t.name, t.end)), Some(((2, 3), 4)));
        assert!(tag_at(&units("</\n step >"), 0).is_some_and(|t| t.closing && t.spaced));
        assert!(tag_at(&units("<a/>"), 0).is_some_and(|t| t.empty && !t.closing));
        let spaces = |k: usize| format!("</{}a>", " ".repeat(k));
        assert!(tag_at(&units(&spaces(16)), 0).is_some());
        assert!(tag_at(&units(&spaces(17)), 0).is_none());
        let name = |k: usize| format!("<{}>", "n".repeat(k));
        assert!(tag_at(&units(&name(256)), 0).is_some());
        assert!(tag_at(&units(&name(257)), 0).is_none());
        assert!(tag_at(&units("<a b>"), 0).is_none());
        assert!(tag_at(&units("<a\u{a0}>"), 0).is_none());
        assert!(tag_at(&units("<>"), 0).is_none());
    }

    #[test]
    fn a_tag_begun() {
        let so_far = |s: &str| tag_so_far(&units(s), 0);
        assert!(so_far("<").is_some_and(|t| t.name == (1, 1) && !t.closing));
        assert!(so_far("</").is_some_and(|t| t.closing && !t.empty));
        assert!(so_far("<//").is_some_and(|t| t.closing && t.empty));
        assert!(so_far("<ab ").is_some_and(|t| t.spaced && t.name == (1, 3)));
        assert!(so_far("<ab /").is_some_and(|t| t.spaced && t.empty));
        assert!(so_far("<ab/").is_some_and(|t| !t.spaced && t.empty));
        assert!(so_far("< ").is_none());
        assert!(so_far("<a>").is_none());
        assert!(so_far(&format!("<{}", "n".repeat(257))).is_none());
        assert!(so_far(&format!("<a{}", " ".repeat(17))).is_none());
    }

    #[test]
    fn a_name_and_its_end() {
        assert_eq!(name_end_at(&units("ab>"), 0), Some(2));
        assert_eq!(name_end_at(&units(">"), 0), None);
        assert!(name_so_far(&units("ab"), 0));
        assert!(name_so_far(&units("ab"), 2));
        assert!(!name_so_far(&units("a b"), 0));
        assert!(!name_so_far(&units(&"n".repeat(257)), 0));
    }
}
