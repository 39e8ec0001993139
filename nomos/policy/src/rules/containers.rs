//! Containers and clusters: Docker/Podman and Compose, Kubernetes, LXC attach; what runs inside a
//! container is judged too.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE, ReversibleLow as RL};

use super::ro;
use super::wrappers::command_start;
use super::Args;
use crate::shell::{Analysis, Arg, Stdin};
use crate::table::{interpret, table};

/// Docker, Podman, nerdctl: queries read, lifecycle commands restart, what runs inside a container is judged.
pub(super) fn docker(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    #[rustfmt::skip]
    let global = [
        "-H", "--host", "-c", "--context", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey",
        "--runtime", "--conmon", "--network-cmd-path", "--hooks-dir", "--module", "--cni-config-dir", "--root",
        "--runroot", "--storage-driver", "--storage-opt", "--url", "--connection", "--identity", "--tmpdir",
        "--cgroup-manager", "--events-backend", "--imagestore", "--volumepath", "--ssh", "--out",
    ];
    if a.value(&["-H", "--host"]).is_some() {
        an.raise(CM, format!("`{base} -H` acts on another machine"));
    }
    // Podman's engine options: another OCI runtime, monitor or network program runs; hooks and
    // configuration modules can run programs.
    let engine = ["--runtime", "--conmon", "--network-cmd-path", "--hooks-dir", "--module", "--cni-config-dir"];
    if !a.values(&engine).is_empty() {
        an.raise(CM, format!("`{base}` runs or loads another engine, hook or module"));
    }
    if let Some(out) = a.value(&["--out"]) {
        an.write_target(&out, &format!("`{base} --out`"));
    }
    let Some((i, sub)) = a.sub(&global) else {
        return ro(an, format!("`{base}` without a command prints help"));
    };
    let rest = Args::new(a.tail_from(i + 1));
    // Another configuration directory brings its own CLI plugins (programs) and credential helpers.
    if Args::new(a.head_to(i)).value(&["--config"]).is_some() {
        an.raise(CM, format!("`{base} --config` uses a configuration whose plugins and helpers run"));
    }
    // `buildx inspect --bootstrap` starts a builder container.
    if sub == "buildx" && rest.long("--bootstrap") {
        an.raise(CM, format!("`{base} buildx --bootstrap` starts a builder"));
    }
    let group =
        |an: &mut Analysis<'_>, what: &str, ro_subs: &[&str], de_subs: &[&str]| match rest.sub(&[]).map(|(_, s)| s) {
            Some(s) if ro_subs.contains(&s) => ro(an, format!("`{base} {what} {s}` only reports")),
            Some(s) if de_subs.contains(&s) => an.raise(DE, format!("`{base} {what} {s}` deletes data")),
            None => ro(an, format!("`{base} {what}` prints help")),
            Some(s) => an.raise(CM, format!("`{base} {what} {s}` changes containers")),
        };
    // `inspect` prints a container's or image's environment (its passwords and tokens) unless a
    // format picks other fields.
    let inspecting = sub == "inspect"
        || (matches!(sub, "container" | "image" | "service") && rest.sub(&[]).map(|(_, s)| s) == Some("inspect"));
    let formats = rest.values(&["-f", "--format"]);
    match sub {
        _ if inspecting
            && (formats.is_empty()
                || formats.iter().any(|f| {
                    f.as_static().is_none_or(|f| {
                        f.contains("Env") || f.contains("json .}") || f.contains("json . ") || f.contains("Config}}")
                    })
                })) =>
        {
            an.raise_secret(DE, format!("`{base} {sub}` prints the container's environment, its secrets too"))
        }
        // A format that prints the environment prints the container's passwords and tokens.
        "container" | "exec" if formats.iter().any(|f| f.shown().contains("Env")) => {
            an.raise_secret(DE, format!("`{base} {sub}` prints the container's environment"))
        }
        "ps" | "images" | "inspect" | "logs" | "stats" | "top" | "port" | "diff" | "events" | "info" | "version"
        | "search" | "history" => ro(an, format!("`{base} {sub}` only reports")),
        // A container's filesystem streamed out holds its keys and password files.
        "export" if rest.value(&["-o", "--output"]).is_none() => {
            an.raise_secret(DE, format!("`{base} export` streams a container's filesystem, its secrets too"))
        }
        "save" | "export" => {
            if let Some(out) = rest.value(&["-o", "--output"]) {
                an.write_target(&out, &format!("`{base} {sub}`"));
            } else {
                ro(an, format!("`{base} {sub}` to standard output only reads"));
            }
        }
        "exec" => exec(an, &format!("{base} exec"), "docker exec", rest.all, stdin),
        "restart" | "start" | "stop" | "pause" | "unpause" | "kill" => {
            an.raise(RL, format!("`{base} {sub}` starts or stops containers"))
        }
        "container" => match rest.sub(&[]).map(|(_, s)| s) {
            Some("exec") => {
                let mut argv = vec![Arg::Static(base.to_string())];
                argv.extend_from_slice(rest.all);
                an.run(&argv, stdin)
            }
            Some("restart" | "start" | "stop" | "pause" | "unpause" | "kill") => {
                an.raise(RL, format!("`{base} container` starts or stops containers"))
            }
            _ => group(an, "container", &["ls", "list", "ps", "inspect", "logs", "top", "port", "diff", "stats"], &[]),
        },
        "image" => group(an, "image", &["ls", "list", "inspect", "history"], &[]),
        "volume" => group(an, "volume", &["ls", "list", "inspect"], &["rm", "remove", "prune"]),
        // `system reset` removes every container, image and volume.
        "system" if rest.sub(&[]).map(|(_, s)| s) == Some("reset") => {
            an.raise(DE, format!("`{base} system reset` deletes every container, image and volume"))
        }
        "network" => group(an, "network", &["ls", "list", "inspect"], &[]),
        "pod" if base == "podman" => {
            group(an, "pod", &["ps", "ls", "list", "inspect", "logs", "top", "stats", "exists"], &[])
        }
        "context" | "plugin" | "node" | "secret" | "config" | "manifest" | "trust" | "buildx" | "stack" | "service" => {
            group(an, sub, &["ls", "list", "inspect", "show", "ps", "logs", "version", "services"], &[])
        }
        "system" => match rest.sub(&[]).map(|(_, s)| s) {
            Some("df" | "info" | "events") => ro(an, format!("`{base} system` only reports")),
            Some("prune") if rest.long("--volumes") => {
                an.raise(DE, format!("`{base} system prune --volumes` deletes volumes"))
            }
            _ => an.raise(CM, format!("`{base} system` changes containers")),
        },
        "compose" => compose(an, base, a, i + 1, stdin),
        // What the container runs still counts: with host paths mounted it reaches the host.
        "run" | "create" => exec(an, &format!("{base} {sub}"), "docker run", rest.all, stdin),
        "rm" if rest.flag('v', "--volumes") => an.raise(DE, format!("`{base} rm -v` deletes volumes")),
        _ => an.raise(CM, format!("`{base} {sub}` changes containers or images")),
    }
}

