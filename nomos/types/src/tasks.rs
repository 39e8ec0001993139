//! A task as the operator reads it: its plan, questions, conversation, tool calls, executions,
//! what it wrote and touched; and the task board. The engine fills these, the CLI prints them and
//! the desktop shows them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{string_enum, EntityRef, ExecutionStatus, KnowledgeSummary, Task, TaskStatus, UnknownValue};

string_enum!(
    /// Who wrote a message.
    Role {
        System => "system",
        User => "user",
        Assistant => "assistant",
        Tool => "tool",
    }
);

/// A call the model asked for. `arguments` is the JSON text exactly as the model wrote it: it is
/// parsed and checked against the tool's schema before anything runs, never repaired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id, or one the client assigned when the provider gave none (unique within
    /// a task's history).
    pub id: String,
    pub name: String,
    pub arguments: String,
}

string_enum!(
    /// Where a tool call is: committed (`pending`), begun (`started`), or answered one way or
    /// another.
    CallState {
        Pending => "pending",
        Started => "started",
        Completed => "completed",
        Interrupted => "interrupted",
        Skipped => "skipped",
    }
);

string_enum!(
    /// Where a plan step is. The agent moves it (`update_plan_step`); `done`, `failed` and
    /// `skipped` are ends.
    #[derive(schemars::JsonSchema)]
    StepStatus {
        Pending => "pending",
        Running => "running",
        Done => "done",
        Failed => "failed",
        Skipped => "skipped",
        Blocked => "blocked",
    }
);

impl StepStatus {
    /// Done, failed or skipped: the step has finished.
    pub fn is_end(self) -> bool {
        matches!(self, StepStatus::Done | StepStatus::Failed | StepStatus::Skipped)
    }
}

string_enum!(
    /// A question to the operator: open until their next message answers it. (The schema also
    /// allows `dismissed`, which nothing writes today.)
    QuestionStatus {
        Open => "open",
        Answered => "answered",
        Dismissed => "dismissed",
    }
);

/// One recorded tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallRecord {
    pub message_id: i64,
    pub turn_id: Option<String>,
    pub seq: i64,
    pub call: ToolCall,
    pub state: CallState,
    pub result: Option<String>,
    pub is_error: bool,
    pub execution_id: Option<String>,
}

/// One transcript message as the operator reads it back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageRecord {
    pub id: i64,
    pub role: Role,
    pub content: String,
    pub turn_id: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanStep {
    pub seq: i64,
    pub title: String,
    pub detail: String,
    pub status: StepStatus,
    pub execution_id: Option<String>,
    pub target: Option<String>,
    /// The shell command the step runs, when it runs one.
    #[serde(default)]
    pub command: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    pub prompt: String,
    pub options: Vec<String>,
    pub status: QuestionStatus,
    pub answer: Option<String>,
    pub created_at: String,
}

/// An execution a task asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskExecution {
    pub id: String,
    pub target: String,
    pub command: String,
    pub status: ExecutionStatus,
    pub exit_code: Option<i64>,
}

/// Everything about a task, for `nomos tasks show` and the task view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDetail {
    #[serde(flatten)]
    pub task: Task,
    pub plan: Vec<PlanStep>,
    pub questions: Vec<Question>,
    pub messages: Vec<MessageRecord>,
    pub tool_calls: Vec<CallRecord>,
    pub executions: Vec<TaskExecution>,
    /// The notes the task wrote.
    #[serde(default)]
    pub knowledge: Vec<KnowledgeSummary>,
    /// The entities Nomos named in the task's tool calls, first touched first.
    #[serde(default)]
    pub entities: Vec<EntityRef>,
}

/// The board's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardColumn {
    Working,
    /// Waiting for the operator (a plan, a question, an approval).
    NeedsYou,
    Done,
    /// Failed or cancelled.
    Failed,
}

impl BoardColumn {
    pub const ALL: &'static [BoardColumn] =
        &[BoardColumn::Working, BoardColumn::NeedsYou, BoardColumn::Done, BoardColumn::Failed];

    /// The column a task stands in: a task that ended reporting failure is `Failed` (a partial
    /// success is `Done`; its summary says what is left).
    pub fn of(task: &Task) -> BoardColumn {
        match task.status {
            TaskStatus::Working => BoardColumn::Working,
            TaskStatus::Waiting => BoardColumn::NeedsYou,
            TaskStatus::Done if task.outcome == Some(crate::TaskOutcome::Failure) => BoardColumn::Failed,
            TaskStatus::Done => BoardColumn::Done,
            TaskStatus::Failed | TaskStatus::Cancelled => BoardColumn::Failed,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            BoardColumn::Working => "working",
            BoardColumn::NeedsYou => "needs_you",
            BoardColumn::Done => "done",
            BoardColumn::Failed => "failed",
        }
    }
}

/// How many tasks stand in each column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardCounts {
    pub working: u32,
    pub needs_you: u32,
    pub done: u32,
    pub failed: u32,
}

