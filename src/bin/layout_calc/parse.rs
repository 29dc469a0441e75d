//! Splitting one calculator line into calls, swizzles and value texts. No value is parsed here:
//! a value text (`(4,8):(1,4)`, `(4,8)`, `[4,_]`, `(_,1)`) is handed, with its column, to
//! layout-core's own text parser (`FromStr` of `DynLayout`, `DynTuple`, `Tile`, `SliceCoord`)
//! by the evaluator, which decides from the argument's kind which one reads it.

use layout::algebra::ops::Spelling;
use std::fmt;

/// The deepest nesting of parentheses, brackets and calls accepted (a guard against stack
/// exhaustion on hostile input; a layout has at most 32 leaves anyway).
const MAX_DEPTH: usize = 48;

/// The most characters of the user's text echoed in a message.
const MAX_ECHO: usize = 32;

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A value text for layout-core's parser, and the byte offset where it starts.
    Text(String, usize),
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

/// The user's text for a message, cut to [`MAX_ECHO`] characters.
pub fn echo(s: &str) -> String {
    match s.char_indices().nth(MAX_ECHO) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

struct Splitter<'a> {
    line: &'a str,
    b: &'a [u8],
    at: usize,
    depth: usize,
}

impl Splitter<'_> {
    fn skip_ws(&mut self) {
        while self.b.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.b.get(self.at).copied()
    }

    fn fail<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            column: self.at + 1,
            message: message.into(),
        })
    }

    fn describe(&self) -> String {
        let rest = self.line.get(self.at..).unwrap_or("").trim_start();
        match rest.chars().next() {
            None => "end of line".into(),
            Some(c) => format!("`{}`", c.escape_debug()),
        }
    }

    /// An identifier starting here (ASCII letters, digits, `_`), without consuming it.
    fn ident_len(&self) -> usize {
        match self.b.get(self.at) {
            Some(c) if c.is_ascii_alphabetic() => self.b[self.at..]
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count(),
            _ => 0,
        }
    }

    /// `true` when the word `o` (composition) starts here.
    fn at_o(&mut self) -> bool {
        self.skip_ws();
        self.b.get(self.at) == Some(&b'o') && self.ident_len() == 1
    }

    fn expr(&mut self) -> Result<Term, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail(format!("nesting deeper than {MAX_DEPTH} levels"));
        }
        self.skip_ws();
        let n = self.ident_len();
        let t = if n > 0 {
            let name = &self.line[self.at..self.at + n];
            let after = self.b[self.at + n..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .copied();
            match after {
                Some(b'<') if name == "Sw" => {
                    self.at += n;
                    self.swizzled()?
                }
                Some(b'<') if Spelling::is_name(name) => {
                    // a named layout's element type: `NZ<f16>(m, n)`, called `NZ<f16>`
                    self.at += n;
                    self.skip_ws();
                    self.at += 1;
                    self.skip_ws();
                    // element types and integers up to `>`: `f16`, `4`
                    let from = self.at;
                    while let Some(&c) = self.b.get(self.at) {
                        if c == b'>' {
                            break;
                        }
                        if !(c.is_ascii_alphanumeric() || c == b'_' || c == b',' || c == b' ') {
                            return self.fail(format!(
                                "expected an element type or an integer in `{}<…>`, found {}",
                                echo(name),
                                self.describe()
                            ));
                        }
                        self.at += 1;
                    }
                    let dtype: String = self.line[from..self.at]
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect();
                    let dtype = dtype.as_str();
                    if dtype.is_empty() || self.peek() != Some(b'>') {
                        return self.fail(format!(
                            "expected `<…>` with an element type or an integer after `{}`, found {}",
                            echo(name),
                            self.describe()
                        ));
                    }
                    self.at += 1;
                    if self.peek() != Some(b'(') {
                        return self.fail(format!(
                            "expected `(` after `{}<{}>`, found {}",
                            echo(name),
                            echo(dtype),
                            self.describe()
                        ));
                    }
                    self.at += 1;
                    Term::Call(format!("{name}<{dtype}>"), self.list()?)
                }
                Some(b'(') => {
                    self.at += n;
                    self.skip_ws();
                    self.at += 1;
                    Term::Call(name.to_string(), self.list()?)
                }
                _ if name.eq_ignore_ascii_case("sw") => {
                    return self.fail(format!(
                        "`{}` is not a value; did you mean `Sw`? A swizzle is written `Sw<B,M,S> o L`",
                        echo(name)
                    ));
                }
                _ => {
                    return self.fail(format!(
                        "`{}` is not a value; functions are called as `{}(…)`",
                        echo(name),
                        echo(name)
                    ));
                }
            }
        } else {
            self.text()?
        };
        self.depth -= 1;
        Ok(t)
    }

    /// A value text: up to a `,`, `)` or `]` outside brackets, the word `o`, or the end.
    fn text(&mut self) -> Result<Term, ParseError> {
        self.skip_ws();
        let start = self.at;
        let mut depth = 0usize;
        while let Some(&c) = self.b.get(self.at) {
            match c {
                b'(' | b'[' => {
                    depth += 1;
                    if self.depth + depth > MAX_DEPTH {
                        return self.fail(format!("nesting deeper than {MAX_DEPTH} levels"));
                    }
                }
                b')' | b']' if depth == 0 => break,
                b')' | b']' => depth -= 1,
                b',' if depth == 0 => break,
                b'o' if depth == 0 && self.ident_len() == 1 => break,
                _ if c.is_ascii_alphabetic() && depth == 0 => break,
                _ => {}
            }
            self.at += 1;
        }
        let text = self.line[start..self.at].trim_end();
        if text.is_empty() {
            return self.fail(format!("expected a value, found {}", self.describe()));
        }
        Ok(Term::Text(text.to_string(), start))
    }

    /// Comma-separated expressions up to `)` (already past the opening one).
    fn list(&mut self) -> Result<Vec<Term>, ParseError> {
        let mut v = Vec::new();
        if self.peek() == Some(b')') {
            self.at += 1;
            return Ok(v);
        }
        loop {
            v.push(self.expr()?);
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b')') => {
                    self.at += 1;
                    return Ok(v);
                }
                _ => {
                    return self.fail(format!("expected `,` or `)`, found {}", self.describe()));
                }
            }
        }
    }

    /// `<B,M,S> o [K o] L`, after `Sw`.
    fn swizzled(&mut self) -> Result<Term, ParseError> {
        self.skip_ws();
        self.at += 1; // `<`
        let mut bms = [0i64; 3];
        for (k, v) in bms.iter_mut().enumerate() {
            self.skip_ws();
            let start = self.at;
            while self
                .b
                .get(self.at)
                .is_some_and(|c| c.is_ascii_digit() || *c == b'-' || *c == b'_')
            {
                self.at += 1;
            }
            let digits = self.line[start..self.at].trim_start_matches('_');
            *v = match digits.parse::<i64>() {
                Ok(v) => v,
                Err(_) => {
                    self.at = start;
                    return self.fail(format!("expected an integer, found {}", self.describe()));
                }
            };
            let close = if k == 2 { b'>' } else { b',' };
            if self.peek() != Some(close) {
                return self.fail(format!(
                    "expected `{}`, found {}",
                    close as char,
                    self.describe()
                ));
            }
            self.at += 1;
        }
        if !self.at_o() {
            return self.fail(format!(
                "expected `o` (composition) after the swizzle, found {}",
                self.describe()
            ));
        }
        self.at += 1;
        let first = self.expr()?;
        let sw = (bms[0], bms[1], bms[2]);
        if self.at_o() {
            self.at += 1;
            let layout = self.expr()?;
            return Ok(Term::Swizzled {
                sw,
                offset: Some(Box::new(first)),
                layout: Box::new(layout),
            });
        }
        Ok(Term::Swizzled {
            sw,
            offset: None,
            layout: Box::new(first),
        })
    }
}

