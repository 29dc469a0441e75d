//! Lexing and parsing one calculator line into a [`Term`] tree. No evaluation happens here: the
//! same text `(4,8)` is a shape, a layout or a coordinate depending on where it is used, which
//! the evaluator decides.

use std::fmt;

/// The deepest nesting of parentheses, brackets and calls accepted (a guard against stack
/// exhaustion on hostile input; a layout has at most 32 leaves anyway).
const MAX_DEPTH: usize = 48;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// An integer, `N` or `_N`.
    Int(i64),
    /// `_` on its own: "keep this mode" in coordinates and tilers.
    Under,
    /// `(t0,t1,…)`.
    Tuple(Vec<Term>),
    /// `shape:stride`.
    Layout(Box<Term>, Box<Term>),
    /// `[t0,t1,…]`: a by-mode tiler.
    Tiler(Vec<Term>),
    /// `Sw<B,M,S> o L` or `Sw<B,M,S> o K o L`.
    Swizzled {
        /// `(B, M, S)`.
        sw: (i64, i64, i64),
        /// `K`, when written.
        offset: Option<Box<Term>>,
        /// `L`.
        layout: Box<Term>,
    },
    /// `name(arg, …)`.
    Call(String, Vec<Term>),
}

/// A parse error: what was expected and the 1-based column where it went wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at column {}", self.message, self.column)
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Int(i64),
    /// `_N`: a static integer as CuTe prints it.
    StaticInt(i64),
    Under,
    Ident(String),
    Punct(u8),
}

fn lex(line: &str) -> Result<Vec<(Tok, usize)>, ParseError> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |at: usize, message: String| ParseError {
        column: at + 1,
        message,
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let number = |i: &mut usize| -> Result<i64, ParseError> {
            let neg = b.get(*i) == Some(&b'-');
            if neg {
                *i += 1;
            }
            let digits = *i;
            let mut v: i64 = 0;
            while *i < b.len() && b[*i].is_ascii_digit() {
                v = v
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(i64::from(b[*i] - b'0')))
                    .ok_or_else(|| err(start, "integer literal overflows i64".into()))?;
                *i += 1;
            }
            if *i == digits {
                return Err(err(start, "expected digits".into()));
            }
            if *i < b.len() && (b[*i].is_ascii_alphabetic() || b[*i] == b'_') {
                return Err(err(*i, "expected an integer".into()));
            }
            Ok(if neg { -v } else { v })
        };
        let tok =
            if c.is_ascii_digit() || (c == b'-' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
                Tok::Int(number(&mut i)?)
            } else if c == b'_' {
                i += 1;
                match b.get(i) {
                    Some(d) if d.is_ascii_digit() || *d == b'-' => Tok::StaticInt(number(&mut i)?),
                    Some(d) if d.is_ascii_alphanumeric() || *d == b'_' => {
                        return Err(err(start, "expected `_`, `_N` or a name".into()));
                    }
                    _ => Tok::Under,
                }
            } else if c.is_ascii_alphabetic() {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                Tok::Ident(line[start..i].to_string())
            } else if b"()[]<>,:".contains(&c) {
                i += 1;
                Tok::Punct(c)
            } else {
                let ch = line[start..].chars().next().unwrap_or('?');
                return Err(err(
                    start,
                    format!("unexpected character `{}`", ch.escape_debug()),
                ));
            };
        out.push((tok, start));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, usize)>,
    at: usize,
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn column(&self) -> usize {
        self.toks.get(self.at).map_or(self.end, |t| t.1) + 1
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            column: self.column(),
            message: message.into(),
        })
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of line".into(),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::StaticInt(v)) => format!("`_{v}`"),
            Some(Tok::Under) => "`_`".into(),
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Punct(c)) => format!("`{}`", *c as char),
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), ParseError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.fail(format!(
                "expected `{}`, found {}",
                c as char,
                self.describe()
            ))
        }
    }

    fn int(&mut self) -> Result<i64, ParseError> {
        match self.peek() {
            Some(Tok::Int(v)) | Some(Tok::StaticInt(v)) => {
                let v = *v;
                self.at += 1;
                Ok(v)
            }
            _ => self.fail(format!("expected an integer, found {}", self.describe())),
        }
    }

    /// `atom [':' atom]`, or a swizzled layout.
    fn expr(&mut self) -> Result<Term, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        let t = if matches!(self.peek(), Some(Tok::Ident(s)) if s == "Sw")
            && self.toks.get(self.at + 1).map(|t| &t.0) == Some(&Tok::Punct(b'<'))
        {
            self.swizzled()?
        } else {
            let a = self.atom()?;
            if self.eat(b':') {
                let d = self.atom()?;
                Term::Layout(Box::new(a), Box::new(d))
            } else {
                a
            }
        };
        self.depth -= 1;
        Ok(t)
    }

    fn swizzled(&mut self) -> Result<Term, ParseError> {
        self.at += 2; // `Sw <`
        let b = self.int()?;
        self.expect(b',')?;
        let m = self.int()?;
        self.expect(b',')?;
        let s = self.int()?;
        self.expect(b'>')?;
        self.keyword_o()?;
        let first = self.expr()?;
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "o") {
            self.at += 1;
            let layout = self.expr()?;
            return Ok(Term::Swizzled {
                sw: (b, m, s),
                offset: Some(Box::new(first)),
                layout: Box::new(layout),
            });
        }
        Ok(Term::Swizzled {
            sw: (b, m, s),
            offset: None,
            layout: Box::new(first),
        })
    }

    fn keyword_o(&mut self) -> Result<(), ParseError> {
        if matches!(self.peek(), Some(Tok::Ident(s)) if s == "o") {
            self.at += 1;
            Ok(())
        } else {
            self.fail(format!(
                "expected `o` (composition) after the swizzle, found {}",
                self.describe()
            ))
        }
    }

    /// Comma-separated expressions up to `close` (already past the opening one).
    fn list(&mut self, close: u8) -> Result<Vec<Term>, ParseError> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.expr()?);
            if self.eat(b',') {
                continue;
            }
            if self.eat(close) {
                return Ok(v);
            }
            return self.fail(format!(
                "expected `,` or `{}`, found {}",
                close as char,
                self.describe()
            ));
        }
    }

    fn atom(&mut self) -> Result<Term, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Int(v)) | Some(Tok::StaticInt(v)) => {
                self.at += 1;
                Ok(Term::Int(v))
            }
            Some(Tok::Under) => {
                self.at += 1;
                Ok(Term::Under)
            }
            Some(Tok::Punct(b'(')) => {
                self.at += 1;
                Ok(Term::Tuple(self.list(b')')?))
            }
            Some(Tok::Punct(b'[')) => {
                self.at += 1;
                Ok(Term::Tiler(self.list(b']')?))
            }
            Some(Tok::Ident(name)) => {
                self.at += 1;
                if !self.eat(b'(') {
                    self.at -= 1;
                    return self.fail(format!(
                        "`{name}` is not a value; functions are called as `{name}(…)`"
                    ));
                }
                Ok(Term::Call(name, self.list(b')')?))
            }
            _ => self.fail(format!("expected a value, found {}", self.describe())),
        }
    }
}

