//! Version control: `git`, whose read-only commands can still be made to run programs or write.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{recursive_read, ro};
use crate::shell::{Analysis, Arg, Stdin};

/// The settings `-c KEY=VALUE` and `--config-env=KEY=VAR` give: VAR's value is the one an
/// assignment in the same command line gives it; one set outside it cannot be seen.
fn config_pairs(an: &mut Analysis<'_>, a: &Args<'_>) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for v in a.values(&["-c"]) {
        if let Some((key, value)) = v.shown().split_once('=') {
            pairs.push((key.to_string(), value.to_string()));
        }
    }
    for v in a.values(&["--config-env"]) {
        let Some((key, var)) = v.shown().split_once('=') else { continue };
        let values = an.var_candidates(var);
        if values.is_empty() && runs_code(key) {
            an.raise(
                DE,
                format!("`git --config-env` sets `{key}`, which runs code, from `${var}`, which cannot be seen"),
            );
        }
        pairs.extend(values.into_iter().map(|value| (key.to_string(), value)));
    }
    pairs
}

/// Settings that only change how git's output looks.
fn cosmetic(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    ["color.", "column.", "advice.", "i18n.", "log.date", "log.decorate", "log.abbrevcommit", "log.follow"]
        .iter()
        .any(|p| key.starts_with(p))
        || matches!(
            key.as_str(),
            "core.quotepath" | "core.abbrev" | "diff.renames" | "diff.algorithm" | "diff.noprefix" | "status.short"
        )
}

/// Settings whose value is code git runs, or a place it loads code or configuration from.
fn runs_code(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    key.starts_with("alias.")
        || key.starts_with("include")
        || key.starts_with("filter.")
        || key.starts_with("credential")
        || key.starts_with("core.hookspath")
        || key == "core.fsmonitor"
        || key == "diff.external"
        || ["pager", "command", "editor", "program", "helper", "textconv", "driver", "askpass", "cmd", "tool"]
            .iter()
            .any(|end| key.ends_with(end))
        || key.starts_with("pager.")
}

/// A setting that makes git run, or load, something outside the system's own code (a script in
/// `/tmp`, hooks or an included configuration there): what it does cannot be seen.
fn code_setting(an: &mut Analysis<'_>, key: &str, value: &str) {
    if !runs_code(key) {
        return;
    }
    let program = value.trim_start_matches('!').split_whitespace().next().unwrap_or_default();
    let outside = |p: &str| {
        (p.starts_with('/') || p.starts_with('.') || p.starts_with('~') || p.contains('/'))
            && !super::wrappers::is_system_code(p)
    };
    if outside(program) {
        an.raise(DE, format!("`git` setting `{key}` runs or loads `{program}`, whose contents cannot be seen"));
    }
}

