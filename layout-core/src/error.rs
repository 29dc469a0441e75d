//! The error of the layout layers: integer tuples, layouts, their text, the algebra, swizzles
//! and the walks.
//!
//! Every fallible operation on run-time layouts returns [`LayoutError`]. It is a plain `Copy` enum
//! so that `const fn` code (the same code the macro and static layouts use) can build and return
//! it; its `Display` names the rule that was broken and the numbers involved. The layers above
//! have their own error types that wrap it: tensors [`TensorError`](crate::tensor::TensorError).

use core::fmt;

/// `Debug` for a public error enum: the variant and, quoted, the sentence its `Display` writes,
/// the way `std::io::Error`'s `Debug` shows its message. `fn main() -> Result<(), E>` prints an
/// error with `Debug`, so a person sees `Error: OutOfBuffer("the shape needs 12 elements, the
/// vector has 10")` rather than the raw fields.
///
/// `debug_as_sentence!(TensorError { Layout, OutOfBuffer, … })` lists every variant (the match is
/// exhaustive: a new variant that is not listed does not compile).
macro_rules! debug_as_sentence {
    ($ty:ident { $($variant:ident),+ $(,)? }) => {
        impl ::core::fmt::Debug for $ty {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                let variant = match self {
                    $($ty::$variant { .. } => stringify!($variant),)+
                };
                $crate::error::debug_sentence(f, variant, self)
            }
        }
    };
}
pub(crate) use debug_as_sentence;

/// The body of the `Debug` impls [`debug_as_sentence!`] writes: `Variant("sentence")`.
pub(crate) fn debug_sentence(
    f: &mut fmt::Formatter<'_>,
    variant: &str,
    sentence: &dyn fmt::Display,
) -> fmt::Result {
    /// The sentence between quotes (not escaped: it is read by a person).
    struct Quoted<'a>(&'a dyn fmt::Display);
    impl fmt::Debug for Quoted<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "\"{}\"", self.0)
        }
    }
    f.debug_tuple(variant).field(&Quoted(sentence)).finish()
}

