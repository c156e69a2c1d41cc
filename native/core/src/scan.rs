//! Whether a lane takes a delta, decided on its code points alone (no Python).
//!
//! A lane (see `toolparse/engine/lanes.py`) takes a delta that holds none of
//! its stop characters and none of the unprintable characters it cannot take.
//! Python strings are stored one, two or four bytes a code point (PEP 393):
//! [`look`] reads any of the three in one pass.

/// The characters a lane stops at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StopSet {
    /// The ASCII ones, a bit each.
    ascii: u128,
    others: Vec<u32>,
    /// A stop found in every delta (Python's `"" in delta`): nothing is taken.
    pub every: bool,
}

impl StopSet {
    /// The empty set: no character stops.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the code point `c`.
    pub fn add(&mut self, c: u32) {
        if c < 128 {
            self.ascii |= 1u128 << c;
        } else if !self.others.contains(&c) {
            self.others.push(c);
        }
    }

    /// Add every code point of `other`, and its `every`.
    pub fn extend(&mut self, other: &StopSet) {
        self.ascii |= other.ascii;
        for &c in &other.others {
            self.add(c);
        }
        self.every |= other.every;
    }

    /// Whether `c` stops.
    #[inline]
    pub fn contains(&self, c: u32) -> bool {
        if c < 128 {
            self.ascii & (1u128 << c) != 0
        } else {
            !self.others.is_empty() && self.others.contains(&c)
        }
    }
}

/// What a lane cannot take among the characters `str.isprintable` rejects
/// (the `unprintable` patterns of `toolparse.engine.lanes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unprintable {
    /// None: it takes any character (a gathering lane only delays them).
    Nothing,
    /// `SURROGATES`: a UTF-16 surrogate (the full path joins split pairs).
    Surrogates,
    /// `NEWLINES_AND_SURROGATES`: a newline too (a Markdown line begins).
    NewlinesAndSurrogates,
    /// `ANY`: every character `str.isprintable` rejects.
    Any,
    /// Another pattern: Python decides (`isprintable()` or the pattern).
    Pattern,
}

/// What one pass over a delta found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// The lane takes it.
    Takes,
    /// It holds a stop, or a character the lane cannot take.
    Stops,
    /// No stop; whether its characters are printable is for Python to say
    /// (non-ASCII under `Any`, or a `Pattern` rule).
    AskPython,
}

#[inline]
fn is_surrogate(c: u32) -> bool {
    (0xD800..=0xDFFF).contains(&c)
}

/// Look at the code points `units` (a Python string's data, one unit a code
/// point) under the stops and the unprintable rule of a lane.
pub fn look<T: Copy + Into<u32>>(units: &[T], stops: &StopSet, rule: Unprintable) -> Look {
    if units.is_empty() || stops.every {
        return Look::Stops;
    }
    let mut ask = rule == Unprintable::Pattern;
    for &unit in units {
        let c: u32 = unit.into();
        if stops.contains(c) {
            return Look::Stops;
        }
        match rule {
            Unprintable::Nothing | Unprintable::Pattern => {}
            Unprintable::Surrogates => {
                if is_surrogate(c) {
                    return Look::Stops;
                }
            }
            Unprintable::NewlinesAndSurrogates => {
                if c == 10 || is_surrogate(c) {
                    return Look::Stops;
                }
            }
            Unprintable::Any => {
                if c < 0x20 || c == 0x7F || is_surrogate(c) {
                    return Look::Stops;
                }
                if c > 0x7F {
                    ask = true;
                }
            }
        }
    }
    if ask {
        Look::AskPython
    } else {
        Look::Takes
    }
}

/// [`look`] for text of one byte a code point (PEP 393's Latin-1 strings, most
/// deltas), decided a byte at a time from a bitmap of the 256 code points a
/// lane takes as it stands. [`look`] decides each character on its own, so a
/// delta is `Look::Takes` exactly when it is not empty and the bitmap takes
/// each of its bytes (a test checks the bitmap against [`look`], byte by byte).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Latin1Takes([u64; 4]);

