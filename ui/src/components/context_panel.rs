//! The task view's live context: goal, plan with step states and progress, the open question with
//! its options and free text, the entities the task touches as a small graph (those its latest
//! tool call touched highlighted), and the outcome with its summary and the knowledge written.

use leptos::prelude::*;
use leptos_router::components::A;
use nomos_types::tasks::{PlanStep, Question, QuestionStatus, StepStatus, TaskDetail};
use nomos_types::{IpcError, WaitingFor};

use crate::task_feed::use_task_feed;
use crate::{ipc, routes};

/// How many plan steps are done, of how many that count (skipped ones do not).
pub fn progress(plan: &[PlanStep]) -> (usize, usize) {
    let counted = plan.iter().filter(|s| s.status != StepStatus::Skipped).count();
    (plan.iter().filter(|s| s.status == StepStatus::Done).count(), counted)
}

/// Places for `n` nodes on a circle around the centre of a `size`×`size` square, the first at
/// the top, clockwise. Deterministic, so the picture does not jump as the task re-reads.
pub fn ring(n: usize, size: f64) -> Vec<(f64, f64)> {
    let c = size / 2.0;
    let r = size * 0.36;
    (0..n)
        .map(|i| {
            let a = std::f64::consts::TAU * (i as f64) / (n.max(1) as f64) - std::f64::consts::FRAC_PI_2;
            (c + r * a.cos(), c + r * a.sin())
        })
        .collect()
}

/// `text` cut to at most `max` characters, an ellipsis marking the cut (for labels in the small
/// graph, where the whole text is in the node's tooltip).
pub fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// What the operator has under way in a task's view: typed text and the last failed command.
/// Owned by the page, so a re-read of the task (on every event) keeps a half-written reply; a new
/// one is made per task.
#[derive(Clone, Copy, PartialEq, Default)]
pub struct OperatorInput {
    pub error: RwSignal<Option<IpcError>>,
    pub reply: RwSignal<String>,
    pub answer: RwSignal<String>,
}

#[component]
pub fn ContextPanel(detail: TaskDetail, input: OperatorInput) -> impl IntoView {
    let t = &detail.task;
    let id = t.id.clone();
    let plan_waiting = t.waiting_for == Some(WaitingFor::Plan);
    let open_question = detail.questions.iter().rev().find(|q| q.status == QuestionStatus::Open).cloned();
    let ended = t.status.is_end();
    view! {
        <aside class="context" aria-label="Task context" data-testid="context-panel">
            <h3>"Goal"</h3>
            <p data-testid="ctx-goal">{if t.goal.is_empty() { t.title.clone() } else { t.goal.clone() }}</p>
            <Plan plan=detail.plan.clone() id=id.clone() waiting=plan_waiting input=input />
            {open_question.map(|q| view! { <OpenQuestion question=q id=id.clone() input=input /> })}
            <h3>"Entities"</h3>
            <EntityGraph
                id=id.clone()
                title=t.title.clone()
                entities=detail.entities.iter().map(|e| e.slug.to_string()).collect()
            />
            {ended.then(|| view! { <Outcome detail=detail.clone() /> })}
        </aside>
    }
}

#[component]
fn Plan(plan: Vec<PlanStep>, id: String, waiting: bool, input: OperatorInput) -> impl IntoView {
    if plan.is_empty() {
        return view! { <h3>"Plan"</h3> <p class="muted" data-testid="ctx-no-plan">"No plan yet."</p> }.into_any();
    }
    let (done, of) = progress(&plan);
    let pct = (done * 100).checked_div(of).unwrap_or(0);
    let steps = plan
        .into_iter()
        .map(|s| {
            let target = s.target.clone();
            let command = s.command.clone();
            view! {
                <li class=format!("step step-{}", s.status) data-testid="plan-step" data-status=s.status.as_str()>
                    <span class="step-state">{s.status.as_str()}</span>
                    <span class="step-title">{s.title}</span>
                    {target.map(|t| view! { <A href=routes::entity(&t) attr:class="link">{t.clone()}</A> })}
                    {command.map(|c| view! { <code class="step-command" data-testid="plan-step-command">{c}</code> })}
                </li>
            }
        })
        .collect_view();
    let approving = RwSignal::new(false);
    let approve = move |_| {
        approving.set(true);
        input.error.set(None);
        let id = id.clone();
        leptos::task::spawn_local(async move {
            if let Err(e) = ipc::approve_task_plan(id).await {
                input.error.set(Some(e));
                approving.set(false);
            }
        });
    };
    view! {
        <h3>"Plan " <span class="muted" data-testid="plan-progress">{format!("{done}/{of}")}</span></h3>
        <div class="progress"><div class="bar" style=format!("width: {pct}%")></div></div>
        <ol class="plan" data-testid="ctx-plan">{steps}</ol>
        {waiting.then(|| view! {
            <button class="primary" data-testid="approve-plan" disabled=move || approving.get() on:click=approve>
                "Approve plan"
            </button>
        })}
    }
    .into_any()
}