/// Why a layout operation was refused.
///
/// Messages are lowercase, in CuTe's notation, and carry the numbers involved:
///
/// ```
/// use layout::LayoutError;
/// let e = LayoutError::NonPositiveExtent { leaf: 1, extent: 0 };
/// assert_eq!(e.to_string(), "shape leaf 1 has extent 0; extents must be positive");
/// // `Debug` (what `main` prints for an `Err`) shows the variant and the sentence
/// assert_eq!(
///     format!("{e:?}"),
///     r#"NonPositiveExtent("shape leaf 1 has extent 0; extents must be positive")"#
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutError {
    /// More leaves than a run-time tuple can hold ([`crate::MAX_LEAVES`]).
    TooManyLeaves {
        /// How many leaves the value would need.
        needed: usize,
    },
    /// The nesting is too deep or has too many tuples for a run-time tuple
    /// ([`crate::MAX_TOKENS`] structure tokens).
    TooComplex {
        /// How many structure tokens the value would need.
        needed: usize,
    },
    /// Shape and stride do not have the same hierarchical profile.
    NotCongruent {
        /// Leaves in the shape.
        shape_leaves: usize,
        /// Leaves in the stride.
        stride_leaves: usize,
    },
    /// A shape leaf is zero or negative.
    NonPositiveExtent {
        /// Index of the leaf in the flattened shape.
        leaf: usize,
        /// Its value.
        extent: i64,
    },
    /// A product or sum left the range of `i64`.
    Overflow {
        /// What was being computed (`"size"`, `"cosize"`, …).
        what: &'static str,
    },
    /// A mode index past the rank.
    ModeOutOfRange {
        /// The requested mode.
        mode: usize,
        /// The rank of the value.
        rank: usize,
    },
    /// A coordinate does not fit the shape's profile.
    CoordinateMismatch {
        /// Leaves in the coordinate.
        coord_leaves: usize,
        /// Leaves in the shape.
        shape_leaves: usize,
    },
    /// A coordinate lies outside the domain of the shape.
    CoordinateOutOfRange {
        /// Index of the offending leaf in the flattened shape.
        leaf: usize,
        /// The coordinate given.
        coord: i64,
        /// The extent of that mode.
        extent: i64,
    },
    /// A one-dimensional index lies outside `[0, size)`.
    IndexOutOfRange {
        /// The index given.
        index: i64,
        /// The size of the domain.
        size: i64,
    },
    /// The operation needs an injective layout (no two coordinates share an offset).
    NotInjective {
        /// A repeated offset.
        offset: i64,
    },
    /// A by-mode tiler with more modes than a `Tile` holds (`MAX_TILE_MODES`).
    TooManyTileModes {
        /// How many modes the tiler would need.
        needed: usize,
        /// The most modes a tiler holds.
        max: usize,
    },
    /// A by-mode tiler with more modes than the layout it divides or multiplies.
    TilerTooLong {
        /// The operation the user called.
        op: &'static str,
        /// The number of modes of the tiler.
        tiler_modes: usize,
        /// The rank of the layout.
        rank: usize,
    },
    /// The layout has more elements than offsets between its smallest and largest offset, so
    /// some offset is reached twice (found without naming one).
    NotInjectiveBySize {
        /// The number of elements.
        size: i64,
        /// The number of offsets in `[lo, hi]` (saturated at `i64::MAX`).
        span: i64,
    },
    /// The offset `O` of a swizzled layout `W o O o L` plus an offset of `L` leaves `i64`.
    SwizzleOffsetOverflow {
        /// `O`.
        offset: i64,
        /// The offset of `L`.
        x: i64,
    },
    /// A working buffer (e.g. the bitmap of an injectivity scan) could not be allocated.
    AllocationFailed {
        /// What was being allocated.
        what: &'static str,
        /// Its size in bytes (saturated at `i64::MAX`).
        bytes: i64,
    },
    /// A precondition of an operation failed; `what` names it, `a` and `b` are the numbers.
    ///
    /// `what` starts with the operation the user called and says the rule in words; it places
    /// the numbers itself with the markers `{a}` and `{b}` (printed once, in place). A `what`
    /// without markers is followed by `(numbers a and b)`.
    ///
    /// ```
    /// use layout::LayoutError;
    /// let e = LayoutError::Precondition { what: "upcast: stride {a} does not divide the factor {b}", a: 3, b: 8 };
    /// assert_eq!(e.to_string(), "upcast: stride 3 does not divide the factor 8");
    /// ```
    Precondition {
        /// The precondition, in words (with `{a}`/`{b}` markers for the numbers).
        what: &'static str,
        /// A first number involved.
        a: i64,
        /// A second number involved.
        b: i64,
    },
    /// A composition `A ∘ B` refused by the admissibility rule (see `crate::algebra`): the result
    /// would not equal `A(B(i))` for every `i` of `B`'s domain.
    Composition {
        /// Which condition failed.
        rule: CompositionRule,
        /// The mode of the coalesced `A` involved (0-based).
        a_mode: usize,
        /// The extent of that mode of the coalesced `A`.
        a_extent: i64,
        /// The leaf of `B` involved (0-based, in flattened order).
        b_leaf: usize,
        /// That leaf of `B`: its extent …
        b_shape: i64,
        /// … and its stride.
        b_stride: i64,
        /// The number that broke the rule (see [`CompositionRule`]).
        x: i64,
    },
    /// Text that does not parse as a layout or integer tuple.
    Parse {
        /// Byte offset in the input where the problem is.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// Swizzle parameters `Sw<B,M,S>` that break a rule (`B >= 0`, `M >= 0`, `|S| >= B`,
    /// `B + M + |S| <= 63`).
    InvalidSwizzle {
        /// `B`, the number of bits.
        b: i64,
        /// `M`, the base.
        m: i64,
        /// `S`, the shift.
        s: i64,
        /// The rule that was broken.
        rule: &'static str,
    },
    /// A swizzled layout asked for its `shape:stride` form, which it does not have.
    NotAffine {
        /// `B` of the swizzle.
        b: i64,
        /// `M` of the swizzle.
        m: i64,
        /// `S` of the swizzle.
        s: i64,
    },
    /// A fact about a layout (its offset bounds or injectivity) that has no closed form here
    /// would need a scan of more elements than the cap allows.
    TooLargeToScan {
        /// What was to be decided.
        what: &'static str,
        /// The number of elements the scan would visit.
        size: i64,
        /// The most elements a scan visits.
        cap: i64,
    },
}

debug_as_sentence!(LayoutError {
    TooManyLeaves,
    TooComplex,
    NotCongruent,
    NonPositiveExtent,
    Overflow,
    ModeOutOfRange,
    CoordinateMismatch,
    CoordinateOutOfRange,
    IndexOutOfRange,
    NotInjective,
    TooManyTileModes,
    TilerTooLong,
    NotInjectiveBySize,
    SwizzleOffsetOverflow,
    AllocationFailed,
    Precondition,
    Composition,
    Parse,
    InvalidSwizzle,
    NotAffine,
    TooLargeToScan
});

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::TooManyLeaves { needed } => write!(
                f,
                "{needed} leaves needed but a run-time tuple holds at most {}",
                crate::MAX_LEAVES
            ),
            LayoutError::TooComplex { needed } => write!(
                f,
                "nesting needs {needed} structure tokens but a run-time tuple holds at most {}",
                crate::MAX_TOKENS
            ),
            LayoutError::NotCongruent {
                shape_leaves,
                stride_leaves,
            } => write!(
                f,
                "shape and stride are not congruent: shape has {shape_leaves} leaves, stride has {stride_leaves}, or their nesting differs"
            ),
            LayoutError::NonPositiveExtent { leaf, extent } => {
                write!(
                    f,
                    "shape leaf {leaf} has extent {extent}; extents must be positive"
                )
            }
            LayoutError::Overflow { what } => write!(f, "{what} overflows i64"),
            LayoutError::ModeOutOfRange { mode, rank } => {
                write!(f, "mode {mode} does not exist in a rank-{rank} value")
            }
            LayoutError::CoordinateMismatch {
                coord_leaves,
                shape_leaves,
            } => write!(
                f,
                "coordinate does not fit the shape: coordinate has {coord_leaves} leaves, shape has {shape_leaves}, or their nesting differs"
            ),
            LayoutError::CoordinateOutOfRange {
                leaf,
                coord,
                extent,
            } => write!(
                f,
                "coordinate {coord} is out of range for mode {leaf} of extent {extent}"
            ),
            LayoutError::IndexOutOfRange { index, size } => {
                write!(
                    f,
                    "index {index} is out of range for a domain of size {size}"
                )
            }
            LayoutError::NotInjective { offset } => {
                write!(
                    f,
                    "layout is not injective: offset {offset} is reached twice"
                )
            }
            LayoutError::TooManyTileModes { needed, max } => write!(
                f,
                "a by-mode tiler holds at most {max} modes; this one has {needed}"
            ),
            LayoutError::TilerTooLong {
                op,
                tiler_modes,
                rank,
            } => write!(
                f,
                "{op}: the tiler has {tiler_modes} modes but the layout has only {rank}; a by-mode tiler may have at most one mode per mode of the layout"
            ),
            LayoutError::NotInjectiveBySize { size, span } => write!(
                f,
                "layout is not injective: its {size} elements do not fit in the {span} offsets between its smallest and largest offset"
            ),
            LayoutError::SwizzleOffsetOverflow { offset, x } => write!(
                f,
                "the swizzled offset O + L(c) = {offset} + {x} overflows i64"
            ),
            LayoutError::AllocationFailed { what, bytes } => {
                write!(f, "could not allocate {bytes} bytes for {what}")
            }
            LayoutError::Precondition { what, a, b } => write_marked(f, what, a, b),
            LayoutError::Composition {
                rule,
                a_mode,
                a_extent,
                b_leaf,
                b_shape,
                b_stride,
                x,
            } => match rule {
                CompositionRule::StrideDivisibility => write!(
                    f,
                    "composition is not admissible (stride divisibility): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, steps through mode {a_mode} of coalesced A (extent \
                     {a_extent}) with stride {x}; {x} and {a_extent} do not divide one another and \
                     the steps cross the end of the mode"
                ),
                CompositionRule::ShapeDivisibility => write!(
                    f,
                    "composition is not admissible (shape divisibility): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, takes {x} steps in mode {a_mode} of coalesced A (extent \
                     {a_extent}) but its remaining extent is not a multiple of {x}"
                ),
                CompositionRule::Straddle => write!(
                    f,
                    "composition is not admissible (modes of B straddle a mode of A): up to leaf \
                     {b_leaf} of B ({b_shape}:{b_stride}) the leaves of B together reach coordinate \
                     {x} of mode {a_mode} of coalesced A, whose extent is {a_extent}, so A(B(c)) \
                     would carry into the next mode"
                ),
                CompositionRule::NegativeStride => write!(
                    f,
                    "composition is not admissible (negative stride): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, has a negative stride but coalesced A has {x} modes \
                     (only a one-mode A is defined on negative indices)"
                ),
            },
            LayoutError::Parse { at, expected } => {
                write!(f, "parse error at byte {at}: expected {expected}")
            }
            LayoutError::InvalidSwizzle { b, m, s, rule } => {
                write!(f, "invalid swizzle Sw<{b},{m},{s}>: {rule}")
            }
            LayoutError::NotAffine { b, m, s } => write!(
                f,
                "a layout swizzled by Sw<{b},{m},{s}> is not affine: it has no shape:stride form"
            ),
            LayoutError::TooLargeToScan { what, size, cap } => write!(
                f,
                "cannot decide the {what} of a layout of {size} elements: it needs a scan, which visits at most {cap}"
            ),
        }
    }
}