impl Latin1Takes {
    /// The bitmap of `stops` under `rule` (none taken where `none` is set: a
    /// lane whose stops a pattern gives, which Python must search). Built from
    /// the sets' bits, not a [`look`] a code point: lanes are armed often.
    pub fn new(stops: &StopSet, rule: Unprintable, none: bool) -> Self {
        if none || stops.every {
            return Latin1Takes([0; 4]);
        }
        // (what the rule refuses, or asks Python about, below 128 and above)
        let controls: u128 = ((1u128 << 0x20) - 1) | (1u128 << 0x7F);
        let (refused, high) = match rule {
            Unprintable::Nothing | Unprintable::Surrogates => (0u128, true),
            Unprintable::NewlinesAndSurrogates => (1u128 << 10, true),
            Unprintable::Any => (controls, false),
            Unprintable::Pattern => (!0u128, false),
        };
        let ascii = !stops.ascii & !refused;
        let mut bits = [ascii as u64, (ascii >> 64) as u64, 0, 0];
        if high {
            bits[2] = !0;
            bits[3] = !0;
            for &c in &stops.others {
                if c < 256 {
                    bits[(c >> 6) as usize] &= !(1u64 << (c & 63));
                }
            }
        }
        Latin1Takes(bits)
    }

    /// Whether [`look`] of `units` (one byte a code point) is `Look::Takes`.
    #[inline]
    pub fn takes(&self, units: &[u8]) -> bool {
        !units.is_empty() && units.iter().all(|&b| self.takes_byte(b))
    }

    /// Whether the lane takes the code point `b` (of text a byte a code point).
    #[inline]
    pub fn takes_byte(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 != 0
    }
}

/// How much of a JSON string's text is already its own canonical JSON (the
/// pattern `toolparse.readers.json.STRING_RUN`: characters that need no
/// escape, and the escapes written back as they are, `\\ \" \b \f \n \r \t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonText {
    /// All of it.
    Whole,
    /// All but a last backslash, whose escape the next delta completes.
    ButLastBackslash,
    /// Not all: the JSON reader must read it.
    No,
}

/// [`JsonText`] of `units`.
pub fn json_text<T: Copy + Into<u32>>(units: &[T]) -> JsonText {
    let n = units.len();
    let mut i = 0;
    while i < n {
        let c: u32 = units[i].into();
        if c == u32::from(b'\\') {
            if i + 1 == n {
                return JsonText::ButLastBackslash;
            }
            let next: u32 = units[i + 1].into();
            if !matches!(
                char::from_u32(next),
                Some('\\' | '"' | 'b' | 'f' | 'n' | 'r' | 't')
            ) {
                return JsonText::No;
            }
            i += 2;
            continue;
        }
        if c == u32::from(b'"') || c < 0x20 || is_surrogate(c) {
            return JsonText::No;
        }
        i += 1;
    }
    JsonText::Whole
}

/// The JSON string body of printable text (`json.encoder.encode_basestring`
/// less its quotes, for text with no control character): its quotes and
/// backslashes escaped. None: nothing to escape (the text is its own JSON).
pub fn json_escaped<T: Copy + Into<u32>>(units: &[T]) -> Option<String> {
    let quote = u32::from(b'"');
    let backslash = u32::from(b'\\');
    if !units.iter().any(|&u| {
        let c: u32 = u.into();
        c == quote || c == backslash
    }) {
        return None;
    }
    let mut out = String::with_capacity(units.len() + 8);
    for &unit in units {
        let c: u32 = unit.into();
        if c == quote || c == backslash {
            out.push('\\');
        }
        // (a lone surrogate never reaches here: the lane refuses unprintable text)
        out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
    }
    Some(out)
}

/// `json.encoder.encode_basestring(text)[1:-1]`: quotes, backslashes and
/// control characters escaped, everything else as it is.
pub fn json_encoded<T: Copy + Into<u32>>(units: &[T]) -> String {
    let mut out = String::with_capacity(units.len() + 8);
    json_encode_into(units, &mut out);
    out
}

