//! Running the built `layout-calc` binary on scripted input (shared by the calculator tests).
#![allow(dead_code)]

use std::io::Write;
use std::process::Stdio;

#[path = "../support/runner.rs"]
mod runner;

/// Run the calculator on `input`; return its standard output, asserting a clean exit and an
/// empty standard error.
pub fn run(input: &str) -> String {
    let mut child = runner::command(env!("CARGO_BIN_EXE_layout-calc"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("layout-calc starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("layout-calc runs");
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "exit status {:?}", out.status);
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Each `input => expected` pair: one line in, one line out. An expected text ending in `…` is a
/// prefix.
pub fn check(pairs: &[(&str, &str)]) {
    let input: String = pairs.iter().map(|(i, _)| format!("{i}\n")).collect();
    let out = run(&input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines.len(),
        pairs.len(),
        "one output line per input line:\n{out}"
    );
    for ((i, want), got) in pairs.iter().zip(lines) {
        if let Some(prefix) = want.strip_suffix('…') {
            assert!(got.starts_with(prefix), "for input `{i}`: got `{got}`");
        } else {
            assert_eq!(got, *want, "for input `{i}`");
        }
    }
}
