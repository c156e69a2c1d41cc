//! XML's entities in a value read as XML text: the native twin of
//! `toolparse.readers.xml_tree`'s `ENTITY`, `ENTITY_PREFIX`, `decode_entity`
//! and `decode_text`. Only the five predefined entities and numeric character
//! references are ever decoded; anything else stays as written.

/// The five predefined entities (`_NAMED`), by name.
const NAMED: [(&[u8], u32); 5] = [
    (b"lt", '<' as u32),
    (b"gt", '>' as u32),
    (b"amp", '&' as u32),
    (b"quot", '"' as u32),
    (b"apos", '\'' as u32),
];

fn is_digit(c: u32) -> bool {
    (0x30..=0x39).contains(&c)
}

fn is_hex(c: u32) -> bool {
    is_digit(c) || (0x41..=0x46).contains(&c) || (0x61..=0x66).contains(&c)
}

/// `ENTITY.match(units, 0)` (`&(lt|gt|amp|quot|apos|#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7});`):
/// its length and what it decodes to (`decode_entity`: None for a reference
/// to no valid character), or None where no entity begins here.
pub fn entity_at<T: Copy + Into<u32>>(units: &[T]) -> Option<(usize, Option<u32>)> {
    let at = |i: usize| units.get(i).map(|&u| u.into());
    if at(0) != Some(u32::from(b'&')) {
        return None;
    }
    if at(1) == Some(u32::from(b'#')) {
        let hex = matches!(at(2), Some(0x78 | 0x58)); // x or X
        let (start, most, radix) = if hex { (3, 7, 16) } else { (2, 8, 10) };
        let digits = (start..start + most)
            .take_while(|&i| at(i).is_some_and(if hex { is_hex } else { is_digit }))
            .count();
        if digits == 0 || at(start + digits) != Some(u32::from(b';')) {
            return None;
        }
        let mut code: u64 = 0;
        for i in start..start + digits {
            let c = at(i)?;
            code = code * radix + u64::from(char::from_u32(c)?.to_digit(radix as u32)?);
        }
        let valid = code != 0 && code <= 0x10FFFF && !(0xD800..=0xDFFF).contains(&code);
        return Some((start + digits + 1, valid.then_some(code as u32)));
    }
    for (name, char) in NAMED {
        let n = name.len();
        if (0..n).all(|i| at(1 + i) == Some(u32::from(name[i])))
            && at(1 + n) == Some(u32::from(b';'))
        {
            return Some((n + 2, Some(char)));
        }
    }
    None
}

/// `ENTITY_PREFIX.match(units, 0)` where `units` is the rest of a text
/// (`&(?:[a-z]{0,4}|#[0-9]{0,8}|#[xX][0-9a-fA-F]{0,7})\Z`): whether it may
/// still grow into an entity.
pub fn entity_prefix<T: Copy + Into<u32>>(units: &[T]) -> bool {
    let rest: Vec<u32> = units.iter().map(|&u| u.into()).collect();
    match rest.as_slice() {
        [0x26, tail @ ..] => match tail {
            [0x23, 0x78 | 0x58, hex @ ..] if hex.len() <= 7 && hex.iter().all(|&c| is_hex(c)) => {
                true
            }
            [0x23, digits @ ..] => digits.len() <= 8 && digits.iter().all(|&c| is_digit(c)),
            letters => letters.len() <= 4 && letters.iter().all(|&c| (0x61..=0x7A).contains(&c)),
        },
        _ => false,
    }
}

/// `decode_text`: the code points of `units` with each entity decoded (one
/// that stands for no valid character stays as written).
pub fn decoded<T: Copy + Into<u32>>(units: &[T]) -> Vec<u32> {
    let mut out = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        if let Some((length, char)) = entity_at(&units[i..]) {
            match char {
                Some(c) => out.push(c),
                None => out.extend(units[i..i + length].iter().map(|&u| u.into())),
            }
            i += length;
        } else {
            out.push(units[i].into());
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u32> {
        text.chars().map(|c| c as u32).collect()
    }

    fn decode(text: &str) -> String {
        decoded(&units(text))
            .into_iter()
            .map(|c| char::from_u32(c).unwrap())
            .collect()
    }

    #[test]
    fn decodes_the_predefined_entities_and_references() {
        assert_eq!(decode("a &lt; b &amp;&amp; c &gt; d"), "a < b && c > d");
        assert_eq!(decode("&quot;&apos;&#65;&#x42;&#X43;"), "\"'ABC");
        assert_eq!(decode("&amp;lt;"), "&lt;");
        assert_eq!(
            decode("&nbsp; &#0; &#xD800; &#1114112; &#123456789;"),
            "&nbsp; &#0; &#xD800; &#1114112; &#123456789;"
        );
        assert_eq!(decode("&#x10FFFF;&#99999999;"), "\u{10FFFF}&#99999999;");
        assert_eq!(decode("& &; &#; &#x; &lt &LT;"), "& &; &#; &#x; &lt &LT;");
        assert_eq!(decode("&#00065;&#x0041;"), "AA");
    }

    #[test]
    fn knows_what_may_grow_into_an_entity() {
        for text in [
            "&",
            "&l",
            "&quot",
            "&abcd",
            "&#",
            "&#12345678",
            "&#x",
            "&#X1aF",
            "&#x1234567",
        ] {
            assert!(entity_prefix(&units(text)), "{text}");
        }
        for text in [
            "",
            "x&",
            "&abcde",
            "&A",
            "&#123456789",
            "&#x12345678",
            "&#xg",
            "&lt;",
            "& ",
        ] {
            assert!(!entity_prefix(&units(text)), "{text}");
        }
    }
}
