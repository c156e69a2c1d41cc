//! Literal markers as a trie (`toolparse.readers.markers`).
//!
//! Markers are literals, and one may be a prefix of another (`<invoke name=`
//! and `<invoke name="`): the longest that matches wins. The trie tries a
//! marker's characters once, not every marker at each position, so matching
//! at a position costs a marker's length, not the number of markers. It
//! answers the two questions `trie_patterns`' regexes answer: the longest
//! marker at a position, and whether the text from a position to its end is a
//! proper prefix of one.

/// One node: its children by character (sorted), and the marker that ends here.
#[derive(Clone, Debug, Default)]
struct Node {
    children: Vec<(u32, u32)>,
    marker: Option<u32>,
}

/// The markers' trie. Node 0 is the root.
#[derive(Clone, Debug)]
pub struct Trie {
    nodes: Vec<Node>,
    /// The longest marker's length.
    longest: usize,
}

impl Trie {
    /// The trie of `markers` (code points); a marker's index in `markers` is
    /// what a match returns.
    pub fn new(markers: &[Vec<u32>]) -> Trie {
        let mut nodes = vec![Node::default()];
        for (k, marker) in markers.iter().enumerate() {
            let mut at = 0usize;
            for &c in marker {
                at = match nodes[at].children.binary_search_by_key(&c, |&(ch, _)| ch) {
                    Ok(i) => nodes[at].children[i].1 as usize,
                    Err(i) => {
                        let child = nodes.len();
                        nodes[at].children.insert(i, (c, child as u32));
                        nodes.push(Node::default());
                        child
                    }
                };
            }
            nodes[at].marker.get_or_insert(k as u32);
        }
        let longest = markers.iter().map(Vec::len).max().unwrap_or(0);
        Trie { nodes, longest }
    }

    fn child(&self, at: usize, c: u32) -> Option<usize> {
        let children = &self.nodes[at].children;
        if children.len() <= 8 {
            children
                .iter()
                .find(|&&(ch, _)| ch == c)
                .map(|&(_, i)| i as usize)
        } else {
            children
                .binary_search_by_key(&c, |&(ch, _)| ch)
                .ok()
                .map(|i| children[i].1 as usize)
        }
    }

    /// The characters a marker may begin with.
    pub fn firsts(&self) -> impl Iterator<Item = u32> + '_ {
        self.nodes[0].children.iter().map(|&(c, _)| c)
    }

    /// The longest marker that `text[at..]` begins with: (its index, where it
    /// ends). (`trie_patterns(...)[0].match(text, at)`, `text` cut where the
    /// search ends.)
    pub fn longest_at<T: Copy + Into<u32>>(&self, text: &[T], at: usize) -> Option<(usize, usize)> {
        let mut node = 0usize;
        let mut found = self.nodes[0].marker.map(|k| (k as usize, at));
        for (i, &c) in text.iter().enumerate().skip(at) {
            match self.child(node, c.into()) {
                Some(next) => node = next,
                None => break,
            }
            if let Some(k) = self.nodes[node].marker {
                found = Some((k as usize, i + 1));
            }
        }
        found
    }

    /// `text[at..]` is a non-empty proper prefix of a marker, reaching the end
    /// of the text (`trie_patterns(...)[1].match(text, at)`).
    pub fn prefix_at<T: Copy + Into<u32>>(&self, text: &[T], at: usize) -> bool {
        if at >= text.len() || text.len() - at >= self.longest {
            return false; // (nothing, or too long to be a proper prefix)
        }
        let mut node = 0usize;
        for &c in &text[at..] {
            match self.child(node, c.into()) {
                Some(next) => node = next,
                None => return false,
            }
        }
        !self.nodes[node].children.is_empty()
    }

    /// Where the first suffix of `text` from `lo` on begins that is a proper
    /// prefix of a marker (`trie_patterns(...)[1].search(text, lo)`).
    pub fn prefix_from<T: Copy + Into<u32>>(&self, text: &[T], lo: usize) -> Option<usize> {
        let n = text.len();
        // (a suffix as long as the longest marker is no proper prefix of one)
        let from = lo.max((n + 1).saturating_sub(self.longest));
        (from..n).find(|&at| self.prefix_at(text, at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u32> {
        s.chars().map(u32::from).collect()
    }

    fn trie(markers: &[&str]) -> Trie {
        Trie::new(&markers.iter().map(|m| units(m)).collect::<Vec<_>>())
    }

    #[test]
    fn the_longest_marker_wins() {
        let t = trie(&["<a", "<a=\"", "<b"]);
        assert_eq!(t.longest_at(&units("x<a=\"y"), 1), Some((1, 5)));
        assert_eq!(t.longest_at(&units("x<a=y"), 1), Some((0, 3)));
        assert_eq!(t.longest_at(&units("x<c"), 1), None);
        assert_eq!(t.longest_at(&units("<"), 0), None);
    }

    #[test]
    fn a_proper_prefix_reaching_the_end() {
        let t = trie(&["<a", "<a=\""]);
        assert!(t.prefix_at(&units("x<"), 1));
        assert!(t.prefix_at(&units("x<a"), 1)); // (a marker, and the beginning of a longer one)
        assert!(!t.prefix_at(&units("x<a=\""), 1));
        assert!(!t.prefix_at(&units("x<b"), 1));
        assert!(!t.prefix_at(&units("x"), 1));
        assert_eq!(t.prefix_from(&units("<a<a="), 0), Some(2));
        assert_eq!(t.prefix_from(&units("<a=\"x"), 0), None);
    }

    #[test]
    fn an_empty_marker_matches_everywhere() {
        let t = trie(&["", "ab"]);
        assert_eq!(t.longest_at(&units("xab"), 0), Some((0, 0)));
        assert_eq!(t.longest_at(&units("xab"), 1), Some((1, 3)));
        assert!(t.prefix_at(&units("a"), 0));
    }
}