/// `what` with the markers `{a}` and `{b}` replaced by the numbers; without markers, `what`
/// followed by `(numbers a and b)`.
fn write_marked(f: &mut fmt::Formatter<'_>, what: &str, a: i64, b: i64) -> fmt::Result {
    if !what.contains("{a}") && !what.contains("{b}") {
        return write!(f, "{what} (numbers {a} and {b})");
    }
    let mut rest = what;
    while let Some(k) = rest.find('{') {
        let (head, tail) = rest.split_at(k);
        f.write_str(head)?;
        if let Some(t) = tail.strip_prefix("{a}") {
            write!(f, "{a}")?;
            rest = t;
        } else if let Some(t) = tail.strip_prefix("{b}") {
            write!(f, "{b}")?;
            rest = t;
        } else {
            f.write_str("{")?;
            rest = &tail[1..];
        }
    }
    f.write_str(rest)
}

/// The condition of the composition admissibility rule that failed (see `crate::algebra`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompositionRule {
    /// A leaf `s:d` of `B` walks a mode of extent `e` of coalesced `A` with remaining stride `r`
    /// such that neither `r | e` nor `e | r`, and its `s` steps do not fit inside the mode
    /// (`(s-1)·r ≥ e`). `x` is `r`.
    StrideDivisibility,
    /// A leaf of `B` fills a mode of `A` in `x = e / r` steps but its remaining extent is not a
    /// multiple of `x`.
    ShapeDivisibility,
    /// Several leaves of `B` use the same mode of `A` and their largest coordinates sum past its
    /// extent (`x` is the sum), so `A(Σ bᵢ) ≠ Σ A(bᵢ)`: cutlass#2955.
    Straddle,
    /// A leaf of `B` has a negative stride and `A` has more than one mode (`x` is that count).
    NegativeStride,
}

