//! `nomos classify` and `nomos assent`: the gate's judgement, without a database.

use clap::Args;
use nomos::policy::{self, Risk};
use nomos::PolicySource;
use serde::Serialize;

use crate::exit::{Exit, Outcome};
use crate::out::{line, parse_enum, per_line};

/// `nomos classify …`
#[derive(Args, Debug)]
pub struct ClassifyArgs {
    /// What the caller declares the command to be; can only raise the result
    #[arg(long, value_parser = parse_enum::<Risk>)]
    declared: Option<Risk>,
    /// The command (words are joined with spaces); without it, commands are read from stdin
    #[arg(last = true)]
    command: Vec<String>,
}

/// `nomos assent …`
#[derive(Args, Debug)]
pub struct AssentArgs {
    /// Judge against a proposal on this target (its slug, e.g. lxc:caddy): a reply may then name
    /// it, and a typed confirmation must be `confirm [VERB] TARGET` for it. Repeat for a proposal
    /// of several steps, one per step (with as many --command, paired in order). Without it, a
    /// typed confirmation is that form with a slug or a Proxmox id (never a free word)
    #[arg(long, value_name = "SLUG")]
    target: Vec<String>,
    /// The target's name, which a reply may use instead of the slug; with several targets, one
    /// per target in order
    #[arg(long, requires = "target")]
    name: Vec<String>,
    /// The target's Proxmox id, which a reply may use instead of the slug; with several targets,
    /// one per target in order
    #[arg(long, value_name = "N", requires = "target")]
    id: Vec<u64>,
    /// A command of the proposal, one per step (repeat for several). A reply that names actions
    /// must name the proposal's (its programs and sub-commands, never its paths or names), and a
    /// confirmation's verb its step's most destructive one. With one --target, every command is
    /// on it
    #[arg(long, value_name = "CMD")]
    command: Vec<String>,
}

/// `nomos classify` output, fields in the documented order.
#[derive(Serialize)]
struct Classified {
    command: String,
    risk: Risk,
    reasons: Vec<String>,
}

/// `nomos assent` output, fields in the documented order.
#[derive(Serialize)]
struct Judged {
    message: String,
    assent: bool,
    typed_confirmation: bool,
    /// The steps the reply approves (all on assent; on a typed confirmation, those it names).
    covers: Vec<Covered>,
}

/// One step a reply approves: its number (from 1), target and command as given.
#[derive(Serialize)]
struct Covered {
    step: usize,
    target: Option<String>,
    command: Option<String>,
}

pub fn classify(args: ClassifyArgs) -> Outcome {
    // The same policy the runtime of a gate command would load.
    let policy = PolicySource::Operator.load().map_err(|e| e.to_string())?;
    let judge = |c: &str| {
        let v = policy.classify(c, args.declared);
        Classified { command: c.to_string(), risk: v.risk, reasons: v.reasons }
    };
    if args.command.is_empty() {
        per_line(judge)
    } else {
        line(&serde_json::to_string(&judge(&args.command.join(" ")))?);
        Ok(Exit::Ok)
    }
}

pub fn assent(args: AssentArgs) -> Outcome {
    let (targets, commands) = (&args.target, &args.command);
    for (flag, n) in [("--name", args.name.len()), ("--id", args.id.len())] {
        if n > 0 && n != targets.len() {
            eprintln!("nomos: error: {n} {flag} for {} --target: give one per target, in order", targets.len());
            return Ok(Exit::Usage);
        }
    }
    // The proposal's steps: targets and commands paired in order, or one target for every command.
    let pairs: Vec<(Option<&String>, Option<&String>)> = match (targets.len(), commands.len()) {
        (_, 0) => targets.iter().map(|t| (Some(t), None)).collect(),
        (0, _) => commands.iter().map(|c| (None, Some(c))).collect(),
        (1, _) => commands.iter().map(|c| (targets.first(), Some(c))).collect(),
        (t, c) if t == c => targets.iter().zip(commands).map(|(t, c)| (Some(t), Some(c))).collect(),
        (t, c) => {
            eprintln!("nomos: error: {t} --target and {c} --command do not pair: give one target, or one per command");
            return Ok(Exit::Usage);
        }
    };
    // A target's name and id, by its place among the targets.
    let described = |slug: &String| {
        let at = targets.iter().position(|t| t == slug).unwrap_or_default();
        policy::ConfirmTarget::new(slug.as_str())
            .with_name(args.name.get(at).cloned().unwrap_or_default())
            .with_pve_id(args.id.get(at).copied())
    };
    let steps = pairs
        .iter()
        .map(|(slug, command)| {
            let target = slug.map(described);
            policy::Step::new(target, command.map(String::as_str))
        })
        .collect();
    let proposal = policy::Proposal::new(steps);
    per_line(|m| {
        let judged = policy::judge_reply(m, &proposal);
        let typed = if pairs.is_empty() { policy::is_typed_confirmation(m) } else { judged.typed_confirmation };
        let covers = judged
            .covers
            .iter()
            .filter_map(|i| {
                pairs.get(*i).map(|(t, c)| Covered { step: i + 1, target: t.cloned(), command: c.cloned() })
            })
            .collect();
        Judged { message: m.to_string(), assent: judged.assent, typed_confirmation: typed, covers }
    })
}
