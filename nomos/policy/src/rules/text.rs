//! Text tools: what reading files means (named at run time, raw disks, trees that hold secrets,
//! pager commands), and `sed` and `awk`, whose scripts can write files and run commands.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::args::long_matches;
use super::Args;
use super::{quoted_literals, recursive_read, ro};
use crate::paths::{is_access_file, is_block_device, is_irreplaceable};
use crate::shell::{Analysis, Arg, Stdin};

/// What reading the files named by `operands` means (the program's verdict is its entry's): a
/// file chosen at run time could be anything, a raw disk holds every secret on it, a recursive
/// read of a tree that holds secrets reads them, and pagers run their own commands.
pub(crate) fn reader(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, operands: &[&Arg]) {
    // Pagers run their own commands given as `+cmd` (`less '+!reboot'`).
    if matches!(base, "less" | "more" | "zless" | "zmore") && a.all.iter().any(|x| x.shown().starts_with('+')) {
        an.raise(CM, format!("`{base} +…` runs pager commands"));
        for x in a.all.iter().filter_map(Arg::as_static) {
            if let Some(cmd) = x.strip_prefix('+').and_then(|c| c.strip_prefix('!')) {
                an.script(cmd);
            }
        }
    }
    // The first operand of a search tool is its pattern, unless the pattern is an option's value.
    let pattern_first =
        matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "zegrep" | "zfgrep" | "rg" | "ag" | "ack")
            && a.value(&["-e", "--regexp", "-f", "--file"]).is_none();
    for (k, op) in operands.iter().enumerate() {
        if let Arg::Dynamic { text, .. } = op {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
        if !(pattern_first && k == 0) {
            for v in op.values() {
                if !an.is_secret(v) && an.is_credential(v) {
                    super::credential_read(an, base, v);
                }
            }
        }
    }
    // A device anywhere in the words: an option's value may be a file it reads (`-f /dev/sda`).
    for op in a.all.iter() {
        let raw =
            op.values().into_iter().flat_map(|v| [v, v.split_once('=').map_or(v, |(_, p)| p)]).any(is_block_device);
        if raw {
            an.raise_secret(CM, format!("`{base}` reads a raw disk ({}), secrets and all", op.shown()));
        }
    }
    // A recursive read of a directory that holds secrets reads them too.
    let recursive = matches!(base, "rg" | "ag" | "ack")
        || a.flag('r', "--recursive")
        || a.short('R')
        || a.long("--dereference-recursive")
        || (base.contains("grep") && a.values(&["-d", "--directories"]).iter().any(|v| v.shown() == "recurse"));
    if recursive {
        let ops = operands;
        // A long literal pattern cannot pull key material out; anything broader reads it all
        // (context lines, several patterns, whole files as one line do).
        let patterns = a.values(&["-e", "--regexp"]);
        let pattern = patterns.first().cloned().or_else(|| ops.first().map(|o| (*o).clone()));
        let literal = pattern
            .as_ref()
            .and_then(Arg::as_static)
            .is_some_and(|p| p.len() >= 6 && p.chars().all(|c| c.is_alphanumeric() || matches!(c, ' ' | '_' | '-')));
        let widened = patterns.len() > 1
            || a.value(&["-f", "--file", "-A", "-B", "-C", "--context", "--after-context", "--before-context"])
                .is_some()
            || a.options().any(|o| {
                o.starts_with("--context")
                    || (!o.starts_with("--")
                        && o[1..]
                            .contains(|c: char| c.is_ascii_digit() || c == 'z' || c == 'A' || c == 'B' || c == 'C'))
            })
            || a.long("--null-data")
            || a.long("--pre-glob")
            || a.long("--passthru");
        let specific = matches!(base, "grep" | "egrep" | "fgrep" | "zgrep" | "rg" | "ag" | "ack")
            && literal
            && !widened
            && !a.flag('v', "--invert-match");
        if !specific {
            recursive_read(an, base, ops);
        }
    }
    password_search(an, base, a, operands, pattern_first, recursive);
}