#[component]
fn OpenQuestion(question: Question, id: String, input: OperatorInput) -> impl IntoView {
    // One answer at a time: a second click while the first is sent would be a second message.
    let sending = RwSignal::new(false);
    let answer_with = move |text: String| {
        if sending.get_untracked() {
            return;
        }
        sending.set(true);
        input.error.set(None);
        let id = id.clone();
        leptos::task::spawn_local(async move {
            if let Err(e) = ipc::send_task_message(id, text).await {
                input.error.set(Some(e));
                sending.try_set(false);
            }
        });
    };
    let free = input.answer;
    let answer_free = answer_with.clone();
    let options = question
        .options
        .into_iter()
        .map(|o| {
            let answer_with = answer_with.clone();
            let text = o.clone();
            view! { <button
                class="option"
                data-testid="question-option"
                disabled=move || sending.get()
                on:click=move |_| answer_with(text.clone())
            >
                {o}
            </button> }
        })
        .collect_view();
    view! {
        <h3>"Nomos asks"</h3>
        <div class="question" data-testid="ctx-question">
            <p>{question.prompt}</p>
            <div class="options">{options}</div>
            <form on:submit=move |ev| {
                ev.prevent_default();
                let text = free.get_untracked().trim().to_string();
                if !text.is_empty() {
                    free.set(String::new());
                    answer_free(text);
                }
            }>
                <input
                    type="text"
                    placeholder="Or answer in your words"
                    aria-label="Answer"
                    data-testid="question-answer"
                    bind:value=free
                />
            </form>
        </div>
    }
}

/// The task at the centre (labelled with its title), the entities it touched around it; those of
/// its latest call glow (`data-hot`).
#[component]
fn EntityGraph(id: String, title: String, entities: Vec<String>) -> impl IntoView {
    const SIZE: f64 = 240.0;
    let feed = use_task_feed();
    let task = id.clone();
    // Stored ones, then those touched since the last read (the next read includes them).
    let all = Memo::new(move |_| {
        let mut all = entities.clone();
        feed.touches.with(|t| {
            for s in t.of(&task) {
                if !all.contains(s) {
                    all.push(s.clone());
                }
            }
        });
        all
    });
    move || {
        let slugs = all.get();
        if slugs.is_empty() {
            return view! { <p class="muted" data-testid="ctx-no-entities">"None touched yet."</p> }.into_any();
        }
        let c = SIZE / 2.0;
        let nodes = ring(slugs.len(), SIZE)
            .into_iter()
            .zip(slugs)
            .map(|((x, y), slug)| {
                let id = id.clone();
                let hot_slug = slug.clone();
                let hot = move || feed.touches.with(|t| t.is_hot(&id, &hot_slug));
                let name = slug.split_once(':').map_or(slug.as_str(), |(_, n)| n).to_string();
                view! {
                    <line x1=c y1=c x2=x y2=y class="edge" />
                    <g
                        class="node"
                        class:hot=hot.clone()
                        data-testid="ctx-entity"
                        data-slug=slug.clone()
                        data-hot=move || hot().to_string()
                    >
                        <title>{slug.clone()}</title>
                        <circle cx=x cy=y r="9" />
                        <text x=x y=y + 22.0 text-anchor="middle">{name}</text>
                    </g>
                }
            })
            .collect_view();
        view! {
            <svg class="entity-graph" viewBox=format!("0 0 {SIZE} {SIZE}") role="img" aria-label="Entities this task touched">
                {nodes}
                <g class="task-centre" data-testid="ctx-task-node">
                    <title>{title.clone()}</title>
                    <circle cx=c cy=c r="12" class="task-node" />
                    <text x=c y=c + 26.0 text-anchor="middle" class="task-label">{shorten(&title, 24)}</text>
                </g>
            </svg>
        }
        .into_any()
    }
}

#[component]
fn Outcome(detail: TaskDetail) -> impl IntoView {
    let t = detail.task;
    let knowledge = detail
        .knowledge
        .into_iter()
        .map(
            |k| view! { <li data-testid="ctx-knowledge"><span class="badge">{k.kind.to_string()}</span>{k.title}</li> },
        )
        .collect_view();
    view! {
        <h3>"Outcome"</h3>
        <div class="outcome" data-testid="ctx-outcome">
            <p>
                <strong>{t.outcome.map(|o| o.to_string()).unwrap_or_else(|| t.status.to_string())}</strong>
            </p>
            {(!t.summary.is_empty()).then(|| view! { <p data-testid="ctx-summary">{t.summary.clone()}</p> })}
            <ul class="knowledge">{knowledge}</ul>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(status: StepStatus) -> PlanStep {
        PlanStep {
            seq: 1,
            title: "s".into(),
            detail: String::new(),
            status,
            execution_id: None,
            target: None,
            command: None,
        }
    }

    #[test]
    fn progress_counts_done_of_the_steps_that_count() {
        assert_eq!(progress(&[]), (0, 0));
        use StepStatus::{Done, Pending, Running, Skipped};
        let plan = [step(Done), step(Running), step(Skipped), step(Pending), step(Done)];
        assert_eq!(progress(&plan), (2, 4));
    }

    #[test]
    fn labels_are_shortened_with_an_ellipsis() {
        assert_eq!(shorten("Tidy the backups", 24), "Tidy the backups");
        assert_eq!(shorten("Remove the scratch dirs on pve1 and pve2", 24), "Remove the scratch dirs…");
        assert_eq!(shorten("Remove the scratch dirs on pve1 and pve2", 24).chars().count(), 24);
        assert_eq!(shorten("äöü äöü", 4), "äöü…");
        assert_eq!(shorten("", 4), "");
    }

    #[test]
    fn the_ring_starts_at_the_top_and_stays_inside() {
        let points = ring(4, 200.0);
        assert_eq!(points.len(), 4);
        assert!((points[0].0 - 100.0).abs() < 1e-9 && points[0].1 < 100.0, "{points:?}");
        assert!(points[1].0 > 100.0, "clockwise: {points:?}");
        for (x, y) in ring(9, 200.0) {
            assert!((0.0..=200.0).contains(&x) && (0.0..=200.0).contains(&y));
        }
        assert_eq!(ring(3, 200.0), ring(3, 200.0));
    }
}