/// A program that prints its whole environment (run in a container: the container's secrets).
fn is_environment_printer(word: &str) -> bool {
    matches!(
        word,
        "env"
            | "printenv"
            | "/usr/bin/env"
            | "/usr/bin/printenv"
            | "/bin/env"
            | "/bin/printenv"
            | "export"
            | "set"
            | "declare"
    )
}

/// `exec` subcommands, by their table entries (options exactly, then the container, then the command).
fn exec(an: &mut Analysis<'_>, name: &str, entry: &str, args: &[Arg], stdin: &Stdin) {
    // `env` or `printenv` run inside prints the container's environment: its passwords and tokens.
    if args.iter().any(|w| is_environment_printer(w.shown())) {
        an.raise_secret(DE, format!("`{name} env` prints the container's environment, which holds its secrets"));
    }
    match table().sub(entry) {
        Some(entry) => interpret(an, name, entry, args, stdin),
        None => an.raise(CM, format!("`{name}` is not known to be read-only")),
    }
}

/// `docker-compose`, `podman-compose`.
pub(super) fn compose_tool(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    compose(an, base, a, 0, stdin)
}

/// Compose, as `docker compose` (its words from `from`) or its own program.
pub(super) fn compose(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, from: usize, stdin: &Stdin) {
    let rest = Args::new(a.tail_from(from));
    let valued = [
        "-f",
        "--file",
        "-p",
        "--project-name",
        "--profile",
        "--env-file",
        "--project-directory",
        "--ansi",
        "--parallel",
    ];
    if let Some(out) = rest.value(&["-o", "--output"]) {
        an.write_target(&out, &format!("`{base} compose -o`"));
    }
    match rest.sub(&valued) {
        // The model is printed with `.env` values interpolated: the services' passwords.
        Some((j, "config"))
            if rest.value(&["-o", "--output"]).is_none()
                && !Args::new(rest.tail_from(j + 1)).any(&[
                    "--services",
                    "--volumes",
                    "--images",
                    "--profiles",
                    "--networks",
                    "--hash",
                    "-q",
                    "--quiet",
                ]) =>
        {
            an.raise_secret(DE, format!("`{base} compose config` prints the services' environment, passwords too"))
        }
        Some((_, s @ ("ps" | "logs" | "config" | "ls" | "images" | "top" | "version" | "port" | "events"))) => {
            ro(an, format!("`{base} compose {s}` only reports"))
        }
        Some((_, s @ ("restart" | "start" | "stop" | "pause" | "unpause" | "kill"))) => {
            an.raise(RL, format!("`{base} compose {s}` starts or stops services"))
        }
        Some((j, "down")) if Args::new(rest.tail_from(j + 1)).flag('v', "--volumes") => {
            an.raise(DE, format!("`{base} compose down -v` deletes volumes"))
        }
        Some((j, "exec")) => exec(an, &format!("{base} compose exec"), "compose exec", rest.tail_from(j + 1), stdin),
        Some((j, "run")) => {
            an.raise(RL, format!("`{base} compose run` runs in a service container"));
            let tail = Args::new(rest.tail_from(j + 1));
            let start = command_start(
                &tail,
                &[
                    "-u",
                    "--user",
                    "-w",
                    "--workdir",
                    "-e",
                    "--env",
                    "--index",
                    "--name",
                    "--entrypoint",
                    "-p",
                    "--publish",
                    "-v",
                    "--volume",
                ],
            )
            .map(|k| k + 1);
            match start {
                Some(k) if k < tail.all.len() => an.run(tail.tail_from(k), stdin),
                _ => an.raise(CM, format!("`{base} compose exec` without a command")),
            }
        }
        Some((_, s)) => an.raise(CM, format!("`{base} compose {s}` changes services")),
        None => ro(an, format!("`{base} compose` prints help")),
    }
}

