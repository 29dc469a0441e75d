use layout::layout;

fn main() {
    let n = 4;
    // the table's argument rules are checked at expansion time on the run-time path too
    let _ = layout!(upcast((n, 8) : (1, 4), (2, 2)));
}
