//! Parses shell text with the tree-sitter bash grammar and walks every simple command in it: in
//! lists, pipelines, subshells, groups, loops, conditionals, functions, `$(…)`, backticks, process
//! substitutions, here-documents and here-strings. Each command's words are evaluated statically
//! where possible (quotes, escapes, `$'…'`, concatenation, brace lists, variables assigned a literal
//! earlier, `$(echo …)`) and handed to the program rules. Findings only ever raise the verdict.

mod arith;
mod checks;
mod expand;
mod sinks;
mod values;
mod walk;
mod words;

use std::collections::HashMap;

use nomos_types::Risk;
use tree_sitter::Parser;

use super::finding::Finding;
use super::rules;
use super::Policy;

pub(crate) use expand::FIELD;
pub(crate) use walk::base64_decode as base64_text;
pub(crate) use words::{as_glob, dangerous_variable};

/// Deeper syntax trees than this are adversarial; they are judged destructive without looking.
const MAX_TREE_DEPTH: usize = 200;
/// Scripts inside scripts (`bash -c "bash -c '…'"`) beyond this are judged destructive.
const MAX_SCRIPT_NESTING: u32 = 12;
/// Wrappers inside wrappers (`sudo env nice timeout …`) beyond this are judged destructive.
const MAX_WRAPPER_NESTING: u32 = 32;
/// Scripts parsed for one classification (nested shells, probes, re-split lines) beyond this are
/// adversarial; the command is judged destructive rather than analysed without end.
const MAX_SCRIPTS_TOTAL: u32 = 256;
/// Other readings of ambiguous command lines (an option whose arity is not known) judged in one
/// classification beyond this are adversarial; the command is judged destructive.
const MAX_READINGS_TOTAL: u32 = 1024;
/// Other readings within other readings (a wrapper with an unknown option inside another).
const MAX_READING_DEPTH: u32 = 2;
/// How many static values a word may expand to before it is treated as unknowable.
const MAX_CANDIDATES: usize = 16;
/// Wall-clock time for judging one command. Everyday commands take well under a millisecond;
/// only adversarial text (megabytes of garbage, thousands of nested wrappers) comes near it.
const ANALYSIS_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);
/// Command substitutions folded into a word's value, one inside another (`$(echo $(hostname))`).
const MAX_FOLDING: u32 = 3;

/// One word of a command as far as it can be known before running it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    Static(String),
    /// Computed at run time. `candidates` are literal values it is known it can take (a variable
    /// assigned a literal, `$(echo rm)`); they raise the verdict. Only when they are `complete` —
    /// every value it can take (a variable assigned literals unconditionally before this use, a
    /// loop's variable, a command printing only numbers) — is the word judged by them alone.
    Dynamic {
        text: String,
        candidates: Vec<String>,
        complete: bool,
    },
}

impl Arg {
    /// A word computed at run time whose values are not all known.
    pub(crate) fn unknown(text: impl Into<String>, candidates: Vec<String>) -> Arg {
        Arg::Dynamic { text: text.into(), candidates, complete: false }
    }
}

impl Arg {
    pub(crate) fn as_static(&self) -> Option<&str> {
        match self {
            Arg::Static(s) => Some(s),
            Arg::Dynamic { .. } => None,
        }
    }

    /// Every literal value this word is known to possibly take.
    pub(crate) fn values(&self) -> Vec<&str> {
        match self {
            Arg::Static(s) => vec![s.as_str()],
            Arg::Dynamic { candidates, .. } => candidates.iter().map(String::as_str).collect(),
        }
    }

    /// Whether every value the word can take is known (a literal word, or complete candidates).
    pub(crate) fn is_complete(&self) -> bool {
        match self {
            Arg::Static(_) => true,
            Arg::Dynamic { complete, .. } => *complete,
        }
    }

    /// How the word reads in a reason.
    pub(crate) fn shown(&self) -> &str {
        match self {
            Arg::Static(s) => s,
            Arg::Dynamic { text, .. } => text,
        }
    }
}

/// What feeds a command's standard input.
#[derive(Debug, Clone, Default)]
pub(crate) struct Stdin {
    /// Text known to flow in (here-documents, here-strings, `echo` upstream in a pipe).
    pub texts: Vec<String>,
    /// Something flows in that cannot be seen (a pipe from a program, a file).
    pub unknown: bool,
}

