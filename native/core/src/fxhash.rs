//! A fast hasher for tables whose keys the model cannot choose: object
//! identities, and the fixed sets of a grammar's markers (asked about model
//! text, never filled with it). Tables that model-written keys fill use
//! std's SipHash, which such keys cannot make collide.
//!
//! The hash is rustc's `FxHasher`: a word at a time, rotate, xor, multiply.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// `FxHasher` (see the module docs).
#[derive(Clone, Copy, Default)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A map keyed by what the model cannot choose (see the module docs).
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A set of what the model cannot choose (see the module docs).
pub type FxHashSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_find_what_they_hold() {
        let mut set: FxHashSet<Vec<u32>> = FxHashSet::default();
        set.insert(vec![60, 116]);
        set.insert(vec![60]);
        assert!(set.contains(&vec![60, 116]) && set.contains(&vec![60]));
        assert!(!set.contains(&vec![116]) && !set.contains(&Vec::new()));
    }
}
