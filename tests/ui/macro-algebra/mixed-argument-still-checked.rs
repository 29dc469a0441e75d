// A dynamic leaf sends the call to run time, but the static parts of its arguments and the
// operation's argument kinds are still checked at compile time.
use layout::layout;

fn main() {
    let n = 4;
    let _ = layout!(composition((n, 0) : (1, 4), 2 : 1));
    let _ = layout!(upcast((n, 2) : (1, 4), (2, 2)));
}
