//! A WARN for each broker or cluster name outside Java's topic charset
//! ([`nameserver_core::names::JAVA_NAME_CHARSET`]): such a name registers, as in Java, but
//! tools that assume the charset may break on it, so the operator hears of it once.
//!
//! Any peer of 9876 picks the names, so what is remembered is bounded: a hash per name, at
//! most [`MAX_WARNED`] of them, then one line saying that further names go unreported.

use std::collections::HashSet;
use std::hash::{BuildHasher as _, RandomState};

use nameserver_core::Event;
use nameserver_core::excerpt::Excerpt;
use nameserver_core::names::{JAVA_NAME_CHARSET, in_java_charset};

/// Distinct names warned about before the warnings stop.
pub(crate) const MAX_WARNED: usize = 1000;

/// The names warned about so far.
#[derive(Debug, Default)]
pub(crate) struct NameWarnings {
    warned: HashSet<u64>,
    hasher: RandomState,
    /// Whether the line about the cap has been logged.
    capped: bool,
}

impl NameWarnings {
    /// Looks at the names of a broker that registered.
    pub(crate) fn event(&mut self, event: &Event) {
        if let Event::BrokerRegistered { cluster, broker_name, .. } = event {
            for (what, name) in [("cluster", cluster.as_str()), ("broker", broker_name.as_str())] {
                if let Some(line) = self.check(what, name) {
                    tracing::warn!("{line}");
                }
            }
        }
    }

    /// The line to log for `name`, the first time it is seen outside the charset.
    fn check(&mut self, what: &'static str, name: &str) -> Option<String> {
        if in_java_charset(name) {
            return None;
        }
        let hash = self.hasher.hash_one((what, name));
        if self.warned.contains(&hash) {
            return None;
        }
        if self.warned.len() >= MAX_WARNED {
            if self.capped {
                return None;
            }
            self.capped = true;
            return Some(format!(
                "{MAX_WARNED} broker and cluster names outside Java's charset {JAVA_NAME_CHARSET} have been warned \
                 about; further ones register without a warning"
            ));
        }
        self.warned.insert(hash);
        Some(format!(
            "the {what} name \"{}\" is outside Java's charset {JAVA_NAME_CHARSET}: it registers, as in Java, but tools \
             that assume the charset may refuse or mangle it",
            Excerpt(name)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_name_then_one_about_the_cap() {
        let mut names = NameWarnings::default();
        assert_eq!(names.check("broker", "broker-a"), None, "in the charset");
        let line = names.check("broker", "<b>x</b>\n").unwrap();
        assert!(line.starts_with(r#"the broker name "<b>x</b>\n" is outside Java's charset"#), "{line}");
        assert_eq!(names.check("broker", "<b>x</b>\n"), None, "once");
        assert!(names.check("cluster", "<b>x</b>\n").is_some(), "a cluster of that name is another name");
        for i in 2..MAX_WARNED {
            assert!(names.check("broker", &format!("b {i}")).is_some(), "{i}");
        }
        let cap = names.check("broker", "one too many").unwrap();
        assert!(cap.starts_with("1000 broker and cluster names"), "{cap}");
        assert_eq!(names.check("broker", "another"), None);
        assert_eq!(names.check("broker", "b 2"), None, "still remembered");
        assert_eq!(names.warned.len(), MAX_WARNED);
    }
}
