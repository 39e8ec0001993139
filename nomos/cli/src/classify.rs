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
    /// Judge against this target (its slug, e.g. lxc:caddy): assent may then name it, and a typed
    /// confirmation must be `confirm [VERB] TARGET` for it. Without it, a typed confirmation is
    /// that form with a slug, an id or a name-shaped word (never a time, place, manner or person
    /// word such as `monday`, `below`, `manually`, `myself`; see the README)
    #[arg(long, value_name = "SLUG")]
    target: Option<String>,
    /// The target's name, which a confirmation may use instead of the slug
    #[arg(long, requires = "target")]
    name: Option<String>,
    /// The target's Proxmox id, which a confirmation may use instead of the slug
    #[arg(long, value_name = "N", requires = "target")]
    id: Option<u64>,
    /// The command to be approved: a confirmation's verb must be one the command names (destroy,
    /// stop, wipe, …). Without it, any verb of that list
    #[arg(long, value_name = "CMD", requires = "target")]
    command: Option<String>,
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
    let target = args.target.map(|slug| {
        let t = policy::ConfirmTarget::new(slug).with_name(args.name.unwrap_or_default()).with_pve_id(args.id);
        match &args.command {
            Some(command) => t.for_command(command),
            None => t,
        }
    });
    per_line(|m| Judged {
        message: m.to_string(),
        assent: target.as_ref().map_or_else(|| policy::is_assent(m), |t| policy::is_assent_to(m, t)),
        typed_confirmation: target
            .as_ref()
            .map_or_else(|| policy::is_typed_confirmation(m), |t| policy::typed_confirmation(m, t)),
    })
}