/// [`json_encoded`], appended to `out`.
pub fn json_encode_into<T: Copy + Into<u32>>(units: &[T], out: &mut String) {
    out.reserve(units.len());
    for &unit in units {
        let c: u32 = unit.into();
        match c {
            0x22 => out.push_str("\\\""),
            0x5C => out.push_str("\\\\"),
            0x0A => out.push_str("\\n"),
            0x0D => out.push_str("\\r"),
            0x09 => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0C => out.push_str("\\f"),
            c if c < 0x20 => out.push_str(&format!("\\u{c:04x}")),
            c => out.push(char::from_u32(c).unwrap_or('\u{FFFD}')),
        }
    }
}

/// Where a value's text stops being plain text as it stands (the first match
/// of `toolparse.engine.value._NOT_AS_IS`: markup, a control character, a
/// surrogate, or a blank last line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Breaker {
    /// Nowhere: the text is taken whole, JSON-encoded.
    Nowhere,
    /// A newline followed by nothing but spaces and tabs, here.
    BlankLastLine(usize),
    /// Another breaker, here.
    At(usize),
}

fn is_value_breaker(c: u32, xml: bool) -> bool {
    c == u32::from(b'<')
        || (xml && c == u32::from(b'&'))
        || c <= 0x08
        || (0x0B..=0x1F).contains(&c)
        || is_surrogate(c)
}

/// The [`Breaker`] of a value's text `units` (`xml`: a value read as XML
/// text, where an entity breaks too: `_NOT_AS_IS_XML`).
pub fn value_breaker<T: Copy + Into<u32>>(units: &[T], xml: bool) -> Breaker {
    // (only the last newline can be followed by nothing but blanks)
    let mut q = units.len();
    while q > 0 && matches!(units[q - 1].into(), 0x20 | 0x09) {
        q -= 1;
    }
    let blank = (q > 0 && units[q - 1].into() == 0x0A).then(|| q - 1);
    let limit = blank.unwrap_or(units.len());
    match units[..limit]
        .iter()
        .position(|&u| is_value_breaker(u.into(), xml))
    {
        Some(p) => Breaker::At(p),
        None => blank.map_or(Breaker::Nowhere, Breaker::BlankLastLine),
    }
}

/// The most whitespace after a value's last newline that the fast path holds
/// (`toolparse.engine.value._MAX_KEPT`).
pub const MAX_KEPT: usize = 64;

/// `ValueReader.fast_piece` for a value that is not wrapped and has no
/// terminal awaiting confirmation, on text whose breaker is `breaker` (not
/// `Nowhere`): where the text splits into what is taken (JSON-encoded, its
/// entities decoded first where `xml`) and what is kept for the next delta
/// (a last blank line, a `<` or an entity the text's end cuts). None: the
/// reader must say (a `<` that may begin a terminal, a CDATA section, a
/// control character...). `listed` and `chars`: the value lexicon's `after_lt`.
pub fn value_split<T: Copy + Into<u32>>(
    units: &[T],
    breaker: Breaker,
    listed: bool,
    chars: &StopSet,
    xml: bool,
) -> Option<usize> {
    let n = units.len();
    if let Breaker::BlankLastLine(last) = breaker {
        return (n - last <= MAX_KEPT).then_some(last);
    }
    let mut end = n; // (the text taken or kept at a newline; what follows waits)
    for lt in 0..n {
        if units[lt].into() != u32::from(b'<') {
            continue;
        }
        if lt + 1 == n {
            end = lt; // (a terminal may begin here, cut by the text's end)
            break;
        }
        let after: u32 = units[lt + 1].into();
        if after == u32::from(b'!') || chars.contains(after) == listed {
            return None; // (CDATA, or a terminal may begin here: the reader decides)
        }
    }
    if xml {
        // (the last "&": an entity the text's end may cut waits, to be read whole)
        if let Some(amp) = units[..end]
            .iter()
            .rposition(|&u| u.into() == u32::from(b'&'))
        {
            if crate::entities::entity_prefix(&units[amp..end]) {
                end = amp;
            }
        }
    }
    if units[..end].iter().any(|&u| {
        let c: u32 = u.into();
        c <= 0x08 || (0x0B..=0x1F).contains(&c) || is_surrogate(c)
    }) {
        return None;
    }
    let mut q = end;
    while q > 0 && matches!(units[q - 1].into(), 0x20 | 0x09) {
        q -= 1;
    }
    if q > 0 && units[q - 1].into() == 0x0A {
        let last = q - 1;
        return (n - last <= MAX_KEPT + (n - end)).then_some(last);
    }
    Some(end)
}