/// `git`: reading commands read unless an option makes them run programs or write.
pub(super) fn git(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let global =
        ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env"];
    let pairs = config_pairs(an, a);
    // Settings that only change how output looks (`-c color.ui=never`) run nothing.
    if a.long("--exec-path") || a.value(&["--config-env"]).is_some() || pairs.iter().any(|(k, _)| !cosmetic(k)) {
        an.raise(CM, "`git -c` can make git run other programs");
    }
    for (key, cmd) in pairs.iter().filter(|(k, _)| !cosmetic(k)) {
        let (key, cmd) = (key.as_str(), cmd.as_str());
        code_setting(an, key, cmd);
        an.script(cmd.trim_start_matches('!'));
        // The `ext::` transport runs the command a URL names.
        if key.eq_ignore_ascii_case("protocol.ext.allow") && cmd != "never" {
            for url in a.all.iter().filter_map(Arg::as_static).filter_map(|w| w.strip_prefix("ext::")) {
                an.raise(CM, "`git` runs the command an `ext::` URL names");
                crate::rules::run_given(an, "`git` `ext::`", &url.replace('%', ""));
            }
        }
        let key = key.to_ascii_lowercase();
        if key.ends_with("pager") || key.ends_with("command") || key.ends_with("editor") || key.ends_with("program") {
            crate::rules::run_given(an, &format!("`git -c {key}`"), cmd.trim_start_matches('!'));
        }
    }
    let Some((i, sub)) = a.sub(&global) else {
        return ro(an, "`git` without a command prints help");
    };
    // A repository over a tree that holds secrets (etckeeper keeps /etc) shows them in diffs.
    // Another repository's config can name programs git runs even to read (`core.fsmonitor`,
    // `core.pager`, diff drivers): pointing git at one is not read-only.
    if let Some(dir) = a.value(&["--git-dir"]) {
        an.raise(CM, format!("`git --git-dir` uses another repository's configuration (`{}`)", dir.shown()));
    }
    let rest_words: Vec<&str> = a.tail_from(i + 1).iter().filter_map(Arg::as_static).collect();
    // What shows files' contents (a patch, a blob, a diff), as opposed to their names.
    // Summaries (`--stat`, `--name-only`, `-s`) list names and counts, not contents.
    let summary_only = rest_words.iter().any(|w| {
        matches!(*w, "--stat" | "--shortstat" | "--numstat" | "--name-only" | "--name-status" | "--summary" | "-s")
            || *w == "--no-patch"
    }) && !rest_words.iter().any(|w| matches!(*w, "-p" | "-u" | "--patch"));
    let shows_contents = (matches!(sub, "show" | "diff") && !summary_only)
        || matches!(sub, "cat-file" | "grep" | "blame" | "annotate" | "archive")
        || (matches!(sub, "log" | "whatchanged" | "reflog" | "stash")
            && rest_words.iter().any(|w| matches!(*w, "-p" | "-u" | "--patch" | "--full-diff") || w.starts_with("-p")));
    // `git show HEAD:.env`, `git cat-file -p HEAD:shadow`: a blob by its path.
    for word in &rest_words {
        if let Some((_, path)) = word.split_once(':').filter(|(rev, _)| !rev.starts_with('-')) {
            if an.is_secret(path)
                || an.is_credential(path)
                || path.rsplit('/').next().is_some_and(|n| n.contains("shadow"))
            {
                an.raise_secret(DE, format!("`git {sub}` prints `{path}` from the repository's history"));
            }
        }
    }
    // Contents of paths named like secrets (`-- '*.env'`, `config/*.key`): every version of them.
    let after_dashes = rest_words.iter().skip_while(|w| **w != "--").skip(1);
    let secret_named = |w: &str| {
        let name = w.rsplit('/').next().unwrap_or(w).trim_start_matches('*');
        name.starts_with(".env")
            || name.ends_with(".env")
            || [".key", ".pem", ".pw", ".p12", ".kdbx", "credentials", "secrets"].iter().any(|e| name.ends_with(e))
    };
    if shows_contents {
        if let Some(path) = after_dashes.clone().find(|w| secret_named(w) || an.is_credential(w)) {
            an.raise_secret(CM, format!("`git {sub}` shows every version of `{path}`, named like a secret"));
        }
    }
    for dir in a.values(&["-C", "--git-dir", "--work-tree"]) {
        // A repository over a tree that holds secrets (etckeeper keeps /etc): its history holds
        // every version of them; names alone are fine.
        let holds = dir.values().iter().any(|d| an.resolve(d).iter().any(|r| crate::secrets::holds_secrets(r)));
        if holds && shows_contents {
            an.raise_secret(DE, format!("`git {sub}` shows the history of {}, secrets too", dir.shown()));
        } else if !holds {
            recursive_read(an, "git", &[&dir]);
        }
        if an.may_be_secret(dir.shown()) || dir.as_static().is_none() {
            an.raise(CM, format!("`git` works in a directory not known before it runs (`{}`)", dir.shown()));
        }
    }
    if a.tail_from(i + 1).iter().any(|x| x.as_static() == Some("--no-index")) {
        an.raise(CM, "`git --no-index` compares arbitrary files");
    }
    let rest = Args::new(a.tail_from(i + 1));
    // Commands git runs for its user: `bisect run CMD…`, `rebase -x CMD`, `submodule foreach CMD`,
    // `difftool -x CMD`.
    let words_after = |w: &str| rest.all.iter().position(|x| x.as_static() == Some(w)).map(|k| rest.tail_from(k + 1));
    match sub {
        "bisect" => {
            if let Some(command) = words_after("run").filter(|c| !c.is_empty()) {
                an.run(command, &Stdin::default());
            }
        }
        "rebase" | "difftool" => {
            for command in rest.values(&["-x", "--exec", "--extcmd"]) {
                an.raise(CM, format!("`git {sub} -x` runs a command"));
                an.script(command.shown());
            }
        }
        "submodule" => {
            if let Some(command) = words_after("foreach") {
                let words: Vec<&str> = command
                    .iter()
                    .map(Arg::shown)
                    .filter(|w| !matches!(*w, "--recursive" | "-q" | "--quiet"))
                    .collect();
                an.script(&words.join(" "));
            }
        }
        _ => {}
    }
    let runs = ["--open-files-in-pager", "--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv"];
    if rest.any(&runs)
        || rest.all.iter().filter_map(Arg::as_static).any(|o| {
            o.starts_with("-O") || (o == "-u" && matches!(sub, "ls-remote" | "fetch" | "clone" | "pull" | "archive"))
        })
    {
        an.raise(CM, format!("`git {sub}` with this option runs another program"));
        for o in rest.all.iter().filter_map(Arg::as_static) {
            let value =
                o.strip_prefix("-O").filter(|v| !v.is_empty()).or_else(|| o.strip_prefix("--open-files-in-pager="));
            if let Some(v) = value {
                crate::rules::run_given(an, &format!("`git {sub}`"), v);
            }
        }
    }
    if rest.long("--output") || rest.value(&["-o", "--output-directory"]).is_some() && sub == "format-patch" {
        an.raise(CM, format!("`git {sub} --output` writes a file"));
    }
    // The file an output option writes is judged as a redirect's target is.
    let outputs: &[&str] = match sub {
        "archive" | "bundle" => &["-o", "--output"],
        "format-patch" => &["--output-directory"],
        _ => &["--output"],
    };
    for out in rest.values(outputs) {
        an.write_target(&out, &format!("`git {sub} --output`"));
    }
    // `filter-branch` runs its filters as shell text, once per commit.
    if sub == "filter-branch" {
        #[rustfmt::skip]
        let filters = ["--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
            "--commit-filter", "--tag-name-filter"];
        for filter in rest.values(&filters) {
            an.raise(CM, "`git filter-branch` runs its filters");
            an.script(filter.shown());
        }
    }
    // The credential helpers print the stored username and password.
    if sub.starts_with("credential") && rest.all.iter().any(|w| matches!(w.shown(), "fill" | "get")) {
        an.raise_secret(DE, format!("`git {sub}` prints stored credentials"));
    }
    let ops = rest.operands(&[
        "-n",
        "--max-count",
        "--format",
        "--pretty",
        "--since",
        "--until",
        "--author",
        "-S",
        "-G",
        "--grep",
        "--sort",
        "--contains",
        "--merged",
        "--no-merged",
        "--points-at",
        "-U",
        "--unified",
    ]);
    // `fsck --lost-found` writes dangling objects into .git/lost-found.
    if sub == "fsck" && rest.long("--lost-found") {
        an.raise(CM, "`git fsck --lost-found` writes files");
    }
    // `git help -w`/`-i` opens a web browser or an info viewer (man pages only read).
    if sub == "help" && rest.any(&["-w", "--web", "-i", "--info"]) {
        an.raise(CM, "`git help --web` runs a browser");
    }
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "rev-list" | "describe" | "blame" | "annotate"
        | "ls-files" | "ls-tree" | "ls-remote" | "cat-file" | "shortlog" | "grep" | "whatchanged" | "count-objects"
        | "fsck" | "verify-commit" | "verify-tag" | "check-ignore" | "check-attr" | "name-rev" | "merge-base"
        | "for-each-ref" | "show-ref" | "var" | "version" | "help" | "show-branch" | "cherry" | "range-diff"
        | "diff-tree" | "diff-index" | "diff-files" => ro(an, format!("`git {sub}` only reads")),
        "branch" => {
            // Short options letter by letter (`-lD` deletes), long ones also abbreviated.
            let shorts = rest.short_options("u", "t");
            let changes = shorts.iter().any(|(c, _)| matches!(c, 'd' | 'D' | 'm' | 'M' | 'c' | 'C' | 'u' | 'f'))
                || rest.any(&[
                    "--delete",
                    "--move",
                    "--copy",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "--force",
                    "--edit-description",
                    "--track",
                    "--create-reflog",
                ]);
            let lists = shorts.iter().any(|(c, _)| *c == 'l') || rest.long("--list");
            // `-D`, `-d --force`, `-M` and `-C` delete or overwrite a branch whose commits may be
            // on no other.
            let forced = shorts.iter().any(|(c, _)| matches!(c, 'D' | 'M' | 'C'))
                || ((shorts.iter().any(|(c, _)| *c == 'd') || rest.long("--delete"))
                    && (shorts.iter().any(|(c, _)| *c == 'f') || rest.long("--force")));
            if forced {
                an.raise(DE, "`git branch -D` deletes or overwrites a branch and the commits only it holds");
            } else if changes || (!ops.is_empty() && !lists) {
                an.raise(CM, "`git branch` creates, moves or deletes branches");
            } else {
                ro(an, "`git branch` only lists");
            }
        }
        "tag" => {
            if ops.is_empty() || rest.flag('l', "--list") || rest.short('v') && !rest.short('d') {
                ro(an, "`git tag` only lists");
            } else {
                an.raise(CM, "`git tag` creates or deletes tags");
            }
        }
        "remote" => match ops.first().map(|o| o.shown()) {
            None | Some("show" | "get-url") => ro(an, "`git remote` only lists"),
            Some(_) => an.raise(CM, "`git remote` changes remotes"),
        },
        "reflog" | "stash" | "worktree" | "submodule" | "notes" => match ops.first().map(|o| o.shown()) {
            Some("list" | "show" | "status") => ro(an, format!("`git {sub} list` only reads")),
            None if sub == "reflog" => ro(an, "`git reflog` only reads"),
            Some("clear") if sub == "stash" => an.raise(DE, "`git stash clear` discards every stash"),
            Some("drop") if sub == "stash" => an.raise(DE, "`git stash drop` discards a stash"),
            Some("expire" | "delete") if sub == "reflog" => {
                an.raise(DE, "`git reflog expire` forgets the history that recovers lost commits")
            }
            Some("remove") if sub == "worktree" && rest.flag('f', "--force") => {
                an.raise(DE, "`git worktree remove --force` deletes a working tree with its changes")
            }
            _ => an.raise(CM, format!("`git {sub}` changes the repository")),
        },
        "config" => {
            let shorts = rest.short_options("f", "");
            let reading = shorts.iter().any(|(c, _)| *c == 'l')
                || rest.any(&[
                    "--get",
                    "--get-all",
                    "--get-regexp",
                    "--get-urlmatch",
                    "--list",
                    "--show-origin",
                    "--show-scope",
                    "--get-color",
                    "--get-colorbool",
                ])
                || ops.first().is_some_and(|o| matches!(o.shown(), "get" | "list"))
                || ops.len() == 1;
            let writing = shorts.iter().any(|(c, _)| *c == 'e')
                || rest.any(&[
                    "--unset",
                    "--unset-all",
                    "--add",
                    "--replace-all",
                    "--rename-section",
                    "--remove-section",
                    "--edit",
                ]);
            if reading && !writing {
                ro(an, "`git config --get` only reads");
            } else {
                an.raise(CM, "`git config` changes configuration");
            }
        }
        "clean" => {
            if git_dry_run(&rest) {
                ro(an, "`git clean -n` only lists");
            } else if rest.short('x') || rest.short('X') || rest.short('d') || rest.flag('f', "--force") {
                an.raise(DE, "`git clean -f` deletes untracked files for good");
            } else {
                an.raise(CM, "`git clean` deletes untracked files");
            }
        }
        "reset" if rest.long("--hard") => an.raise(DE, "`git reset --hard` discards uncommitted work"),
        // Files checked out or restored over the working tree lose their uncommitted changes.
        "checkout" | "restore" | "switch" | "checkout-index" if discards_work(sub, &rest, &ops) => {
            an.raise(DE, format!("`git {sub}` overwrites files in the working tree, discarding uncommitted work"))
        }
        // History rewritten, or unreachable commits removed now rather than after the grace period.
        "filter-branch" | "filter-repo" => an.raise(DE, format!("`git {sub}` rewrites the repository's history")),
        "gc" if rest.all.iter().filter_map(Arg::as_static).any(|w| {
            w.strip_prefix("--prune=").is_some_and(|v| matches!(v, "now" | "all" | "0") || v.starts_with("now"))
        }) =>
        {
            an.raise(DE, "`git gc --prune=now` deletes unreachable commits at once")
        }
        "prune" if !git_dry_run(&rest) => an.raise(DE, "`git prune` deletes unreachable commits"),
        "update-ref" if rest.short('d') => an.raise(DE, "`git update-ref -d` deletes a reference"),
        "symbolic-ref" if rest.short('d') || rest.long("--delete") => {
            an.raise(DE, "`git symbolic-ref -d` deletes a reference")
        }
        "push"
            if rest.flag('f', "--force")
                || rest.long_prefix("--force")
                || rest.long("--mirror")
                || rest.long("--delete")
                || rest.long("--prune")
                || ops.iter().any(|o| o.shown().starts_with('+') || o.shown().starts_with(':')) =>
        {
            an.raise(DE, "`git push --force` rewrites or deletes remote history")
        }
        _ => an.raise(CM, format!("`git {sub}` changes the repository or its remotes")),
    }
}