impl CompositionRule {
    /// The rule's name, as printed in messages.
    pub const fn name(self) -> &'static str {
        match self {
            CompositionRule::StrideDivisibility => "stride divisibility",
            CompositionRule::ShapeDivisibility => "shape divisibility",
            CompositionRule::Straddle => "modes of B straddle a mode of A",
            CompositionRule::NegativeStride => "negative stride in B",
        }
    }
}

/// A message built at compile time: `const` evaluation cannot run `format!`, and a panic
/// message formatted with numbers is cut where they start, so a compile-time failure writes
/// its digits into this fixed buffer ([`LayoutError::const_message`]) and panics with the text
/// ([`ConstMessage::as_str`]). Text past [`ConstMessage::CAPACITY`] bytes is cut at a character
/// boundary.
///
/// ```
/// use layout::LayoutError;
/// let e = LayoutError::Precondition { what: "NZ layout: extents {a} and {b}", a: 0, b: -16 };
/// assert_eq!(e.const_message().as_str(), "NZ layout: extents 0 and -16");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ConstMessage {
    buf: [u8; ConstMessage::CAPACITY],
    len: usize,
}

impl ConstMessage {
    /// The most bytes a message keeps.
    pub const CAPACITY: usize = 400;

    const fn new() -> Self {
        ConstMessage {
            buf: [0; ConstMessage::CAPACITY],
            len: 0,
        }
    }

    const fn push_byte(&mut self, b: u8) {
        if self.len < Self::CAPACITY {
            self.buf[self.len] = b;
            self.len += 1;
        }
    }

