//! The value of an XML fragment (`toolparse.readers.xml_tree.fragment_value`),
//! as coercion's [`Value`]: its decoded text, or an object of its child
//! elements (a repeated child makes a list).
//!
//! Python reads a well-formed fragment with lxml and anything else with its
//! tolerant reader; the two give the same value wherever both apply (a
//! property its tests check), so the tolerant reader alone is the answer:
//! `tolerant_value`, transliterated. Unclosed elements are closed by their
//! parent's end, stray closing tags are ignored, only the five predefined
//! entities and numeric references are decoded, nesting deeper than
//! `max_depth` is kept as text. Linear in the fragment (bar the search of
//! the open elements for a closing tag's name, as in Python).

use crate::coercion::value::to_wide;
use crate::coercion::{Object, Value};
use crate::entities;
use crate::tags::is_python_space;

/// `fragment_value(text, max_depth=max_depth)` of the code points `text`.
pub fn fragment_value(text: &[u32], max_depth: usize) -> Value {
    if !text.contains(&u32::from(b'<')) {
        // (plain text, the usual number or word: no markup to parse)
        return Value::Str(to_wide(&entities::decoded(text)));
    }
    tolerant_value(text, max_depth)
}

/// An element being read (`_Element`).
struct Element {
    name: Vec<u32>,
    text: Vec<u32>,
    children: Vec<(Vec<u32>, Value)>,
}

impl Element {
    fn new(name: Vec<u32>) -> Element {
        Element {
            name,
            text: Vec::new(),
            children: Vec::new(),
        }
    }

    /// `_Element.value()`: its text, or an object of its children, a repeated
    /// child's values in a list (in the place of its first).
    fn value(self) -> Value {
        if self.children.is_empty() {
            return Value::Str(to_wide(&self.text));
        }
        // (name, values): one value, or the values of a repeated element
        let mut members: Vec<(Vec<u32>, Vec<Value>)> = Vec::new();
        let mut at = std::collections::HashMap::new();
        for (name, value) in self.children {
            match at.get(&name) {
                Some(&i) => {
                    let (_, values): &mut (Vec<u32>, Vec<Value>) = &mut members[i];
                    values.push(value);
                }
                None => {
                    at.insert(name.clone(), members.len());
                    members.push((name, vec![value]));
                }
            }
        }
        let mut object = Object::new();
        for (name, mut values) in members {
            let value = if values.len() == 1 {
                values.pop().unwrap_or(Value::Null)
            } else {
                Value::array(values)
            };
            object.insert(to_wide(&name), value);
        }
        Value::object(object)
    }
}

/// `_TAG.match(text, at)`: `<(/?)([A-Za-z_][A-Za-z0-9_.:\-]{0,127})\s*(/?)>`:
/// where the tag ends, whether it closes, its name's range, whether it
/// closes itself.
fn tag_at(text: &[u32], at: usize) -> Option<(usize, bool, std::ops::Range<usize>, bool)> {
    let ascii = |i: usize| text.get(i).and_then(|&c| u8::try_from(c).ok());
    let mut i = at + 1;
    let closing = ascii(i) == Some(b'/');
    if closing {
        i += 1;
    }
    let start = i;
    if !ascii(i).is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
        return None;
    }
    i += 1;
    let name_char = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b':' | b'-');
    while i - start < 128 && ascii(i).is_some_and(name_char) {
        i += 1;
    }
    // (a 129th name character: no shorter name is followed by `\s`, `/` or `>`)
    let name = start..i;
    while text.get(i).is_some_and(|&c| is_python_space(c)) {
        i += 1;
    }
    let self_closing = ascii(i) == Some(b'/');
    if self_closing {
        i += 1;
    }
    (ascii(i) == Some(b'>')).then_some((i + 1, closing, name, self_closing))
}

fn find(text: &[u32], from: usize, what: &[u8]) -> Option<usize> {
    let what: Vec<u32> = what.iter().map(|&b| u32::from(b)).collect();
    text.get(from..)?
        .windows(what.len())
        .position(|w| w == what.as_slice())
        .map(|k| from + k)
}

/// `tolerant_value(fragment, max_depth=max_depth)` (never fails).
pub fn tolerant_value(text: &[u32], max_depth: usize) -> Value {
    const LT: u32 = b'<' as u32;
    let mut stack = vec![Element::new(Vec::new())];
    let n = text.len();
    let mut i = 0;
    // (the stack is never empty: the root is popped by no closing tag)
    macro_rules! top {
        () => {
            stack.last_mut().expect("the root element")
        };
    }
    while i < n {
        let Some(lt) = text[i..].iter().position(|&c| c == LT).map(|k| i + k) else {
            top!().text.extend(entities::decoded(&text[i..]));
            break;
        };
        if lt > i {
            top!().text.extend(entities::decoded(&text[i..lt]));
        }
        if text[lt..].starts_with(&"<![CDATA[".chars().map(u32::from).collect::<Vec<_>>()) {
            match find(text, lt + 9, b"]]>") {
                None => {
                    top!().text.extend_from_slice(&text[lt + 9..]);
                    break;
                }
                Some(end) => {
                    top!().text.extend_from_slice(&text[lt + 9..end]);
                    i = end + 3;
                    continue;
                }
            }
        }
        let Some((end, closing, name, self_closing)) = tag_at(text, lt) else {
            top!().text.push(LT);
            i = lt + 1;
            continue;
        };
        i = end;
        let name = &text[name];
        if closing {
            if stack[1..].iter().any(|e| e.name == name) {
                loop {
                    let element = stack.pop().expect("an open element");
                    let done = element.name == name;
                    let element_name = element.name.clone();
                    let value = element.value();
                    top!().children.push((element_name, value));
                    if done {
                        break;
                    }
                }
            }
            continue; // (a stray closing tag: ignored)
        }
        if self_closing {
            top!()
                .children
                .push((name.to_vec(), Value::Str(Vec::new())));
        } else if stack.len() > max_depth {
            top!().text.extend_from_slice(&text[lt..end]);
        } else {
            stack.push(Element::new(name.to_vec()));
        }
    }
    while stack.len() > 1 {
        let element = stack.pop().expect("an open element");
        let name = element.name.clone();
        let value = element.value();
        top!().children.push((name, value));
    }
    stack.pop().map_or(Value::Null, Element::value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str, max_depth: usize) -> String {
        let chars: Vec<u32> = text.chars().map(u32::from).collect();
        String::from_utf8(fragment_value(&chars, max_depth).canonical_json()).unwrap()
    }

    #[test]
    fn fragments_as_python_reads_them() {
        // (each recorded from `xml_tree.fragment_value`)
        assert_eq!(json("3 &lt; 4 &#65; &bogus;", 64), r#""3 < 4 A &bogus;""#);
        assert_eq!(
            json("<opts><depth>3</depth></opts>", 64),
            r#"{"opts":{"depth":"3"}}"#
        );
        assert_eq!(
            json("<item>x</item> <item>y</item><b/>", 64),
            r#"{"item":["x","y"],"b":""}"#
        );
        assert_eq!(json("<a><b>1</a>tail</c>", 64), r#"{"a":{"b":"1"}}"#);
        assert_eq!(json("a < b <![CDATA[<x>]]>", 64), r#""a < b <x>""#);
        assert_eq!(json("<a><b><c>1</c></b></a>", 2), r#"{"a":{"b":"<c>1"}}"#);
        assert_eq!(json("<a >1</a ><1>", 64), r#"{"a":"1"}"#);
    }
}
