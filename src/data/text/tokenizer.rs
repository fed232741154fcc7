//! A small word tokenizer for translation: lower-cases, splits on whitespace and splits
//! punctuation off into tokens of its own; and the way back, joining tokens into a sentence with
//! the punctuation attached again.
//!
//! The rules, all of them:
//!
//! - Text is lower-cased (Unicode-aware: `Über` -> `über`; [`tokenize_cased`] keeps the case)
//!   and split on whitespace.
//! - Each of `. , ! ? ; : " ( )` and the typographic quotes `„ “ ” « »` becomes a token of its
//!   own, except `.` and `,` between two digits (`3.5`, `1,000` stay one token).
//! - An apostrophe (`'`, or `’`, which becomes `'`) between two letters or digits stays in its
//!   word (`don't`, `it's`, `o'clock`); anywhere else it is a token of its own (a quote).
//! - Every other character (letters, digits, `-`, `<`, `>`...) stays in its word, so `<unk>`
//!   and `well-known` are one token each.
//!
//! Text that is already space-separated and split this way (the generated corpus) comes back
//! unchanged up to case: `tokenize(s).join(" ") == s.to_lowercase()` and
//! `tokenize_cased(s).join(" ") == s`.

/// Characters that always become tokens of their own (`.` and `,` unless between digits).
const PUNCTUATION: &[char] = &['.', ',', '!', '?', ';', ':', '"', '(', ')', '„', '“', '”', '«', '»'];

/// Tokens that attach to the token before them when joined (no space before).
const CLOSERS: &[&str] = &[".", ",", "!", "?", ";", ":", ")", "”", "»"];

/// Tokens that open a bracket or a quote when joined (no space after).
const OPENERS: &[&str] = &["(", "„", "“", "«", "\"", "'"];

/// Whether `token` closes what `open` opened: `( )`, `„ “` (German), `“ ”`, `« »`, `" "`, `' '`.
fn closes(open: &str, token: &str) -> bool {
    matches!((open, token), ("(", ")") | ("„", "“") | ("“", "”") | ("«", "»") | ("\"", "\"") | ("'", "'"))
}

/// Splits a sentence into lower-case tokens, punctuation apart (the rules are in the module
/// documentation).
///
/// ```
/// use attention_zoo::data::text::tokenize;
/// assert_eq!(tokenize("Der Hund hat's gesehen, oder?"), ["der", "hund", "hat's", "gesehen", ",", "oder", "?"]);
/// ```
pub fn tokenize(text: &str) -> Vec<String> {
    tokenize_cased(&text.to_lowercase())
}

/// [`tokenize`] without the lower-casing: for text whose case carries meaning (German nouns).
///
/// ```
/// use attention_zoo::data::text::tokenize_cased;
/// assert_eq!(tokenize_cased("Der Hund, oder?"), ["Der", "Hund", ",", "oder", "?"]);
/// ```
pub fn tokenize_cased(text: &str) -> Vec<String> {
    let text = text.replace('’', "'");
    let mut tokens = vec![];
    for chunk in text.split_whitespace() {
        let chars: Vec<char> = chunk.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
            let next = chars.get(i + 1).copied();
            let keep = match c {
                '.' | ',' => prev.is_some_and(|p| p.is_ascii_digit()) && next.is_some_and(|n| n.is_ascii_digit()),
                '\'' => prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric),
                _ => !PUNCTUATION.contains(&c),
            };
            if keep {
                word.push(c);
            } else {
                if !word.is_empty() {
                    tokens.push(std::mem::take(&mut word));
                }
                tokens.push(c.to_string());
            }
        }
        if !word.is_empty() {
            tokens.push(word);
        }
    }
    tokens
}

/// Joins tokens into a sentence: one space between words, none before `. , ! ? ; : ) ” »`,
/// none after `( „ “ «`; `"` and a lone `'` open and close quotes in turn, and `“` closes a
/// German `„` (otherwise it opens an English quote). The inverse of [`tokenize`] up to case and
/// spacing.
///
/// ```
/// use attention_zoo::data::text::detokenize;
/// let tokens: Vec<String> = ["er", "sagt", "\"", "ja", "\"", "."].map(String::from).to_vec();
/// assert_eq!(detokenize(&tokens), "er sagt \"ja\".");
/// ```
pub fn detokenize<S: AsRef<str>>(tokens: &[S]) -> String {
    let mut out = String::new();
    let mut glue_next = true;
    let mut open: Vec<&str> = vec![];
    for token in tokens.iter().map(AsRef::as_ref) {
        let matched = open.last().is_some_and(|o| closes(o, token));
        let closing = matched || CLOSERS.contains(&token);
        let opening = !closing && OPENERS.contains(&token);
        if !closing && !glue_next {
            out.push(' ');
        }
        out.push_str(token);
        if matched {
            open.pop();
        }
        if opening {
            open.push(token);
        }
        glue_next = opening;
    }
    out
}