pub(crate) struct Analysis<'p> {
    pub(crate) policy: &'p Policy,
    findings: Vec<Finding>,
    /// Some text did not parse as shell (a nested script's included).
    unparsed: bool,
    /// Literal values assigned to shell variables anywhere in the text (all of them: a branch may
    /// assign either).
    vars: HashMap<String, Vec<String>>,
    /// Literal arrays assigned anywhere in the text, element by element (each assignment one).
    arrays: HashMap<String, Vec<Vec<String>>>,
    /// Assignments a variable's value is known by when it is used later in the same script:
    /// (script, where it is good from, where it stops being good); with how many assignments of
    /// it are such (`assignments` counts all of them).
    settled: HashMap<String, (u32, usize, usize)>,
    good_assignments: HashMap<String, usize>,
    assignments: HashMap<String, usize>,
    /// Loop variables over patterns: their values are the names a pattern matches, known as the
    /// pattern for paths, but text no one has seen where bash evaluates it.
    patterned: std::collections::HashSet<String>,
    /// The script being walked (each parsed text has its own; byte offsets are within it).
    script_id: u32,
    /// Names given another program to run (`hash -p /bin/rm cat`, `BASH_CMDS[cat]=/bin/rm`).
    hashed: HashMap<String, Vec<String>>,
    scripts: u32,
    /// Scripts parsed so far in this classification.
    parsed: u32,
    wrappers: u32,
    /// Other readings of ambiguous command lines judged so far.
    readings: u32,
    /// How many other readings are being judged inside one another.
    reading_depth: u32,
    /// Set inside a probe: a probe does not probe again (an unparseable text would re-probe itself).
    probing: bool,
    /// Where relative paths are judged.
    cwd: Cwd,
    /// Once `CDPATH` is set, no `cd` target is known.
    cdpath: bool,
    /// Functions that run their arguments as a command (`f() { "$@"; }`).
    runners: Vec<String>,
    /// Which variables' values are known, and the places that evaluate them.
    values: sinks::Values,
    /// A firewall rule earlier in the text lets SSH in (`ufw allow OpenSSH && ufw enable`).
    ssh_allowed: bool,
    /// How many command substitutions deep a word's value is being folded: each level reads its
    /// inner words several ways, so the depth is bounded (beyond it a value is unknown).
    folding: std::cell::Cell<u32>,
    /// When the analysis gives up: the shell grammar's error recovery is quadratic on some
    /// malformed text, and a gate that hangs fails closed only after the operator gave up on it.
    deadline: std::time::Instant,
    /// The deadline passed (reported once).
    overdue: bool,
    /// Every program invocation judged, when asked for ([`Analysis::recording`]): what a chat reply
    /// or a typed confirmation may name as the command's actions.
    invocations: Option<Vec<Invocation>>,
}

/// One program run by a command, as the analysis saw it: its name, its words known before it runs
/// (options and operands, in order), and the highest level found while judging it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    pub(crate) program: String,
    pub(crate) words: Vec<String>,
    pub(crate) risk: Risk,
    /// The invocations judged while judging this one (what a wrapper or a shell runs), by index.
    pub(crate) inner: std::ops::Range<usize>,
}

impl<'p> Analysis<'p> {
    pub(crate) fn new(policy: &'p Policy) -> Self {
        Analysis {
            policy,
            findings: Vec::new(),
            unparsed: false,
            vars: HashMap::new(),
            arrays: HashMap::new(),
            settled: HashMap::new(),
            good_assignments: HashMap::new(),
            assignments: HashMap::new(),
            patterned: std::collections::HashSet::new(),
            script_id: 0,
            hashed: HashMap::new(),
            scripts: 0,
            parsed: 0,
            wrappers: 0,
            readings: 0,
            reading_depth: 0,
            probing: false,
            cwd: Cwd::Start,
            cdpath: false,
            runners: Vec::new(),
            values: sinks::Values::default(),
            ssh_allowed: false,
            folding: std::cell::Cell::new(0),
            deadline: std::time::Instant::now() + ANALYSIS_BUDGET,
            overdue: false,
            invocations: None,
        }
    }

    /// Keeps every program invocation judged from now on (see [`Analysis::invocations`]).
    pub(crate) fn recording(mut self) -> Self {
        self.invocations = Some(Vec::new());
        self
    }

    /// How many invocations are recorded so far.
    pub(crate) fn invocations_so_far(&self) -> usize {
        self.invocations.as_ref().map_or(0, Vec::len)
    }

