// A dynamic leaf in an algebra call: `layout!` evaluates the call at run time and returns
// `Result<DynLayout, LayoutError>`, the same value and error as the `DynLayout` method.
use layout::{DynLayout, LayoutError, layout};

fn main() {
    let n = 4;
    let r: Result<DynLayout, LayoutError> = layout!(composition((n, 2) : (1, 4), 2 : 1));
    assert_eq!(r.unwrap().to_string(), "2:1");
    let n = 6;
    let e = layout!(composition((n, 2) : (1, 10), 4 : 4)).unwrap_err();
    assert!(e.to_string().contains("composition"), "{e}");
}
