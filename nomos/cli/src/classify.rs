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

pub fn assent() -> Outcome {
    per_line(|m| Judged {
        message: m.to_string(),
        assent: policy::is_assent(m),
        typed_confirmation: policy::is_typed_confirmation(m),
    })
}
