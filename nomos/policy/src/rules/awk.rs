//! `awk` (gawk, mawk, nawk, busybox): its options read as gawk and mawk read them, and its program
//! lexed with awk's own grammar (strings, regular expressions against division, comments, line
//! continuations) and allowed element by element: only the built-in functions that compute, and
//! functions the program defines; no `system`, no pipes, no `@` (gawk's directives and indirect
//! calls), no `ARGV`/`ARGC` (which change the files it reads); `getline < FILE` reads a file named
//! by a literal; `print > FILE` writes one. A program that does not lex is not read-only.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::args::long_matches;
use super::{check_secrets, ro, Args};
use crate::shell::{Analysis, Arg, Stdin};

/// Built-in functions that only compute (gawk's, which include POSIX awk's and mawk's).
#[rustfmt::skip]
const PURE_BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "gensub", "match", "sprintf", "sin", "cos", "atan2",
    "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "systime", "strftime", "mktime", "and",
    "or", "xor", "compl", "lshift", "rshift", "strtonum", "asort", "asorti", "patsplit", "isarray", "typeof",
    "close", "fflush",
];

/// Words of the language that are not names.
#[rustfmt::skip]
const KEYWORDS: &[&str] = &[
    "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do", "break",
    "continue", "next", "nextfile", "exit", "return", "delete", "in", "getline", "print", "printf",
];

/// Output files awk writes to the terminal's own streams.
const STANDARD_STREAMS: &[&str] = &["/dev/stdout", "/dev/stderr", "-", "/dev/fd/1", "/dev/fd/2"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Name(String),
    Str(String),
    Regex(String),
    Number,
    /// An operator or punctuation, as written.
    Op(String),
    /// A newline (which ends a statement unless it follows a comma, `{`, `&&`, `||`, `do`, `else`).
    Newline,
}

/// Splits awk program text into tokens; an error when a string or regular expression does not end
/// on its line.
fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        i += 1;
        match c {
            ' ' | '\t' | '\r' => {}
            '\\' if at(i) == Some('\n') => i += 1,
            '\\' if at(i) == Some('\r') && at(i + 1) == Some('\n') => i += 2,
            '\n' => tokens.push(Token::Newline),
            '#' => {
                while at(i).is_some_and(|c| c != '\n') {
                    i += 1;
                }
            }
            '"' => {
                let mut s = String::new();
                loop {
                    match at(i) {
                        None | Some('\n') => return Err("a string does not end on its line".into()),
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some('\\') => {
                            i += 1;
                            match at(i) {
                                Some('n') => s.push('\n'),
                                Some('t') => s.push('\t'),
                                Some('\n') => {}
                                Some(e) => s.push(e),
                                None => return Err("a string does not end".into()),
                            }
                            i += 1;
                        }
                        Some(ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                tokens.push(Token::Str(s));
            }
            '/' if regex_allowed(tokens.last()) => {
                let mut re = String::new();
                let mut in_bracket = false;
                loop {
                    match at(i) {
                        None | Some('\n') => return Err("a regular expression does not end on its line".into()),
                        Some('\\') => {
                            re.push('\\');
                            re.extend(at(i + 1));
                            i += 2;
                        }
                        Some('[') if !in_bracket => {
                            in_bracket = true;
                            re.push('[');
                            i += 1;
                            // A `]` first in the bracket is one of its characters.
                            if at(i) == Some('^') {
                                re.push('^');
                                i += 1;
                            }
                            if at(i) == Some(']') {
                                re.push(']');
                                i += 1;
                            }
                        }
                        Some(']') if in_bracket => {
                            in_bracket = false;
                            re.push(']');
                            i += 1;
                        }
                        Some('/') if !in_bracket => {
                            i += 1;
                            break;
                        }
                        Some(ch) => {
                            re.push(ch);
                            i += 1;
                        }
                    }
                }
                tokens.push(Token::Regex(re));
            }
            c if c.is_ascii_digit() || (c == '.' && at(i).is_some_and(|d| d.is_ascii_digit())) => {
                while at(i).is_some_and(|d| d.is_ascii_alphanumeric() || d == '.') {
                    i += 1;
                }
                tokens.push(Token::Number);
            }
            c if c.is_alphabetic() || c == '_' => {
                let mut name = String::from(c);
                while let Some(d) = at(i).filter(|d| d.is_alphanumeric() || *d == '_') {
                    name.push(d);
                    i += 1;
                }
                // gawk's namespaces: `ns::name`.
                if at(i) == Some(':') && at(i + 1) == Some(':') {
                    return Err("gawk namespaces are not judged".into());
                }
                tokens.push(Token::Name(name));
            }
            _ => {
                const TWO: &[&str] = &[
                    "|&", "||", "&&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=",
                    "^=", "**",
                ];
                let pair: String = [Some(c), at(i)].iter().flatten().collect();
                if TWO.contains(&pair.as_str()) {
                    i += 1;
                    tokens.push(Token::Op(pair));
                } else {
                    tokens.push(Token::Op(c.to_string()));
                }
            }
        }
    }
    Ok(tokens)
}

/// Whether a `/` after this token starts a regular expression (not a division): after an operand
/// (a name, number, string, `)`, `]`, `$`, or a `++`/`--` that follows one) it divides.
fn regex_allowed(last: Option<&Token>) -> bool {
    match last {
        None | Some(Token::Newline) => true,
        Some(Token::Name(n)) => KEYWORDS.contains(&n.as_str()) && n != "getline",
        Some(Token::Str(_) | Token::Regex(_) | Token::Number) => false,
        Some(Token::Op(op)) => !matches!(op.as_str(), ")" | "]" | "$" | "++" | "--"),
    }
}

/// What an awk program does beyond computing and printing to standard output.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Program {
    /// Why it is not read-only (a call, a pipe, a directive …).
    pub(crate) acts: Vec<String>,
    /// Literal files `print > "…"` writes.
    pub(crate) writes: Vec<String>,
    /// Literal files `getline < "…"` reads.
    pub(crate) reads: Vec<String>,
    /// String literals that may be commands (when it runs any).
    pub(crate) literals: Vec<String>,
    /// What it does with a command, file or function computed at run time, which may be any.
    pub(crate) computed: Vec<String>,
}