/// kubectl and oc: queries read (secrets excepted), `exec` is judged by what it runs.
pub(super) fn kubectl(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let valued = [
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "-o",
        "--output",
        "-l",
        "--selector",
        "-c",
        "--container",
        "-f",
        "--filename",
    ];
    // A kubeconfig can name a program that supplies credentials (an exec plugin).
    if a.value(&["--kubeconfig"]).is_some() {
        an.raise(CM, format!("`{base} --kubeconfig` reads a configuration that can run a credential program"));
    }
    // Files kubectl writes besides its output: the discovery cache, logs, a profile.
    for out in a.values(&["--cache-dir", "--log-file", "--log-dir", "--profile-output", "--output-directory"]) {
        an.write_target(&out, &format!("`{base}`"));
    }
    let words: Vec<&str> = a.operands(&valued).iter().map(|o| o.shown()).collect();
    let output = a.value(&["-o", "--output"]).map(|o| o.shown().to_string()).unwrap_or_default();
    let secrets = words.iter().any(|w| w.starts_with("secret"))
        && (!output.is_empty() || matches!(words.first(), Some(&"describe")));
    let verbs = kubectl_verbs(an, base, a);
    if verbs.is_empty() {
        return ro(an, format!("`{base}` without a command prints help"));
    }
    for (i, verb) in verbs {
        match verb {
            _ if secrets => an.raise_secret(DE, format!("`{base}` prints secret values")),
            "config" if a.long("--raw") => {
                an.raise_secret(DE, format!("`{base} config view --raw` prints credentials"))
            }
            "config"
                if matches!(words.get(1), Some(&("view" | "get-contexts" | "current-context" | "get-clusters"))) =>
            {
                ro(an, format!("`{base} config view` only reports"))
            }
            "auth" if matches!(words.get(1), Some(&("can-i" | "whoami"))) => {
                ro(an, format!("`{base} auth can-i` only checks"))
            }
            "get" | "describe" | "logs" | "top" | "version" | "cluster-info" | "api-resources" | "api-versions"
            | "explain" | "events" | "diff" => ro(an, format!("`{base} {verb}` only reports")),
            "delete" => an.raise(DE, format!("`{base} delete` removes cluster objects")),
            // A forced replace deletes the object and creates it again: a claim's volume goes with it.
            "replace" if a.long("--force") || a.all.iter().any(|w| w.shown() == "--force=true") => {
                an.raise(DE, format!("`{base} replace --force` deletes and recreates the objects"))
            }
            // A `NoExecute` taint evicts every pod that does not tolerate it.
            "taint" if a.all.iter().any(|w| w.shown().ends_with(":NoExecute")) => {
                an.raise(DE, format!("`{base} taint …:NoExecute` evicts the node's pods"))
            }
            // A volume whose reclaim policy is `Delete` is deleted with its claim.
            "patch" | "set"
                if a.all.iter().any(|w| {
                    let t = w.shown().to_ascii_lowercase();
                    t.contains("reclaimpolicy") && t.contains("delete")
                }) =>
            {
                an.raise(DE, format!("`{base} {verb}` makes volumes deleted with their claims"))
            }
            "exec" => {
                let dashes = a.all.iter().position(|x| x.as_static() == Some("--"));
                if dashes.is_some_and(|d| a.all.get(d + 1).is_some_and(|w| is_environment_printer(w.shown()))) {
                    an.raise_secret(DE, format!("`{base} exec … env` prints the pod's environment, its secrets too"));
                }
                match dashes {
                    Some(d) if d > i && d + 1 < a.all.len() => an.run(a.tail_from(d + 1), stdin),
                    _ => an.raise(CM, format!("`{base} exec` without a command")),
                }
            }
            _ => an.raise(CM, format!("`{base} {verb}` changes the cluster")),
        }
    }
}

