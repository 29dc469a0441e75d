//! The field's spellings of the named layouts, shared by the front ends (`layout!`, `Layout!`,
//! `layout-calc`): each maps to one entry of the operation table ([`Op`]) plus the integers the
//! spelling fixes.
//!
//! | spelling | parameters | entry |
//! |---|---|---|
//! | `NZ<T>(m, n)`, `ZN<T>`, `ZZ<T>` (+ `row1, col1`) | element type → C0 first | `nz_layout(C0, m, n[, row1, col1])` & co. |
//! | `NN(m, n)`, `L0C(m, n)` | — | `nn_layout`, `l0c_layout` |
//! | `ND(m, n[, ld])`, `DN(m, n[, ld])` | — | `row_major_layout` / `nd_ext_layout`, `column_major_layout` / `dn_ext_layout` |
//! | `NC1HWC0<T>(n, c, h, w)` | element type → C0 last | `nchw_blocked(n, c, h, w, C0)` |
//! | `nChw{B}c(n, c, h, w)` (`nChw8c`, `nChw16c`, any B) | B in the name → last | `nchw_blocked(n, c, h, w, B)` |
//! | `OIhw{Bi}i{Bo}o(o, i, h, w)` (`OIhw16i16o`) | Bi, Bo in the name → last | `oihw_blocked(o, i, h, w, Bi, Bo)` |
//! | `RowMajorInterleaved<I>(r, c[, ld])`, `ColumnMajorInterleaved<I>` | integer I first | `row_major_interleaved(I, r, c[, ld])` & co. |
//!
//! C0 is 32 bytes over the element's width, for the element types named in
//! [`ELEMENT_TYPES`](crate::named::ascend::ELEMENT_TYPES).
//!
//! ```
//! use layout::algebra::ops::{Op, Param, Spelling};
//! let s = Spelling::resolve("NZ", &[Param::Type("f16")], 2).unwrap().unwrap();
//! assert_eq!((s.op, s.before, s.after()), (Op::NzLayout, Some(16), &[][..]));
//! let b = Spelling::resolve("nChw8c", &[], 4).unwrap().unwrap();
//! assert_eq!((b.op, b.after()), (Op::NchwBlocked, &[8][..]));
//! assert!(Spelling::resolve("NZ", &[], 2).unwrap().is_err()); // needs its element type
//! assert!(Spelling::resolve("composition", &[], 2).is_none()); // not a spelling
//! ```

use super::ops::Op;
use crate::formulas::ascend::{ELEMENT_TYPES, c0_of};
use core::fmt;

/// A parameter written between `<` and `>`: an element type's name or an integer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Param<'a> {
    /// An element type (`f16`; the last segment of a path).
    Type(&'a str),
    /// An integer (`4` in `RowMajorInterleaved<4>`).
    Int(i64),
}

/// A resolved spelling: the table entry and the integers to put before and after the written
/// arguments.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Spelling {
    /// The table entry.
    pub op: Op,
    /// An integer before the written arguments (C0 of the fractal layouts, the interleave).
    pub before: Option<i64>,
    after: [i64; 2],
    n_after: usize,
}

impl Spelling {
    /// The integers after the written arguments (block sizes, C0 of NC1HWC0).
    pub fn after(&self) -> &[i64] {
        &self.after[..self.n_after]
    }
}

/// Why a spelling was refused.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SpellingError {
    /// `NZ(…)` without its element type, `RowMajorInterleaved(…)` without its interleave.
    MissingParameter {
        /// What is missing: "its element type, which decides C0" or "its interleave".
        what: &'static str,
        /// How to write it: `NZ<f16>(m, n)`.
        example: &'static str,
    },
    /// `NN<f16>(…)`: this spelling takes no parameter.
    NoParameter,
    /// A parameter of the wrong kind (an integer for an element type or the reverse), or more
    /// than one.
    WrongParameter {
        /// What the spelling takes between `<` and `>`.
        expected: &'static str,
    },
    /// An element type the front ends do not know by name.
    UnknownElementType,
    /// No form of this spelling takes this many arguments.
    Arity {
        /// The forms that exist, e.g. `NZ<T>(m, n) or NZ<T>(m, n, row1, col1)`.
        forms: &'static str,
    },
}

/// What goes between `<` and `>`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Takes {
    Nothing,
    /// An element type whose C0 goes before the arguments.
    C0First,
    /// An element type whose C0 goes after them.
    C0Last,
    /// An integer that goes before them.
    IntFirst,
}

