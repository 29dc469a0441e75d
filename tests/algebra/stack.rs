//! Stack use of every algebra operation, measured and bounded.
//!
//! `DynLayout` is heap-free (hundreds of bytes), so an operation that keeps arrays of layouts on
//! its stack can need tens of kilobytes: too much for deep kernels, small threads and `const`
//! evaluation. This test measures, per operation, the smallest thread stack (to 1 KiB) on which
//! it completes, by running it in a child process (a stack overflow aborts the process), and
//! asserts every operation fits in [`STACK_BOUND`].
//!
//! The numbers are for the build the test runs in (debug in CI, where frames are largest); run
//! `cargo test --test algebra stack -- --nocapture` to see the table.

use layout::{DynLayout, DynTuple, SliceCoord, Tile};

/// The documented bound (ARCHITECTURE.md): every algebra operation, its arguments parsed from
/// text on the same stack, runs on a 48 KiB stack in an optimised build and on 96 KiB in an
/// unoptimised one (measured worst: 33 and 73 KiB, `local_tile` / `local_partition`).
pub const STACK_BOUND: usize = if cfg!(debug_assertions) { 96 } else { 48 } * 1024;

/// What the child runs on the small stack: the operation's name and the call.
fn operations() -> Vec<(&'static str, fn())> {
    fn l(s: &str) -> DynLayout {
        s.parse().unwrap()
    }
    fn t(s: &str) -> Tile {
        s.parse().unwrap()
    }
    fn sh(s: &str) -> DynTuple {
        s.parse().unwrap()
    }
    const A: &str = "((2,3),(4,5),(2,2)):((1,2),(6,24),(120,240))";
    const A2: &str = "(12,32,4):(1,12,384)";
    vec![
        ("coalesce", || {
            std::hint::black_box(l(A).coalesce());
        }),
        ("coalesce_by_mode", || {
            l(A).coalesce_by_mode(&sh("(1,1,1)")).unwrap();
        }),
        ("filter", || {
            std::hint::black_box(l("(4,(2,3)):(0,(1,0))").filter());
        }),
        ("complement", || {
            l("(2,3):(1,8)").complement(96).unwrap();
        }),
        ("composition", || {
            l(A).composition(&l("(4,6):(2,4)")).unwrap();
        }),
        ("composition_by_mode", || {
            l(A2).composition_by_mode(&t("[4,8,2]")).unwrap();
        }),
        ("right_inverse", || {
            std::hint::black_box(l(A).right_inverse());
        }),
        ("left_inverse", || {
            l(A).left_inverse().unwrap();
        }),
        ("logical_divide", || {
            l(A2).logical_divide(&l("4:1")).unwrap();
        }),
        ("logical_divide_by_mode", || {
            l(A2).logical_divide_by_mode(&t("[4,8,2]")).unwrap();
        }),
        ("zipped_divide_by_mode", || {
            l(A2).zipped_divide_by_mode(&t("[4,8,2]")).unwrap();
        }),
        ("tiled_divide_by_mode", || {
            l(A2).tiled_divide_by_mode(&t("[4,8,2]")).unwrap();
        }),
        ("flat_divide_by_mode", || {
            l(A2).flat_divide_by_mode(&t("[4,8,2]")).unwrap();
        }),
        ("logical_product", || {
            l("(2,2):(1,2)").logical_product(&l("(3,4):(1,3)")).unwrap();
        }),
        ("zipped_product_by_mode", || {
            l("(2,2):(1,2)")
                .zipped_product_by_mode(&t("[3:1,4:1]"))
                .unwrap();
        }),
        ("blocked_product", || {
            l("(2,2):(1,2)").blocked_product(&l("(3,4):(1,3)")).unwrap();
        }),
        ("raked_product", || {
            l("(2,2):(1,2)").raked_product(&l("(3,4):(1,3)")).unwrap();
        }),
        ("slice", || {
            let c: SliceCoord = "(_,2,_)".parse().unwrap();
            l(A2).slice(&c).unwrap();
        }),
        ("local_tile", || {
            l(A2).local_tile(&t("[4,8]"), &sh("(1,2)")).unwrap();
        }),
        ("local_partition", || {
            l("(8,8):(1,8)")
                .local_partition(&l("(2,4):(1,2)"), 5)
                .unwrap();
        }),
        ("upcast", || {
            l(A2).upcast(4).unwrap();
        }),
        ("downcast", || {
            l(A2).downcast(2).unwrap();
        }),
        ("zipped_divide (through the op table)", || {
            use layout::algebra::ops::{Arg, Op};
            let op = Op::lookup("zipped_divide", 2).unwrap();
            op.apply(&[Arg::Layout(l(A2)), Arg::Tile(t("[4,8,2]"))])
                .unwrap();
        }),
        ("max_common_layout", || {
            std::hint::black_box(l(A).max_common_layout(&l("(120,4):(1,120)")));
        }),
    ]
}

const CHILD_OP: &str = "LAYOUT_STACK_TEST_OP";
const CHILD_BYTES: &str = "LAYOUT_STACK_TEST_BYTES";

/// Run in a child process: the operation named by the environment on a thread with the given
/// stack. Ignored in ordinary runs; the parent test starts it.
#[test]
#[ignore = "started by `every_algebra_operation_fits_the_stack_bound` in a child process"]
fn stack_child() {
    let (Ok(name), Ok(bytes)) = (std::env::var(CHILD_OP), std::env::var(CHILD_BYTES)) else {
        return;
    };
    let op = operations()
        .into_iter()
        .find(|(n, _)| *n == name)
        .expect("known operation")
        .1;
    let bytes: usize = bytes.parse().unwrap();
    std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(op)
        .unwrap()
        .join()
        .unwrap();
}

/// Does `name` complete on a `bytes` stack?
fn fits(name: &str, bytes: usize) -> bool {
    crate::runner::command(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "stack::stack_child",
            "--ignored",
            "--test-threads=1",
        ])
        .env(CHILD_OP, name)
        .env(CHILD_BYTES, bytes.to_string())
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn every_algebra_operation_fits_the_stack_bound() {
    // the operations themselves must work (a broken input would look like a stack failure)
    for (_, op) in operations() {
        op();
    }
    let mut worst = (0, "");
    let mut report = String::new();
    for (name, _) in operations() {
        assert!(
            fits(name, 8 << 20),
            "{name} does not complete even on an 8 MiB stack"
        );
        // smallest stack in 1 KiB steps on which it completes, by bisection in [16 KiB, 8 MiB]
        // (threads get at least the platform's minimum stack, so less cannot be measured)
        let (mut lo, mut hi) = (16usize, 8 << 10);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if fits(name, mid << 10) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let le = if hi == 16 { "≤" } else { " " };
        report.push_str(&format!("{name:>24}: {le}{hi:>4} KiB\n"));
        if hi << 10 > worst.0 {
            worst = (hi << 10, name);
        }
    }
    println!("stack needed per operation (this build):\n{report}");
    assert!(
        worst.0 <= STACK_BOUND,
        "{} needs {} KiB of stack, above the bound of {} KiB:\n{report}",
        worst.1,
        worst.0 >> 10,
        STACK_BOUND >> 10
    );
}