/// A search for password-like words through configuration prints the lines holding passwords: over
/// a tree that holds secrets (`grep -ri password /etc`), or through the guests' configurations
/// (`cipassword` in /etc/pve).
fn password_search(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, operands: &[&Arg], first: bool, recursive: bool) {
    const WORDS: &[&str] = &["pass", "pwd", "secret", "token", "credential", "apikey", "api_key", "private"];
    let mut patterns: Vec<String> = a.values(&["-e", "--regexp"]).iter().map(|p| p.shown().to_lowercase()).collect();
    if first {
        patterns.extend(operands.first().map(|p| p.shown().to_lowercase()));
    }
    if !patterns.iter().any(|p| WORDS.iter().any(|w| p.contains(w))) {
        return;
    }
    let files = operands.iter().skip(usize::from(first)).flat_map(|o| o.values());
    let exposed = files.into_iter().any(|f| {
        f.starts_with("/etc/pve/")
            || recursive && an.resolve(f).iter().any(|r| crate::secrets::holds_secrets(r) && !r.starts_with("/var/log"))
    });
    if exposed {
        an.raise_secret(DE, format!("`{base}` prints the lines that hold passwords or keys"));
    }
}

/// `sed`: its script is judged (writing, reading and running commands), and `-i` edits files.
pub(super) fn sed(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let in_place = a.options().any(|o| {
        long_matches(o, "--in-place")
            || (!o.starts_with("--") && o.starts_with('-') && o[1..].contains('i') && !o.contains('='))
    });
    let mut scripts: Vec<Arg> = a.values(&["-e", "--expression"]);
    let from_file = a.value(&["-f", "--file"]).is_some();
    let ops = a.operands(&["-e", "--expression", "-f", "--file", "-l", "--line-length", "-s"]);
    let files = if scripts.is_empty() && !from_file {
        if let Some((first, rest)) = ops.split_first() {
            scripts.push((*first).clone());
            rest.to_vec()
        } else {
            Vec::new()
        }
    } else {
        ops
    };
    if in_place {
        for f in files.iter().filter(|f| f.values().iter().any(|p| is_access_file(p))) {
            an.raise(DE, format!("`{base} -i` edits {}, which logins or access depend on", f.shown()));
        }
        for f in files.iter().filter(|f| f.values().iter().any(|p| is_irreplaceable(p))) {
            an.raise(DE, format!("`{base} -i` edits {}, which holds guest disks or cluster state", f.shown()));
        }
        let names: Vec<&str> = files.iter().map(|f| f.shown()).collect();
        an.raise(
            CM,
            format!(
                "`{base} -i` edits {} in place",
                if names.is_empty() { "files".to_string() } else { names.join(" ") }
            ),
        );
    }
    if from_file {
        an.raise(CM, format!("`{base} -f` runs a script from a file"));
    }
    for script in scripts {
        match script.as_static() {
            Some(s) => sed_script(an, base, s),
            None => an.raise(CM, format!("`{base}` runs a script built at run time")),
        }
    }
    for f in &files {
        if let Arg::Dynamic { text, .. } = f {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
    }
    if !in_place {
        ro(an, format!("`{base}` prints its result"));
    }
}

/// Looks through a sed script for commands that write files (`w`, `W`, `s///w`), run commands
/// (`e`, `s///e`) or read other files (`r`, `R`).
pub(super) fn sed_script(an: &mut Analysis<'_>, base: &str, script: &str) {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let skip_ws = |i: &mut usize| {
        while *i < chars.len() && (chars[*i] == ' ' || chars[*i] == '\t') {
            *i += 1;
        }
    };
    let rest_of_line = |i: &mut usize| -> String {
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' && chars[*i] != ';' {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>().trim().to_string()
    };
    while i < chars.len() {
        skip_ws(&mut i);
        // Addresses: numbers, $, /re/, \cREc, ranges, steps, negation.
        loop {
            skip_ws(&mut i);
            match chars.get(i) {
                Some(c) if c.is_ascii_digit() || *c == '$' || *c == ',' || *c == '~' || *c == '!' || *c == '+' => {
                    i += 1
                }
                Some('/') | Some('\\') => {
                    let delim = if chars[i] == '\\' {
                        i += 1;
                        chars.get(i).copied().unwrap_or('/')
                    } else {
                        '/'
                    };
                    i += 1;
                    while i < chars.len() && chars[i] != delim {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                    // Address flags I and M.
                    while matches!(chars.get(i), Some('I' | 'M')) {
                        i += 1;
                    }
                }
                _ => break,
            }
        }
        let Some(&cmd) = chars.get(i) else { break };
        i += 1;
        match cmd {
            's' | 'y' => {
                let Some(&delim) = chars.get(i) else { break };
                i += 1;
                for _ in 0..2 {
                    while i < chars.len() && chars[i] != delim {
                        if chars[i] == '\\' {
                            i += 1;
                        }
                        i += 1;
                    }
                    i += 1;
                }
                if cmd == 's' {
                    while let Some(&f) = chars.get(i) {
                        match f {
                            'w' => {
                                i += 1;
                                let target = rest_of_line(&mut i);
                                an.write_target(&Arg::Static(target), &format!("`{base}` s///w"));
                            }
                            'e' => {
                                an.raise(CM, format!("`{base}` s///e runs the result as a command"));
                                i += 1;
                            }
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                            d if d.is_ascii_digit() => i += 1,
                            _ => break,
                        }
                    }
                }
            }
            'w' | 'W' => {
                let target = rest_of_line(&mut i);
                an.write_target(&Arg::Static(target), &format!("`{base}` w"));
            }
            'e' => {
                let command = rest_of_line(&mut i);
                an.raise(CM, format!("`{base}` e runs a command"));
                an.script(&command);
            }
            'r' | 'R' => {
                let file = rest_of_line(&mut i);
                if an.is_secret(&file) {
                    an.raise_secret(DE, format!("`{base}` reads secret material `{file}`"));
                }
            }
            'a' | 'i' | 'c' | 'b' | 't' | 'T' | ':' | 'l' | 'L' | 'q' | 'Q' => {
                // Text or a label up to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    if matches!(cmd, 'b' | 't' | 'T' | 'l' | 'q' | 'Q') && chars[i] == ';' {
                        break;
                    }
                    i += 1;
                }
            }
            '{' | '}' | ';' | '\n' | ' ' | '\t' | '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P'
            | 'x' | 'z' | 'F' | '#' => {
                if cmd == '#' {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                }
            }
            other => {
                an.raise(CM, format!("`{base}` script has a command `{other}` that cannot be judged"));
                break;
            }
        }
    }
}