/// Whether a token beside a string joins it into a longer one (`"/etc/" $1`, `"a" x`, `"a" f()`).
fn continues(token: Option<&Token>) -> bool {
    matches!(token, Some(Token::Str(_) | Token::Name(_) | Token::Number))
        || matches!(token, Some(Token::Op(o)) if matches!(o.as_str(), "$" | "(" | "++" | "--" | "!"))
}

/// Judges an awk program element by element.
pub(crate) fn judge_program(text: &str) -> Program {
    let mut program = Program::default();
    let tokens = match lex(text) {
        Ok(t) => t,
        Err(why) => {
            program.acts.push(format!("the program does not lex as awk ({why})"));
            return program;
        }
    };
    let defined: Vec<&str> = tokens
        .windows(2)
        .filter_map(|w| match w {
            [Token::Name(k), Token::Name(f)] if k == "function" || k == "func" => Some(f.as_str()),
            _ => None,
        })
        .collect();
    // Inside a `print`/`printf` statement: its parenthesis depth.
    let mut printing: Option<i32> = None;
    let mut depth = 0i32;
    for (k, token) in tokens.iter().enumerate() {
        let next = tokens.get(k + 1);
        let previous = k.checked_sub(1).and_then(|p| tokens.get(p));
        match token {
            Token::Str(s) => program.literals.push(s.clone()),
            Token::Regex(re) if printing == Some(depth) && re.contains('>') => {
                program.acts.push("a `>` that may be an output redirection".into())
            }
            Token::Name(n) => match n.as_str() {
                "print" | "printf" => printing = Some(depth),
                "system" => {
                    program.acts.push("it runs commands with system()".into());
                    let literal = matches!(next, Some(Token::Op(o)) if o == "(")
                        && matches!(tokens.get(k + 2), Some(Token::Str(_)))
                        && matches!(tokens.get(k + 3), Some(Token::Op(o)) if o == ")");
                    if !literal {
                        program.computed.push("it runs a command computed at run time with system()".into());
                    }
                }
                "ARGV" | "ARGC" => program.acts.push(format!("it changes or reads {n}, the files it reads")),
                "getline" => {
                    // `getline [var] < FILE`
                    let mut j = k + 1;
                    if matches!(tokens.get(j), Some(Token::Name(v)) if !KEYWORDS.contains(&v.as_str())) {
                        j += 1;
                        if matches!(tokens.get(j), Some(Token::Op(o)) if o == "[") {
                            program.acts.push("`getline` into an array element".into());
                        }
                    }
                    if matches!(tokens.get(j), Some(Token::Op(o)) if o == "<") {
                        match tokens.get(j + 1) {
                            Some(Token::Str(file))
                                if !matches!(tokens.get(j + 2), Some(Token::Str(_) | Token::Name(_))) =>
                            {
                                program.reads.push(file.clone())
                            }
                            _ => program.acts.push("`getline <` reads a file named at run time".into()),
                        }
                    }
                }
                name if matches!(next, Some(Token::Op(o)) if o == "(") => {
                    let builtin = PURE_BUILTINS.contains(&name);
                    let own = defined.contains(&name);
                    let keyword = KEYWORDS.contains(&name);
                    let defining = matches!(previous, Some(Token::Name(f)) if f == "function" || f == "func");
                    if !(builtin || own || keyword || defining) {
                        program.acts.push(format!("it calls `{name}`, which is not a function known to be inert"));
                    }
                }
                _ => {}
            },
            Token::Op(op) => match op.as_str() {
                "@" => {
                    program.acts.push("it uses a gawk directive or an indirect call (`@`)".into());
                    // An indirect call names its function at run time: `@f()` may be system().
                    let call = matches!(next, Some(Token::Name(_)))
                        && matches!(tokens.get(k + 2), Some(Token::Op(o)) if o == "(");
                    if call {
                        program.computed.push("it calls a function named at run time (`@name()`)".into());
                    }
                }
                "|" | "|&" => {
                    program.acts.push("it runs commands through a pipe".into());
                    // `"cmd" | getline` names its command before the pipe, `print | "cmd"` after it.
                    let command = if matches!(next, Some(Token::Name(n)) if n == "getline") { previous } else { next };
                    let getline = matches!(next, Some(Token::Name(n)) if n == "getline");
                    let beside = if getline { k.checked_sub(2).and_then(|p| tokens.get(p)) } else { tokens.get(k + 2) };
                    // Before a string only another operand joins it (`x "cmd" | getline`).
                    let joined = if getline {
                        matches!(beside, Some(Token::Str(_) | Token::Name(_) | Token::Number))
                    } else {
                        continues(beside)
                    };
                    let literal = matches!(command, Some(Token::Str(_))) && !joined;
                    if !literal {
                        program.computed.push("it runs a command computed at run time through a pipe".into());
                    }
                    // Printing into a shell runs what it prints, which comes from its input.
                    let shell = matches!(command, Some(Token::Str(c)) if {
                        let first = c.split_whitespace().next().unwrap_or("");
                        let name = first.rsplit('/').next().unwrap_or(first);
                        matches!(name, "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "busybox" | "fish")
                    });
                    if shell && !getline {
                        program.computed.push("it prints into a shell, which runs what it prints as commands".into());
                    }
                }
                "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                ";" | "}" | "{" => printing = None,
                ">" | ">>" if printing == Some(depth) => match next {
                    Some(Token::Str(file)) if !continues(tokens.get(k + 2)) => {
                        if !STANDARD_STREAMS.contains(&file.as_str()) {
                            program.writes.push(file.clone());
                        }
                    }
                    _ => {
                        program.acts.push("it writes to a file named at run time".into());
                        program.computed.push("it writes to a file named at run time, which may be any file".into());
                    }
                },
                _ => {}
            },
            Token::Newline => {
                let continued = matches!(previous, Some(Token::Op(o)) if matches!(o.as_str(), "," | "&&" | "||" | "{"))
                    || matches!(previous, Some(Token::Name(n)) if n == "do" || n == "else");
                if !continued && depth <= printing.unwrap_or(0) {
                    printing = None;
                }
            }
            Token::Regex(_) | Token::Number => {}
        }
    }
    program
}

/// gawk's long options (mawk's `-W` words among them), whether each takes a value.
const LONG: &[(&str, Valued)] = &[
    ("--field-separator", Valued::Yes),
    ("--assign", Valued::Yes),
    ("--file", Valued::Yes),
    ("--source", Valued::Yes),
    ("--exec", Valued::Yes),
    ("--include", Valued::Yes),
    ("--load", Valued::Yes),
    ("--dump-variables", Valued::Attached),
    ("--profile", Valued::Attached),
    ("--pretty-print", Valued::Attached),
    ("--debug", Valued::Attached),
    ("--lint", Valued::Attached),
    ("--characters-as-bytes", Valued::No),
    ("--traditional", Valued::No),
    ("--copyright", Valued::No),
    ("--gen-pot", Valued::No),
    ("--help", Valued::No),
    ("--usage", Valued::No),
    ("--csv", Valued::No),
    ("--bignum", Valued::No),
    ("--use-lc-numeric", Valued::No),
    ("--non-decimal-data", Valued::No),
    ("--optimize", Valued::No),
    ("--no-optimize", Valued::No),
    ("--posix", Valued::No),
    ("--re-interval", Valued::No),
    ("--sandbox", Valued::No),
    ("--lint-old", Valued::No),
    ("--version", Valued::No),
    ("--posix_space", Valued::No),
    ("--interactive", Valued::No),
    ("--random", Valued::Attached),
    ("--sprintf", Valued::Attached),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Valued {
    No,
    Yes,
    /// Only as `--name=value`.
    Attached,
}

/// Short options: the long option each stands for.
const SHORT: &[(char, &str)] = &[
    ('F', "--field-separator"),
    ('v', "--assign"),
    ('f', "--file"),
    ('e', "--source"),
    ('E', "--exec"),
    ('i', "--include"),
    ('l', "--load"),
    ('d', "--dump-variables"),
    ('p', "--profile"),
    ('o', "--pretty-print"),
    ('D', "--debug"),
    ('L', "--lint"),
    ('b', "--characters-as-bytes"),
    ('c', "--traditional"),
    ('C', "--copyright"),
    ('g', "--gen-pot"),
    ('h', "--help"),
    ('k', "--csv"),
    ('M', "--bignum"),
    ('N', "--use-lc-numeric"),
    ('n', "--non-decimal-data"),
    ('O', "--optimize"),
    ('s', "--no-optimize"),
    ('P', "--posix"),
    ('r', "--re-interval"),
    ('S', "--sandbox"),
    ('t', "--lint-old"),
    ('V', "--version"),
];

/// The arguments as awk reads them: options (and their values) in order, then operands.
struct Invocation {
    /// Each option as its long name, with its value.
    options: Vec<(String, Option<Arg>)>,
    unknown: Vec<String>,
    operands: Vec<Arg>,
}

fn read_invocation(args: &[Arg]) -> Invocation {
    let mut inv = Invocation { options: Vec::new(), unknown: Vec::new(), operands: Vec::new() };
    let mut i = 0;
    // Options end at the first operand (gawk and mawk stop there).
    while let Some(arg) = args.get(i) {
        let word = match arg.as_static() {
            Some(w) if w.starts_with('-') && w.len() > 1 => w,
            _ => break,
        };
        i += 1;
        if word == "--" {
            break;
        }
        let long = |name: &str, inline: Option<&str>, i: &mut usize, inv: &mut Invocation| {
            let found: Vec<&(&str, Valued)> = LONG.iter().filter(|(n, _)| long_matches(name, n)).collect();
            match found.as_slice() {
                [(full, valued)] => {
                    let value = match (valued, inline) {
                        (_, Some(v)) => Some(Arg::Static(v.to_string())),
                        (Valued::Yes, None) => {
                            *i += 1;
                            args.get(*i - 1).cloned()
                        }
                        _ => None,
                    };
                    inv.options.push((full.to_string(), value));
                }
                _ => inv.unknown.push(name.to_string()),
            }
        };
        if let Some(body) = word.strip_prefix("--") {
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (format!("--{n}"), Some(v)),
                None => (word.to_string(), None),
            };
            long(&name, inline, &mut i, &mut inv);
            continue;
        }
        for (k, c) in word.char_indices().skip(1) {
            let rest = word.get(k + c.len_utf8()..).unwrap_or("");
            if c == 'W' {
                // `-W name[=value]` (mawk's options and gawk's long options spelled so).
                let spec = if rest.is_empty() {
                    i += 1;
                    args.get(i - 1).and_then(Arg::as_static).map(str::to_string)
                } else {
                    Some(rest.to_string())
                };
                match spec {
                    Some(spec) => {
                        let (name, inline) = match spec.split_once('=') {
                            Some((n, v)) => (n.to_string(), Some(v.to_string())),
                            None => (spec, None),
                        };
                        let name = format!("--{}", name.replace('_', "-").trim_start_matches('-'));
                        // mawk's `-W dump` prints the program's code and exits.
                        if name == "--dump" {
                            inv.options.push((name, None));
                        } else {
                            long(&name, inline.as_deref(), &mut i, &mut inv);
                        }
                    }
                    None => inv.unknown.push("-W".into()),
                }
                break;
            }
            let Some((_, name)) = SHORT.iter().find(|(s, _)| *s == c) else {
                inv.unknown.push(format!("-{c}"));
                continue;
            };
            let valued = LONG.iter().find(|(n, _)| n == name).map_or(Valued::No, |(_, v)| *v);
            match valued {
                Valued::No => inv.options.push((name.to_string(), None)),
                Valued::Attached => {
                    inv.options
                        .push((name.to_string(), Some(rest).filter(|r| !r.is_empty()).map(|r| Arg::Static(r.into()))));
                    break;
                }
                Valued::Yes => {
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        Some(Arg::Static(rest.to_string()))
                    };
                    inv.options.push((name.to_string(), value));
                    break;
                }
            }
        }
    }
    inv.operands = args.get(i..).unwrap_or(&[]).to_vec();
    inv
}