/// Where kubectl's command word may be: after its global flags, read exactly (only they may come
/// before it). An unknown flag may take a value, so both readings are given.
fn kubectl_verbs<'a>(an: &mut Analysis<'_>, base: &str, a: &Args<'a>) -> Vec<(usize, &'a str)> {
    #[rustfmt::skip]
    const VALUED: &[&str] = &[
        "--as", "--as-group", "--as-uid", "--cache-dir", "--certificate-authority", "--client-certificate",
        "--client-key", "--cluster", "--context", "--kubeconfig", "--log-backtrace-at", "--log-dir", "--log-file",
        "--log-file-max-size", "--log-flush-frequency", "-n", "--namespace", "--password", "--profile",
        "--profile-output", "--request-timeout", "-s", "--server", "--stderrthreshold", "--tls-server-name", "--token",
        "--user", "--username", "-v", "--v", "--vmodule",
    ];
    #[rustfmt::skip]
    const FLAGS: &[&str] = &[
        "--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors", "--disable-compression",
        "--add-dir-header", "--alsologtostderr", "--logtostderr", "--one-output", "--skip-headers",
        "--skip-log-headers", "-h", "--help",
    ];
    let mut out = Vec::new();
    let mut starts = vec![0];
    while let Some(mut i) = starts.pop() {
        while let Some(arg) = a.all.get(i) {
            match arg.as_static() {
                Some("--") => break,
                Some(w) if w.starts_with('-') && w.len() > 1 => {
                    let name = w.split('=').next().unwrap_or(w);
                    if w.contains('=') || FLAGS.contains(&name) {
                        i += 1;
                    } else if VALUED.contains(&name) {
                        i += 2;
                    } else {
                        an.raise(CM, format!("`{base} {w}` is not a flag known to be safe"));
                        if starts.is_empty() && out.is_empty() {
                            starts.push(i + 2);
                        }
                        i += 1;
                    }
                }
                Some(verb) => {
                    out.push((i, verb));
                    break;
                }
                None => {
                    an.raise(CM, format!("`{base}` runs a command computed at run time"));
                    break;
                }
            }
        }
    }
    out
}