    /// Notes that `program` ran with `args`, judged since `mark`, the invocations from `first` on
    /// being judged within it (when recording).
    pub(crate) fn note_invocation(&mut self, program: &str, args: &[Arg], mark: usize, first: usize) {
        let risk = self.max_since(mark).unwrap_or(Risk::ConfigMutation);
        if let Some(list) = self.invocations.as_mut() {
            // The words before the first one computed at run time: enough to say what it does.
            let words = args.iter().map_while(Arg::as_static).take(8).map(str::to_string).collect();
            let inner = first..list.len();
            list.push(Invocation { program: program.to_string(), words, risk, inner });
        }
    }

    /// The invocations recorded, in the order they were judged.
    pub(crate) fn invocations(&self) -> &[Invocation] {
        self.invocations.as_deref().unwrap_or(&[])
    }

    /// Whether the time for the analysis is up; the first time, the verdict becomes destructive.
    pub(crate) fn out_of_time(&mut self) -> bool {
        if self.overdue {
            return true;
        }
        if std::time::Instant::now() < self.deadline {
            return false;
        }
        self.overdue = true;
        self.raise(Risk::Destructive, "the command is too large or convoluted to judge in time");
        true
    }

    /// A probe of some text inside this one shares its deadline.
    pub(crate) fn share_deadline(&mut self, outer: &Analysis<'_>) {
        self.deadline = outer.deadline;
    }

    /// Whether a rule earlier in the text lets SSH in.
    pub(crate) fn ssh_allowed(&self) -> bool {
        self.ssh_allowed
    }

    /// A rule letting SSH in, for what turns the firewall on later.
    pub(crate) fn note_ssh_allowed(&mut self) {
        self.ssh_allowed = true;
    }

    pub(crate) fn raise(&mut self, risk: Risk, reason: impl Into<String>) {
        self.findings.push(Finding { risk, reason: reason.into(), touches_secrets: false });
    }

    /// A finding about secret material: reading, copying, printing or overwriting it. The
    /// command's output is withheld whatever its verdict.
    pub(crate) fn raise_secret(&mut self, risk: Risk, reason: impl Into<String>) {
        self.findings.push(Finding { risk, reason: reason.into(), touches_secrets: true });
    }

    /// Text that bash would not run as written: at least `config_mutation`, and remembered.
    pub(crate) fn raise_unparsed(&mut self, reason: &str) {
        self.unparsed = true;
        self.raise(Risk::ConfigMutation, reason);
    }

    /// Where a path may point: itself if absolute, else relative to the known working directory,
    /// or — at the start, where a remote shell usually sits in a home directory — to a home
    /// directory and to `/`.
    pub(crate) fn resolve(&self, path: &str) -> Vec<String> {
        let path = path.trim();
        if path.starts_with('/') || path.starts_with('~') || path.starts_with('$') || path.is_empty() {
            return vec![path.to_string()];
        }
        match &self.cwd {
            Cwd::Known(dir) => vec![format!("{dir}/{path}")],
            Cwd::Start | Cwd::Unknown => vec![path.to_string(), format!("~/{path}"), format!("/{path}")],
        }
    }

    /// Whether `path` names secret material, relative paths included.
    pub(crate) fn is_secret(&self, path: &str) -> bool {
        self.resolve(path).iter().any(|p| crate::secrets::is_secret(p))
    }

    /// Whether `path` is named like a credential (`secret.txt`, `.env`, `id_ed25519` …), relative
    /// paths included.
    pub(crate) fn is_credential(&self, path: &str) -> bool {
        !path.trim().is_empty() && self.resolve(path).iter().any(|p| crate::secrets::is_credential_name(p))
    }

    /// Whether `path` may name secret material because where it points is not known: a relative
    /// name after `cd "$dir"` (or `~+/name`) could sit in any directory that holds secrets.
    pub(crate) fn may_be_secret(&self, path: &str) -> bool {
        let path = path.trim();
        let relative = match path.strip_prefix("~+/").or_else(|| path.strip_prefix("~-/")) {
            Some(r) => r,
            None if self.cwd == Cwd::Unknown && !path.starts_with(['/', '~', '$', '-']) && !path.is_empty() => path,
            None => return false,
        };
        crate::secrets::SECRET_DIRS.iter().any(|d| crate::secrets::is_secret(&format!("{d}/{relative}")))
    }

