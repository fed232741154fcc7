//! evcxr's rich-output protocol: one output with several MIME renderings.

use std::fmt::Write as _;

/// Prints one evcxr output holding several MIME renderings. Lines are printed whole.
pub fn emit(contents: &[(&str, &str)]) {
    let mut out = String::new();
    for (mime, body) in contents {
        let _ = writeln!(out, "EVCXR_BEGIN_CONTENT {mime}");
        out.push_str(body);
        if !body.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("EVCXR_END_CONTENT\n");
    }
    print!("{out}");
}
