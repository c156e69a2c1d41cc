//! Call ids (`toolparse.engine.calls._ids_of`): `call_` and 24 hex digits
//! (96 bits), random by default, or drawn from a generator seeded with an
//! integer, as `random.Random(seed).getrandbits(96)` draws them.
//!
//! * [`RandomIds`]: the default, unpredictable ids (`_random_ids`). Python
//!   draws them from `os.urandom`; here, and in the binding, they are a keyed
//!   SipHash of a counter (std's `RandomState` keys come from the operating
//!   system's randomness): unpredictable and unique, with no system call a
//!   call.
//! * [`SeededIds`]: CPython's Mersenne Twister (`Modules/_randommodule.c`),
//!   seeded from an integer as `random.Random(seed)` seeds it, so that a
//!   seeded stream gives Python's ids exactly. Only integer seeds: Python
//!   also takes `str`, `bytes` and `bytearray` seeds (hashed with SHA-512
//!   first), which a Rust caller has no use for; they are not supported.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A call id: `call_` and 24 lowercase hex digits, ASCII.
pub type CallId = [u8; 29];

/// `"call_"`, then `high` in 16 hex digits and `low` (its low 32 bits) in
/// 8: a call id, written without an allocation (`f"call_{n:024x}"` of
/// `n = high << 32 | low`).
pub fn call_id(high: u64, low: u64) -> CallId {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut id = *b"call_000000000000000000000000";
    for (i, digit) in id[5..21].iter_mut().enumerate() {
        *digit = HEX[((high >> (60 - 4 * i)) & 0xF) as usize];
    }
    for (i, digit) in id[21..].iter_mut().enumerate() {
        *digit = HEX[((low >> (28 - 4 * i)) & 0xF) as usize];
    }
    id
}

/// The id as text (it is ASCII).
pub fn id_str(id: &CallId) -> &str {
    // (call_id writes ASCII only: the check of 29 bytes cannot fail)
    std::str::from_utf8(id).unwrap_or("call_")
}

/// The `counter`th random id of the keys `keys`: two keyed SipHash words of
/// the counter, 96 of their bits written (see the module docs).
pub fn random_id(keys: &RandomState, counter: u64) -> CallId {
    let word = |salt: u64| {
        let mut hasher = keys.build_hasher();
        hasher.write_u64(counter);
        hasher.write_u64(salt);
        hasher.finish()
    };
    let (high, low) = (word(0), word(1));
    call_id(high, low >> 32)
}

/// Random call ids (`_random_ids`): unpredictable, unique within one source.
pub struct RandomIds {
    keys: RandomState,
    counter: u64,
}

impl Default for RandomIds {
    fn default() -> Self {
        RandomIds::new()
    }
}

impl RandomIds {
    /// A source with keys of its own.
    pub fn new() -> RandomIds {
        RandomIds {
            keys: RandomState::new(),
            counter: 0,
        }
    }

    /// The next id.
    pub fn next_id(&mut self) -> CallId {
        let id = random_id(&self.keys, self.counter);
        self.counter += 1;
        id
    }
}

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// CPython's MT19937 (`random.Random`'s core generator), seeded from an
/// integer as `random.Random(seed)` is.
#[derive(Clone)]
pub struct Mt19937 {
    state: Box<[u32; N]>,
    index: usize,
}

