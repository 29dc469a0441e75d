//! Starting a test's child process (the `layout-calc` binary, or the test executable itself),
//! through the runner the test itself was started with.
//!
//! Cargo runs a cross-built test through `target.<triple>.runner` (the aarch64 tests:
//! `qemu-aarch64 -cpu max -L …`), but a child the test starts is exec'd directly, and an aarch64
//! executable does not start on an x86 host without binfmt_misc. `scripts/aarch64-tests` names
//! the runner in `LAYOUT_TEST_RUNNER` (a program and its arguments, separated by spaces); this
//! prefixes it. Unset or empty: the program runs directly, as on a native host.

use std::ffi::OsStr;
use std::process::Command;

/// A `Command` that runs `program`, through `LAYOUT_TEST_RUNNER` when that is set.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let runner = std::env::var("LAYOUT_TEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        None => Command::new(program),
        Some(first) => {
            let mut cmd = Command::new(first);
            cmd.args(words).arg(program);
            cmd
        }
    }
}
