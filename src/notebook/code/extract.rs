//! Picks items out of the crate's own Rust source (a struct, some methods of an inherent impl, a
//! function, a type alias) and trims what the lecture's code does not show: the error labels
//! (`.within(..)`) and the statements that only check inputs (`check_*(..)?;`, an `if` or `match`
//! whose only work is `bail!`), each run of them replaced by one comment line.

/// One item of a source file.
#[derive(Clone, Copy, Debug)]
pub enum Pick {
    /// `struct NAME` with its doc comment and attributes.
    Struct(&'static str),
    /// Methods of `impl NAME` (inherent impls only), in the order given, under their impl header.
    Methods(&'static str, &'static [&'static str]),
    /// The whole `impl TRAIT for NAME` block.
    TraitImpl(&'static str, &'static str),
    /// A free function.
    Fn(&'static str),
    /// `type NAME = ...;`
    Alias(&'static str),
}

/// The comment that stands for a run of elided checks.
pub const CHECKS_ELIDED: &str = "// … checks of the inputs …";

/// Where a comment, a string or a char literal starting at `i` ends (one past it), if one does.
fn skip_literal(s: &[u8], i: usize) -> Option<usize> {
    let at = |k: usize| s.get(k).copied().unwrap_or(0);
    match (at(i), at(i + 1)) {
        (b'/', b'/') => Some(s[i..].iter().position(|&c| c == b'\n').map_or(s.len(), |p| i + p)),
        (b'/', b'*') => Some(s[i + 2..].windows(2).position(|w| w == b"*/").map_or(s.len(), |p| i + 2 + p + 2)),
        (b'"', _) => {
            let mut k = i + 1;
            while k < s.len() && s[k] != b'"' {
                k += if s[k] == b'\\' { 2 } else { 1 };
            }
            Some((k + 1).min(s.len()))
        }
        (b'r', b'"' | b'#') if i == 0 || !(at(i - 1).is_ascii_alphanumeric() || at(i - 1) == b'_') => {
            let hashes = s[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if at(i + 1 + hashes) != b'"' {
                return None;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let from = i + 2 + hashes;
            Some(s[from..].windows(close.len()).position(|w| w == close.as_slice()).map_or(s.len(), |p| from + p + close.len()))
        }
        (b'\'', b'\\') => Some(s[i + 2..].iter().position(|&c| c == b'\'').map_or(s.len(), |p| i + 2 + p + 1)),
        (b'\'', c) => {
            // a char literal 'x' (x one UTF-8 character); otherwise a lifetime or a label
            let width = match c {
                0..0x80 => 1,
                0xe0..0xf0 => 3,
                0xf0.. => 4,
                _ => 2,
            };
            (at(i + 1 + width) == b'\'').then_some(i + 2 + width)
        }
        _ => None,
    }
}

/// The bytes of `s` from `from` on that are code (outside comments and literals), with their index.
fn code_bytes(s: &[u8], from: usize) -> impl Iterator<Item = (usize, u8)> + '_ {
    let mut i = from;
    std::iter::from_fn(move || {
        while i < s.len() {
            if let Some(end) = skip_literal(s, i) {
                i = end;
                continue;
            }
            i += 1;
            return Some((i - 1, s[i - 1]));
        }
        None
    })
}

/// The index of the bracket closing the one at `open`, across nested brackets of any kind.
fn closing(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in code_bytes(s, open) {
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first `c` at or after `from` outside comments and literals.
fn find_code(s: &[u8], from: usize, c: u8) -> Option<usize> {
    code_bytes(s, from).find(|&(_, b)| b == c).map(|(i, _)| i)
}

/// Byte offsets of the lines of `src` that start with `indent` and then `head` followed by `name`
/// and a character that cannot continue a name.
fn lines_declaring(src: &str, indent: &str, heads: &[&str], name: &str) -> Vec<usize> {
    let mut out = vec![];
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix(indent).filter(|r| !r.starts_with(' ')) {
            for head in heads {
                if let Some(after) = rest.strip_prefix(head).and_then(|r| r.strip_prefix(name))
                    && !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                {
                    out.push(offset);
                }
            }
        }
        offset += line.len();
    }
    out
}

/// Backs up from the line at `start` over the doc comments and attributes right above it.
fn with_docs(src: &str, start: usize, indent: &str) -> usize {
    let mut start = start;
    while start > 0 {
        let prev = src[..start - 1].rfind('\n').map_or(0, |p| p + 1);
        let line = &src[prev..start - 1];
        let attr = line.strip_prefix(indent).is_some_and(|l| l.starts_with("///") || l.starts_with("#["));
        if !attr {
            break;
        }
        start = prev;
    }
    start
}

/// The item whose declaration line starts at `at`: up to its closing brace, or its `;`.
fn item_end(src: &str, at: usize) -> Option<usize> {
    let s = src.as_bytes();
    let brace = find_code(s, at, b'{');
    let semi = find_code(s, at, b';');
    let paren = find_code(s, at, b'(');
    let declaration = src[at..].lines().next().unwrap_or("");
    match (brace, semi) {
        // a tuple struct: (..) then ;
        (_, Some(semi)) if paren.is_some_and(|p| p < semi && brace.is_none_or(|b| p < b)) && declaration.contains("struct ") => {
            let close = closing(s, paren?)?;
            Some(find_code(s, close, b';')? + 1)
        }
        (Some(b), Some(semi)) if semi < b => Some(semi + 1),
        (Some(b), _) => Some(closing(s, b)? + 1),
        (None, Some(semi)) => Some(semi + 1),
        (None, None) => None,
    }
}

/// The inherent impl blocks of `ty`: (header line, body start, body end).
fn inherent_impls(src: &str, ty: &str) -> Vec<(String, usize, usize)> {
    let s = src.as_bytes();
    let mut out = vec![];
    let mut offset = 0;
    for line in src.split_inclusive('\n') {
        let header = line.trim_end();
        if let Some(rest) = header.strip_prefix("impl")
            && !header.contains(" for ")
            && header.ends_with('{')
        {
            // skip the impl's own generic parameters, then the type's name
            let rest = if rest.starts_with('<') { &rest[closing_angle(rest.as_bytes(), 0).map_or(0, |c| c + 1)..] } else { rest };
            let named = rest.trim_start().strip_prefix(ty).is_some_and(|a| a.starts_with([' ', '<']));
            if named {
                let open = offset + header.len() - 1;
                if let Some(close) = closing(s, open) {
                    out.push((header.to_string(), open + 1, close));
                }
            }
        }
        offset += line.len();
    }
    out
}

/// Removes every `.within(..)` call, with the line break before it when it stood on a line of its own.
pub(crate) fn drop_labels(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(at) = out.find(".within(") {
        let Some(close) = closing(out.as_bytes(), at + ".within".len()) else { break };
        let start = out[..at].trim_end_matches([' ', '\n']).len();
        let start = if out[start..at].contains('\n') { start } else { at };
        out.replace_range(start..close + 1, "");
    }
    out
}

/// The index of the `>` closing the `<` at `open`.
fn closing_angle(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &c) in s.iter().enumerate().skip(open) {
        match c {
            b'<' => depth += 1,
            b'>' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether one statement of a function body only checks its inputs: a `check_*(..)?;` call, an
/// `if` whose block only bails out (and no `else`), or a `match` whose arms only pass or bail.
fn is_check(statement: &str) -> bool {
    let code: String = statement.lines().filter(|l| !l.trim_start().starts_with("//")).collect::<Vec<_>>().join("\n");
    let code = code.trim();
    let callee = code.split('(').next().unwrap_or("");
    let call = callee.rsplit("::").next().unwrap_or("");
    let only_bails = || {
        let s = code.as_bytes();
        let Some(open) = find_code(s, 0, b'{') else { return false };
        let Some(close) = closing(s, open) else { return false };
        let body = code[open + 1..close].trim();
        (body.starts_with("bail!") || body.starts_with("return Err(")) && code[close + 1..].trim().is_empty()
    };
    (call.starts_with("check_") && code.ends_with("?;") && !code.starts_with("let "))
        || (code.starts_with("if ") && only_bails())
        || (code.starts_with("match ") && code.contains("bail!") && code.contains("=> {}"))
}

/// The statements of the block whose `{` is at `open`, as (start, end) ranges.
fn statements(text: &str, open: usize, close: usize) -> Vec<(usize, usize)> {
    let s = text.as_bytes();
    let mut pieces = vec![];
    let (mut start, mut depth) = (open + 1, 0usize);
    for (i, c) in code_bytes(s, open + 1).take_while(|&(i, _)| i < close) {
        match c {
            b'{' | b'(' | b'[' => depth += 1,
            b'}' | b')' | b']' => {
                depth -= 1;
                let next = text[i + 1..close].trim_start();
                if depth == 0 && c == b'}' && !next.starts_with(['.', '?', ';', ')']) && !next.starts_with("else") {
                    pieces.push((start, i + 1));
                    start = i + 1;
                }
            }
            b';' if depth == 0 => {
                pieces.push((start, i + 1));
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces
}

/// The block whose `{` is at `open` with each run of input checks replaced by one comment, the
/// blocks of its `if`, `for` and `while` statements too.
fn elide_block(text: &str, open: usize) -> String {
    let Some(close) = closing(text.as_bytes(), open) else { return text[open..].to_string() };
    let pieces = statements(text, open, close);
    let mut check: Vec<bool> = pieces.iter().map(|&(a, b)| is_check(&text[a..b])).collect();
    let mut unread_label = vec![false; pieces.len()];
    // a `let name = ..;` that only the checks read goes with them
    for k in (0..pieces.len()).rev() {
        let code = text[pieces[k].0..pieces[k].1].trim_start();
        let Some(name) = code.strip_prefix("let ").and_then(|r| r.split([' ', ':']).next()) else { continue };
        let named = |t: &str| {
            t.match_indices(name).any(|(i, _)| {
                let before = t[..i].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                let after = t[i + name.len()..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                before && after
            })
        };
        let tail = &text[pieces.last().map_or(open + 1, |p| p.1)..close];
        let read = named(tail) || (k + 1..pieces.len()).any(|j| !check[j] && named(&text[pieces[j].0..pieces[j].1]));
        let by_checks = (k + 1..pieces.len()).any(|j| check[j] && named(&text[pieces[j].0..pieces[j].1]));
        // a label name (`let module = "..";`) that only the dropped labels read goes too
        let label = code.split_once(" = \"").is_some_and(|(_, v)| v.trim_end().ends_with("\";"));
        if !read && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            check[k] |= by_checks;
            unread_label[k] = label && !by_checks;
        }
    }
    let mut out = String::from("{");
    let mut eliding = false;
    for (k, &(a, b)) in pieces.iter().enumerate() {
        let piece = &text[a..b];
        if unread_label[k] {
            continue;
        }
        if check[k] {
            if !eliding {
                let line = piece.trim_start_matches('\n');
                let indent = &line[..line.len() - line.trim_start().len()];
                out.push('\n');
                out.push_str(indent);
                out.push_str(CHECKS_ELIDED);
            }
            eliding = true;
            continue;
        }
        eliding = false;
        let code = piece.trim_start();
        let inner = find_code(text.as_bytes(), a, b'{').filter(|&p| p < b);
        match inner {
            Some(p) if ["if ", "for ", "while "].iter().any(|k| code.starts_with(k)) => {
                let block = elide_block(text, p);
                let end = closing(text.as_bytes(), p).map_or(b, |c| c + 1);
                out.push_str(&text[a..p]);
                out.push_str(&block);
                out.push_str(&text[end..b]);
            }
            _ => out.push_str(piece),
        }
    }
    out.push_str(&text[pieces.last().map_or(open + 1, |p| p.1)..=close]);
    out
}

/// The function at `text` with its body's input checks elided.
fn elide_checks(text: &str) -> String {
    match find_code(text.as_bytes(), text.find("fn ").unwrap_or(0), b'{') {
        Some(open) => {
            let end = closing(text.as_bytes(), open).map_or(text.len(), |c| c + 1);
            format!("{}{}{}", &text[..open], elide_block(text, open), &text[end..])
        }
        None => text.to_string(),
    }
}

/// The text of one pick, trimmed as the module docs say; an error names what was not found.
pub fn pick(src: &str, p: Pick) -> Result<String, String> {
    let found = |what: &str, v: Option<String>| v.ok_or_else(|| format!("{what} not found"));
    let top = |heads: &[&str], name: &str, what: &str| {
        let at = lines_declaring(src, "", heads, name).into_iter().next();
        found(what, at.and_then(|at| Some(src[with_docs(src, at, "")..item_end(src, at)?].to_string())))
    };
    let text = match p {
        Pick::Struct(name) => top(&["pub struct ", "struct "], name, &format!("struct {name}"))?,
        Pick::Fn(name) => elide_checks(&drop_labels(&top(&["pub fn ", "fn "], name, &format!("fn {name}"))?)),
        Pick::Alias(name) => top(&["pub type ", "type "], name, &format!("type {name}"))?,
        Pick::TraitImpl(tr, ty) => {
            let header = format!("impl {tr} for {ty} {{");
            let at = src.find(&format!("\n{header}")).map(|p| p + 1);
            found(&header, at.and_then(|at| Some(src[at..item_end(src, at)?].to_string())))?
        }
        Pick::Methods(ty, names) => {
            let impls = inherent_impls(src, ty);
            let mut blocks: Vec<(String, Vec<String>)> = vec![];
            for name in names {
                let hit = impls.iter().find_map(|(header, a, b)| {
                    let body = &src[*a..*b];
                    let at = *a + *lines_declaring(body, "    ", &["pub fn ", "fn ", "pub(crate) fn "], name).first()?;
                    Some((header.clone(), src[with_docs(src, at, "    ")..item_end(src, at)?].to_string()))
                });
                let (header, method) = hit.ok_or_else(|| format!("{ty}::{name} not found"))?;
                let method = elide_checks(&drop_labels(&method));
                match blocks.last_mut() {
                    Some((h, ms)) if *h == header => ms.push(method),
                    _ => blocks.push((header, vec![method])),
                }
            }
            blocks.into_iter().map(|(h, ms)| format!("{h}\n{}\n}}", ms.join("\n\n"))).collect::<Vec<_>>().join("\n\n")
        }
    };
    Ok(drop_labels(&text))
}