/// `awk`: its options, its program and the files it reads.
pub(super) fn awk(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // Exactly a version or help query, with nothing flowing in: it prints and exits, running nothing.
    let words: Vec<Option<&str>> = a.all.iter().map(Arg::as_static).collect();
    let query = matches!(
        words.as_slice(),
        [Some("--version" | "--help" | "-Wversion" | "-Wv")] | [Some("-W"), Some("version" | "v")]
    );
    if query && stdin.texts.is_empty() && !stdin.unknown {
        return ro(an, format!("`{base}` only prints its version or help"));
    }
    let inv = read_invocation(a.all);
    for word in &inv.unknown {
        an.raise(CM, format!("`{base} {word}` is not an option known to be read-only"));
    }
    let sandbox = inv.options.iter().any(|(n, _)| n == "--sandbox");
    let mut programs: Vec<String> = Vec::new();
    let mut from_option = false;
    let mut inplace = false;
    for (name, value) in &inv.options {
        let shown = value.as_ref().map_or("", Arg::shown);
        match name.as_str() {
            "--source" => {
                from_option = true;
                match value.as_ref().and_then(Arg::as_static) {
                    Some(p) => programs.push(p.to_string()),
                    None => an.raise(CM, format!("`{base}` runs a program built at run time (`{shown}`)")),
                }
            }
            "--file" | "--exec" => {
                from_option = true;
                match shown {
                    "-" | "/dev/stdin" if !stdin.unknown && !stdin.texts.is_empty() => {
                        programs.extend(stdin.texts.iter().cloned())
                    }
                    _ => an.raise(CM, format!("`{base} {name}` runs a program from a file it reads ({shown})")),
                }
            }
            "--include" if shown == "inplace" => {
                an.raise(CM, format!("`{base} -i inplace` edits files"));
                inplace = true;
            }
            "--include" | "--load" => an.raise(CM, format!("`{base} {name}` loads code ({shown})")),
            "--debug" => an.raise(CM, format!("`{base} {name}` runs debugger commands it reads")),
            "--dump-variables" | "--profile" | "--pretty-print" => match value.as_ref() {
                Some(Arg::Static(f)) if f == "-" || f == "/dev/stdout" || f == "/dev/stderr" => {}
                Some(f) => an.write_target(f, &format!("`{base} {name}`")),
                None => an.raise(CM, format!("`{base} {name}` writes a file in the working directory")),
            },
            "--assign" if !value.as_ref().is_some_and(|v| v.as_static().is_some_and(|s| s.contains('='))) => {
                an.raise(CM, format!("`{base} -v` assigns something that cannot be read ({shown})"));
            }
            _ => {}
        }
    }
    let mut operands = inv.operands.iter();
    if !from_option {
        match operands.next() {
            Some(Arg::Static(p)) => programs.push(p.clone()),
            Some(p) => {
                an.raise(CM, format!("`{base}` runs a program built at run time (`{}`)", p.shown()));
                // Not knowing the program, it may call system() with anything.
                if !sandbox {
                    an.raise(DE, format!("`{base}` program `{}` is not known, so it may run any command", p.shown()));
                }
            }
            None => an.raise(CM, format!("`{base}` without a program")),
        }
    }
    // gawk joins several `--source` texts into one program.
    let text = programs.join("\n");
    if !text.is_empty() {
        let judged = judge_program(&text);
        let acts = !judged.acts.is_empty() || !judged.writes.is_empty();
        if sandbox && acts {
            an.raise(CM, format!("`{base} --sandbox` stops this program at what it may not do"));
        } else {
            for why in &judged.acts {
                an.raise(CM, format!("`{base}`: {why}"));
            }
            for why in &judged.computed {
                an.raise(DE, format!("`{base}`: {why}"));
            }
            for file in &judged.writes {
                an.write_target(&Arg::Static(file.clone()), &format!("`{base}` print >"));
            }
            // Commands it may run are judged by what they say.
            if judged.acts.iter().any(|w| w.contains("system") || w.contains("pipe")) {
                for literal in &judged.literals {
                    an.script(literal);
                }
                // Strings written side by side are one string in awk (`"re" "boot"`).
                if (2..=8).contains(&judged.literals.len()) {
                    an.script(&judged.literals.concat());
                }
                // Printing into a database client runs what it prints as SQL (`print "DROP …" | "mysql"`).
                let client = judged.literals.iter().find_map(|l| {
                    let first = l.split_whitespace().next().unwrap_or("");
                    let name = first.rsplit('/').next().unwrap_or(first);
                    match name {
                        "mysql" | "mariadb" => Some((name, "-e")),
                        "psql" => Some((name, "-c")),
                        _ => None,
                    }
                });
                if let Some((name, flag)) = client {
                    for sql in judged.literals.iter().filter(|l| !l.trim_start().starts_with(name)) {
                        let argv = [name, flag, sql.as_str()].map(|w| Arg::Static(w.to_string()));
                        an.run(&argv, &Stdin::default());
                    }
                }
                // So is a value given from outside the program (`-v c='rm -rf /'`, `c=… FILE`).
                let assigned = inv.options.iter().filter(|(n, _)| n == "--assign").filter_map(|(_, v)| v.as_ref());
                for value in assigned.chain(inv.operands.iter()).filter_map(Arg::as_static) {
                    if let Some((_, v)) = value.split_once('=').filter(|(n, _)| super::is_identifier(n)) {
                        an.script(v);
                    }
                }
            }
        }
        if !sandbox {
            for file in &judged.reads {
                check_secrets(an, base, &[Arg::Static(file.clone())]);
            }
        }
    }
    for f in operands {
        match f {
            // `NAME=value` operands are assignments, not files.
            Arg::Static(w) if w.split_once('=').is_some_and(|(n, _)| super::is_identifier(n)) => {}
            // In place, each file is rewritten with the program's output.
            Arg::Static(_) if inplace => an.write_target(f, &format!("`{base} -i inplace`")),
            Arg::Static(w) => {
                super::unproven_read(an, base, w);
            }
            Arg::Dynamic { text, .. } => an.raise(CM, format!("`{base}` reads a file named at run time (`{text}`)")),
        }
    }
    ro(an, format!("`{base}` prints its result"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acts(p: &str) -> usize {
        let j = judge_program(p);
        j.acts.len() + j.writes.len()
    }

    #[test]
    fn programs_that_only_compute_and_print() {
        for p in [
            "{print $1}",
            "NR>1 {print $1, $3}",
            "$3 > 100 {print}",
            "{s += $2} END {print s / NR}",
            "/error|fail/ {n++} END {print n+0}",
            "{printf \"%-20s %s\\n\", $1, $2}",
            "BEGIN{FS=\":\"} {print $1}",
            "function f(x) {return x*2} {print f($1)}",
            "{print (a > b)}",
            "{print > \"/dev/stderr\"}",
            "length($0) > 72",
            "{ x = $1 / 2; print x }",
            "{print $1}\n{print $2}",
        ] {
            assert_eq!(acts(p), 0, "{p}: {:?}", judge_program(p));
        }
    }

    #[test]
    fn commands_files_directives_and_argv_are_found() {
        for p in [
            "BEGIN{system(\"reboot\")}",
            "BEGIN{system (\"reboot\")}",
            "{print | \"sh\"}",
            "BEGIN{\"date\" | getline d}",
            "BEGIN{print \"x\" |& \"sh\"}",
            "{print > \"/etc/passwd\"}",
            "{printf \"%s\", $0 >> \"/etc/cron.d/x\"}",
            "{print $0 > f}",
            "BEGIN{f = \"system\"; @f(\"reboot\")}",
            "@load \"filefuncs\"",
            "BEGIN{ARGV[1] = \"/etc/shadow\"; ARGC = 2}",
            "BEGIN{while ((getline l < f) > 0) print l}",
            "BEGIN{x = mystery(1)}",
            "{print \"unterminated}",
            "{ a = 1 / 2; system(\"x\") / 1 }",
        ] {
            assert!(acts(p) > 0, "{p}");
        }
        assert_eq!(judge_program("BEGIN{getline l < \"/etc/shadow\"}").reads, ["/etc/shadow"]);
    }
}
