//! sacrebleu's `13a` tokenizer (mteval-v13a's) and Python's whitespace split, which BLEU counts
//! n-grams over.

/// Python's `str.isspace`: Unicode whitespace and the separators U+001C to U+001F.
pub(crate) fn is_python_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `str.split()`: the words between runs of whitespace.
pub(crate) fn split_python(s: &str) -> Vec<&str> {
    s.split(is_python_space).filter(|w| !w.is_empty()).collect()
}

/// sacrebleu's `13a` tokenizer (mteval-v13a's), its regular expressions ported one by one:
/// `<skipped>` and `-\n` removed, newlines to spaces, `&quot;`, `&amp;`, `&lt;`, `&gt;` unescaped;
/// ASCII punctuation except `'`, `,`, `-` and `.` split off; `.` and `,` split off unless between
/// digits; `-` split off after a digit; single spaces between tokens.
pub fn tokenize_13a(line: &str) -> String {
    let mut line = line.replace("<skipped>", "").replace("-\n", "").replace('\n', " ");
    if line.contains('&') {
        line = line.replace("&quot;", "\"").replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">");
    }
    // ([\{-\~\[-\` -\&\(-\+\:-\@\/]) -> ' \1 ', on ' line '.
    let mut chars = vec![' '];
    for c in line.chars() {
        if matches!(c, '{'..='~' | '['..='`' | ' '..='&' | '('..='+' | ':'..='@' | '/') {
            chars.extend([' ', c, ' ']);
        } else {
            chars.push(c);
        }
    }
    chars.push(' ');
    let digit = |c: char| c.is_ascii_digit();
    let stop = |c: char| c == '.' || c == ',';
    // ([^0-9])([\.,]) -> '\1 \2 '
    let chars = substitute(&chars, |a, b| !digit(a) && stop(b), |a, b| [a, ' ', b, ' ']);
    // ([\.,])([^0-9]) -> ' \1 \2'
    let chars = substitute(&chars, |a, b| stop(a) && !digit(b), |a, b| [' ', a, ' ', b]);
    // ([0-9])(-) -> '\1 \2 '
    let chars = substitute(&chars, |a, b| digit(a) && b == '-', |a, b| [a, ' ', b, ' ']);
    let line: String = chars.into_iter().collect();
    split_python(&line).join(" ")
}

/// `re.sub` of a two-character pattern: scanning left to right, every pair that matches (the
/// pairs not overlapping) is replaced.
fn substitute(chars: &[char], matches: impl Fn(char, char) -> bool, replace: impl Fn(char, char) -> [char; 4]) -> Vec<char> {
    let mut out = Vec::with_capacity(chars.len() + chars.len() / 2);
    let mut i = 0;
    while i < chars.len() {
        if i + 1 < chars.len() && matches(chars[i], chars[i + 1]) {
            out.extend(replace(chars[i], chars[i + 1]));
            i += 2;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}