    const fn push_str(&mut self, s: &str) {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            self.push_byte(b[i]);
            i += 1;
        }
    }

    const fn push_i64(&mut self, v: i64) {
        if v < 0 {
            self.push_byte(b'-');
        }
        let mut digits = [0u8; 20];
        let mut n = v.unsigned_abs();
        let mut k = 0;
        loop {
            digits[k] = b'0' + (n % 10) as u8;
            k += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        while k > 0 {
            k -= 1;
            self.push_byte(digits[k]);
        }
    }

    /// `what` with its `{a}` / `{b}` markers replaced by the numbers, or followed by
    /// `(numbers a and b)` when it has no marker (as `Display` writes it).
    const fn push_marked(&mut self, what: &str, a: i64, b: i64) {
        let w = what.as_bytes();
        let mut marked = false;
        let mut i = 0;
        while i < w.len() {
            if i + 2 < w.len()
                && w[i] == b'{'
                && (w[i + 1] == b'a' || w[i + 1] == b'b')
                && w[i + 2] == b'}'
            {
                self.push_i64(if w[i + 1] == b'a' { a } else { b });
                marked = true;
                i += 3;
            } else {
                self.push_byte(w[i]);
                i += 1;
            }
        }
        if !marked {
            self.push_str(" (numbers ");
            self.push_i64(a);
            self.push_str(" and ");
            self.push_i64(b);
            self.push_str(")");
        }
    }

    /// The message.
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        // a cut inside a multi-byte character: drop its leading bytes
        while len > 0 {
            match core::str::from_utf8(self.buf.split_at(len).0) {
                Ok(s) => return s,
                Err(_) => len -= 1,
            }
        }
        ""
    }
}

impl LayoutError {
    /// The message of this error with its numbers, computed in a `const fn`: what a
    /// compile-time failure (the `LAYOUT` const of a static named layout) panics with.
    pub const fn const_message(&self) -> ConstMessage {
        self.const_message_in("")
    }

    /// [`LayoutError::const_message`] after `context` and `": "` (nothing before it when
    /// `context` is empty).
    ///
    /// ```
    /// use layout::LayoutError;
    /// let e = LayoutError::NonPositiveExtent { leaf: 1, extent: 0 };
    /// assert_eq!(
    ///     e.const_message_in("layout!").as_str(),
    ///     "layout!: shape leaf 1 has extent 0; extents must be positive"
    /// );
    /// ```
    pub const fn const_message_in(&self, context: &str) -> ConstMessage {
        let mut m = ConstMessage::new();
        if !context.is_empty() {
            m.push_str(context);
            m.push_str(": ");
        }
        match *self {
            LayoutError::Precondition { what, a, b } => m.push_marked(what, a, b),
            LayoutError::NonPositiveExtent { leaf, extent } => {
                m.push_str("shape leaf ");
                m.push_i64(leaf as i64);
                m.push_str(" has extent ");
                m.push_i64(extent);
                m.push_str("; extents must be positive");
            }
            LayoutError::Overflow { what } => {
                m.push_str(what);
                m.push_str(" overflows i64");
            }
            _ => m.push_str(self.rule()),
        }
        m
    }

    /// A short constant description of the error kind, without numbers (see
    /// [`LayoutError::const_message`] for the message with them).
    pub const fn rule(&self) -> &'static str {
        match self {
            LayoutError::TooManyLeaves { .. } => "too many leaves for a run-time layout",
            LayoutError::TooComplex { .. } => "nesting too deep for a run-time layout",
            LayoutError::NotCongruent { .. } => "shape and stride are not congruent",
            LayoutError::NonPositiveExtent { .. } => "a result would have an extent <= 0",
            LayoutError::Overflow { .. } => "a result overflows i64",
            LayoutError::ModeOutOfRange { .. } => "a mode index is past the rank",
            LayoutError::CoordinateMismatch { .. } => "a coordinate does not fit the shape",
            LayoutError::CoordinateOutOfRange { .. } => "a coordinate is out of range",
            LayoutError::IndexOutOfRange { .. } => "an index is out of range",
            LayoutError::NotInjective { .. } => "the layout is not injective",
            LayoutError::NotInjectiveBySize { .. } => "the layout is not injective",
            LayoutError::TooManyTileModes { .. } => "a by-mode tiler has too many modes",
            LayoutError::TilerTooLong { .. } => "the tiler has more modes than the layout",
            LayoutError::AllocationFailed { .. } => "an allocation failed",
            LayoutError::SwizzleOffsetOverflow { .. } => "a swizzled offset overflows i64",
            LayoutError::Precondition { what, .. } => what,
            LayoutError::Composition { rule, .. } => match rule {
                CompositionRule::StrideDivisibility => {
                    "composition is not admissible: stride divisibility"
                }
                CompositionRule::ShapeDivisibility => {
                    "composition is not admissible: shape divisibility"
                }
                CompositionRule::Straddle => {
                    "composition is not admissible: modes of B straddle a mode of A"
                }
                CompositionRule::NegativeStride => {
                    "composition is not admissible: negative stride in B"
                }
            },
            LayoutError::Parse { .. } => "parse error",
            LayoutError::InvalidSwizzle { rule, .. } => rule,
            LayoutError::NotAffine { .. } => "a swizzled layout has no shape:stride form",
            LayoutError::TooLargeToScan { .. } => "a layout is too large to scan",
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}