/// Literal openers: whether one begins in a delta, whole or cut at its end
/// (the text lane's second look; `Engine._still_plain` in Python).
#[derive(Clone, Debug, Default)]
pub struct Literals {
    /// The words, grouped by their first character (a handful of groups: a
    /// candidate is compared with its own group only).
    groups: Vec<(u32, Vec<Vec<u32>>)>,
    firsts: StopSet,
}

impl Literals {
    pub fn new(words: Vec<Vec<u32>>) -> Self {
        let mut firsts = StopSet::new();
        let mut groups: Vec<(u32, Vec<Vec<u32>>)> = Vec::new();
        for word in words {
            let Some(&c) = word.first() else { continue };
            firsts.add(c);
            match groups.iter_mut().find(|(first, _)| *first == c) {
                Some((_, group)) => group.push(word),
                None => groups.push((c, vec![word])),
            }
        }
        Literals { groups, firsts }
    }

    /// Whether one of the words begins in `units`: whole, or a proper prefix
    /// of it reaching the end.
    pub fn begin_in<T: Copy + Into<u32>>(&self, units: &[T]) -> bool {
        self.found_in(units) != Found::Nothing
    }

    /// Where one of the words begins in `units`, whole or cut by its end (a
    /// whole one anywhere wins over a cut one, as the scanner's search does).
    pub fn found_in<T: Copy + Into<u32>>(&self, units: &[T]) -> Found {
        let n = units.len();
        let mut cut = None;
        for p in 0..n {
            let c = units[p].into();
            if !self.firsts.contains(c) {
                continue;
            }
            let Some((_, words)) = self.groups.iter().find(|(first, _)| *first == c) else {
                continue;
            };
            for word in words {
                let m = word.len().min(n - p);
                // (the first character is the group's)
                if units[p + 1..p + m]
                    .iter()
                    .zip(&word[1..m])
                    .all(|(&u, &w)| u.into() == w)
                {
                    if m == word.len() {
                        return Found::Whole;
                    }
                    cut = cut.or(Some(p));
                }
            }
        }
        cut.map_or(Found::Nothing, Found::Cut)
    }
}

/// The text lane's second look at text a byte a code point, where every
/// opener is a literal (see `Engine::still_plain`): a character the lane
/// stops at begins an opener only where the next one may be that opener's
/// second. A prose delta holding `t` (gpt-oss's and Muse's `to=`) is then
/// text as it stands unless an opener may really begin in it: the answer of
/// [`Literals::found_in`] being `Found::Nothing`, without leaving the lane.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairs {
    /// For each byte: 0 where a stop there always stops (no literal begins
    /// with it, one is that single character, or it is a newline), otherwise
    /// the index of the bitmap of the bytes that may follow it.
    slot: [u8; 256],
    /// The bitmaps; the first (slot 0) holds every byte.
    seconds: Vec<[u64; 4]>,
}

impl Pairs {
    /// The pairs of `literals`; None where no first character may be passed over.
    pub fn of(literals: &Literals) -> Option<Pairs> {
        let mut pairs = Pairs {
            slot: [0; 256],
            seconds: vec![[!0; 4]],
        };
        for (first, words) in &literals.groups {
            // (a newline stops the text lane whatever follows it)
            if *first >= 256 || *first == 10 || words.iter().any(|w| w.len() < 2) {
                continue;
            }
            let mut seconds = [0u64; 4];
            for word in words {
                // (a second character above 255 never follows in such text)
                if word[1] < 256 {
                    seconds[(word[1] >> 6) as usize] |= 1 << (word[1] & 63);
                }
            }
            if pairs.seconds.len() > 255 {
                break;
            }
            pairs.slot[*first as usize] = pairs.seconds.len() as u8;
            pairs.seconds.push(seconds);
        }
        (pairs.seconds.len() > 1).then_some(pairs)
    }