    /// Judges what `f` checks as if in `dir` (`env -C DIR`, `tar -C DIR`, `git -C DIR`), then
    /// returns to where the script was.
    pub(crate) fn in_dir(&mut self, dir: Option<&Arg>, f: impl FnOnce(&mut Self)) {
        let saved = self.cwd.clone();
        if let Some(d) = dir {
            self.change_dir(Some(d));
        }
        f(self);
        self.cwd = saved;
    }

    /// Follows a literal `cd`, so later relative paths are judged where they point.
    pub(crate) fn change_dir(&mut self, target: Option<&Arg>) {
        self.cwd = match target {
            _ if self.cdpath => Cwd::Unknown,
            None => Cwd::Known("~".into()),
            Some(Arg::Static(d)) if d == "-" => Cwd::Unknown,
            Some(Arg::Static(d)) if d.starts_with('/') || d.starts_with('~') => Cwd::Known(d.clone()),
            Some(Arg::Static(d)) => match &self.cwd {
                Cwd::Known(c) => Cwd::Known(format!("{c}/{d}")),
                _ => Cwd::Unknown,
            },
            Some(Arg::Dynamic { .. }) => Cwd::Unknown,
        };
    }

    /// Judges another reading of an ambiguous command line with `f`, unless readings are already
    /// nested as deep as they go, or there have been too many (then the command is destructive).
    pub(crate) fn another_reading(&mut self, f: impl FnOnce(&mut Self)) {
        if self.reading_depth >= MAX_READING_DEPTH {
            return;
        }
        self.readings += 1;
        if self.readings > MAX_READINGS_TOTAL {
            if self.readings == MAX_READINGS_TOTAL + 1 {
                self.raise(Risk::Destructive, "too many ambiguous command lines to analyse");
            }
            return;
        }
        self.reading_depth += 1;
        f(self);
        self.reading_depth -= 1;
    }

    pub(crate) fn max_risk(&self) -> Option<Risk> {
        self.findings.iter().map(|f| f.risk).max()
    }

    /// Where the findings stand now, for [`Analysis::max_since`].
    pub(crate) fn mark(&self) -> usize {
        self.findings.len()
    }

    /// The highest level found since `mark` (`None`: nothing was found since).
    pub(crate) fn max_since(&self, mark: usize) -> Option<Risk> {
        self.findings.get(mark..).and_then(|f| f.iter().map(|f| f.risk).max())
    }