/// `awk`: its program is judged (pipes, `system()`, output redirection, files it reads).
pub(super) fn awk(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    for include in a.values(&["-i", "--include"]) {
        if include.shown() == "inplace" {
            an.raise(CM, format!("`{base} -i inplace` edits files"));
        } else {
            an.raise(CM, format!("`{base} -i` runs awk code from a file"));
        }
    }
    if a.value(&["-l", "--load"]).is_some() {
        an.raise(CM, format!("`{base} -l` loads an extension library, which is code"));
    }
    // gawk writes its variables, a profile or the pretty-printed program to a file (the one
    // attached, else awkvars.out or awkprof.out).
    for word in a.options() {
        let attached = match word.split_once('=') {
            Some((name, file))
                if ["--dump-variables", "--profile", "--pretty-print"].iter().any(|n| long_matches(name, n)) =>
            {
                Some(file)
            }
            None if ["--dump-variables", "--profile", "--pretty-print"].iter().any(|n| long_matches(word, n)) => {
                Some("")
            }
            _ if !word.starts_with("--") && word.len() > 1 && matches!(&word[1..2], "d" | "p" | "o") => {
                Some(&word[2..])
            }
            _ => None,
        };
        match attached {
            Some("") => an.raise(CM, format!("`{base} {word}` writes a file")),
            Some(file) => an.write_target(&Arg::Static(file.to_string()), &format!("`{base} {word}`")),
            None => {}
        }
    }
    // mawk and gawk `-W` options: a program file, and gawk's long options spelled so.
    for w in a.values(&["-W"]) {
        let w = w.shown();
        if w.starts_with('e') || ["dump", "profile", "pretty", "load", "include", "debug"].iter().any(|k| w.contains(k))
        {
            an.raise(CM, format!("`{base} -W {w}` loads code or writes a file"));
        }
    }
    let ops = a.operands(&[
        "-F",
        "-v",
        "-f",
        "--file",
        "-E",
        "--exec",
        "-i",
        "--include",
        "-l",
        "--load",
        "-W",
        "-e",
        "--source",
    ]);
    // The program: every `-e`/`--source` text (gawk joins them), else the first operand; a file
    // given with -f/-E cannot be seen.
    let mut programs: Vec<Arg> = a.values(&["-e", "--source"]);
    let from_file = a.value(&["-f", "--file", "-E", "--exec"]).is_some();
    if from_file {
        an.raise(CM, format!("`{base} -f` runs a program from a file"));
    }
    let files_from = if programs.is_empty() && !from_file {
        programs.extend(ops.first().map(|p| (*p).clone()));
        1
    } else {
        0
    };
    for program in &programs {
        match program.as_static() {
            Some(p) => awk_program(an, base, p),
            None => an.raise(CM, format!("`{base}` runs a program built at run time")),
        }
    }
    for f in ops.iter().skip(files_from) {
        if let Arg::Dynamic { text, .. } = f {
            an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)"));
        }
    }
    ro(an, format!("`{base}` prints its result"));
}

