//! The reference model: row-major `Vec`s with a shape, and random strided tensors.

use layout::tensor::{Storage, Tensor};
use layout::{AnyLayout, DynLayout};

pub use crate::support::{Seeded as Rng, random_layout, random_shape};

/// A row-major n-d array.
#[derive(Debug, Clone, PartialEq)]
pub struct Nd<T> {
    pub shape: Vec<i64>,
    pub data: Vec<T>,
}

/// Every coordinate of `shape` in row-major order.
pub fn coords(shape: &[i64]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &e in shape {
        out = out
            .into_iter()
            .flat_map(|c| {
                (0..e).map(move |i| {
                    let mut c = c.clone();
                    c.push(i);
                    c
                })
            })
            .collect();
    }
    out
}

/// Materialise a tensor by evaluating each axis's mode (`DynLayout::mode(k).offset`) at every
/// row-major coordinate.
pub fn materialize<St: Storage<Elem = T>, L: AnyLayout, T: Clone>(t: &Tensor<St, L>) -> Nd<T> {
    let d = t.layout().to_dyn().unwrap();
    let modes: Vec<DynLayout> = (0..d.rank()).map(|k| d.mode(k).unwrap()).collect();
    let shape: Vec<i64> = modes.iter().map(|m| m.size()).collect();
    let data = coords(&shape)
        .iter()
        .map(|c| {
            let off: i64 = t.base_offset() as i64
                + c.iter().zip(&modes).map(|(&i, m)| m.offset(i)).sum::<i64>();
            t.as_slice()[off as usize].clone()
        })
        .collect();
    Nd { shape, data }
}

/// All offsets (relative to the base) of a tensor's elements in row-major order.
pub fn offsets(d: &DynLayout) -> Vec<i64> {
    let modes: Vec<DynLayout> = (0..d.rank()).map(|k| d.mode(k).unwrap()).collect();
    let shape: Vec<i64> = modes.iter().map(|m| m.size()).collect();
    coords(&shape)
        .iter()
        .map(|c| c.iter().zip(&modes).map(|(&i, m)| m.offset(i)).sum())
        .collect()
}

impl<T: Clone> Nd<T> {
    pub fn at(&self, c: &[i64]) -> &T {
        let mut i = 0;
        for (k, &x) in c.iter().enumerate() {
            i = i * self.shape[k] + x;
        }
        &self.data[i as usize]
    }

    /// Axes reordered: axis `i` of the result is axis `p[i]`.
    pub fn permute(&self, p: &[usize]) -> Nd<T> {
        let shape: Vec<i64> = p.iter().map(|&k| self.shape[k]).collect();
        let data = coords(&shape)
            .iter()
            .map(|c| {
                let mut src = vec![0; c.len()];
                for (i, &k) in p.iter().enumerate() {
                    src[k] = c[i];
                }
                self.at(&src).clone()
            })
            .collect();
        Nd { shape, data }
    }

    /// NumPy broadcasting to `shape`.
    pub fn broadcast(&self, shape: &[i64]) -> Nd<T> {
        let lead = shape.len() - self.shape.len();
        let data = coords(shape)
            .iter()
            .map(|c| {
                let src: Vec<i64> = (0..self.shape.len())
                    .map(|k| if self.shape[k] == 1 { 0 } else { c[k + lead] })
                    .collect();
                self.at(&src).clone()
            })
            .collect();
        Nd {
            shape: shape.to_vec(),
            data,
        }
    }
}

/// The indices Python's `range(*slice(start, stop, step).indices(n))` yields, from the
/// language reference's definition.
pub fn py_indices(n: i64, start: Option<i64>, stop: Option<i64>, step: i64) -> Vec<i64> {
    let fix = |v: i64| if v < 0 { v + n } else { v };
    let mut out = vec![];
    if step > 0 {
        let a = start.map(fix).unwrap_or(0).clamp(0, n);
        let b = stop.map(fix).unwrap_or(n).clamp(0, n);
        let mut i = a;
        while i < b {
            out.push(i);
            i += step;
        }
    } else {
        let a = start.map(fix).unwrap_or(n - 1).clamp(-1, n - 1);
        let b = stop.map(fix).unwrap_or(-1).clamp(-1, n - 1);
        let mut i = a;
        while i > b {
            out.push(i);
            i += step;
        }
    }
    out
}

/// A buffer of distinct values.
pub fn buffer(len: usize) -> Vec<i32> {
    (0..len as i32).map(|i| i * 7 + 3).collect()
}
