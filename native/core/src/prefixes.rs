//! A set of held texts: the proper prefixes of a grammar's literals (a held
//! terminal may still become one of them). The lanes ask it about every delta
//! that lengthens held text, and most such texts are no prefix at all: their
//! first two characters already say so. The set keeps those characters' pairs
//! as bits, so the common answer costs no hash of the text.

use crate::fxhash::FxHashSet;

/// The set (see the module docs).
#[derive(Debug)]
pub struct PrefixSet {
    set: FxHashSet<Vec<u32>>,
    /// The texts of one character below 256 in the set, a bit each.
    singles: [u64; 4],
    /// For each character below 256: 0, or 1 + the index in `seconds` of the
    /// bitmap of the characters below 256 that follow it in the set's texts.
    slot: Box<[u16; 256]>,
    seconds: Vec<[u64; 4]>,
}

impl Default for PrefixSet {
    fn default() -> PrefixSet {
        PrefixSet {
            set: FxHashSet::default(),
            singles: [0; 4],
            slot: Box::new([0; 256]),
            seconds: Vec::new(),
        }
    }
}

fn bit(bits: &[u64; 4], c: u32) -> bool {
    bits[(c >> 6) as usize] >> (c & 63) & 1 != 0
}

impl PrefixSet {
    pub fn new(texts: impl IntoIterator<Item = Vec<u32>>) -> PrefixSet {
        let mut out = PrefixSet::default();
        for text in texts {
            match text[..] {
                [c] if c < 256 => out.singles[(c >> 6) as usize] |= 1 << (c & 63),
                [a, b, ..] if a < 256 && b < 256 => {
                    if out.slot[a as usize] == 0 {
                        out.seconds.push([0; 4]);
                        out.slot[a as usize] = out.seconds.len() as u16;
                    }
                    let seconds = &mut out.seconds[usize::from(out.slot[a as usize]) - 1];
                    seconds[(b >> 6) as usize] |= 1 << (b & 63);
                }
                _ => {}
            }
            out.set.insert(text);
        }
        out
    }

    /// Whether a text in the set may begin with `first` then `second`: false
    /// only where none does (exact for characters below 256).
    pub fn may_begin(&self, first: u32, second: u32) -> bool {
        if first >= 256 || second >= 256 {
            return true;
        }
        let slot = usize::from(self.slot[first as usize]);
        slot != 0 && bit(&self.seconds[slot - 1], second)
    }

    /// Whether `text` is in the set.
    #[inline]
    pub fn contains(&self, text: &[u32]) -> bool {
        match *text {
            [c] if c < 256 => bit(&self.singles, c),
            [a, b, ..] if a < 256 && b < 256 => {
                let slot = usize::from(self.slot[a as usize]);
                slot != 0 && bit(&self.seconds[slot - 1], b) && self.set.contains(text)
            }
            _ => self.set.contains(text),
        }
    }

    /// The texts of the set, sorted (to show or compare a set).
    pub fn sorted(&self) -> Vec<&[u32]> {
        let mut texts: Vec<&[u32]> = self.set.iter().map(Vec::as_slice).collect();
        texts.sort_unstable();
        texts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_the_set_does() {
        let words = [
            "to=",
            "<|start|>",
            "\u{2013}x",
            "a\u{e9}",
            "\u{e9}",
            "",
            "z",
        ];
        let texts: Vec<Vec<u32>> = words
            .iter()
            .flat_map(|w| {
                let w: Vec<u32> = w.chars().map(u32::from).collect();
                (0..w.len()).map(move |k| w[..k].to_vec())
            })
            .collect();
        let set = PrefixSet::new(texts.iter().cloned());
        let whole: FxHashSet<Vec<u32>> = texts.iter().cloned().collect();
        let alphabet: Vec<u32> = "to=<|sa\u{e9}\u{2013}xz".chars().map(u32::from).collect();
        let mut asked = vec![vec![]];
        for _ in 0..3 {
            let longer: Vec<Vec<u32>> = asked
                .iter()
                .flat_map(|t| alphabet.iter().map(move |&c| [&t[..], &[c]].concat()))
                .collect();
            asked.extend(longer);
        }
        asked.extend(texts);
        let mut found = 0;
        for text in &asked {
            assert_eq!(set.contains(text), whole.contains(text), "{text:?}");
            if let [a, b, ..] = text[..] {
                let begins = whole.iter().any(|t| t.len() >= 2 && t[0] == a && t[1] == b);
                assert!(set.may_begin(a, b) || !begins, "{text:?}");
                if a < 256 && b < 256 {
                    assert_eq!(set.may_begin(a, b), begins, "{text:?}");
                }
            }
            found += usize::from(whole.contains(text));
        }
        assert!(found > 10);
    }
}
