//! The public GEMM entries: each builds its operand views and calls the front.

use super::error::GemmError;
use super::error::Operand;
use super::fixed::{self, ColExtent, InnerExtent, RowExtent, StaticMatrix, Table};
use super::front;
use super::kernel::{Element, Scalar};
use super::operand::{HalfOutput, RightOperand, into_half};
use super::options::{MatMut, MatRef, Options};
use super::pair::Pair;
use crate::tensor::{Storage, StorageMut, Tensor, TensorOwned};
use crate::walk::AnyLayout;
use std::vec::Vec;

/// `C ← α·A·B + β·C` on strided matrices of any element [`Pair`] (`f32`, `f64`; `bf16` or
/// `f16` into `f32`; `u8`/`i8` into `i32`), with the kernels and threads of `opts`.
///
/// ```
/// use layout::gemm::{MatMut, MatRef, Options, gemm_with};
/// let a: [i8; 4] = [1, -2, 3, 4]; // 2×2 row-major
/// let mut c = [0i32; 4];
/// let m = MatRef { data: &a, rows: 2, cols: 2, row_stride: 2, col_stride: 1 };
/// gemm_with(Options::default(), 1, m, m, 0,
///     MatMut { data: &mut c, rows: 2, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
/// assert_eq!(c, [-5, -10, 15, 10]);
/// ```
///
/// # Errors
/// [`GemmError::IsaUnavailable`] when this CPU lacks `isa`; [`GemmError::ShapeMismatch`] when A
/// is not m×k, B k×n and C m×n; [`GemmError::TooShort`] / [`GemmError::StrideOverflow`] when an
/// operand's strides reach outside its slice or overflow; [`GemmError::OutputOverlaps`] when two
/// elements of C share a location (an exact test: every injective C is accepted). Nothing is
/// written on error. After these checks, BLAS's rule for α = 0, k = 0 and empty products
/// applies (see the module docs).
pub fn gemm_with<A: Pair<B>, B>(
    opts: impl Into<Options>,
    alpha: A::Out,
    a: MatRef<'_, A>,
    b: MatRef<'_, B>,
    beta: A::Out,
    c: MatMut<'_, A::Out>,
) -> Result<(), GemmError> {
    front::strided("gemm", opts.into(), alpha, a, b, beta, c)
}