/// One fixed-name spelling: name, parameter, forms (arguments written → entry), forms as text.
type Row = (&'static str, Takes, &'static [(usize, Op)], &'static str);

const ROWS: [Row; 10] = [
    (
        "NZ",
        Takes::C0First,
        &[(2, Op::NzLayout), (4, Op::NzLayoutStrided)],
        "NZ<T>(m, n) or NZ<T>(m, n, row1, col1)",
    ),
    (
        "ZN",
        Takes::C0First,
        &[(2, Op::ZnLayout), (4, Op::ZnLayoutStrided)],
        "ZN<T>(m, n) or ZN<T>(m, n, row1, col1)",
    ),
    (
        "ZZ",
        Takes::C0First,
        &[(2, Op::ZzLayout), (4, Op::ZzLayoutStrided)],
        "ZZ<T>(m, n) or ZZ<T>(m, n, row1, col1)",
    ),
    ("NN", Takes::Nothing, &[(2, Op::NnLayout)], "NN(m, n)"),
    ("L0C", Takes::Nothing, &[(2, Op::L0cLayout)], "L0C(m, n)"),
    (
        "ND",
        Takes::Nothing,
        &[(2, Op::RowMajorLayout), (3, Op::NdExtLayout)],
        "ND(m, n) or ND(m, n, ld)",
    ),
    (
        "DN",
        Takes::Nothing,
        &[(2, Op::ColumnMajorLayout), (3, Op::DnExtLayout)],
        "DN(m, n) or DN(m, n, ld)",
    ),
    (
        "NC1HWC0",
        Takes::C0Last,
        &[(4, Op::NchwBlocked)],
        "NC1HWC0<T>(n, c, h, w)",
    ),
    (
        "RowMajorInterleaved",
        Takes::IntFirst,
        &[(2, Op::RowMajorInterleaved), (3, Op::RowMajorInterleavedLd)],
        "RowMajorInterleaved<I>(rows, cols) or RowMajorInterleaved<I>(rows, cols, ld)",
    ),
    (
        "ColumnMajorInterleaved",
        Takes::IntFirst,
        &[
            (2, Op::ColumnMajorInterleaved),
            (3, Op::ColumnMajorInterleavedLd),
        ],
        "ColumnMajorInterleaved<I>(rows, cols) or ColumnMajorInterleaved<I>(rows, cols, ld)",
    ),
];

/// The decimal number at the start of `s` and the rest (`"8c"` → `(8, "c")`).
fn number(s: &str) -> Option<(i64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let v = s[..end].parse().ok()?;
    Some((v, &s[end..]))
}

/// The block sizes in a oneDNN name: `nChw{B}c` → `[B]`, `OIhw{Bi}i{Bo}o` → `[Bi, Bo]`.
fn onednn(name: &str) -> Option<(Op, [i64; 2], usize)> {
    if let Some(rest) = name.strip_prefix("nChw") {
        let (b, rest) = number(rest)?;
        return (rest == "c").then_some((Op::NchwBlocked, [b, 0], 1));
    }
    let rest = name.strip_prefix("OIhw")?;
    let (bi, rest) = number(rest)?;
    let (bo, rest) = number(rest.strip_prefix('i')?)?;
    (rest == "o").then_some((Op::OihwBlocked, [bi, bo], 2))
}

impl Spelling {
    /// `true` when `name` is a spelling (`NZ`, `nChw8c`, `RowMajorInterleaved`, …).
    pub fn is_name(name: &str) -> bool {
        ROWS.iter().any(|r| r.0 == name) || onednn(name).is_some()
    }

    /// Resolve `name<params>(…nargs arguments…)`; `None` when `name` is not a spelling.
    ///
    /// # Errors
    /// A [`SpellingError`] when a parameter is missing, superfluous, of the wrong kind or an
    /// unknown element type, or no form takes `nargs` arguments.
    pub fn resolve(
        name: &str,
        params: &[Param<'_>],
        nargs: usize,
    ) -> Option<Result<Spelling, SpellingError>> {
        if let Some((op, after, n_after)) = onednn(name) {
            return Some(if !params.is_empty() {
                Err(SpellingError::NoParameter)
            } else if nargs != 4 {
                Err(SpellingError::Arity {
                    forms: if n_after == 1 {
                        "nChw{B}c(n, c, h, w)"
                    } else {
                        "OIhw{Bi}i{Bo}o(o, i, h, w)"
                    },
                })
            } else {
                Ok(Spelling {
                    op,
                    before: None,
                    after,
                    n_after,
                })
            });
        }
        let &(_, takes, forms, text) = ROWS.iter().find(|r| r.0 == name)?;
        Some((|| {
            let mut s = Spelling {
                op: Op::NnLayout,
                before: None,
                after: [0; 2],
                n_after: 0,
            };
            let c0 = |p: &Param<'_>| match p {
                Param::Type(t) => c0_of(t).ok_or(SpellingError::UnknownElementType),
                Param::Int(_) => Err(SpellingError::WrongParameter {
                    expected: "an element type such as f16",
                }),
            };
            match (takes, params) {
                (Takes::Nothing, []) => {}
                (Takes::Nothing, _) => return Err(SpellingError::NoParameter),
                (Takes::C0First | Takes::C0Last, []) => {
                    return Err(SpellingError::MissingParameter {
                        what: "its element type, which decides C0",
                        example: "<f16>",
                    });
                }
                (Takes::IntFirst, []) => {
                    return Err(SpellingError::MissingParameter {
                        what: "its interleave",
                        example: "<4>",
                    });
                }
                (Takes::C0First, [p]) => s.before = Some(c0(p)?),
                (Takes::C0Last, [p]) => {
                    s.after[0] = c0(p)?;
                    s.n_after = 1;
                }
                (Takes::IntFirst, [Param::Int(i)]) => s.before = Some(*i),
                (Takes::IntFirst, _) => {
                    return Err(SpellingError::WrongParameter {
                        expected: "one integer, the interleave",
                    });
                }
                (Takes::C0First | Takes::C0Last, _) => {
                    return Err(SpellingError::WrongParameter {
                        expected: "one element type such as f16",
                    });
                }
            }
            s.op = forms
                .iter()
                .find(|f| f.0 == nargs)
                .map(|f| f.1)
                .ok_or(SpellingError::Arity { forms: text })?;
            Ok(s)
        })())
    }
}

impl SpellingError {
    /// The message, in the user's notation (`name` as written, `param` the text between `<` and
    /// `>` if any).
    ///
    /// ```
    /// use layout::algebra::ops::{Param, Spelling};
    /// let e = Spelling::resolve("NZ", &[Param::Type("f64")], 2).unwrap().unwrap_err();
    /// assert_eq!(
    ///     e.message("NZ", Some("f64")).to_string(),
    ///     "NZ does not know the element type `f64`: C0 (elements per 32-byte fractal row) is known for f32, i32, u32, f16, bf16, i16, u16, i8, u8, U4; for another type write nz_layout(C0, m, n)"
    /// );
    /// ```
    pub fn message<'a>(&self, name: &'a str, param: Option<&'a str>) -> SpellingMessage<'a> {
        SpellingMessage {
            error: *self,
            name,
            param,
        }
    }
}

/// A [`SpellingError`] with the words the user wrote, ready to print.
#[derive(Clone, Copy, Debug)]
pub struct SpellingMessage<'a> {
    error: SpellingError,
    name: &'a str,
    param: Option<&'a str>,
}

impl fmt::Display for SpellingMessage<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.name;
        let param = self.param.unwrap_or("?");
        match self.error {
            SpellingError::MissingParameter { what, example } => {
                write!(f, "{name} needs {what}: write e.g. {name}{example}(…)")
            }
            SpellingError::NoParameter => write!(
                f,
                "{name} takes no parameter: write {name}(…) without `<{param}>`"
            ),
            SpellingError::WrongParameter { expected } => {
                write!(f, "{name}<…> takes {expected}, not `{param}`")
            }
            SpellingError::UnknownElementType => {
                write!(
                    f,
                    "{name} does not know the element type `{param}`: C0 (elements per 32-byte fractal row) is known for "
                )?;
                for (i, (t, _)) in ELEMENT_TYPES.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    f.write_str(t)?;
                }
                if name == "NC1HWC0" {
                    return f.write_str("; for another type write nchw_blocked(n, c, h, w, C0)");
                }
                f.write_str("; for another type write ")?;
                for c in name.chars() {
                    write!(f, "{}", c.to_ascii_lowercase())?;
                }
                f.write_str("_layout(C0, m, n)")
            }
            SpellingError::Arity { forms } => write!(f, "{name} is written {forms}"),
        }
    }
}