/// Parse one line into a term; the whole line must be consumed.
pub fn parse_line(line: &str) -> Result<Term, ParseError> {
    let toks = lex(line)?;
    let mut p = Parser {
        toks,
        at: 0,
        end: line.len(),
        depth: 0,
    };
    let t = p.expr()?;
    if p.at != p.toks.len() {
        return p.fail(format!("expected end of line, found {}", p.describe()));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_grammar() {
        use Term::*;
        assert_eq!(parse_line("8").unwrap(), Int(8));
        assert_eq!(parse_line("_8").unwrap(), Int(8));
        assert_eq!(parse_line("_-1").unwrap(), Int(-1));
        assert_eq!(
            parse_line("(2,_3):(1,-2)").unwrap(),
            Layout(
                Box::new(Tuple(vec![Int(2), Int(3)])),
                Box::new(Tuple(vec![Int(1), Int(-2)]))
            )
        );
        assert_eq!(
            parse_line("f([_, 3:1], (_,1))").unwrap(),
            Call(
                "f".into(),
                vec![
                    Tiler(vec![Under, Layout(Box::new(Int(3)), Box::new(Int(1)))]),
                    Tuple(vec![Under, Int(1)])
                ]
            )
        );
        let Swizzled { sw, offset, .. } = parse_line("Sw<3,3,3> o _0 o (8,64):(64,1)").unwrap()
        else {
            panic!()
        };
        assert_eq!((sw, offset), ((3, 3, 3), Some(Box::new(Int(0)))));
        assert!(matches!(
            parse_line("Sw<2,0,-3> o (8,8):(8,1)").unwrap(),
            Swizzled { offset: None, .. }
        ));
    }

    #[test]
    fn reports_columns() {
        assert_eq!(
            parse_line("(2,3").unwrap_err().to_string(),
            "expected `,` or `)`, found end of line at column 5"
        );
        assert_eq!(parse_line("size(4) x").unwrap_err().column, 9);
        assert_eq!(
            parse_line("(2,3)é").unwrap_err().to_string(),
            "unexpected character `é` at column 6"
        );
        assert!(parse_line("99999999999999999999").is_err());
        assert!(parse_line(&"(".repeat(10_000)).is_err());
        assert!(parse_line("").is_err());
    }
}