/// `C ← α·A·B + β·C` on rank-2 tensors (A m×k, B k×n, C m×n; axis 0 is the row), with
/// [`Options::default`] (the selected instruction set, one thread). B is a tensor of any
/// layout or quantized weights (`Q4_0`, `Q8_0`, GPTQ/AWQ; see [`RightOperand`]): with
/// quantized weights the product picks decode (up to eight rows of A, the stored bytes read in
/// place) or prefill (dequantized block by block inside the packing) itself. For a C in `f16`
/// or `bf16`, [`gemm_into_half`].
///
/// ```
/// use layout::{DynLayout, Tensor, gemm};
/// let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2×3 row-major
/// let b = [1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3×2 row-major
/// let mut c = [0.0f64; 4];
/// let ta = Tensor::new(&a[..], "(2,3):(3,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let tb = Tensor::new(&b[..], "(3,2):(2,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], "(2,2):(1,2)".parse::<DynLayout>().unwrap()).unwrap();
/// gemm::gemm(1.0, &ta, &tb, 0.0, &mut tc).unwrap();
/// assert_eq!(c, [4.0, 10.0, 5.0, 11.0]); // column-major C
/// ```
///
/// With quantized weights (decode, one token; a batch of tokens is the same call):
///
/// ```
/// use layout::Tensor;
/// use layout::gemm::gemm;
/// use layout::packed::quantize_q8_0;
/// let (k, n) = (64, 4);
/// // integers, each 32-block of a column holding 127 (scale 1): Q8_0 stores them exactly
/// let w: Vec<f32> = (0..k * n).map(|i| if i / n % 32 == i % n { 127.0 } else { (i % 9) as f32 - 4.0 }).collect();
/// let q = quantize_q8_0(k, n, &w).unwrap();
/// let x = Tensor::from_fn(&[1, k], |i| (i % 3) as f32).unwrap();
/// let mut y = Tensor::from_vec(vec![0f32; n], &[1, n]).unwrap();
/// gemm(1.0, &x, &q, 0.0, &mut y).unwrap();
/// let want: Vec<f32> = (0..n).map(|j| (0..k).map(|p| x[[0, p]] * w[p * n + j]).sum()).collect();
/// assert_eq!(y.as_slice(), &want[..]);
/// ```
///
/// # Errors
/// [`GemmError::NotMatrix`] when an operand is not of rank 2; [`GemmError::ShapeMismatch`];
/// [`GemmError::Allocation`] when the buffer for a non-strided operand cannot be allocated; the
/// errors of [`gemm_with`](super::gemm_with) (and of [`gemm_quant`](super::gemm_quant) for
/// quantized weights).
pub fn gemm<TA, SA, LA, B, SC, LC>(
    alpha: B::Out,
    a: &Tensor<SA, LA>,
    b: &B,
    beta: B::Out,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    SA: Storage<Elem = TA>,
    LA: AnyLayout,
    B: RightOperand<TA> + ?Sized,
    SC: StorageMut<Elem = B::Out>,
    LC: AnyLayout,
{
    b.product("gemm", Options::default(), alpha, a, beta, c)
}

/// [`gemm`](fn@gemm) with the instruction set, threads and packing of `opts` (the same
/// [`Options`] the slice entry [`gemm_with`](super::gemm_with) takes).
///
/// ```
/// use layout::gemm::{self, Isa, Options, Packing};
/// use layout::named::{make_nz_layout, make_zn_layout};
/// use layout::Tensor;
/// // C(NZ) ← A(NZ) · B(ZN), 32 × 32 × 32 f32, on every instruction set this CPU has
/// let a = Tensor::new(vec![1.0f32; 1024], make_nz_layout::<f32>(32, 32).unwrap()).unwrap();
/// let b = Tensor::new(vec![2.0f32; 1024], make_zn_layout::<f32>(32, 32).unwrap()).unwrap();
/// for isa in Isa::available() {
///     let mut c = Tensor::new(vec![0.0f32; 1024], make_nz_layout::<f32>(32, 32).unwrap()).unwrap();
///     let opts = Options { isa, threads: 2, packing: Packing::Always };
///     gemm::gemm_tensors_with(opts, 1.0, &a, &b, 0.0, &mut c).unwrap();
///     assert!(c.as_slice().iter().all(|&x| x == 64.0));
/// }
/// ```
///
/// # Errors
/// As [`gemm`](fn@gemm); [`GemmError::IsaUnavailable`] when this CPU lacks `opts.isa`.
pub fn gemm_tensors_with<TA, SA, LA, B, SC, LC>(
    opts: impl Into<Options>,
    alpha: B::Out,
    a: &Tensor<SA, LA>,
    b: &B,
    beta: B::Out,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    SA: Storage<Elem = TA>,
    LA: AnyLayout,
    B: RightOperand<TA> + ?Sized,
    SC: StorageMut<Elem = B::Out>,
    LC: AnyLayout,
{
    b.product("gemm", opts.into(), alpha, a, beta, c)
}

/// `C ← α·A·B + β·C` for the float pairs (`f32`, `bf16`, `f16` inputs, or f32 activations times
/// quantized weights) with C in `f16` or `bf16`: accumulated in `f32` through the same front as
/// [`gemm`](fn@gemm), and each element of C rounded to 16 bits once, at the end (with β ≠ 0 the
/// old C is widened exactly, so `α·A·B + β·C` is one `f32` value before its rounding). The
/// product runs into an `f32` buffer of C's shape, which is the only extra memory.
///
/// ```
/// use layout::Tensor;
/// use layout::gemm::{Options, gemm_into_half};
/// use layout::named::{bf16, f16};
/// let a = Tensor::from_fn(&[3, 8], |i| bf16::from_f32((i % 5) as f32 - 2.0)).unwrap();
/// let b = Tensor::from_fn(&[8, 2], |i| bf16::from_f32(0.25 * (i % 3) as f32)).unwrap();
/// let mut c = Tensor::from_vec(vec![f16::NAN; 6], &[3, 2]).unwrap(); // β = 0: never read
/// gemm_into_half(Options::default(), 1.0, &a, &b, 0.0, &mut c).unwrap();
/// let want = a.matmul(&b).unwrap(); // the f32 result
/// assert!(c.iter().zip(want.iter()).all(|(x, y)| *x == f16::from_f32(*y)));
/// ```
///
/// # Errors
/// As [`gemm_tensors_with`]; [`GemmError::Allocation`] when the `f32` buffer cannot be
/// allocated. Nothing is written to C on error.
pub fn gemm_into_half<TA, SA, LA, B, H, SC, LC>(
    opts: impl Into<Options>,
    alpha: f32,
    a: &Tensor<SA, LA>,
    b: &B,
    beta: f32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    SA: Storage<Elem = TA>,
    LA: AnyLayout,
    B: RightOperand<TA, Out = f32> + ?Sized,
    H: HalfOutput,
    SC: StorageMut<Elem = H>,
    LC: AnyLayout,
{
    into_half("gemm_into_half", opts.into(), alpha, a, b, beta, c)
}

/// `C ← α·A·B + β·C` on tensors whose layouts have static extents, checked at compile time: a
/// mismatch between A's columns and B's rows (or C's extents) is a type error naming both
/// extents, under `cargo check`. The layouts must be flat static rank-2 shapes
/// (`Layout![(8,4):(1,8)]`, any strides); small ones run the unrolled kernel of
/// [`gemm`](fn@gemm), larger ones the run-time engine.
///
/// ```
/// use layout::{Layout, Int, Tensor, gemm};
/// type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>; // 2×3 row-major
/// type B = Layout<(Int<3>, Int<2>), (Int<2>, Int<1>)>; // 3×2 row-major
/// type C = Layout<(Int<2>, Int<2>), (Int<1>, Int<2>)>; // 2×2 column-major
/// let (a, b, mut c) = ([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], [0.0f32; 4]);
/// let ta = Tensor::new(&a[..], A::default()).unwrap();
/// let tb = Tensor::new(&b[..], B::default()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
/// gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc);
/// assert_eq!(c, [4.0, 10.0, 5.0, 11.0]);
/// ```
///
/// ```compile_fail
/// use layout::{Layout, Int, Tensor, gemm};
/// type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>; // 2×3
/// type B = Layout<(Int<4>, Int<2>), (Int<2>, Int<1>)>; // 4×2: k does not match
/// type C = Layout<(Int<2>, Int<2>), (Int<1>, Int<2>)>;
/// let (a, b, mut c) = ([0f32; 6], [0f32; 8], [0f32; 4]);
/// let ta = Tensor::new(&a[..], A::default()).unwrap();
/// let tb = Tensor::new(&b[..], B::default()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
/// gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc); // error: A has Int<3> columns but B has Int<4> rows
/// ```
#[inline]
pub fn gemm_static<T, SA, LA, SB, LB, SC, LC>(
    alpha: T,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: T,
    c: &mut Tensor<SC, LC>,
) where
    T: Element,
    SA: Storage<Elem = T>,
    SB: Storage<Elem = T>,
    SC: StorageMut<Elem = T>,
    LA: StaticMatrix,
    LB: StaticMatrix,
    LC: StaticMatrix,
    LA::Cols: InnerExtent<LB::Rows>,
    LA::Rows: RowExtent<LC::Rows>,
    LB::Cols: ColExtent<LC::Cols>,
{
    // The engine cannot refuse these operands: the extents agree (the bounds above), the
    // layouts are flat rank-2 static shapes (so the strided engine takes them, nothing is
    // gathered or allocated), tensors are validated (every operand inside its buffer), and a
    // writable tensor's layout is injective, which is exactly what the engine's output check
    // asks (`check_no_overlap`; `tests/gemm_layouts.rs` checks every small strided C).
    //
    // Tiny products first, inline at the caller: no options, no dispatch (α = 0 goes the
    // general way, which reads neither A nor B).
    let avx512 =
        cfg!(target_arch = "x86_64") && super::Isa::selected_for_gemm() == super::Isa::Avx512;
    let work = const { fixed::work::<LA, LB>() };
    let strided = const { fixed::strided::<LA, LB, LC>() };
    // (`strided` layouts are static, of matching shapes: the tables apply at any size)
    if const { fixed::applies::<LA, LB, LC>() || fixed::strided::<LA, LB, LC>() }
        && (work <= fixed::TINY_WORK
            || (!strided && work <= fixed::STATIC_MAX_WORK)
            || (strided && !avx512 && work <= fixed::SMALL_STRIDED_WORK))
        && alpha != T::ZERO
    {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && fixed::kernel::<T, LA, LB, LC>(alpha, ad, bd, beta, cd)
        {
            return;
        }
    }
    // Otherwise the strided front, instantiated per element type only (not per layout types:
    // a static call site compiles its small kernel and this call): every extent and stride is
    // a constant of the types.
    // a validated tensor: its lowest offset is inside the buffer, so this is in 0..len
    fn lowest<L: StaticMatrix>(base: usize) -> usize {
        (base as i64 + Table::<L>::MIN_OFFSET) as usize
    }
    fn mat<T, L: StaticMatrix>(data: &[T], base: usize) -> MatRef<'_, T> {
        let s = Table::<L>::STRIDED;
        MatRef {
            data: data.get(lowest::<L>(base)..).unwrap_or(&[]),
            rows: Table::<L>::ROWS,
            cols: Table::<L>::COLS,
            row_stride: s.rs,
            col_stride: s.cs,
        }
    }
    let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
    let (am, bm) = (
        mat::<T, LA>(a.as_slice(), ab),
        mat::<T, LB>(b.as_slice(), bb),
    );
    let cd = c.as_mut_slice();
    let len = cd.len();
    let sc = Table::<LC>::STRIDED;
    let cm = MatMut {
        data: cd.get_mut(lowest::<LC>(cb)..).unwrap_or(&mut []),
        rows: Table::<LC>::ROWS,
        cols: Table::<LC>::COLS,
        row_stride: sc.rs,
        col_stride: sc.cs,
    };
    if let Err(e) = front::strided("gemm_static", Options::default(), alpha, am, bm, beta, cm) {
        unreachable!(
            "gemm_static: operands with matching static extents (C of {len}) were refused: {e}"
        );
    }
}

macro_rules! blas_entry {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
        $(#[$doc])*
        ///
        /// Arguments in matrixmultiply's order: A is m×k with strides `rsa`, `csa`; B is k×n
        /// (`rsb`, `csb`); C is m×n (`rsc`, `csc`). Strides are in elements, of any sign; zero is
        /// allowed for A and B (broadcast). Element (i, j) of an operand is at
        /// `o + i·rs + j·cs`, with `o` chosen so that the lowest address the operand touches is
        /// index 0 of its slice. m, n or k may be 0; k = 0 or α = 0 gives `C ← β·C` without
        /// reading A or B, and with β = 0 C is never read (BLAS's rule, see the
        /// [module docs](super)). Single-threaded; uses [`Isa::selected_for_gemm`](crate::isa::Isa::selected_for_gemm)
        /// (for threads or another instruction set, [`gemm_with`] with [`Options`]).
        ///
        /// # Errors
        /// [`GemmError::TooShort`] / [`GemmError::StrideOverflow`] when an operand's strides reach
        /// outside its slice or overflow `isize`; [`GemmError::OutputOverlaps`] when two elements
        /// of C share a location. Nothing is written on error.
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            m: usize,
            k: usize,
            n: usize,
            alpha: $t,
            a: &[$t],
            rsa: isize,
            csa: isize,
            b: &[$t],
            rsb: isize,
            csb: isize,
            beta: $t,
            c: &mut [$t],
            rsc: isize,
            csc: isize,
        ) -> Result<(), GemmError> {
            front::strided(
                stringify!($name),
                Options::default(),
                alpha,
                MatRef { data: a, rows: m, cols: k, row_stride: rsa, col_stride: csa },
                MatRef { data: b, rows: k, cols: n, row_stride: rsb, col_stride: csb },
                beta,
                MatMut { data: c, rows: m, cols: n, row_stride: rsc, col_stride: csc },
            )
        }

    };
}

blas_entry!(
    /// `C ← α·A·B + β·C` in `f32`.
    sgemm,
    f32
);
blas_entry!(
    /// `C ← α·A·B + β·C` in `f64`.
    dgemm,
    f64
);

impl<S: Storage, L: AnyLayout> Tensor<S, L> {
    /// `self · b` into a new row-major tensor (m × n), on [`Options::default`]: the allocating
    /// form of [`gemm`](fn@gemm) (α = 1, β = 0) for any element pair and operand layouts.
    ///
    /// ```
    /// use layout::{DynLayout, Tensor};
    /// let a = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    /// let b = Tensor::new(vec![1.0f32, 0.0, 1.0, 0.0, 1.0, 1.0], "(3,2):(1,3)".parse::<DynLayout>().unwrap()).unwrap();
    /// let c = a.matmul(&b).unwrap();
    /// assert_eq!(c.layout().to_string(), "(2,2):(2,1)");
    /// assert_eq!(c.as_slice(), &[4.0, 5.0, 10.0, 11.0]);
    /// let q = Tensor::from_vec(vec![200u8, 1, 2, 3], &[2, 2]).unwrap();
    /// let w = Tensor::from_vec(vec![-1i8, 2, 3, -4], &[2, 2]).unwrap();
    /// assert_eq!(q.matmul(&w).unwrap().as_slice(), &[-197, 396, 7, -8]); // u8 × i8 → i32
    /// // f32 activations times 4-bit weights (prefill: many rows; no dequantized copy of B)
    /// let (k, n) = (64, 8);
    /// let wq = layout::packed::quantize_q4_0(k, n, &vec![0.5f32; k * n]).unwrap();
    /// let x = Tensor::from_fn(&[16, k], |i| (i % 3) as f32).unwrap();
    /// assert_eq!(x.matmul(&wq).unwrap().dims(), [16, n]);
    /// ```
    ///
    /// # Errors
    /// The errors of [`gemm`](fn@gemm); [`GemmError::Allocation`] when the m × n result cannot
    /// be allocated.
    pub fn matmul<B>(&self, b: &B) -> Result<TensorOwned<B::Out>, GemmError>
    where
        B: RightOperand<S::Elem> + ?Sized,
    {
        let d = self.layout().domain();
        let m = match (
            d.is_leaf(),
            d.rank(),
            d.mode(0).ok().and_then(|m| m.size().ok()),
        ) {
            // a valid layout's sizes are positive i64s
            (false, 2, Some(r)) => r as usize,
            _ => {
                return Err(GemmError::NotMatrix {
                    op: "matmul",
                    operand: Operand::A,
                    rank: if d.is_leaf() { 1 } else { d.rank() },
                });
            }
        };
        let n = b.columns("matmul")?;
        let elements = m.saturating_mul(n);
        let fail = GemmError::Allocation {
            op: "matmul",
            elements,
        };
        let mut v = Vec::new();
        v.try_reserve_exact(elements).map_err(|_| fail)?;
        v.resize(elements, B::Out::ZERO);
        let mut c = Tensor::from_vec(v, &[m, n]).map_err(|_| fail)?;
        b.product(
            "matmul",
            Options::default(),
            B::Out::ONE,
            self,
            B::Out::ZERO,
            &mut c,
        )?;
        Ok(c)
    }
}
