//! Client text in log lines: escaped and cut short.
//!
//! Names, keys and values come from the network. A log line (the daemon's stderr, the
//! console's event stream, the simulation's trace) shows them through [`Excerpt`]: control
//! characters, backslashes and bidirectional overrides are escaped, so a name cannot forge a
//! line or reorder one, and at most [`EXCERPT_MAX`] bytes are shown, so a 1 MiB name does not
//! put 1 MiB into every line that mentions it.

use core::fmt;

/// Most bytes an [`Excerpt`] writes before it says how much it left out.
pub const EXCERPT_MAX: usize = 1024;

/// `text` as a log line shows it: escaped, and at most [`EXCERPT_MAX`] bytes of it, then
/// `…(+N bytes)` for the `N` bytes of `text` left out. Text of printable characters under the
/// limit is shown as it is.
#[derive(Clone, Copy, Debug)]
pub struct Excerpt<'a>(pub &'a str);

impl<'a> Excerpt<'a> {
    /// An excerpt of any name, key or value.
    pub fn of(text: &'a (impl AsRef<str> + ?Sized)) -> Self {
        Self(text.as_ref())
    }
}

impl Excerpt<'_> {
    /// The excerpt written to `out`: what `Display` writes, without a `Formatter` in between
    /// (a log writer of many lines writes straight into its `String`).
    pub fn write_to(self, out: &mut impl fmt::Write) -> fmt::Result {
        // Nearly every name is short printable ASCII: written whole, nothing to escape.
        if self.0.len() <= EXCERPT_MAX && self.0.bytes().all(|b| matches!(b, b' '..=b'~') && b != b'\\') {
            return out.write_str(self.0);
        }
        let mut shown = 0;
        for (at, c) in self.0.char_indices() {
            let mut escaped = Escaped::default();
            write_escaped(&mut escaped, c)?;
            if shown + escaped.len > EXCERPT_MAX {
                return write!(out, "…(+{} bytes)", self.0.len() - at);
            }
            shown += escaped.len;
            out.write_str(escaped.as_str())?;
        }
        Ok(())
    }
}

impl fmt::Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// One character as it is shown: itself, or an escape.
fn write_escaped(out: &mut impl fmt::Write, c: char) -> fmt::Result {
    match c {
        '\\' => out.write_str("\\\\"),
        '\n' => out.write_str("\\n"),
        '\r' => out.write_str("\\r"),
        '\t' => out.write_str("\\t"),
        // Bidirectional embeddings, overrides and isolates reorder what follows on screen.
        c if c.is_control()
            || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}') =>
        {
            write!(out, "\\u{{{:x}}}", u32::from(c))
        }
        c => out.write_char(c),
    }
}

/// The escape of one character (at most `\u{10ffff}`, 10 bytes).
#[derive(Default)]
struct Escaped {
    bytes: [u8; 10],
    len: usize,
}

impl Escaped {
    fn as_str(&self) -> &str {
        // Only whole `str`s are written in.
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl fmt::Write for Escaped {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.bytes.get_mut(self.len..end).ok_or(fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::string::String;

    use super::*;

    #[test]
    fn plain_names_are_shown_as_they_are() {
        assert_eq!(format!("{}", Excerpt("broker-a_%|1 中文")), "broker-a_%|1 中文");
    }

    #[test]
    fn control_characters_and_overrides_are_escaped() {
        assert_eq!(
            format!("{}", Excerpt("a\nINFO forged\r\t\\\u{1b}[31m\u{202e}z")),
            "a\\nINFO forged\\r\\t\\\\\\u{1b}[31m\\u{202e}z"
        );
    }

    #[test]
    fn long_text_is_cut_at_the_limit_and_says_how_much_is_left_out() {
        let long = "x".repeat(1024 * 1024);
        let shown = format!("{}", Excerpt(&long));
        assert_eq!(shown, format!("{}…(+{} bytes)", "x".repeat(EXCERPT_MAX), 1024 * 1024 - EXCERPT_MAX));
        assert_eq!(format!("{}", Excerpt(&long[..EXCERPT_MAX])), long[..EXCERPT_MAX]);
        // Escapes count as what they show, and a character is never split.
        let newlines: String = "\n".repeat(EXCERPT_MAX);
        let shown = format!("{}", Excerpt(&newlines));
        assert!(shown.starts_with(&"\\n".repeat(EXCERPT_MAX / 2)), "{shown}");
        assert!(shown.ends_with(&format!("…(+{} bytes)", EXCERPT_MAX / 2)), "{shown}");
        let wide = "中".repeat(EXCERPT_MAX);
        let shown = format!("{}", Excerpt(&wide));
        assert_eq!(shown, format!("{}…(+{} bytes)", "中".repeat(341), 3 * (EXCERPT_MAX - 341)));
    }
}
