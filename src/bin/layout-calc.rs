//! `layout-calc`: a layout calculator, like pycute in a notebook.
//!
//! Reads one expression per line from standard input and writes exactly one line per non-empty
//! input line (`print_layout` writes its table and then one empty line). A bad line gives
//! `error: <reason>` and the calculator goes on; it exits 0 at the end of the input.
//!
//! ```text
//! $ echo 'composition((6,2):(8,2), (4,3):(3,1))' | cargo run --release --bin layout-calc
//! ((2,2),3):((24,2),8)
//! ```
//!
//! The grammar is in the README; the engine lives in `src/bin/layout_calc/`.

mod layout_calc;

use std::io::{self, BufRead, Write};

fn main() {
    // Panics are bugs, but a bug must not end the session: report it on the line and go on.
    std::panic::set_hook(Box::new(|_| {}));
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // unreadable input: say so on stderr and end normally
                let _ = writeln!(io::stderr(), "layout-calc: cannot read input: {e}");
                break;
            }
        }
        let text = String::from_utf8_lossy(&raw);
        let line = text.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let result = std::panic::catch_unwind(|| layout_calc::run_line(line))
            .unwrap_or_else(|_| "error: internal error (a bug in layout-calc)".to_string());
        // A closed output (e.g. `| head`) ends the session quietly.
        if writeln!(out, "{result}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    let _ = out.flush();
}
