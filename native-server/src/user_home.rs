//! Java's `user.home`, which places `kvConfig.json` (`$user.home/namesrv/`) and the log files
//! (`$user.home/logs/rocketmqlogs/`): `-Duser.home`, else the home directory of the user the
//! process runs as (the password database), else `$HOME`. The JVM prefers the password
//! database to `$HOME`, and so do we: an image run as root (apache's operator) or as uid 3000
//! (apache's image, chart and compose) finds its files where the Java NameServer left them.

/// `user.home` from its three sources, in the JVM's order. A database home shorter than two
/// characters (`/`, as systemd's dynamic users have) counts as none, as in the JVM.
#[must_use]
pub fn resolve(defined: Option<&str>, database: Option<String>, env: Option<String>) -> String {
    if let Some(home) = defined {
        return home.to_string();
    }
    match database {
        Some(home) if home.len() >= 2 => home,
        _ => env.filter(|home| !home.is_empty()).unwrap_or_else(|| String::from(".")),
    }
}

/// The home directory the password database gives the process's user, if any.
#[cfg(unix)]
#[must_use]
pub fn from_database() -> Option<String> {
    let user = nix::unistd::User::from_uid(nix::unistd::Uid::current()).ok()??;
    user.dir.to_str().map(str::to_string)
}

#[cfg(not(unix))]
#[must_use]
pub fn from_database() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::resolve;

    #[test]
    fn the_jvm_order() {
        let s = |text: &str| Some(text.to_string());
        assert_eq!(resolve(Some("/opt"), s("/home/rocketmq"), s("/tmp")), "/opt");
        assert_eq!(resolve(None, s("/home/rocketmq"), s("/tmp")), "/home/rocketmq");
        assert_eq!(resolve(None, s("/"), s("/var/lib/nameserver")), "/var/lib/nameserver");
        assert_eq!(resolve(None, None, s("/tmp/h")), "/tmp/h");
        assert_eq!(resolve(None, None, s("")), ".");
        assert_eq!(resolve(None, None, None), ".");
    }
}
