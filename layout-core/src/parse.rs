//! Parsing CuTe's text: `((2,3),(2,4)):((1,4),(2,12))`, `(_2,_3):(_1,_2)`, `(8):(1)`.

use crate::tuple::{MAX_LEAVES, MAX_TOKENS};
use crate::{DynLayout, DynTuple, LayoutError};
use core::str::FromStr;

/// A small cursor over the input bytes.
pub(crate) struct Cursor<'a> {
    pub(crate) s: &'a [u8],
    pub(crate) at: usize,
    /// Open parentheses around the position (bounded by [`MAX_TOKENS`], so that hostile
    /// nesting is an error, never a stack overflow).
    pub(crate) depth: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        Cursor {
            s: s.as_bytes(),
            at: 0,
            depth: 0,
        }
    }

    pub(crate) fn skip_ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.at).copied()
    }

    pub(crate) fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    pub(crate) fn err(&self, expected: &'static str) -> LayoutError {
        LayoutError::Parse {
            at: self.at,
            expected,
        }
    }

    /// An integer, optionally written `_N` (static in CuTe's print) or with a sign.
    pub(crate) fn int(&mut self) -> Result<i64, LayoutError> {
        self.skip_ws();
        let start = self.at;
        if self.s.get(self.at) == Some(&b'_') {
            self.at += 1;
        }
        let neg = if self.s.get(self.at) == Some(&b'-') {
            self.at += 1;
            true
        } else {
            false
        };
        let digits = self.at;
        let mut v: i64 = 0;
        while let Some(&c) = self.s.get(self.at) {
            if !c.is_ascii_digit() {
                break;
            }
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(c - b'0')))
                .ok_or(LayoutError::Overflow {
                    what: "integer literal",
                })?;
            self.at += 1;
        }
        if self.at == digits {
            self.at = start;
            return Err(self.err("an integer"));
        }
        Ok(if neg { -v } else { v })
    }

    /// An integer or a parenthesised tuple of tuples.
    pub(crate) fn tuple(&mut self) -> Result<DynTuple, LayoutError> {
        if self.eat(b'(') {
            let mut t = DynTuple::EMPTY;
            if self.eat(b')') {
                return Ok(t);
            }
            self.enter()?;
            loop {
                let child = self.tuple()?;
                t.push_mode(&child)?;
                if self.eat(b',') {
                    continue;
                }
                if self.eat(b')') {
                    self.depth -= 1;
                    return Ok(t);
                }
                return Err(self.err("`,` or `)`"));
            }
        }
        Ok(DynTuple::leaf(self.int()?))
    }

    /// One more level of parentheses.
    ///
    /// # Errors
    /// [`LayoutError::TooComplex`] past [`MAX_TOKENS`] levels (no value nests deeper).
    pub(crate) fn enter(&mut self) -> Result<(), LayoutError> {
        if self.depth >= MAX_TOKENS {
            return Err(LayoutError::TooComplex {
                needed: 2 * (self.depth + 1),
            });
        }
        self.depth += 1;
        Ok(())
    }

    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// `shape:stride`, or a bare shape (compact column-major).
    pub(crate) fn layout(&mut self) -> Result<DynLayout, LayoutError> {
        let shape = self.tuple()?;
        if self.eat(b':') {
            let stride = self.tuple()?;
            DynLayout::new(&shape, &stride)
        } else {
            DynLayout::col_major(&shape)
        }
    }
}

impl FromStr for DynTuple {
    type Err = LayoutError;

    /// Parse `(3,(2,3))`, `8`, `(_2,_4)`; whitespace is ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        let t = c.tuple()?;
        if !c.at_end() {
            return Err(c.err("end of input"));
        }
        Ok(t)
    }
}

impl FromStr for DynLayout {
    type Err = LayoutError;

    /// Parse CuTe's text `shape:stride` (with or without `_` on static values). A bare shape is
    /// the compact column-major layout of that shape; a bare integer `N` is `N:1`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(_2,_3):(_1,_2)".parse().unwrap();
    /// let b: DynLayout = "(2,3)".parse().unwrap();
    /// assert_eq!(a, b);
    /// assert!("(2,3):(1)".parse::<DynLayout>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        let l = c.layout()?;
        if !c.at_end() {
            return Err(c.err("end of input"));
        }
        Ok(l)
    }
}

const _: () = assert!(MAX_LEAVES >= 8);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn hostile_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "(".repeat(1 << 20);
        assert!(deep.parse::<DynTuple>().is_err());
        assert!(deep.parse::<DynLayout>().is_err());
        assert!(std::format!("[{deep}]").parse::<crate::Tile>().is_err());
        assert!(deep.parse::<crate::SliceCoord>().is_err());
        // nesting a value can hold still parses
        assert_eq!(
            "((((8))))".parse::<DynTuple>().unwrap().to_string(),
            "((((8))))"
        );
    }
}
