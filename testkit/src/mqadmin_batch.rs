//! Several mqadmin commands in one JVM: `java/MqadminBatch.java` calls mqadmin's own entry
//! point (`MQAdminStartup.main0`, which is all its `main` does) for each in turn and prints what
//! each printed between marker lines. A JVM start costs more CPU than most commands; each
//! command still builds, starts and shuts down its own admin client, as a run of its own does.
//!
//! The program is compiled once per source text and version into a jar beside the version's
//! jars (a jar, not a directory: the JVM's class-data archive takes no directory on the class
//! path). A command whose run is not complete in the batch (the JVM exited inside it) or that
//! printed one of mqadmin's transient errors runs again alone, through [`java::mqadmin`].

use std::hash::{DefaultHasher, Hash, Hasher};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use crate::java::{self, MQADMIN_TRANSIENT, Program, START_GUARD, Version};
use crate::peer::PeerError;

const SOURCE: &str = include_str!("../java/MqadminBatch.java");

/// Separates the commands on the program's command line.
const NEXT: &str = "@@next";
const BEGIN: &str = "@@mqadmin-batch begin ";
const END: &str = "@@mqadmin-batch end ";

/// Runs each of `commands` (`mqadmin` arguments, `-n namesrv` added) of `version` in one JVM;
/// for each, in order, what a run of its own returns: its exit code and output.
///
/// # Errors
/// Missing jars or JDK, the program does not compile, or a run does not finish within the
/// hang guard.
pub fn run(
    version: Version,
    namesrv: SocketAddr,
    commands: &[&[&str]],
) -> Result<Vec<(Option<i32>, String)>, PeerError> {
    let jar = jar(version)?;
    let namesrv_text = namesrv.to_string();
    let mut args: Vec<&str> = Vec::new();
    for (n, command) in commands.iter().enumerate() {
        if n > 0 {
            args.push(NEXT);
        }
        args.extend(command.iter().copied().chain(["-n", namesrv_text.as_str()]));
    }
    let what = jar.file_stem().map_or_else(|| String::from("MqadminBatch"), |s| s.to_string_lossy().into_owned());
    let program = Program { what: &what, main: "MqadminBatch", jar: Some(&jar) };
    let (_, out) = java::run_to_completion(version, program, &[], &args, None, START_GUARD)?;
    let mut runs = sections(&out, commands.len());
    for (command, run) in commands.iter().zip(runs.iter_mut()) {
        let again = match run {
            None => Some("not complete in the batch"),
            Some((_, text)) => MQADMIN_TRANSIENT.into_iter().find(|e| text.contains(e)),
        };
        if let Some(why) = again {
            println!("{}: mqadmin {}: {why} against {namesrv}; again alone", version.as_str(), command.join(" "));
            *run = Some(java::mqadmin(version, namesrv, command)?);
        }
    }
    Ok(runs.into_iter().flatten().collect())
}

/// Each command's exit code and output in the program's output: `Some(1)` for a command that
/// threw out of mqadmin's entry point (its `main` would have ended so), `None` for a command
/// whose end line is missing.
fn sections(out: &str, count: usize) -> Vec<Option<(Option<i32>, String)>> {
    let mut runs = vec![None; count];
    let mut open: Option<(usize, String)> = None;
    for line in out.lines() {
        if let Some(n) = line.strip_prefix(BEGIN).and_then(|n| n.parse().ok()) {
            open = Some((n, String::new()));
        } else if let Some(rest) = line.strip_prefix(END) {
            let (n, ending) = rest.split_once(' ').unwrap_or((rest, ""));
            if let Some((at, text)) = open.take().filter(|(at, _)| n.parse() == Ok(*at) && *at < count) {
                runs[at] = Some((Some(if ending == "returned" { 0 } else { 1 }), text));
            }
        } else if let Some((_, text)) = open.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    runs
}

/// The program compiled against `version`'s jars: `MqadminBatch-<hash of the source>.jar` in a
/// folder beside them, made on first use (in a temporary folder, then renamed into place).
fn jar(version: Version) -> Result<PathBuf, PeerError> {
    static COMPILING: Mutex<()> = Mutex::new(());
    let lib = java::fetch(version)?;
    let mut hasher = DefaultHasher::new();
    SOURCE.hash(&mut hasher);
    let dir = lib.with_file_name("programs");
    let jar = dir.join(format!("MqadminBatch-{:016x}.jar", hasher.finish()));
    let _one_at_a_time = COMPILING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if jar.exists() {
        return Ok(jar);
    }
    let failed =
        |why: String| PeerError::Spawn { name: String::from("javac MqadminBatch"), error: std::io::Error::other(why) };
    std::fs::create_dir_all(&dir).map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    let work = tempfile::Builder::new()
        .prefix("MqadminBatch-")
        .tempdir_in(&dir)
        .map_err(|e| failed(format!("{}: {e}", dir.display())))?;
    let source = work.path().join("MqadminBatch.java");
    std::fs::write(&source, SOURCE).map_err(|e| failed(e.to_string()))?;
    let classes = work.path().join("classes");
    let built = work.path().join("MqadminBatch.jar");
    let jdk_tool = |name: &str| java::java_program().with_file_name(name);
    let mut javac = Command::new(jdk_tool("javac"));
    javac.arg("-nowarn").arg("-cp").arg(format!("{}/*", lib.display())).arg("-d").arg(&classes).arg(&source);
    let mut jar_tool = Command::new(jdk_tool("jar"));
    jar_tool.arg("cf").arg(&built).arg("-C").arg(&classes).arg(".");
    for mut step in [javac, jar_tool] {
        let out = step.output().map_err(|e| failed(format!("{step:?}: {e}")))?;
        if !out.status.success() {
            return Err(failed(format!("{step:?}: {}", String::from_utf8_lossy(&out.stderr))));
        }
    }
    std::fs::rename(&built, &jar).map_err(|e| failed(format!("{}: {e}", jar.display())))?;
    Ok(jar)
}

#[cfg(test)]
mod tests {
    use super::sections;

    #[test]
    fn each_command_gets_its_own_section_and_a_missing_end_is_none() {
        let out = "OpenJDK warning\n@@mqadmin-batch begin 0\na\nb\n@@mqadmin-batch end 0 returned\nstray\n\
                   @@mqadmin-batch begin 1\nboom\n@@mqadmin-batch end 1 threw\n@@mqadmin-batch begin 2\nhalf\n";
        let runs = sections(out, 3);
        assert_eq!(runs[0], Some((Some(0), String::from("a\nb\n"))));
        assert_eq!(runs[1], Some((Some(1), String::from("boom\n"))));
        assert_eq!(runs[2], None);
        assert_eq!(sections("", 1), [None]);
    }
}
