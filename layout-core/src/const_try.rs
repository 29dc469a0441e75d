//! `ctry!`: the `?` operator for `const fn`, where `?` is not allowed (it calls `From::from`).

/// `?` for `const fn`: unwrap a `Result` or return its error unchanged.
macro_rules! ctry {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}
pub(crate) use ctry;