/// Whether `checkout`/`restore`/`switch` write over files in the working tree: forced, given
/// paths (after `--`, or `.`), or `restore` other than of the index alone.
fn discards_work(sub: &str, rest: &Args<'_>, ops: &[&Arg]) -> bool {
    let forced = rest.flag('f', "--force") || rest.long("--discard-changes") || rest.long("--overwrite-ignore");
    let dashes = rest.all.iter().any(|w| w.as_static() == Some("--"));
    let whole = ops.iter().any(|o| matches!(o.shown(), "." | "*" | ":/" | "./" | ":(top)") || o.shown().ends_with('/'));
    match sub {
        "restore" => {
            let staged_only =
                (rest.short('S') || rest.long("--staged")) && !(rest.short('W') || rest.long("--worktree"));
            !staged_only
        }
        "checkout-index" => forced,
        "switch" => forced,
        _ => forced || dashes || whole || rest.short('p') || rest.long("--patch"),
    }
}

/// `etckeeper`: `vcs` runs git over /etc, where its history keeps every version of the files;
/// `uninit` deletes that history.
pub(super) fn etckeeper(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, stdin: &Stdin) {
    let Some((i, sub)) = a.sub(&["-d"]) else {
        return an.raise(CM, "`etckeeper` changes the repository of /etc");
    };
    match sub {
        "vcs" => {
            let mut words = vec![Arg::Static("git".into()), Arg::Static("-C".into()), Arg::Static("/etc".into())];
            words.extend(a.tail_from(i + 1).iter().cloned());
            an.run(&words, stdin);
        }
        "uninit" => an.raise(DE, "`etckeeper uninit` deletes the history of /etc"),
        "list-installed" | "unclean" => ro(an, format!("`etckeeper {sub}` only reports")),
        _ => an.raise(CM, format!("`etckeeper {sub}` changes the repository of /etc")),
    }
}

/// Whether `-n`/`--dry-run` is in force: the last of it and `--no-dry-run` wins (git gives every
/// boolean option a `--no-` form, and takes abbreviations of long options).
fn git_dry_run(a: &Args<'_>) -> bool {
    let mut dry = false;
    let mut skip = false;
    for word in a.all.iter().map_while(Arg::as_static).take_while(|w| *w != "--") {
        if std::mem::take(&mut skip) {
            continue;
        }
        if word == "-e" || word == "--exclude" {
            skip = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            if let Some(negated) = long.strip_prefix("no-") {
                if negated.len() >= 2 && "dry-run".starts_with(negated) {
                    dry = false;
                }
            } else if long.len() >= 2 && "dry-run".starts_with(long) {
                dry = true;
            }
        } else if let Some(cluster) = word.strip_prefix('-') {
            // `-e PATTERN` takes the rest of its cluster: `-fdxen` excludes `n`.
            let letters = cluster.split('e').next().unwrap_or("");
            if letters.contains('n') {
                dry = true;
            }
        }
    }
    dry
}
