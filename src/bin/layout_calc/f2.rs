//! The F2 functions of the calculator: F2-linear layouts (`{in:[bases]} -> {out:size}`) and
//! layouts with F2 strides (PyCuTe's `(8,8):(F1,F9)`). An F2 text has commas of its own, so these functions
//! separate their arguments with `;`: `f2_compose(A; B)`.

use layout::DynLayout;
use layout::Swizzle;
use layout::f2::{F2Layout, MixedLayout, to_svg};

/// The most offsets `f2_offsets` / `mixed_offsets` list.
const MAX_LISTED: u64 = 1 << 16;

/// The function names handled here.
pub const NAMES: &[&str] = &[
    "f2_apply",
    "f2_compose",
    "f2_invert",
    "f2_left_inverse",
    "f2_right_inverse",
    "f2_complement",
    "f2_rank",
    "f2_injective",
    "f2_surjective",
    "f2_vector_width",
    "f2_direct_sum",
    "f2_swizzle",
    "f2_from_layout",
    "f2_offsets",
    "f2_svg",
    "mixed",
    "mixed_offsets",
    "mixed_to_f2",
    "mixed_compose",
    "mixed_after",
    "mixed_right_inverse",
    "mixed_left_inverse",
    "mixed_complement",
    "mixed_swizzled",
];

/// The general functions that also take a layout with F2 strides (`(8,8):(F1,F9)`), with their
/// usual comma-separated arguments.
const GENERAL: &[&str] = &[
    "size",
    "cosize",
    "offsets",
    "eval",
    "coalesce",
    "composition",
    "right_inverse",
    "left_inverse",
    "complement",
];

/// Whether the text has an F2 stride: `F` followed by a digit, `[` or `2(`, right after `:`,
/// `(` or `,` (PyCuTe's `F9`, `F2(9)`, and the bases `F[…]`).
fn has_f2_stride(t: &str) -> bool {
    let b = t.as_bytes();
    (1..b.len()).any(|i| {
        let prev = b[..i].iter().rev().find(|c| !c.is_ascii_whitespace());
        b[i] == b'F'
            && matches!(prev, Some(b':' | b'(' | b','))
            && matches!(b.get(i + 1), Some(c) if c.is_ascii_digit() || *c == b'[')
    })
}

/// Splits `a, (b, c), [d]` at its top-level commas.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, ch) in s.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// A line that names a layout with F2 strides: a bare one (printed back), or one of the
/// [`GENERAL`] functions applied to it.
fn try_general(t: &str) -> Option<Result<String, String>> {
    if !has_f2_stride(t) {
        return None;
    }
    if let Ok(m) = t.parse::<MixedLayout>() {
        return Some(Ok(m.to_string()));
    }
    let open = t.find('(')?;
    let name = t[..open].trim();
    if !GENERAL.contains(&name) {
        return None;
    }
    let body = t[open + 1..].strip_suffix(')')?;
    let args = split_top(body);
    let e = |e: layout::f2::F2Error| e.to_string();
    Some((|| {
        let m = mixed(args[0])?;
        let want = |n: usize| arity(name, &args, n).map_err(|x| x.replace(" separated by `;`", ""));
        match name {
            "size" => {
                want(1)?;
                Ok(m.size().to_string())
            }
            "cosize" => {
                want(1)?;
                Ok(m.cosize().map_err(e)?.to_string())
            }
            "coalesce" => {
                want(1)?;
                Ok(m.coalesce().map_err(e)?.to_string())
            }
            "offsets" => run("mixed_offsets", &[args[0]]),
            "eval" => {
                // eval(M, i), eval(M, (c0, c1, …)) or eval(M, c0, c1, …): an index, a flat
                // coordinate or one coordinate per mode, as PyCuTe's `L(…)`
                if args.len() < 2 {
                    want(2)?;
                }
                let mut c = Vec::new();
                for a in &args[1..] {
                    c.extend(ints(a)?);
                }
                let i = match c[..] {
                    [i] => i,
                    _ => m.index_of(&c).map_err(e)?,
                };
                Ok(m.offset(i).map_err(e)?.to_string())
            }
            "composition" => {
                want(2)?;
                let b: layout::DynLayout = args[1]
                    .parse()
                    .map_err(|x: layout::LayoutError| x.to_string())?;
                Ok(m.compose_layout(&b).map_err(e)?.to_string())
            }
            "right_inverse" => {
                want(1)?;
                Ok(m.right_inverse_layout().map_err(e)?.to_string())
            }
            "left_inverse" => {
                want(1)?;
                Ok(m.left_inverse_layout().map_err(e)?.to_string())
            }
            _ => {
                want(2)?;
                let [c] = ints(args[1])?[..] else {
                    return Err("`complement` takes `L, cotarget`".into());
                };
                Ok(m.complement(c).map_err(e)?.to_string())
            }
        }
    })())
}