impl Mt19937 {
    /// `init_genrand(s)`.
    fn with_genrand(s: u32) -> Mt19937 {
        let mut state = Box::new([0u32; N]);
        state[0] = s;
        for i in 1..N {
            let prev = state[i - 1];
            // (i < 624: the cast is exact)
            state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        Mt19937 { state, index: N }
    }

    /// `init_by_array(key)` (`key` not empty).
    pub fn from_key(key: &[u32]) -> Mt19937 {
        let key: &[u32] = if key.is_empty() { &[0] } else { key };
        let mut mt = Mt19937::with_genrand(19_650_218);
        let s = &mut mt.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = s[i - 1];
            // (j < key.len(): the wrap of `+ j` is C's unsigned arithmetic)
            s[i] = (s[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = s[i - 1];
            s[i] =
                (s[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                s[0] = s[N - 1];
                i = 1;
            }
        }
        s[0] = 0x8000_0000; // (the MSB is 1, assuring a non-zero initial array)
        mt
    }

    /// `random.Random(seed)` for the integer whose magnitude is `magnitude`,
    /// its 32-bit words least significant first (Python seeds with
    /// `abs(seed)`: a negative seed is its magnitude's). Zero is `[]` or `[0]`.
    pub fn from_words(magnitude: &[u32]) -> Mt19937 {
        // (Python's key has no high zero words: the number's own length)
        let used = magnitude
            .iter()
            .rposition(|&w| w != 0)
            .map_or(1, |last| last + 1);
        Mt19937::from_key(&magnitude[..used.min(magnitude.len())])
    }

    /// `random.Random(seed)` for an integer seed that fits 128 bits.
    pub fn from_seed(seed: i128) -> Mt19937 {
        let n = seed.unsigned_abs();
        let words: Vec<u32> = (0..4).map(|k| (n >> (32 * k)) as u32).collect();
        Mt19937::from_words(&words)
    }

    /// `genrand_uint32()`: the next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            let s = &mut self.state;
            let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
            for k in 0..N - M {
                let y = (s[k] & UPPER_MASK) | (s[k + 1] & LOWER_MASK);
                s[k] = s[k + M] ^ (y >> 1) ^ mag(y);
            }
            for k in N - M..N - 1 {
                let y = (s[k] & UPPER_MASK) | (s[k + 1] & LOWER_MASK);
                s[k] = s[k + M - N] ^ (y >> 1) ^ mag(y);
            }
            let y = (s[N - 1] & UPPER_MASK) | (s[0] & LOWER_MASK);
            s[N - 1] = s[M - 1] ^ (y >> 1) ^ mag(y);
            self.index = 0;
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `getrandbits(96)`, as (its high 64 bits, its low 32): CPython fills
    /// the number 32 bits at a time from its least significant word up.
    pub fn bits96(&mut self) -> (u64, u64) {
        let low = self.next_u32();
        let middle = self.next_u32();
        let high = self.next_u32();
        ((u64::from(high) << 32) | u64::from(middle), u64::from(low))
    }
}

/// Seeded call ids: `f"call_{rng.getrandbits(96):024x}"` of
/// `rng = random.Random(seed)`, one draw a call.
#[derive(Clone)]
pub struct SeededIds(Mt19937);

impl SeededIds {
    /// The ids of `random.Random(seed)` (an integer seed: see the module docs).
    pub fn new(seed: i128) -> SeededIds {
        SeededIds(Mt19937::from_seed(seed))
    }

    /// The ids of the seed whose magnitude is the 32-bit words `magnitude`,
    /// least significant first (any size).
    pub fn from_words(magnitude: &[u32]) -> SeededIds {
        SeededIds(Mt19937::from_words(magnitude))
    }

    /// The next id.
    pub fn next_id(&mut self) -> CallId {
        let (high, low) = self.0.bits96();
        call_id(high, low)
    }
}

/// Where a stream's call ids come from.
pub enum IdSource {
    /// Random (the default).
    Random(RandomIds),
    /// `random.Random(seed)`'s draws.
    Seeded(SeededIds),
}

impl IdSource {
    /// The next call's id.
    pub fn next_id(&mut self) -> CallId {
        match self {
            IdSource::Random(ids) => ids.next_id(),
            IdSource::Seeded(ids) => ids.next_id(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn call_ids_are_written_as_format_would() {
        for (high, low) in [
            (0, 0),
            (u64::MAX, 0xFFFF_FFFF),
            (0x0123_4567_89ab_cdef, 0x89ab_cdef),
        ] {
            let id = call_id(high, low);
            assert_eq!(id_str(&id), format!("call_{high:016x}{low:08x}"));
        }
    }

    #[test]
    fn random_ids_differ() {
        let mut ids = RandomIds::new();
        let (a, b) = (ids.next_id(), ids.next_id());
        assert_ne!(a, b);
        assert!(id_str(&a).starts_with("call_") && a[5..].iter().all(u8::is_ascii_hexdigit));
        // (another source: other keys)
        assert_ne!(RandomIds::new().next_id(), a);
    }

    /// `[f"call_{r.getrandbits(96):024x}" for _ in range(3)]` of
    /// `r = random.Random(seed)`, recorded from Python 3.11.
    const PYTHON: [(i128, [&str; 3]); 6] = [
        (
            0,
            [
                "call_c2094cac629f6fbed82c07cd",
                "call_0a5d2f346baa9455e3e70682",
                "call_82e2e662f728b4fa42485e3a",
            ],
        ),
        (
            1,
            [
                "call_d8f16adf91b7584a2265b1f5",
                "call_1027c4d1c386bbc4cd613e30",
                "call_7ed4d57b1e2feb89414c343c",
            ],
        ),
        (
            42,
            [
                "call_06671ad11c80317fa3b1799d",
                "call_3eb13b9046685257bdd640fb",
                "call_bc8960a923b8c1e9392456de",
            ],
        ),
        (
            1 << 40,
            [
                "call_aba98cab5a6cd3101a881d81",
                "call_0c6fe2886d3938e910cf6bf8",
                "call_a06166e2662e45d4634252e5",
            ],
        ),
        (
            (1 << 64) + 3,
            [
                "call_ec3602f47f3df2cce9b84ccf",
                "call_778c2f4cd46236371941b7ea",
                "call_30d84ad7fd64a6d205702ec8",
            ],
        ),
        (
            -5,
            [
                "call_bde5c0994164d8399f767c45",
                "call_b0c11fdecb91ce375bc8fbbc",
                "call_bd69fe29d76d4330f1446bea",
            ],
        ),
    ];

    #[test]
    fn seeded_ids_are_pythons() {
        for (seed, expected) in PYTHON {
            let mut ids = SeededIds::new(seed);
            let got: Vec<String> = (0..3).map(|_| id_str(&ids.next_id()).to_owned()).collect();
            assert_eq!(got, expected, "seed {seed}");
        }
        // (high zero words do not count: the number is the same)
        let mut padded = SeededIds::from_words(&[42, 0, 0, 0, 0, 0]);
        assert_eq!(id_str(&padded.next_id()), PYTHON[2].1[0]);
        let mut empty = SeededIds::from_words(&[]);
        assert_eq!(id_str(&empty.next_id()), PYTHON[0].1[0]);
    }

    #[test]
    fn the_generator_is_cpythons() {
        // random.Random(5489).getrandbits(32)
        assert_eq!(Mt19937::from_seed(5489).next_u32(), 3_382_763_572);
        // the 300th and 1000th ids of seed 42: the state regenerated (624
        // words) several times over
        let mut ids = SeededIds::new(42);
        let drawn: Vec<CallId> = (0..1000).map(|_| ids.next_id()).collect();
        assert_eq!(id_str(&drawn[299]), "call_722764e68c41561be827a1b9");
        assert_eq!(id_str(&drawn[999]), "call_bff9507dcd14a03e83599af6");
        // a seed beyond 128 bits: random.Random(2**200 + 7)
        let mut big = SeededIds::from_words(&[7, 0, 0, 0, 0, 0, 0x100]);
        assert_eq!(id_str(&big.next_id()), "call_89d46fa9b655a2015497ddd0");
    }
}
