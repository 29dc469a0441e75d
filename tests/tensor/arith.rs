//! `zeros` / `ones` / `full` / `zeros_like` for a layout, and the element-wise operators, checked
//! element by element against the reference model on random layouts (gaps, negative strides,
//! hierarchical axes), static, NZ and swizzled layouts.

use crate::reference::{Rng, materialize, random_layout, random_shape};
use layout::named::{f16, make_nz_layout};
use layout::tensor::{ShapeOp, Tensor, TensorError, TensorOwned};
use layout::{AnyLayout, DynLayout, Int, Layout, LayoutError, Sw, SwizzledLayout};

/// A random tensor of `shape` in a random layout, values from `rng`.
fn random_tensor(rng: &mut Rng, shape: &[i64]) -> TensorOwned<i64> {
    let (l, base, len) = random_layout(rng, shape);
    let data = (0..len).map(|_| rng.range(-50, 50)).collect();
    Tensor::with_offset(data, l, base).unwrap()
}

/// Every element of `t` equals `v`, and the buffer has exactly the span the layout reaches.
fn check_filled<T: Clone + PartialEq + std::fmt::Debug, L: AnyLayout>(t: &Tensor<Vec<T>, L>, v: T) {
    assert!(t.iter().all(|x| *x == v));
    let (lo, hi) = t.layout().offset_bounds().unwrap();
    assert_eq!(t.as_slice().len() as i64, hi - lo.min(0) + 1);
    assert_eq!(t.base_offset() as i64, -lo.min(0));
}

#[test]
fn filled_constructors_on_random_layouts() {
    let mut rng = Rng(7);
    for _ in 0..200 {
        let shape = random_shape(&mut rng, 4);
        let (l, _, _) = random_layout(&mut rng, &shape);
        let z = TensorOwned::<i64>::zeros(l).unwrap();
        assert_eq!(z.layout(), &l);
        check_filled(&z, 0);
        let o = TensorOwned::<f32>::ones(l).unwrap();
        check_filled(&o, 1.0);
        let f = Tensor::full(l, 9u8).unwrap();
        check_filled(&f, 9);
        let t = random_tensor(&mut rng, &shape);
        let zl = Tensor::zeros_like(&t).unwrap();
        assert_eq!(zl.layout(), t.layout());
        check_filled(&zl, 0);
    }
}

#[test]
fn filled_constructors_on_typed_nz_and_swizzled_layouts() {
    let st = Layout::new((Int::<3>, Int::<5>), (Int::<5>, Int::<1>));
    check_filled(&TensorOwned::<i32, _>::zeros(st).unwrap(), 0);
    let nz = make_nz_layout::<f16>(32, 48).unwrap();
    check_filled(&Tensor::full(nz, 2.5f64).unwrap(), 2.5);
    let sw = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    check_filled(&TensorOwned::<u16, _>::ones(sw).unwrap(), 1);
    // an owned tensor is writable: a broadcast layout is refused, not built
    let b: DynLayout = "(4,3):(0,1)".parse().unwrap();
    assert!(matches!(
        TensorOwned::<i32>::zeros(b),
        Err(TensorError::Layout(LayoutError::NotInjective { .. }))
    ));
}

