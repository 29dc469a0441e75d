//! The text form of F2 layouts: `{in:[bases],…} -> {out:size,…}`.

use super::{DimName, Dims, F2Error, F2Layout, MAX_F2_BITS, MAX_F2_DIMS, Side, mask};
use core::fmt;
use core::str::FromStr;

impl fmt::Display for F2Layout {
    /// `{reg:[1,2],lane:[4,8]} -> {offset:16}`; with several outputs each basis is a tuple of
    /// coordinates, `{lane:[(1,0),(0,1)]} -> {row:2,col:2}`; with none, `()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for i in 0..self.ins.n {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:[", self.ins.names[i])?;
            let s = self.ins.start(i);
            for t in 0..self.ins.bits[i] as usize {
                if t > 0 {
                    f.write_str(",")?;
                }
                let b = self.bases[s + t];
                if self.outs.n == 1 {
                    write!(f, "{b}")?;
                } else {
                    f.write_str("(")?;
                    for j in 0..self.outs.n {
                        if j > 0 {
                            f.write_str(",")?;
                        }
                        let v = (b >> self.outs.start(j)) & mask(self.outs.bits[j] as usize);
                        write!(f, "{v}")?;
                    }
                    f.write_str(")")?;
                }
            }
            f.write_str("]")?;
        }
        f.write_str("} -> {")?;
        for j in 0..self.outs.n {
            if j > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:{}", self.outs.names[j], 1u64 << self.outs.bits[j])?;
        }
        f.write_str("}")
    }
}

/// A cursor over the text, skipping whitespace.
pub(crate) struct Cursor<'a> {
    pub(crate) s: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(s: &'a str) -> Cursor<'a> {
        Cursor {
            s: s.as_bytes(),
            at: 0,
        }
    }

    pub(crate) fn ws(&mut self) {
        while self.at < self.s.len() && self.s[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
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

    pub(crate) fn expect(&mut self, c: u8, what: &'static str) -> Result<(), F2Error> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    pub(crate) fn eat_str(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.at..].starts_with(t.as_bytes()) {
            self.at += t.len();
            true
        } else {
            false
        }
    }

    pub(crate) fn err(&self, expected: &'static str) -> F2Error {
        F2Error::Parse {
            at: self.at,
            expected,
        }
    }

    pub(crate) fn name(&mut self) -> Result<DimName, F2Error> {
        self.ws();
        let start = self.at;
        while self.at < self.s.len()
            && (self.s[self.at].is_ascii_alphanumeric() || self.s[self.at] == b'_')
        {
            self.at += 1;
        }
        if start == self.at {
            return Err(self.err("a dimension name"));
        }
        // ASCII by the loop above
        DimName::new(core::str::from_utf8(&self.s[start..self.at]).unwrap_or("?"))
    }

    pub(crate) fn uint(&mut self) -> Result<u64, F2Error> {
        self.ws();
        let start = self.at;
        let mut v: u64 = 0;
        while self.at < self.s.len() && self.s[self.at].is_ascii_digit() {
            let d = (self.s[self.at] - b'0') as u64;
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(d))
                .ok_or(F2Error::Parse {
                    at: start,
                    expected: "an integer below 2^64",
                })?;
            self.at += 1;
        }
        if start == self.at {
            return Err(self.err("a non-negative integer"));
        }
        Ok(v)
    }

    pub(crate) fn end(&mut self) -> Result<(), F2Error> {
        self.ws();
        if self.at == self.s.len() {
            Ok(())
        } else {
            Err(self.err("the end of the text"))
        }
    }
}

/// One basis as written: an integer or a tuple of coordinates.
#[derive(Clone, Copy)]
struct RawBasis {
    tuple: bool,
    n: usize,
    v: [u64; MAX_F2_DIMS],
}

pub(crate) fn parse_f2(c: &mut Cursor<'_>) -> Result<F2Layout, F2Error> {
    let mut raw = [RawBasis {
        tuple: false,
        n: 0,
        v: [0; MAX_F2_DIMS],
    }; MAX_F2_BITS];
    let mut ins = Dims::EMPTY;
    let mut nb = 0;
    c.expect(b'{', "`{` opening the input dimensions")?;
    if !c.eat(b'}') {
        loop {
            let name = c.name()?;
            c.expect(b':', "`:` after an input dimension name")?;
            c.expect(b'[', "`[` opening the bases")?;
            let mut count = 0;
            if !c.eat(b']') {
                loop {
                    if nb == MAX_F2_BITS {
                        return Err(F2Error::TooManyBits {
                            side: Side::Input,
                            bits: nb + 1,
                        });
                    }
                    let r = &mut raw[nb];
                    if c.eat(b'(') {
                        r.tuple = true;
                        if !c.eat(b')') {
                            loop {
                                if r.n == MAX_F2_DIMS {
                                    return Err(c.err("at most 8 coordinates"));
                                }
                                r.v[r.n] = c.uint()?;
                                r.n += 1;
                                if c.eat(b')') {
                                    break;
                                }
                                c.expect(b',', "`,` or `)` in a basis")?;
                            }
                        }
                    } else {
                        r.v[0] = c.uint()?;
                        r.n = 1;
                    }
                    nb += 1;
                    count += 1;
                    if c.eat(b']') {
                        break;
                    }
                    c.expect(b',', "`,` or `]` in the bases")?;
                }
            }
            ins.push(Side::Input, name, count)?;
            if c.eat(b'}') {
                break;
            }
            c.expect(b',', "`,` or `}` after a dimension")?;
        }
    }
    if !c.eat_str("->") {
        return Err(c.err("`->`"));
    }
    let mut l = F2Layout::output(&[])?;
    c.expect(b'{', "`{` opening the output dimensions")?;
    if !c.eat(b'}') {
        loop {
            let name = c.name()?;
            c.expect(b':', "`:` after an output dimension name")?;
            let size = c.uint()?;
            let bits = super::log2_exact(Side::Output, name, size)?;
            l.outs.push(Side::Output, name, bits)?;
            if c.eat(b'}') {
                break;
            }
            c.expect(b',', "`,` or `}` after a dimension")?;
        }
    }
    // now the bases, against the outputs
    let mut at = 0;
    for i in 0..ins.n {
        let name = ins.names[i];
        let start = l.ins.total();
        l.ins.push(Side::Input, name, ins.bits[i] as usize)?;
        for t in 0..ins.bits[i] as usize {
            let r = &raw[at];
            at += 1;
            let flat = if r.tuple || l.outs.n != 1 {
                l.pack_out(name, t, &r.v[..r.n])?
            } else {
                l.check_flat_basis(name, t, r.v[0])?;
                r.v[0]
            };
            l.bases[start + t] = flat;
        }
    }
    Ok(l)
}

impl FromStr for F2Layout {
    type Err = F2Error;

    /// Reads the [`Display`](fmt::Display) form back; whitespace is allowed between tokens. With
    /// one output dimension a basis may be an integer or a 1-tuple.
    fn from_str(s: &str) -> Result<F2Layout, F2Error> {
        let mut c = Cursor::new(s);
        let l = parse_f2(&mut c)?;
        c.end()?;
        Ok(l)
    }
}