/// `Some(output)` when the line is a call of an F2 function or names a layout with F2 strides,
/// else `None` (the general parser takes it).
pub fn try_run(line: &str) -> Option<Result<String, String>> {
    let t = line.trim();
    if let Some(r) = try_general(t) {
        return Some(r);
    }
    let open = t.find('(')?;
    let name = t[..open].trim();
    if !NAMES.contains(&name) {
        return None;
    }
    let Some(body) = t[open + 1..].strip_suffix(')') else {
        return Some(Err(format!("expected `)` at the end of `{name}(…)`")));
    };
    let args: Vec<&str> = body.split(';').map(str::trim).collect();
    Some(run(name, &args))
}

fn f2(s: &str) -> Result<F2Layout, String> {
    s.parse::<F2Layout>().map_err(|e| e.to_string())
}

fn mixed(s: &str) -> Result<MixedLayout, String> {
    s.parse::<MixedLayout>().map_err(|e| e.to_string())
}

fn ints(s: &str) -> Result<Vec<i64>, String> {
    s.trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            p.trim()
                .trim_start_matches('_')
                .parse::<i64>()
                .map_err(|_| format!("expected an integer, found `{}`", p.trim()))
        })
        .collect()
}

fn arity(name: &str, args: &[&str], n: usize) -> Result<(), String> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!(
            "`{name}` takes {n} argument{} separated by `;`, found {}",
            if n == 1 { "" } else { "s" },
            args.len()
        ))
    }
}

fn list(v: impl Iterator<Item = String>) -> String {
    format!("[{}]", v.collect::<Vec<_>>().join(","))
}