/// Parse one line into a term; the whole line must be consumed.
pub fn parse_line(line: &str) -> Result<Term, ParseError> {
    let mut p = Splitter {
        line,
        b: line.as_bytes(),
        at: 0,
        depth: 0,
    };
    let t = p.expr()?;
    if p.peek().is_some() {
        return p.fail(format!("expected end of line, found {}", p.describe()));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str, at: usize) -> Term {
        Term::Text(s.into(), at)
    }

    #[test]
    fn splits_the_grammar() {
        use Term::*;
        assert_eq!(parse_line("8").unwrap(), text("8", 0));
        assert_eq!(parse_line(" _8").unwrap(), text("_8", 1));
        assert_eq!(
            parse_line("(2,_3):(1,-2)").unwrap(),
            text("(2,_3):(1,-2)", 0)
        );
        assert_eq!(
            parse_line("f([_, 3:1], (_,1))").unwrap(),
            Call("f".into(), vec![text("[_, 3:1]", 2), text("(_,1)", 12)])
        );
        let Swizzled { sw, offset, .. } = parse_line("Sw<3,3,3> o _0 o (8,64):(64,1)").unwrap()
        else {
            panic!()
        };
        assert_eq!((sw, offset), ((3, 3, 3), Some(Box::new(text("_0", 12)))));
        assert!(matches!(
            parse_line("Sw<2,0,-3> o (8,8):(8,1)").unwrap(),
            Swizzled { offset: None, .. }
        ));
    }

    #[test]
    fn reports_columns() {
        assert_eq!(
            parse_line("size((2,3) x").unwrap_err().to_string(),
            "expected `,` or `)`, found `x` at column 12"
        );
        assert_eq!(parse_line("size(4) x").unwrap_err().column, 9);
        assert_eq!(
            parse_line("sw<3,3,3> o 8:1").unwrap_err().to_string(),
            "`sw` is not a value; did you mean `Sw`? A swizzle is written `Sw<B,M,S> o L` at column 1"
        );
        let long = "a".repeat(1 << 20);
        let e = parse_line(&long).unwrap_err().to_string();
        assert!(e.len() < 200, "{e}");
        assert!(parse_line(&"(".repeat(10_000)).is_err());
        assert!(parse_line(&"f(".repeat(10_000)).is_err());
        assert!(parse_line("").is_err());
    }
}