    /// Whether some text did not parse as shell.
    #[cfg(test)]
    pub(crate) fn unparsed(&self) -> bool {
        self.unparsed
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    /// Parses and walks a script (a command line, a `bash -c` argument, a here-document fed to a
    /// shell).
    pub(crate) fn script(&mut self, text: &str) {
        self.script_fed(text, &Stdin::default());
    }

    /// Parses and walks a script whose commands read `stdin` (a remote shell's command given a
    /// here-string: `ssh host 'bash -s' <<< TEXT` runs TEXT).
    pub(crate) fn script_fed(&mut self, text: &str, stdin: &Stdin) {
        if self.scripts >= MAX_SCRIPT_NESTING {
            self.raise(Risk::Destructive, "scripts nested too deeply to analyse");
            return;
        }
        if text.trim().is_empty() {
            return;
        }
        // Bash removes a backslash-newline before it reads words (`cat /etc/sha\<newline>dow`),
        // which the grammar would split there — but not in a comment, in single quotes or after an
        // escaped backslash, where the newline still ends the command. Both readings are judged.
        if text.contains("\\\n") {
            let joined = text.replace("\\\n", "");
            let (cwd, cdpath) = (self.cwd.clone(), self.cdpath);
            self.parse_and_walk(&joined, stdin);
            // The other reading starts where this one did.
            (self.cwd, self.cdpath) = (cwd, cdpath);
        }
        self.parse_and_walk(text, stdin);
    }

    /// Parses one reading of a script and walks it.
    fn parse_and_walk(&mut self, text: &str, stdin: &Stdin) {
        self.parsed += 1;
        if self.parsed > MAX_SCRIPTS_TOTAL {
            self.raise(Risk::Destructive, "too many nested scripts to analyse");
            return;
        }
        let mut parser = Parser::new();
        if parser.set_language(&tree_sitter_bash::LANGUAGE.into()).is_err() {
            self.raise_unparsed("the shell parser is unavailable");
            return;
        }
        // The grammar's scanner passes characters to C's `isdigit()`, which is undefined (and
        // crashes) beyond ASCII. The parser therefore sees every non-ASCII byte as the letter `a`:
        // offsets are unchanged, non-ASCII text is a run of word characters (as it is to bash,
        // which splits words only on ASCII blanks), and values are read from the original text.
        let ascii: Vec<u8> = text.bytes().map(|b| if b.is_ascii() { b } else { b'a' }).collect();
        if self.out_of_time() {
            return;
        }
        let deadline = self.deadline;
        let mut in_time = |_: &tree_sitter::ParseState| {
            if std::time::Instant::now() < deadline {
                std::ops::ControlFlow::Continue(())
            } else {
                std::ops::ControlFlow::Break(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut in_time);
        let tree = parser.parse_with_options(&mut |i, _| ascii.get(i..).unwrap_or_default(), None, Some(options));
        let Some(tree) = tree else {
            if !self.out_of_time() {
                self.raise_unparsed("the command could not be parsed");
            }
            return;
        };
        // `[[ -d / ]]`: the grammar takes a bare `/` before the closing bracket for an operator,
        // where bash reads the path `/`, which `/.` names as well.
        if tree.root_node().has_error() {
            let fixed = text.replace(" / ]]", " /. ]]").replace(" / ]", " /. ]");
            if fixed != text {
                return self.parse_and_walk(&fixed, stdin);
            }
        }
        self.scripts += 1;
        crate::rules::shell_exhaustion(self, text);
        let root = tree.root_node();
        if root.has_error() {
            self.raise_unparsed("the command does not parse as shell; it cannot be judged read-only");
            // A brace list where a command starts is that command once bash expands it.
            if let Some(expanded) = words::brace_commands(text) {
                self.script(&expanded);
            }
            // `<>` opens its file for reading and writing: what is written lands in the file as
            // it would through `>`, over what was there.
            if text.contains("<>") {
                self.script(&text.replace("<>", ">"));
            }
            // One command the grammar cannot read (`[[ -d / ]]`) must not hide the others joined
            // to it: each part between `&&`, `||`, `;`, `|`, `&` and newlines is judged alone.
            let parts = words::top_level_parts(text);
            if parts.len() > 1 {
                for part in parts {
                    self.script(&part);
                }
            }
        }
        let outer = self.script_id;
        self.script_id = self.parsed;
        self.walk(root, text, 0, stdin);
        // Text-level cross-checks can only raise the verdict; once it is destructive they are moot
        // (and on adversarially deep trees they would be slow).
        if self.max_risk() != Some(Risk::Destructive) {
            self.check_separators(root, text);
        }
        if self.max_risk() != Some(Risk::Destructive) {
            self.check_substitutions(root, text);
        }
        self.script_id = outer;
        self.scripts -= 1;
    }

    /// Runs the program rules on an argument vector (also used by wrappers for what they run).
    pub(crate) fn run(&mut self, argv: &[Arg], stdin: &Stdin) {
        if self.wrappers >= MAX_WRAPPER_NESTING {
            self.raise(Risk::Destructive, "commands wrapped too deeply to analyse");
            return;
        }
        let Some((first, args)) = argv.split_first() else { return };
        if self.out_of_time() {
            return;
        }
        if let Arg::Dynamic { candidates, complete: true, .. } = first {
            if candidates.is_empty() {
                return;
            }
        }
        self.wrappers += 1;
        match first {
            Arg::Dynamic { text, candidates, complete } => {
                if !complete {
                    // What runs cannot be seen, by the operator either: rated at the worst it could
                    // be — except a function's or script's own arguments (`"$@"`), which are
                    // the caller's words, judged where they are written, and text probed for
                    // commands it may hold (`$(( $# + 1 ))`), where a word is not yet a program.
                    let risk = if self.probing || values::is_positional(text) {
                        Risk::ConfigMutation
                    } else {
                        Risk::Destructive
                    };
                    self.raise(risk, format!("the program to run is computed at run time (`{text}`)"));
                    // Expansions that may yield nothing (`${PATH:0:0}reboot`) leave the written
                    // letters as the program.
                    if let Some(name) = values::literal_remainder(text) {
                        let mut again = vec![Arg::Static(name)];
                        again.extend(argv.iter().skip(1).cloned());
                        self.run(&again, stdin);
                    }
                }
                for candidate in candidates.clone() {
                    // The words it splits into, then the rest of the line.
                    let mut again: Vec<Arg> = candidate
                        .split(expand::FIELD)
                        .filter(|w| !w.is_empty())
                        .map(|w| Arg::Static(w.into()))
                        .collect();
                    again.extend(argv.iter().skip(1).cloned());
                    self.run(&again, stdin);
                }
            }
            Arg::Static(name) if self.hashed.contains_key(name) => {
                // `hash -p /bin/rm cat`: the name runs that program.
                self.raise(Risk::ConfigMutation, format!("`{name}` was made to run another program"));
                for program in self.hashed.get(name).cloned().unwrap_or_default() {
                    let mut again = vec![Arg::Static(program)];
                    again.extend(argv.iter().skip(1).cloned());
                    let saved = self.hashed.remove(name);
                    self.run(&again, stdin);
                    if let Some(s) = saved {
                        self.hashed.insert(name.clone(), s);
                    }
                }
            }
            Arg::Static(name) if name.is_empty() || name.contains(['*', '?', '[', '{']) => {
                self.raise(Risk::ConfigMutation, format!("the program name `{name}` is a pattern"));
                // Brace expansion (`reb{o,}ot` is `reboot rebot`): the first word it makes runs.
                let expanded = words::expand_braces(name);
                if expanded.len() > 1 {
                    let mut again: Vec<Arg> = expanded.into_iter().map(Arg::Static).collect();
                    again.extend(argv.iter().skip(1).cloned());
                    self.run(&again, stdin);
                }
                // Each program of the system's it may name, with the rest of the line.
                for program in rules::programs_matching(name) {
                    let mut again = vec![Arg::Static(program)];
                    again.extend(argv.iter().skip(1).cloned());
                    self.run(&again, stdin);
                }
            }
            Arg::Static(name) if self.runners.contains(name) => {
                // A function that runs its arguments: what it is given is what runs.
                self.raise(Risk::ReadOnly, format!("`{name}` runs its arguments"));
                self.run(args, stdin);
            }
            Arg::Static(name) => {
                let name = name.clone();
                rules::program(self, &name, args, stdin);
            }
        }
        self.wrappers -= 1;
    }

    /// `name` runs one of `programs` from now on (`hash -p`, `BASH_CMDS`); none known: any.
    pub(crate) fn hash_name(&mut self, name: &str, programs: Vec<String>) {
        let programs = if programs.is_empty() { vec![String::new()] } else { programs };
        self.hashed.entry(name.to_string()).or_default().extend(programs);
    }

    /// Judges writing to `target` (a redirection, `tee`, `dd of=`, `sort -o` …).
    pub(crate) fn write_target(&mut self, target: &Arg, what: &str) {
        self.write_target_as(target, what, false);
    }

    /// Judges writing to `target`, replacing what it holds or (`append`) adding to it.
    pub(crate) fn write_target_as(&mut self, target: &Arg, what: &str, append: bool) {
        use super::paths::{is_access_file, is_block_device, is_harmless_sink, is_login_policy, is_power_trigger};
        // Relative names are judged where an earlier `cd` went.
        let values: Vec<String> = target
            .values()
            .iter()
            .flat_map(|v| if is_harmless_sink(v) { vec![v.to_string()] } else { self.resolve(v) })
            .collect();
        if let Arg::Dynamic { text, .. } = target {
            self.raise(Risk::ConfigMutation, format!("{what} writes to a file named at run time (`{text}`)"));
        }
        for p in values.iter().map(String::as_str) {
            if super::paths::is_unresolvable(p) {
                self.raise(
                    Risk::Destructive,
                    format!("{what} writes {p}, which could be a device or a kernel trigger"),
                );
            } else if is_harmless_sink(p) {
                self.raise(Risk::ReadOnly, format!("{what} to {p} discards the output"));
            } else if self.is_secret(p) {
                self.raise_secret(Risk::Destructive, format!("{what} overwrites secret material {p}"));
            } else if is_power_trigger(p) {
                self.raise(Risk::Destructive, format!("{what} writes {p} (reboots or crashes the machine)"));
            } else if is_block_device(p) {
                self.raise(Risk::Destructive, format!("{what} writes the device {p}"));
            } else if is_login_policy(p) && !(append && p.ends_with("authorized_keys")) {
                self.raise(Risk::Destructive, format!("{what} writes {p}, which decides who may log in"));
            } else if let Some(why) = crate::rules::lockout_write(p, append) {
                self.raise(Risk::Destructive, format!("{what} writes {p}, {why}"));
            } else if is_access_file(p) && !append {
                self.raise(Risk::Destructive, format!("{what} overwrites {p}, which logins or access depend on"));
            } else if super::paths::is_irreplaceable(p) {
                self.raise(
                    Risk::Destructive,
                    format!("{what} overwrites {p}, which holds guest disks, backups, cluster state or hardware"),
                );
            } else if super::paths::is_precious(p) && !append {
                self.raise(
                    Risk::Destructive,
                    format!("{what} overwrites {p}, which holds a database's or a guest's own data"),
                );
            } else if super::paths::is_vital(p) && !append {
                self.raise(
                    Risk::Destructive,
                    format!("{what} overwrites {p}, which booting, logging in or the network depend on"),
                );
            } else if super::paths::is_device_teardown(p) {
                self.raise(Risk::Destructive, format!("{what} writes {p}, which removes, resets or detaches a device"));
            } else if crate::rules::cgroup_write(p) {
                self.raise(
                    Risk::Destructive,
                    format!("{what} writes {p}, which limits, freezes or kills a whole group"),
                );
            } else if p.starts_with("/proc/sys/") || p.starts_with("/sys/") {
                self.raise(Risk::ConfigMutation, format!("{what} changes the kernel setting {p}"));
            } else {
                self.raise(Risk::ConfigMutation, format!("{what} writes {p}"));
            }
        }
    }
}

impl Analysis<'_> {
    /// Judges text known to be written to `path` (`echo … > f`, `… | tee f`) by what it does
    /// there: a cron entry runs its command unasked, a script the system runs on a schedule runs
    /// all of it, and a kernel setting takes the value written.
    pub(crate) fn written_text(&mut self, path: &str, texts: &[String]) {
        use crate::paths::{matches_pattern, normalise};
        let p = normalise(path);
        let any = |patterns: &[&str]| patterns.iter().any(|x| matches_pattern(&p, x));
        if let Some(key) = p.strip_prefix("/proc/sys/") {
            for text in texts {
                if let Some(why) = crate::rules::kernel_knob(key, Some(text.trim())) {
                    self.raise(Risk::Destructive, format!("writing `{}` to {p} {why}", text.trim()));
                }
            }
            return;
        }
        // Crontabs: system ones name the user before the command; a user's own does not.
        let system = any(&["/etc/crontab", "/etc/cron.d/*"]);
        let user = any(&["/var/spool/cron/**"]);
        let scripts = any(&["/etc/cron.hourly/*", "/etc/cron.daily/*", "/etc/cron.weekly/*", "/etc/cron.monthly/*"])
            || any(&["/etc/rc.local", "/etc/network/if-up.d/*", "/etc/network/if-pre-up.d/*"]);
        if scripts {
            for text in texts {
                self.raise(Risk::ConfigMutation, format!("writes a script the system runs by itself to {p}"));
                self.script(text);
            }
            return;
        }
        if !(system || user) {
            return;
        }
        for text in texts {
            for line in text.lines() {
                if let Some(command) = cron_command(line, system) {
                    self.raise(Risk::ConfigMutation, format!("adds a job to {p} that runs by itself"));
                    self.script(&command);
                }
            }
        }
    }
}

/// The command of one crontab line (`m h dom mon dow [user] command`, `@reboot [user] command`);
/// none for a comment, a blank line or a variable.
fn cron_command(line: &str, with_user: bool) -> Option<String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let first = line.split_whitespace().next()?;
    if !first.starts_with('@') && first.contains('=') {
        return None;
    }
    let fields = if first.starts_with('@') { 1 } else { 5 } + usize::from(with_user);
    let mut rest = line;
    for _ in 0..fields {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace)?;
        rest = rest.get(end..)?;
    }
    // cron reads `%` as a newline and feeds what follows to the command's input.
    let command = rest.trim().split('%').next().unwrap_or_default().trim().to_string();
    (!command.is_empty()).then_some(command)
}

/// The working directory relative paths are judged in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// Where the command starts: usually a home directory.
    Start,
    /// After a literal `cd`.
    Known(String),
    /// After a `cd` to a place not known before run time.
    Unknown,
}

enum Input {
    Text(String),
    Unknown,
    None,
}
