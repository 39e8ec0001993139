//! The knowledge tools: `search_knowledge`, `get_knowledge`, `upsert_knowledge`. What Nomos
//! writes is authored by the agent and linked to its task (`produced-by`).

use nomos_types::{Author, KnowledgeInput, KnowledgeKind};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value as Json};

use super::args::schema_of;
use super::{Tool, ToolContext, ToolFuture, ToolResult, AGENT};

pub(super) fn tools() -> Vec<Box<dyn Tool>> {
    vec![Box::new(SearchKnowledge), Box::new(GetKnowledge), Box::new(UpsertKnowledge)]
}

/// The arguments of `search_knowledge`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words to look for (all must match; a trailing `*` matches a prefix).
    query: String,
    /// How many hits (default 10, at most 50).
    #[schemars(range(min = 1, max = 50))]
    limit: Option<u32>,
}

struct SearchKnowledge;

impl Tool for SearchKnowledge {
    fn name(&self) -> &'static str {
        "search_knowledge"
    }

    fn description(&self) -> &'static str {
        "Full-text search of the knowledge base (runbooks, investigations, documents), best match first: \
         each hit's slug, kind, title and a snippet. Search before acting; read a note whole with \
         get_knowledge."
    }

    fn parameters(&self) -> Json {
        schema_of::<SearchArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: SearchArgs = parsed!(args);
            let hits = engine!(ctx.engine.search_knowledge(&a.query, a.limit.unwrap_or(10).min(50)).await);
            let mut text = format!("{} notes match\n", hits.len());
            for h in &hits {
                let s = &h.summary;
                text.push_str(&format!(
                    "{} ({}, by {}, {}): {} — {}\n",
                    s.slug,
                    s.kind,
                    s.author,
                    s.updated_at,
                    s.title,
                    plain(&h.snippet)
                ));
            }
            ToolResult::ok(text)
        })
    }
}

/// A snippet's HTML (escaped text with `<b>` around matches) as plain text.
fn plain(snippet: &str) -> String {
    snippet
        .replace("<b>", "")
        .replace("</b>", "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The arguments of `get_knowledge`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GetArgs {
    /// The note's slug (from search_knowledge or get_entity).
    slug: String,
}

struct GetKnowledge;

impl Tool for GetKnowledge {
    fn name(&self) -> &'static str {
        "get_knowledge"
    }

    fn description(&self) -> &'static str {
        "One knowledge note whole: kind, title, author, the entities it documents, and its Markdown body."
    }

    fn parameters(&self) -> Json {
        schema_of::<GetArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        true
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: GetArgs = parsed!(args);
            let doc = engine!(ctx.engine.knowledge(&a.slug).await);
            // Counted on the Learning page: which notes tasks read, and how those tasks ended.
            if let Err(e) = ctx.engine.record_recall(&doc.summary.slug, ctx.task_id).await {
                tracing::warn!("recall not recorded: {e}");
            }
            let about: Vec<&str> = doc.about.iter().map(|e| &*e.slug).collect();
            let s = &doc.summary;
            ToolResult::ok(format!(
                "{} ({}, by {}, updated {})\ntitle: {}\nabout: {}\n\n{}",
                s.slug,
                s.kind,
                s.author,
                s.updated_at,
                s.title,
                if about.is_empty() { "-".to_string() } else { about.join(", ") },
                doc.content
            ))
        })
    }
}

/// One slug or several.
#[derive(Deserialize, JsonSchema)]
#[serde(untagged)]
enum Slugs {
    One(String),
    Many(Vec<String>),
}

/// The arguments of `upsert_knowledge`.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpsertArgs {
    /// `investigation` (default), `runbook` or `document`.
    kind: Option<KnowledgeKind>,
    /// Identifies the note with its kind: the same title again updates it.
    title: String,
    /// Markdown.
    content: String,
    /// The entity slug(s) the note is about.
    about: Option<Slugs>,
}

struct UpsertKnowledge;

impl Tool for UpsertKnowledge {
    fn name(&self) -> &'static str {
        "upsert_knowledge"
    }

    fn description(&self) -> &'static str {
        "Write what you learned to the knowledge base: a finding, a runbook that worked, a reference. The \
         same kind and title again updates the note. Link it to the entities it is about. Returns the note's \
         slug and whether it was new."
    }

    fn parameters(&self) -> Json {
        schema_of::<UpsertArgs>()
    }

    fn is_read_only(&self, _args: &Json) -> bool {
        false
    }

    fn call<'a>(&'a self, ctx: &'a ToolContext<'a>, args: Json) -> ToolFuture<'a> {
        Box::pin(async move {
            let a: UpsertArgs = parsed!(args);
            let task = engine!(ctx.engine.task(ctx.task_id).await);
            let about = match a.about {
                None => Vec::new(),
                Some(Slugs::One(s)) => vec![s],
                Some(Slugs::Many(v)) => v,
            };
            let input = KnowledgeInput {
                kind: a.kind.unwrap_or(KnowledgeKind::Investigation),
                title: a.title,
                content: a.content,
                source: task.entity_slug.clone().unwrap_or_else(|| AGENT.to_string()),
                author: Author::Agent,
                tags: Vec::new(),
                about,
            };
            let out = engine!(ctx.engine.upsert_knowledge(&input).await);
            let slug = out.doc.summary.slug.clone();
            if let Some(task_slug) = &task.entity_slug {
                engine!(ctx.engine.create_relationship("produced-by", &slug, task_slug, &json!({})).await);
            }
            let about: Vec<&str> = out.doc.about.iter().map(|e| &*e.slug).collect();
            ToolResult::ok(format!(
                "{} note {slug} ({}){}",
                if out.created { "wrote new" } else { "updated" },
                out.doc.summary.kind,
                if about.is_empty() { String::new() } else { format!(" about {}", about.join(", ")) }
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::tools::args;

    #[test]
    fn snippets_read_as_plain_text() {
        assert_eq!(plain("a <b>caddy</b> &lt;x&gt; &amp;amp; &quot;q&quot;"), "a caddy <x> &amp; \"q\"");
    }

    #[test]
    fn about_takes_one_slug_or_several() {
        let s = UpsertKnowledge.parameters();
        args::check(&s, &json!({"title": "t", "content": "c", "about": "host:pve1"})).unwrap();
        args::check(&s, &json!({"title": "t", "content": "c", "about": ["host:pve1", "lxc:caddy"]})).unwrap();
        assert!(args::check(&s, &json!({"title": "t", "content": "c", "about": 5})).is_err());
        assert!(args::check(&s, &json!({"title": "t", "content": "c", "kind": "note"}))
            .unwrap_err()
            .starts_with("`kind`"));
    }
}
