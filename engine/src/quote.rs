//! Quoting someone else's text in an error message: at most [`QUOTE_MAX_CHARS`] characters of
//! it, and its length when it was cut.
//!
//! Error messages travel back to whoever sent the text (a gRPC status message is an HTTP/2
//! header, and grpcio clients refuse to read headers past a few kilobytes), so a 1 MB FEN or a
//! 10,000-character variant name must not come back whole. Every message that quotes input
//! goes through [`quote`], here and in the service.

use std::fmt;

/// Most characters of an input that a message repeats.
pub const QUOTE_MAX_CHARS: usize = 100;

/// Displays its text like `{:?}` (quoted, escaped) when it is short, or its first
/// [`QUOTE_MAX_CHARS`] characters, an ellipsis and the full length when it is not.
///
/// # Examples
/// ```
/// use variant_engine::quote;
/// assert_eq!(quote("e2e5").to_string(), "\"e2e5\"");
/// let long = "x".repeat(10_000);
/// let shown = quote(&long).to_string();
/// assert!(shown.ends_with("\"... (10000 characters)"), "{shown}");
/// assert!(shown.len() < 130);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Quoted<'a>(&'a str);

/// Quotes `text` for an error message (see [`Quoted`]).
pub fn quote(text: &str) -> Quoted<'_> {
    Quoted(text)
}

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(QUOTE_MAX_CHARS) {
            None => write!(f, "{:?}", self.0),
            Some((cut, _)) => write!(
                f,
                "{:?}... ({} characters)",
                &self.0[..cut],
                self.0.chars().count()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_quoted_whole() {
        let exact = "a".repeat(QUOTE_MAX_CHARS);
        assert_eq!(quote(&exact).to_string(), format!("{exact:?}"));
    }

    #[test]
    fn long_text_is_cut_on_a_character_boundary_with_its_length() {
        let long = "é".repeat(QUOTE_MAX_CHARS + 1);
        let shown = quote(&long).to_string();
        assert_eq!(
            shown,
            format!(
                "{:?}... ({} characters)",
                "é".repeat(QUOTE_MAX_CHARS),
                QUOTE_MAX_CHARS + 1
            )
        );
    }
}