/// `op` on two random tensors of one shape, in random layouts, against the reference model.
fn check_op(
    seed: u64,
    f: impl Fn(i64, i64) -> i64,
    by_ref: impl Fn(&TensorOwned<i64>, &TensorOwned<i64>) -> Result<TensorOwned<i64>, TensorError>,
    by_value: impl Fn(TensorOwned<i64>, &TensorOwned<i64>) -> Result<TensorOwned<i64>, TensorError>,
    assign: impl Fn(&mut TensorOwned<i64>, &TensorOwned<i64>),
) {
    let mut rng = Rng(seed);
    for _ in 0..150 {
        let shape = random_shape(&mut rng, 4);
        let a = random_tensor(&mut rng, &shape);
        let mut b = random_tensor(&mut rng, &shape);
        // no zero divisors
        b.map_inplace(|x| {
            if *x == 0 {
                *x = 3
            }
        });
        let (ma, mb) = (materialize(&a), materialize(&b));
        let want: Vec<i64> = ma
            .data
            .iter()
            .zip(&mb.data)
            .map(|(&x, &y)| f(x, y))
            .collect();
        for c in [by_ref(&a, &b).unwrap(), by_value(a.clone(), &b).unwrap(), {
            let mut c = a.clone();
            assign(&mut c, &b);
            c
        }] {
            // the left operand's layout, the values of the definition
            assert_eq!(c.layout(), a.layout());
            assert_eq!(materialize(&c).data, want, "{} {}", a.layout(), b.layout());
        }
        // the right operand is untouched
        assert_eq!(materialize(&b), mb);
    }
}

#[test]
fn operators_pair_elements_by_coordinate_in_any_layouts() {
    check_op(1, |x, y| x + y, |a, b| a + b, |a, b| a + b, |a, b| *a += b);
    check_op(2, |x, y| x - y, |a, b| a - b, |a, b| a - b, |a, b| *a -= b);
    check_op(3, |x, y| x * y, |a, b| a * b, |a, b| a * b, |a, b| *a *= b);
    check_op(4, |x, y| x / y, |a, b| a / b, |a, b| a / b, |a, b| *a /= b);
}

#[test]
fn operators_across_typed_nz_and_swizzled_layouts() {
    let nd = Tensor::from_fn(&[8, 64], |i| i as f32).unwrap();
    let sw = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    let mut s = Tensor::full(sw, 0.5f32).unwrap();
    s += &nd;
    for i in 0..8 {
        for j in 0..64 {
            assert_eq!(s[(i as i64, j as i64)], nd[[i, j]] + 0.5);
        }
    }
    let nz = make_nz_layout::<f16>(16, 64).unwrap();
    let z = Tensor::full(nz, 2.0f32).unwrap();
    let nd16 = Tensor::from_fn(&[16, 64], |i| i as f32).unwrap();
    let p = (&z * &nd16).unwrap();
    assert_eq!(p.layout(), &nz);
    for i in 0..16 {
        for j in 0..64 {
            assert_eq!(p[[i, j]], 2.0 * nd16[[i, j]]);
        }
    }
    // a view on the left: the result owns a copy of the view's span, in the view's layout
    let t = nd.view().t().unwrap();
    let q = (&t - &t.to_owned()).unwrap();
    assert_eq!(q.layout(), t.layout());
    assert!(q.iter().all(|&x| x == 0.0));
}

#[test]
fn operators_refuse_other_shapes() {
    let a = Tensor::from_vec(vec![1; 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![1; 6], &[3, 2]).unwrap();
    let e = (&a + &b).unwrap_err();
    assert!(matches!(
        e,
        TensorError::ShapeMismatch {
            op: ShapeOp::Add,
            ..
        }
    ));
    assert_eq!(
        e.to_string(),
        "+: shapes (2,3) and (3,2) differ; they must be equal"
    );
    // no broadcasting either: the operators want equal shapes
    let row = Tensor::from_vec(vec![1; 3], &[1, 3]).unwrap();
    assert!((a.clone() / &row).is_err());
    // a broadcast view on the left: its layout cannot own a result (on the right it is fine)
    let bc = row.broadcast_to(&[2, 3]).unwrap();
    assert!(matches!(
        &bc + &a,
        Err(TensorError::Layout(LayoutError::NotInjective { .. }))
    ));
    assert!((&a + &bc).unwrap().iter().all(|&x| x == 2));
    let r = std::panic::catch_unwind(move || {
        let mut a = a;
        a -= &b;
    });
    let msg = *r.unwrap_err().downcast::<String>().unwrap();
    assert_eq!(msg, "-=: shapes (2,3) and (3,2) differ; they must be equal");
}