    /// Whether `bytes` (not empty) is text as it stands for a lane whose
    /// bitmap is `lane`: each byte the bitmap refuses is the first character
    /// of literals only, and the byte after it (there is one) the second of none.
    #[inline]
    pub fn takes(&self, bytes: &[u8], lane: &Latin1Takes) -> bool {
        bytes
            .last()
            .is_some_and(|&last| lane.takes_byte(last) && self.none_begins_before_last(bytes, lane))
    }

    /// Whether only the last byte of `bytes` may begin a literal, and does:
    /// one of two characters or more, cut by the end (what
    /// [`Literals::found_in`] answers as `Found::Cut(len - 1)`: prose that
    /// ends in gpt-oss's or Muse's `t`).
    pub fn cut_at_end(&self, bytes: &[u8], lane: &Latin1Takes) -> bool {
        bytes.last().is_some_and(|&last| {
            !lane.takes_byte(last)
                && self.slot[last as usize] != 0
                && self.none_begins_before_last(bytes, lane)
        })
    }

    /// Whether no literal begins at `first` (a character this lane stops at)
    /// where `next` follows it: it begins literals only, and `next` is the
    /// second of none.
    pub fn passes(&self, first: u32, next: u8) -> bool {
        first < 256 && self.slot[first as usize] != 0 && self.second_of(first as u8, next) == 0
    }

    /// 1 where `next` may follow `first` in a literal, or `first` always stops.
    #[inline]
    fn second_of(&self, first: u8, next: u8) -> u64 {
        let seconds = &self.seconds[usize::from(self.slot[usize::from(first)])];
        seconds[usize::from(next >> 6)] >> (next & 63) & 1
    }

    /// Whether no literal begins before the last byte of `bytes`. (Each byte
    /// is looked at, with no branch on what it is: which bytes are stops is
    /// the text's chance, which a branch would guess wrong.)
    #[inline]
    fn none_begins_before_last(&self, bytes: &[u8], lane: &Latin1Takes) -> bool {
        let mut begins = 0u64;
        for pair in bytes.windows(2) {
            let stops = u64::from(!lane.takes_byte(pair[0]));
            begins |= stops & self.second_of(pair[0], pair[1]);
        }
        begins == 0
    }
}