/// Judges an awk program: commands it runs, files it writes or reads, code it loads.
fn awk_program(an: &mut Analysis<'_>, base: &str, p: &str) {
    let code = strip_awk_strings(p);
    // gawk's `@load` loads a compiled extension; `@include` more awk code.
    if code.contains("@load") || code.contains("@include") {
        an.raise(CM, format!("`{base}` loads an extension or more code"));
    }
    if code.contains("system") || code.contains('|') {
        an.raise(CM, format!("`{base}` runs commands (system() or a pipe)"));
        for literal in quoted_literals(p) {
            an.script(&literal);
        }
    }
    if awk_redirects_output(&code) {
        an.raise(CM, format!("`{base}` writes to a file"));
    }
    // `getline < "/etc/shadow"` reads whatever file the program names.
    for literal in quoted_literals(p) {
        if an.is_secret(literal.trim()) {
            an.raise_secret(DE, format!("`{base}` reads secret material `{}`", literal.trim()));
        } else if is_block_device(literal.trim()) {
            an.raise(CM, format!("`{base}` reads the device `{}`", literal.trim()));
        }
    }
    if code.contains("getline") && code.contains('<') {
        an.raise(CM, format!("`{base}` reads a file its program names"));
    }
}

/// awk code with string literals blanked (a `|` or `>` inside a string is not an operator).
pub(super) fn strip_awk_strings(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in code.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
                out.push('"');
            }
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

/// `print … > "file"` (as opposed to a comparison): a `>` after print/printf in the same statement
/// and outside parentheses.
pub(super) fn awk_redirects_output(code: &str) -> bool {
    for statement in code.split([';', '\n', '{', '}']) {
        let Some(pos) = statement.find("print") else { continue };
        let mut depth = 0i32;
        for c in statement[pos..].chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                '>' if depth <= 0 => return true,
                _ => {}
            }
        }
    }
    false
}
