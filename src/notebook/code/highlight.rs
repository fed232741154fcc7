//! Rust source as HTML with colours for comments, strings, keywords, types, macros and numbers
//! (inline styles, so the Lab, VS Code and the pages show it the same), and the `?` that passes an
//! error on in a colour of its own: the primer in notebook 00 explains it.

use crate::notebook::page::html::escape;

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "dyn", "else", "enum", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match",
    "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "use", "where",
    "while",
];

const COMMENT: &str = "color:#6a737d;font-style:italic";
const STRING: &str = "color:#22863a";
const KEYWORD: &str = "color:#a626a4;font-weight:600";
const TYPE: &str = "color:#005cc5";
const MACRO: &str = "color:#0e7c86";
const NUMBER: &str = "color:#b35900";
const QUESTION: &str = "color:#d73a49;font-weight:700";

fn span(out: &mut String, style: &str, text: &str) {
    out.push_str(&format!("<span style=\"{style}\">{}</span>", escape(text)));
}

/// The end (one past) of the literal or comment starting at `i`, as chars.
fn literal_end(c: &[char], i: usize) -> Option<usize> {
    let at = |k: usize| c.get(k).copied().unwrap_or('\0');
    match (at(i), at(i + 1)) {
        ('/', '/') => Some((i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len())),
        ('/', '*') => Some((i + 3..c.len()).find(|&k| c[k - 1] == '*' && c[k] == '/').map_or(c.len(), |k| k + 1)),
        // a raw string r"..", r#".."#, not the end of a name
        ('r', '"' | '#') if i == 0 || !(c[i - 1].is_alphanumeric() || c[i - 1] == '_') => {
            let hashes = (i + 1..c.len()).take_while(|&k| c[k] == '#').count();
            if at(i + 1 + hashes) != '"' {
                return None;
            }
            let closes = |k: usize| c[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#');
            Some((i + 2 + hashes..c.len()).find(|&k| closes(k)).map_or(c.len(), |k| k + 1 + hashes))
        }
        ('"', _) => {
            let mut k = i + 1;
            while k < c.len() && c[k] != '"' {
                k += if c[k] == '\\' { 2 } else { 1 };
            }
            Some((k + 1).min(c.len()))
        }
        ('\'', '\\') => (i + 2..c.len()).find(|&k| c[k] == '\'').map(|k| k + 1),
        ('\'', _) if at(i + 2) == '\'' => Some(i + 3),
        _ => None,
    }
}

/// The source as highlighted HTML (no surrounding element).
pub fn highlight(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let text = |a: usize, b: usize| c[a..b].iter().collect::<String>();
    let mut out = String::with_capacity(src.len() * 2);
    let mut i = 0;
    while i < c.len() {
        if let Some(end) = literal_end(&c, i) {
            span(&mut out, if c[i] == '/' { COMMENT } else { STRING }, &text(i, end));
            i = end;
        } else if c[i].is_alphabetic() || c[i] == '_' {
            let end = (i..c.len()).find(|&k| !(c[k].is_alphanumeric() || c[k] == '_')).unwrap_or(c.len());
            let word = text(i, end);
            let lifetime = i > 0 && c[i - 1] == '\'';
            if c.get(end) == Some(&'!') && c.get(end + 1) != Some(&'=') {
                span(&mut out, MACRO, &format!("{word}!"));
                i = end + 1;
                continue;
            }
            if KEYWORDS.contains(&word.as_str()) {
                span(&mut out, KEYWORD, &word);
            } else if !lifetime && word.starts_with(|ch: char| ch.is_uppercase()) {
                span(&mut out, TYPE, &word);
            } else {
                out.push_str(&escape(&word));
            }
            i = end;
        } else if c[i].is_ascii_digit() {
            let end = (i..c.len())
                .find(|&k| !(c[k].is_alphanumeric() || c[k] == '_' || c[k] == '.' && c.get(k + 1).is_some_and(char::is_ascii_digit)))
                .unwrap_or(c.len());
            span(&mut out, NUMBER, &text(i, end));
            i = end;
        } else if c[i] == '?' {
            span(&mut out, QUESTION, "?");
            i += 1;
        } else {
            out.push_str(&escape(&c[i].to_string()));
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::highlight;

    #[test]
    fn colours_each_kind_and_escapes_the_rest() {
        let html = highlight("let x: Vec<u8> = vec![1, 2]?; // a < b\nlet s = \"q?\"; 'a' 'b");
        assert!(html.contains(&format!("<span style=\"{}\">let</span>", super::KEYWORD)));
        assert!(html.contains(&format!("<span style=\"{}\">Vec</span>&lt;u8&gt;", super::TYPE)));
        assert!(html.contains(&format!("<span style=\"{}\">vec!</span>", super::MACRO)));
        assert!(html.contains(&format!("<span style=\"{}\">1</span>", super::NUMBER)));
        assert!(html.contains(&format!("<span style=\"{}\">?</span>;", super::QUESTION)));
        assert!(html.contains(&format!("<span style=\"{}\">// a &lt; b</span>", super::COMMENT)));
        // the ? inside a string is the string's
        assert!(html.contains(&format!("<span style=\"{}\">\"q?\"</span>", super::STRING)));
        assert!(html.contains(&format!("<span style=\"{}\">'a'</span>", super::STRING)));
        // a lifetime is neither a char nor a type
        assert!(html.ends_with(" 'b"));
        // block comments and raw strings are one piece each, whatever they hold
        let more = highlight("/* a\n} */ r#\"x \" y\"# bar\"z\"");
        assert!(more.starts_with(&format!("<span style=\"{}\">/* a\n}} */</span> ", super::COMMENT)), "{more}");
        assert!(more.contains(&format!("<span style=\"{}\">r#\"x \" y\"#</span> bar", super::STRING)), "{more}");
        let plain: String = html.split('<').map(|p| p.split_once('>').map_or(p, |(_, t)| t)).collect();
        assert_eq!(
            plain.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&"),
            "let x: Vec<u8> = vec![1, 2]?; // a < b\nlet s = \"q?\"; 'a' 'b"
        );
    }
}
