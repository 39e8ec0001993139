//! Version control: `git`, whose read-only commands can still be made to run programs or write.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{recursive_read, ro};
use crate::shell::{Analysis, Arg, Stdin};

/// `git`: reading commands read unless an option makes them run programs or write.
pub(super) fn git(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let global =
        ["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--super-prefix", "--config-env"];
    if a.value(&["-c", "--config-env"]).is_some() || a.long("--exec-path") {
        an.raise(CM, "`git -c` can make git run other programs");
        for v in a.values(&["-c"]) {
            if let Some((_, cmd)) = v.shown().split_once('=') {
                an.script(cmd.trim_start_matches('!'));
            }
        }
    }
    let Some((i, sub)) = a.sub(&global) else {
        return ro(an, "`git` without a command prints help");
    };
    // A repository over a tree that holds secrets (etckeeper keeps /etc) shows them in diffs.
    for dir in a.values(&["-C", "--git-dir", "--work-tree"]) {
        recursive_read(an, "git", &[&dir]);
        if an.may_be_secret(dir.shown()) || dir.as_static().is_none() {
            an.raise(CM, format!("`git` works in a directory not known before it runs (`{}`)", dir.shown()));
        }
    }
    if a.tail_from(i + 1).iter().any(|x| x.as_static() == Some("--no-index")) {
        an.raise(CM, "`git --no-index` compares arbitrary files");
    }
    let rest = Args::new(a.tail_from(i + 1));
    let runs = ["--open-files-in-pager", "--upload-pack", "--receive-pack", "--exec", "--ext-diff", "--textconv"];
    if rest.any(&runs)
        || rest.all.iter().filter_map(Arg::as_static).any(|o| {
            o.starts_with("-O") || (o == "-u" && matches!(sub, "ls-remote" | "fetch" | "clone" | "pull" | "archive"))
        })
    {
        an.raise(CM, format!("`git {sub}` with this option runs another program"));
    }
    if rest.long("--output") || rest.value(&["-o", "--output-directory"]).is_some() && sub == "format-patch" {
        an.raise(CM, format!("`git {sub} --output` writes a file"));
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
    match sub {
        "status" | "log" | "diff" | "show" | "rev-parse" | "rev-list" | "describe" | "blame" | "annotate"
        | "ls-files" | "ls-tree" | "ls-remote" | "cat-file" | "shortlog" | "grep" | "whatchanged" | "count-objects"
        | "fsck" | "verify-commit" | "verify-tag" | "check-ignore" | "check-attr" | "name-rev" | "merge-base"
        | "for-each-ref" | "show-ref" | "var" | "version" | "help" | "show-branch" | "cherry" | "range-diff"
        | "diff-tree" | "diff-index" | "diff-files" => ro(an, format!("`git {sub}` only reads")),
        "branch" => {
            let changes = rest.options().any(|o| {
                matches!(
                    o,
                    "-d" | "-D"
                        | "--delete"
                        | "-m"
                        | "-M"
                        | "--move"
                        | "-c"
                        | "-C"
                        | "--copy"
                        | "-u"
                        | "--set-upstream-to"
                        | "--unset-upstream"
                        | "-f"
                        | "--force"
                        | "--edit-description"
                )
            });
            if changes || (!ops.is_empty() && !rest.flag('l', "--list")) {
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
            _ => an.raise(CM, format!("`git {sub}` changes the repository")),
        },
        "config" => {
            let reading = rest.options().any(|o| {
                matches!(
                    o,
                    "--get"
                        | "--get-all"
                        | "--get-regexp"
                        | "--get-urlmatch"
                        | "--list"
                        | "-l"
                        | "--show-origin"
                        | "--show-scope"
                        | "--get-color"
                        | "--get-colorbool"
                )
            }) || ops.first().is_some_and(|o| matches!(o.shown(), "get" | "list"))
                || ops.len() == 1;
            if reading
                && !rest.options().any(|o| {
                    matches!(
                        o,
                        "--unset"
                            | "--unset-all"
                            | "--add"
                            | "--replace-all"
                            | "--rename-section"
                            | "--remove-section"
                            | "-e"
                            | "--edit"
                    )
                })
            {
                ro(an, "`git config --get` only reads");
            } else {
                an.raise(CM, "`git config` changes configuration");
            }
        }
        "clean" => {
            if rest.flag('n', "--dry-run") {
                ro(an, "`git clean -n` only lists");
            } else if rest.short('x') || rest.short('X') || rest.short('d') {
                an.raise(DE, "`git clean -fdx` deletes untracked and ignored files for good");
            } else {
                an.raise(CM, "`git clean` deletes untracked files");
            }
        }
        "reset" if rest.long("--hard") => an.raise(DE, "`git reset --hard` discards uncommitted work"),
        "push"
            if rest.flag('f', "--force")
                || rest.long_prefix("--force")
                || rest.long("--mirror")
                || rest.long("--delete")
                || ops.iter().any(|o| o.shown().starts_with('+') || o.shown().starts_with(':')) =>
        {
            an.raise(DE, "`git push --force` rewrites or deletes remote history")
        }
        _ => an.raise(CM, format!("`git {sub}` changes the repository or its remotes")),
    }
}
