//! Where the engine's events go: the engine says what each event holds and
//! where its text is; the sink builds the event it needs of it.
//!
//! Text is handed over as a [`Text`], a place, never as an owned string on
//! the hot path: a text lane's event is the delta fed in, and a sink that
//! holds the delta (the Python binding holds the `str` object) gives it on
//! as it is, where a sink of Rust strings copies it once.

/// Where an event's text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text<'a> {
    /// The whole delta being fed.
    Input,
    /// The delta's first so many code points.
    InputTo(usize),
    /// Code points (a lone surrogate is possible only from Python input).
    Points(&'a [u32]),
    /// Code points below 256, one byte each.
    Latin1(&'a [u8]),
    /// A held character below 256, then code points below 256.
    Joined(u8, &'a [u8]),
    /// UTF-8 text the engine made.
    Str(&'a str),
    /// Generalized UTF-8 (see `crate::wide`): UTF-8 that may encode a lone
    /// surrogate, as a call's argument pieces and names may hold one.
    Wide(&'a [u8]),
}

impl<'a> From<&'a [u32]> for Text<'a> {
    fn from(points: &'a [u32]) -> Text<'a> {
        Text::Points(points)
    }
}