/// What [`Literals::found_in`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Found {
    Nothing,
    Whole,
    /// Only a proper prefix of one, from here to the end.
    Cut(usize),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(chars: &str) -> StopSet {
        let mut s = StopSet::new();
        for c in chars.chars() {
            s.add(c as u32);
        }
        s
    }

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(|c| c as u32).collect()
    }

    #[test]
    fn pairs_take_only_what_no_literal_begins_in() {
        let sets = [
            vec!["to=", "to=self<|message|>", "<|start|>", "<|eom|>"],
            vec!["functools[", "<tool_call>"],
            vec!["t", "to="], // (a single character: always stops)
            vec!["\n<x>", "<x>"],
        ];
        let alphabet: Vec<u8> = b"to=<|sfx \n".iter().copied().chain([0xE9]).collect();
        for set in sets {
            let literals = Literals::new(set.iter().map(|w| units(w)).collect());
            let mut stops = StopSet::new();
            for w in &set {
                stops.add(w.chars().next().unwrap() as u32);
            }
            let lane = Latin1Takes::new(&stops, Unprintable::NewlinesAndSurrogates, false);
            let Some(pairs) = Pairs::of(&literals) else {
                assert_eq!(set, vec!["t", "to="]);
                continue;
            };
            // every text of up to five of these characters
            let mut texts: Vec<Vec<u8>> = vec![vec![]];
            for _ in 0..5 {
                let longer: Vec<Vec<u8>> = texts
                    .iter()
                    .flat_map(|t| alphabet.iter().map(move |&c| [t.clone(), vec![c]].concat()))
                    .collect();
                texts.extend(longer.into_iter().filter(|t| t.len() <= 5));
                texts.sort();
                texts.dedup();
            }
            let mut taken = 0;
            let (mut cut, mut passed) = (0, 0);
            for text in &texts {
                if pairs.takes(text, &lane) {
                    taken += 1;
                    assert!(!text.contains(&10), "{text:?}");
                    assert_eq!(literals.found_in(text), Found::Nothing, "{set:?} {text:?}");
                }
                if pairs.cut_at_end(text, &lane) {
                    cut += 1;
                    assert!(!text.contains(&10), "{text:?}");
                    let at = Found::Cut(text.len() - 1);
                    assert_eq!(literals.found_in(text), at, "{set:?} {text:?}");
                }
                // (a held first character, then text the lane takes)
                if let [first, rest @ ..] = &text[..] {
                    let rest_taken = lane.takes(rest) || pairs.takes(rest, &lane);
                    if rest_taken && pairs.passes(u32::from(*first), rest[0]) {
                        passed += 1;
                        assert!(!lane.takes_byte(*first), "{text:?}");
                        assert_eq!(literals.found_in(text), Found::Nothing, "{set:?} {text:?}");
                    }
                }
            }
            assert!(cut > 0 && passed > 0, "{set:?}");
            // (and it takes text the bitmap alone would stop at)
            assert!(
                taken > texts.iter().filter(|t| lane.takes(t)).count(),
                "{set:?}"
            );
        }
        let literals = Literals::new(vec![units("to="), units("<x>")]);
        let pairs = Pairs::of(&literals).unwrap();
        let mut stops = StopSet::new();
        stops.add(u32::from(b't'));
        stops.add(u32::from(b'<'));
        let lane = Latin1Takes::new(&stops, Unprintable::NewlinesAndSurrogates, false);
        assert!(pairs.takes(b"at c", &lane));
        assert!(pairs.takes(b"the ", &lane));
        assert!(!pairs.takes(b"a to", &lane));
        assert!(!pairs.takes(b"cat", &lane));
        assert!(!pairs.takes(b"", &lane));
        assert!(pairs.takes(b"a <b", &lane));
        assert!(!pairs.takes(b"a <x", &lane));
        assert!(pairs.cut_at_end(b"cat", &lane));
        assert!(pairs.cut_at_end(b"t", &lane));
        assert!(!pairs.cut_at_end(b"a to", &lane));
        assert!(!pairs.cut_at_end(b"to t", &lane));
        assert!(!pairs.cut_at_end(b"cats", &lane));
        assert!(!pairs.cut_at_end(b"", &lane));
        assert!(pairs.passes(u32::from(b't'), b'h'));
        assert!(!pairs.passes(u32::from(b't'), b'o'));
        assert!(!pairs.passes(u32::from(b'a'), b'h'));
        assert!(!pairs.passes(0x2013, b'h'));
    }

    #[test]
    fn the_latin1_table_agrees_with_look() {
        let rules = [
            Unprintable::Nothing,
            Unprintable::Surrogates,
            Unprintable::NewlinesAndSurrogates,
            Unprintable::Any,
            Unprintable::Pattern,
        ];
        let mut every = set("<");
        every.every = true;
        let mut high = set("<\u{e9}\u{2013}");
        high.add(0xFF);
        let texts: Vec<Vec<u8>> = vec![
            b"plain prose".to_vec(),
            b"a < b".to_vec(),
            b"line\nbreak".to_vec(),
            b"tab\there".to_vec(),
            vec![0x7F, b'a'],
            vec![0xE9, b't', 0xE9],
            vec![0xA0],
            vec![],
            (0..=255u8).collect(),
        ];
        for stops in [
            set("<[`"),
            set("\"\\"),
            set(""),
            set("\n\u{7f}"),
            high,
            every,
        ] {
            for rule in rules {
                let table = Latin1Takes::new(&stops, rule, false);
                for text in &texts {
                    assert_eq!(
                        table.takes(text),
                        look(text, &stops, rule) == Look::Takes,
                        "{text:?} {rule:?}"
                    );
                }
                for b in 0..=255u8 {
                    assert_eq!(
                        table.takes(&[b]),
                        look(&[b], &stops, rule) == Look::Takes,
                        "{b} {rule:?}"
                    );
                }
                assert!(!Latin1Takes::new(&stops, rule, true).takes(b"plain"));
            }
        }
    }

    #[test]
    fn stops_at_a_stop_character() {
        let s = set("<[`");
        assert_eq!(
            look(
                &units("plain prose"),
                &s,
                Unprintable::NewlinesAndSurrogates
            ),
            Look::Takes
        );
        assert_eq!(
            look(&units("a < b"), &s, Unprintable::NewlinesAndSurrogates),
            Look::Stops
        );
        assert_eq!(
            look(&units("`code`"), &s, Unprintable::Nothing),
            Look::Stops
        );
    }

    #[test]
    fn the_empty_delta_and_every_stop() {
        let mut s = set("<");
        assert_eq!(look::<u32>(&[], &s, Unprintable::Nothing), Look::Stops);
        s.every = true;
        assert_eq!(look(&units("abc"), &s, Unprintable::Nothing), Look::Stops);
    }

    #[test]
    fn non_ascii_stops_and_the_three_widths() {
        let s = set("\u{2013}\u{1F600}");
        let text = "caf\u{e9} \u{2013} x";
        assert_eq!(look(&units(text), &s, Unprintable::Nothing), Look::Stops);
        let latin: Vec<u8> = "caf\u{e9}".chars().map(|c| c as u8).collect();
        assert_eq!(look(&latin, &s, Unprintable::Nothing), Look::Takes);
        let wide: Vec<u16> = vec![0x63, 0x2013];
        assert_eq!(look(&wide, &s, Unprintable::Nothing), Look::Stops);
    }

    #[test]
    fn json_text_and_its_escapes() {
        assert_eq!(
            json_text(&units(r#"plain \"quoted\" \\ back\tx"#)),
            JsonText::Whole
        );
        assert_eq!(
            json_text(&units(r#"ends in \"#)),
            JsonText::ButLastBackslash
        );
        assert_eq!(json_text(&units(r#"a \\\"#)), JsonText::ButLastBackslash);
        assert_eq!(json_text(&units(r#"a \\"#)), JsonText::Whole);
        assert_eq!(json_text(&units(r#"the "end"#)), JsonText::No);
        assert_eq!(json_text(&units(r#"slash \/ or \u00e9"#)), JsonText::No);
        assert_eq!(json_text(&units(r"tab\there")), JsonText::Whole);
        assert_eq!(json_text(&units("raw\ttab")), JsonText::No);
        assert_eq!(json_text(&[0x61u32, 0x09]), JsonText::No);
        assert_eq!(json_text(&[0x61u32, 0xDC00]), JsonText::No);
        assert_eq!(json_text::<u32>(&[]), JsonText::Whole);
    }

    #[test]
    fn json_escaped_quotes_and_backslashes() {
        assert_eq!(json_escaped(&units("plain")), None);
        assert_eq!(
            json_escaped(&units(r#"say "hi" \ café"#)).as_deref(),
            Some(r#"say \"hi\" \\ café"#)
        );
    }

    #[test]
    fn value_breakers_and_splits() {
        let none = StopSet::new();
        let mut slash = StopSet::new();
        slash.add(u32::from(b'/'));
        assert_eq!(
            value_breaker(&units("plain \"text\" & more"), false),
            Breaker::Nowhere
        );
        assert_eq!(value_breaker(&units("line\nnext"), false), Breaker::Nowhere);
        assert_eq!(
            value_breaker(&units("line\n  \t"), false),
            Breaker::BlankLastLine(4)
        );
        assert_eq!(value_breaker(&units("x < 4\n"), false), Breaker::At(2));
        assert_eq!(value_breaker(&units("a\rb"), false), Breaker::At(1));
        // a '<' no terminal begins with ("x < 4", "<tag>"), then a blank last line
        let text = units("if x < 4: \"<tag>\"\n  ");
        let b = value_breaker(&text, false);
        assert_eq!(value_split(&text, b, true, &slash, false), Some(17));
        // a '<' that may begin a terminal: the reader decides
        let text = units("a </b");
        assert_eq!(
            value_split(&text, value_breaker(&text, false), true, &slash, false),
            None
        );
        assert_eq!(
            value_split(&text, value_breaker(&text, false), false, &none, false),
            None
        );
        // a '<' cut by the text's end waits, with what follows
        let text = units("done <");
        assert_eq!(
            value_split(&text, value_breaker(&text, false), true, &slash, false),
            Some(5)
        );
        let text = units("a <![CDATA[");
        assert_eq!(
            value_split(&text, value_breaker(&text, false), true, &slash, false),
            None
        );
        let text = units("a\u{1}<b");
        assert_eq!(
            value_split(&text, value_breaker(&text, false), true, &slash, false),
            None
        );
        let text = units(&format!("a\n{}", " ".repeat(70)));
        assert_eq!(value_breaker(&text, false), Breaker::BlankLastLine(1));
        assert_eq!(
            value_split(&text, value_breaker(&text, false), true, &slash, false),
            None
        );
        assert_eq!(
            json_encoded(&units("a\"b\\c\nd\te\u{1}")),
            "a\\\"b\\\\c\\nd\\te\\u0001"
        );
    }

    #[test]
    fn literals_whole_or_cut() {
        let words = Literals::new(vec![units("<tool_call>"), units("<think>")]);
        assert!(!words.begin_in(&units("x < 4 and <b> too")));
        assert!(words.begin_in(&units("a <tool_call> b")));
        assert!(words.begin_in(&units("ends <to")));
        assert!(words.begin_in(&units("ends <")));
        assert!(!words.begin_in(&units("<tool_x")));
        assert!(!words.begin_in(&units("")));
        assert_eq!(words.found_in(&units("a <th")), Found::Cut(2));
        assert_eq!(words.found_in(&units("<t <think>")), Found::Whole);
        let latin: Vec<u8> = b"see <thi".to_vec();
        assert!(words.begin_in(&latin));
        // (words grouped by their first character: each compared from its second)
        let grouped = Literals::new(vec![
            units("to=self"),
            units("to=user"),
            units("<x>"),
            units("t"),
        ]);
        assert_eq!(grouped.found_in(&units("go to")), Found::Whole); // ("t" alone)
        let grouped = Literals::new(vec![units("to=self"), units("to=user"), units("<x>")]);
        assert_eq!(grouped.found_in(&units("go to")), Found::Cut(3));
        assert_eq!(grouped.found_in(&units("go to=u")), Found::Cut(3));
        assert_eq!(grouped.found_in(&units("a to=user b")), Found::Whole);
        assert_eq!(grouped.found_in(&units("tot <")), Found::Cut(4));
        assert_eq!(grouped.found_in(&units("tx to the")), Found::Nothing);
    }

    #[test]
    fn unprintable_rules() {
        let s = StopSet::new();
        let nl = units("line\nnext");
        let tab = units("a\tb");
        let lone = vec![0x61u32, 0xD800];
        assert_eq!(
            look(&nl, &s, Unprintable::NewlinesAndSurrogates),
            Look::Stops
        );
        assert_eq!(look(&nl, &s, Unprintable::Surrogates), Look::Takes);
        assert_eq!(
            look(&tab, &s, Unprintable::NewlinesAndSurrogates),
            Look::Takes
        );
        assert_eq!(look(&tab, &s, Unprintable::Any), Look::Stops);
        assert_eq!(look(&lone, &s, Unprintable::Surrogates), Look::Stops);
        assert_eq!(look(&lone, &s, Unprintable::Nothing), Look::Takes);
        assert_eq!(
            look(&units("na\u{ef}ve"), &s, Unprintable::Any),
            Look::AskPython
        );
        assert_eq!(look(&units("plain"), &s, Unprintable::Any), Look::Takes);
        assert_eq!(
            look(&units("plain"), &s, Unprintable::Pattern),
            Look::AskPython
        );
    }
}