impl BoardCounts {
    pub fn of(tasks: &[Task]) -> BoardCounts {
        let mut c = BoardCounts::default();
        for t in tasks {
            *c.get_mut(BoardColumn::of(t)) += 1;
        }
        c
    }

    pub fn get(&self, column: BoardColumn) -> u32 {
        match column {
            BoardColumn::Working => self.working,
            BoardColumn::NeedsYou => self.needs_you,
            BoardColumn::Done => self.done,
            BoardColumn::Failed => self.failed,
        }
    }

    fn get_mut(&mut self, column: BoardColumn) -> &mut u32 {
        match column {
            BoardColumn::Working => &mut self.working,
            BoardColumn::NeedsYou => &mut self.needs_you,
            BoardColumn::Done => &mut self.done,
            BoardColumn::Failed => &mut self.failed,
        }
    }
}

/// The task board: tasks, most recently active first, and the count in each column.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskBoard {
    pub tasks: Vec<Task>,
    pub counts: BoardCounts,
}

/// A turn started from the desktop: the task it belongs to. Its progress arrives as events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnStarted {
    pub task_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{TaskOutcome, WaitingFor};

    fn task(status: TaskStatus, outcome: Option<TaskOutcome>) -> Task {
        Task {
            id: "t".into(),
            title: "t".into(),
            goal: String::new(),
            status,
            waiting_for: (status == TaskStatus::Waiting).then_some(WaitingFor::Plan),
            outcome,
            summary: String::new(),
            entity_slug: None,
            completion_nudges: 0,
            created_at: String::new(),
            updated_at: String::new(),
            last_active_at: String::new(),
            driver: None,
        }
    }

    #[test]
    fn every_task_stands_in_one_column_and_is_counted_there() {
        let tasks = [
            task(TaskStatus::Working, None),
            task(TaskStatus::Waiting, None),
            task(TaskStatus::Waiting, None),
            task(TaskStatus::Done, Some(TaskOutcome::Success)),
            task(TaskStatus::Done, Some(TaskOutcome::Partial)),
            task(TaskStatus::Done, Some(TaskOutcome::Failure)),
            task(TaskStatus::Failed, None),
            task(TaskStatus::Cancelled, None),
        ];
        let c = BoardCounts::of(&tasks);
        assert_eq!(c, BoardCounts { working: 1, needs_you: 2, done: 2, failed: 3 });
        let total: u32 = BoardColumn::ALL.iter().map(|col| c.get(*col)).sum();
        assert_eq!(total as usize, tasks.len());
    }

    #[test]
    fn the_detail_reads_back_what_it_wrote() {
        let d = TaskDetail {
            task: task(TaskStatus::Waiting, None),
            plan: vec![PlanStep {
                seq: 1,
                title: "restart".into(),
                detail: String::new(),
                status: StepStatus::Pending,
                execution_id: None,
                target: Some("lxc:caddy".into()),
                command: Some("pct exec 101 -- systemctl restart caddy".into()),
            }],
            questions: Vec::new(),
            messages: vec![MessageRecord {
                id: 1,
                role: Role::User,
                content: "hi".into(),
                turn_id: None,
                created_at: "c".into(),
            }],
            tool_calls: Vec::new(),
            executions: Vec::new(),
            knowledge: Vec::new(),
            entities: Vec::new(),
        };
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["status"], "waiting", "the task's fields are flattened");
        assert_eq!(v["messages"][0]["role"], "user");
        assert_eq!(v["plan"][0]["status"], "pending");
        assert_eq!(serde_json::from_value::<TaskDetail>(v).unwrap(), d);
    }

    #[test]
    fn statuses_keep_their_wire_spelling() {
        fn check<T>(all: &[T], spelled: &[&str])
        where
            T: Copy + PartialEq + std::fmt::Debug + Serialize + for<'de> Deserialize<'de> + FromStr + fmt::Display,
            <T as FromStr>::Err: std::fmt::Debug,
        {
            let wire: Vec<String> = all.iter().map(|s| s.to_string()).collect();
            assert_eq!(wire, spelled);
            for (s, text) in all.iter().zip(spelled) {
                assert_eq!(serde_json::to_value(s).unwrap(), *text);
                assert_eq!(serde_json::from_value::<T>(serde_json::json!(text)).unwrap(), *s);
                assert_eq!(text.parse::<T>().unwrap(), *s);
            }
        }
        check(Role::ALL, &["system", "user", "assistant", "tool"]);
        check(CallState::ALL, &["pending", "started", "completed", "interrupted", "skipped"]);
        check(StepStatus::ALL, &["pending", "running", "done", "failed", "skipped", "blocked"]);
        check(QuestionStatus::ALL, &["open", "answered", "dismissed"]);
        assert!("finished".parse::<StepStatus>().is_err());
        let schema = serde_json::to_value(schemars::schema_for!(StepStatus)).unwrap();
        assert_eq!(schema["enum"], serde_json::json!(["pending", "running", "done", "failed", "skipped", "blocked"]));
    }
}
