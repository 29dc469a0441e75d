//! The reference model: row-major `Vec`s with a shape, and random strided tensors.

use layout::tensor::{Storage, Tensor};
use layout::{AnyLayout, DynLayout, DynTuple};

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

/// splitmix64: a tiny deterministic generator for random layouts.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
    pub fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.range(0, i as i64) as usize;
            v.swap(i, j);
        }
    }
}

/// A random injective strided layout for `shape` (leaves in a random memory order, random gaps
/// and signs, axes of extent 4 or 6 sometimes split into a hierarchical mode), plus the base
/// offset and buffer length that make it fit.
pub fn random_layout(rng: &mut Rng, shape: &[i64]) -> (DynLayout, usize, usize) {
    // leaves per axis, fastest first within an axis
    let mut axes: Vec<Vec<i64>> = vec![];
    for &e in shape {
        if (e == 4 || e == 6) && rng.coin() {
            axes.push(if rng.coin() {
                vec![2, e / 2]
            } else {
                vec![e / 2, 2]
            });
        } else {
            axes.push(vec![e]);
        }
    }
    let mut leaves: Vec<(usize, usize)> = axes
        .iter()
        .enumerate()
        .flat_map(|(k, a)| (0..a.len()).map(move |j| (k, j)))
        .collect();
    rng.shuffle(&mut leaves);
    let mut strides: Vec<Vec<i64>> = axes.iter().map(|a| vec![0; a.len()]).collect();
    let mut next = 1i64;
    for &(k, j) in &leaves {
        let gap = if rng.range(0, 4) == 0 { 2 } else { 1 };
        let s = next * gap;
        strides[k][j] = if rng.range(0, 3) == 0 { -s } else { s };
        next = s * axes[k][j];
    }
    let mut sh = DynTuple::EMPTY;
    let mut st = DynTuple::EMPTY;
    for (a, s) in axes.iter().zip(&strides) {
        if a.len() == 1 {
            sh.push_mode(&DynTuple::leaf(a[0])).unwrap();
            st.push_mode(&DynTuple::leaf(s[0])).unwrap();
        } else {
            sh.push_mode(&DynTuple::from_slice(a).unwrap()).unwrap();
            st.push_mode(&DynTuple::from_slice(s).unwrap()).unwrap();
        }
    }
    let l = DynLayout::new(&sh, &st).unwrap();
    let (lo, hi) = l.offset_range();
    let base = (-lo + rng.range(0, 2)) as usize;
    let len = base + hi as usize + 1 + rng.range(0, 2) as usize;
    (l, base, len)
}

/// A random shape of rank 1..=`max_rank` with extents in 1..=`max_extent` (4 and 6 favoured).
pub fn random_shape(rng: &mut Rng, max_rank: i64) -> Vec<i64> {
    let r = rng.range(1, max_rank);
    (0..r)
        .map(|_| [1, 2, 3, 4, 6, 5][rng.range(0, 5) as usize])
        .collect()
}

/// A buffer of distinct values.
pub fn buffer(len: usize) -> Vec<i32> {
    (0..len as i32).map(|i| i * 7 + 3).collect()
}