fn run(name: &str, args: &[&str]) -> Result<String, String> {
    let e = |e: layout::f2::F2Error| e.to_string();
    match name {
        "f2_apply" => {
            arity(name, args, 2)?;
            let l = f2(args[0])?;
            let c: Vec<u64> = ints(args[1])?
                .into_iter()
                .map(|v| u64::try_from(v).map_err(|_| format!("coordinate {v} is negative")))
                .collect::<Result<_, _>>()?;
            let y = l.apply(&c).map_err(e)?;
            Ok(match y.as_slice() {
                [v] => v.to_string(),
                s => format!(
                    "({})",
                    s.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
                ),
            })
        }
        "f2_compose" | "f2_direct_sum" => {
            arity(name, args, 2)?;
            let (a, b) = (f2(args[0])?, f2(args[1])?);
            let r = if name == "f2_compose" {
                a.compose(&b)
            } else {
                a.direct_sum(&b)
            };
            Ok(r.map_err(e)?.to_string())
        }
        "f2_invert" | "f2_left_inverse" | "f2_right_inverse" | "f2_complement" => {
            arity(name, args, 1)?;
            let l = f2(args[0])?;
            let r = match name {
                "f2_invert" => l.invert(),
                "f2_left_inverse" => l.left_inverse(),
                "f2_right_inverse" => l.right_inverse(),
                _ => l.complement(),
            };
            Ok(r.map_err(e)?.to_string())
        }
        "f2_rank" => {
            arity(name, args, 1)?;
            Ok(f2(args[0])?.rank().to_string())
        }
        "f2_injective" | "f2_surjective" => {
            arity(name, args, 1)?;
            let l = f2(args[0])?;
            Ok(if name == "f2_injective" {
                l.is_injective()
            } else {
                l.is_surjective()
            }
            .to_string())
        }
        "f2_vector_width" => {
            arity(name, args, 2)?;
            Ok(f2(args[0])?
                .contiguous_width(args[1])
                .map_err(e)?
                .to_string())
        }
        "f2_swizzle" => {
            // f2_swizzle(B,M,S; bits)
            arity(name, args, 2)?;
            let bms = ints(args[0])?;
            let [b, m, s] = bms[..] else {
                return Err("`f2_swizzle` takes `B,M,S; bits`".into());
            };
            let sw = Swizzle::new(b, m, s).map_err(|e| e.to_string())?;
            let bits = ints(args[1])?;
            let [bits] = bits[..] else {
                return Err("`f2_swizzle` takes `B,M,S; bits`".into());
            };
            let bits = usize::try_from(bits).map_err(|_| format!("bits {bits} is negative"))?;
            Ok(F2Layout::from_swizzle(sw, bits).map_err(e)?.to_string())
        }
        "f2_from_layout" => {
            arity(name, args, 1)?;
            let l: DynLayout = args[0]
                .parse()
                .map_err(|x: layout::LayoutError| x.to_string())?;
            Ok(F2Layout::from_layout(&l).map_err(e)?.to_string())
        }
        "f2_offsets" => {
            arity(name, args, 1)?;
            let l = f2(args[0])?;
            if l.in_bits() > 16 {
                return Err(format!(
                    "the layout has 2^{} inputs; at most {MAX_LISTED} are listed",
                    l.in_bits()
                ));
            }
            Ok(list(
                (0..1u64 << l.in_bits()).map(|x| l.apply_flat(x).unwrap_or(0).to_string()),
            ))
        }
        "f2_svg" => {
            arity(name, args, 1)?;
            Ok(format!(
                "{}\n",
                to_svg(&f2(args[0])?).map_err(e)?.trim_end()
            ))
        }
        "mixed" => {
            arity(name, args, 1)?;
            Ok(mixed(args[0])?.to_string())
        }
        "mixed_offsets" => {
            arity(name, args, 1)?;
            let m = mixed(args[0])?;
            if m.size() as u64 > MAX_LISTED {
                return Err(format!(
                    "the layout has {} elements; at most {MAX_LISTED} are listed",
                    m.size()
                ));
            }
            let v: Result<Vec<String>, String> = (0..m.size())
                .map(|i| m.offset(i).map(|o| o.to_string()).map_err(e))
                .collect();
            Ok(list(v?.into_iter()))
        }
        "mixed_to_f2" | "mixed_right_inverse" | "mixed_left_inverse" => {
            arity(name, args, 1)?;
            let m = mixed(args[0])?;
            let r = match name {
                "mixed_to_f2" => m.to_f2(),
                "mixed_right_inverse" => m.right_inverse(),
                _ => m.left_inverse(),
            };
            Ok(r.map_err(e)?.to_string())
        }
        "mixed_compose" => {
            arity(name, args, 2)?;
            Ok(mixed(args[0])?
                .compose_f2(&f2(args[1])?)
                .map_err(e)?
                .to_string())
        }
        "mixed_after" => {
            // mixed_after(F; M) = F ∘ M
            arity(name, args, 2)?;
            Ok(mixed(args[1])?
                .compose_after(&f2(args[0])?)
                .map_err(e)?
                .to_string())
        }
        "mixed_complement" => {
            arity(name, args, 2)?;
            let c = ints(args[1])?;
            let [c] = c[..] else {
                return Err("`mixed_complement` takes `M; cotarget`".into());
            };
            Ok(mixed(args[0])?.complement(c).map_err(e)?.to_string())
        }
        "mixed_swizzled" => {
            // mixed_swizzled(L; B,M,S) = L ∘ Sw<B,M,S>
            arity(name, args, 2)?;
            let l: DynLayout = args[0]
                .parse()
                .map_err(|x: layout::LayoutError| x.to_string())?;
            let bms = ints(args[1])?;
            let [b, m, s] = bms[..] else {
                return Err("`mixed_swizzled` takes `L; B,M,S`".into());
            };
            let sw = Swizzle::new(b, m, s).map_err(|e| e.to_string())?;
            Ok(MixedLayout::swizzled(&l, sw).map_err(e)?.to_string())
        }
        _ => Err(format!("unknown function `{name}`")),
    }
}
