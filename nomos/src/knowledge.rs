//! The knowledge base: markdown notes (investigations, documents, runbooks) with full-text search.
//!
//! Each note is also an entity of its kind's type (slug `runbook:<title>`), so it links into the graph
//! with `documents` (note → entity) and `produced-by` (note → task). `(kind, title)` identifies a
//! note, ignoring case: writing the same title again updates the note instead of adding a
//! near-duplicate. Search uses SQLite FTS5 (porter stemming, diacritics folded) ranked by bm25, with
//! snippets that are HTML-escaped text whose only markup is `<b>` around the matches.

use std::collections::BTreeMap;
use std::str::FromStr;

use nomos_types::events::KnowledgeUpserted;
use nomos_types::{
    Entity, EntityRef, Explain, KnowledgeDoc, KnowledgeInput, KnowledgeKind, KnowledgeStats, KnowledgeSummary,
    KnowledgeUpsert, SearchHit,
};
use serde_json::json;
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqliteConnection};

use crate::clock::format_ms;
use crate::events::EventDraft;
use crate::graph::entities::{
    entities_by_slugs, rename_entity_in, status_in, upsert_entity_in, Change, IfExists, NewEntity,
};
use crate::graph::relations::{link_in, relations_in, OnConflict};
use crate::graph::{find_entity, require_entity, slugify};
use crate::store::WriteTx;
use crate::{Engine, Error, Result};

/// Marks put around matches by FTS5, replaced by `<b>`/`</b>` after escaping. Private-use code
/// points: they cannot be confused with markup, and are removed from the text they could appear in.
const MARK_OPEN: char = '\u{E000}';
const MARK_CLOSE: char = '\u{E001}';
const SNIPPET_TOKENS: i32 = 24;
pub const MAX_TITLE: usize = 300;

const SUMMARY_COLUMNS: &str = "e.id, e.slug, k.kind, k.title, k.source, k.author, k.tags, k.created_at, k.updated_at";

fn summary_from_row(row: &SqliteRow) -> Result<KnowledgeSummary> {
    let kind: String = row.try_get("kind")?;
    let author: String = row.try_get("author")?;
    let tags: String = row.try_get("tags")?;
    Ok(KnowledgeSummary {
        id: row.try_get("id")?,
        slug: row.try_get("slug")?,
        kind: kind.parse().map_err(|e: nomos_types::UnknownValue| Error::Invalid(e.to_string()))?,
        title: row.try_get("title")?,
        source: row.try_get("source")?,
        author: author.parse().map_err(|e: nomos_types::UnknownValue| Error::Invalid(e.to_string()))?,
        tags: serde_json::from_str(&tags).unwrap_or_default(),
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
    })
}

/// Escapes text for HTML and turns the match marks into `<b>` tags, so the only markup in the result
/// is `<b>…</b>`.
pub fn render_snippet(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len() + 16);
    let mut open = false;
    for c in raw.chars() {
        match c {
            MARK_OPEN if !open => {
                out.push_str("<b>");
                open = true;
            }
            MARK_CLOSE if open => {
                out.push_str("</b>");
                open = false;
            }
            MARK_OPEN | MARK_CLOSE => {}
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    if open {
        out.push_str("</b>");
    }
    out
}

/// The snippet as plain text and its matches as `[start, end)` character ranges, for a view that
/// marks them without parsing HTML.
pub fn snippet_marks(raw: &str) -> (String, Vec<[u32; 2]>) {
    let mut text = String::with_capacity(raw.len());
    let mut marks = Vec::new();
    let mut at: u32 = 0;
    let mut open: Option<u32> = None;
    for c in raw.chars() {
        match c {
            MARK_OPEN if open.is_none() => open = Some(at),
            MARK_CLOSE => {
                if let Some(start) = open.take().filter(|s| *s < at) {
                    marks.push([start, at]);
                }
            }
            MARK_OPEN => {}
            c => {
                text.push(c);
                at += 1;
            }
        }
    }
    if let Some(start) = open.filter(|s| *s < at) {
        marks.push([start, at]);
    }
    (text, marks)
}

/// Turns what an operator types into a safe FTS5 query: every word becomes a quoted prefix term,
/// all of which must match. Operators and punctuation in the input are never FTS syntax.
pub fn fts_query(input: &str) -> Option<String> {
    let terms: Vec<String> = input
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(32)
        .map(|w| format!("\"{w}\"*"))
        .collect();
    (!terms.is_empty()).then(|| terms.join(" "))
}

fn clean(text: &str) -> String {
    text.chars().filter(|c| *c != MARK_OPEN && *c != MARK_CLOSE).collect()
}

fn normalise_tags(tags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = tags.iter().map(|t| clean(t.trim()).to_lowercase()).filter(|t| !t.is_empty()).collect();
    out.sort();
    out.dedup();
    out
}

/// A free entity slug for a new note: `<kind>:<slugified title>`, with `-2`, `-3`… on collision
/// (two titles can slugify alike: "Caddy: TLS" and "caddy tls").
async fn free_slug(conn: &mut SqliteConnection, kind: KnowledgeKind, title: &str) -> Result<String> {
    let mut base = slugify(title);
    if base.is_empty() {
        base = "note".into();
    }
    base.truncate(120);
    let base = format!("{}:{base}", kind.as_str());
    let taken: Vec<String> = sqlx::query_scalar("SELECT slug FROM entities WHERE slug = ?1 OR slug LIKE ?1 || '-%'")
        .bind(&base)
        .fetch_all(conn)
        .await?;
    if !taken.contains(&base) {
        return Ok(base);
    }
    let mut n = 2;
    loop {
        let candidate = format!("{base}-{n}");
        if !taken.contains(&candidate) {
            return Ok(candidate);
        }
        n += 1;
    }
}

async fn about_of(conn: &mut SqliteConnection, entity_id: &str) -> Result<Vec<EntityRef>> {
    let rows: Vec<(String, String, String, String)> = sqlx::query_as(
        "SELECT t.id, t.slug, t.type, t.name FROM relationships r JOIN entities t ON t.id = r.target_id
          WHERE r.source_id = ? AND r.type = 'documents' AND r.valid_to IS NULL ORDER BY t.slug",
    )
    .bind(entity_id)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|(id, slug, entity_type, name)| EntityRef::new(id, slug, entity_type, name)).collect())
}

async fn doc_in(conn: &mut SqliteConnection, key: &str) -> Result<Option<KnowledgeDoc>> {
    let sql = format!(
        "SELECT {SUMMARY_COLUMNS}, k.content FROM knowledge k JOIN entities e ON e.id = k.entity_id
          WHERE e.slug = ?1 OR e.id = ?1"
    );
    let Some(row) = sqlx::query(&sql).bind(key).fetch_optional(&mut *conn).await? else {
        return Ok(None);
    };
    let summary = summary_from_row(&row)?;
    let content: String = row.try_get("content")?;
    let about = about_of(conn, &summary.id).await?;
    Ok(Some(KnowledgeDoc { summary, content, about }))
}

/// Writes a note inside a transaction (see [`Engine::upsert_knowledge`]).
pub(crate) async fn upsert_in(tx: &mut WriteTx, engine: &Engine, input: &KnowledgeInput) -> Result<KnowledgeUpsert> {
    let title = clean(input.title.trim());
    if title.is_empty() {
        return Err(Error::Invalid("a knowledge note needs a title".into()));
    }
    if title.chars().count() > MAX_TITLE {
        return Err(Error::Invalid(format!("title is longer than {MAX_TITLE} characters")));
    }
    let content = clean(&input.content);
    let tags = normalise_tags(&input.tags);
    let tags_json = serde_json::to_string(&tags).unwrap_or_else(|_| "[]".into());

    // Resolve every `about` slug before writing anything, naming all unknown ones at once.
    let about_slugs: Vec<String> = input.about.iter().map(|s| s.trim().to_string()).collect();
    let about = entities_by_slugs(tx, &about_slugs).await?;
    let missing: Vec<&str> =
        about_slugs.iter().filter(|s| !about.iter().any(|e| &e.slug == *s)).map(String::as_str).collect();
    if !missing.is_empty() {
        return Err(Error::not_found("entity", missing.join(", ")));
    }

    let existing: Option<(i64, String, String, String, String, String)> = sqlx::query_as(
        "SELECT k.id, k.entity_id, k.title, k.content, k.source, k.tags FROM knowledge k
          WHERE k.kind = ? AND k.title = ? COLLATE NOCASE",
    )
    .bind(input.kind.as_str())
    .bind(&title)
    .fetch_optional(&mut **tx)
    .await?;

    let (entity, written) = match existing {
        Some((row_id, entity_id, old_title, old_content, old_source, old_tags)) => {
            let mut entity = require_entity(tx, &entity_id).await?;
            let changed =
                old_title != title || old_content != content || old_source != input.source || old_tags != tags_json;
            if old_title != title {
                // A new spelling of the title (e.g. its case) is the note's name in the graph too.
                entity = rename_entity_in(tx, &entity, &title).await?;
            }
            if changed {
                let now = tx.now().to_string();
                sqlx::query(
                    "UPDATE knowledge SET title = ?, content = ?, source = ?, author = ?, tags = ?, updated_at = ?
                      WHERE id = ?",
                )
                .bind(&title)
                .bind(&content)
                .bind(&input.source)
                .bind(input.author.as_str())
                .bind(&tags_json)
                .bind(now)
                .bind(row_id)
                .execute(&mut **tx)
                .await?;
            }
            (entity, if changed { Written::Updated } else { Written::Unchanged })
        }
        None => {
            let slug = free_slug(tx, input.kind, &title).await?;
            let (entity, _) = upsert_entity_in(
                tx,
                engine.ontology(),
                &NewEntity::new(input.kind.as_str(), &title).slug(&slug),
                IfExists::Fail,
            )
            .await?;
            let now = tx.now().to_string();
            sqlx::query(
                "INSERT INTO knowledge (entity_id, kind, title, content, source, author, tags, created_at, updated_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&entity.id)
            .bind(input.kind.as_str())
            .bind(&title)
            .bind(&content)
            .bind(&input.source)
            .bind(input.author.as_str())
            .bind(&tags_json)
            .bind(&now)
            .bind(&now)
            .execute(&mut **tx)
            .await?;
            (entity, Written::Created)
        }
    };
    let mut linked = false;
    for target in &about {
        let l = link_in(tx, engine.ontology(), "documents", &entity, target, &json!({}), OnConflict::Reject).await?;
        linked |= l.change != Change::Unchanged;
    }
    let doc = doc_in(tx, &entity.id).await?.ok_or_else(|| Error::not_found("knowledge", entity.slug.clone()))?;
    let created = written == Written::Created;
    if written != Written::Unchanged || linked {
        let event = KnowledgeUpserted {
            title: doc.summary.title.clone(),
            kind: doc.summary.kind,
            created,
            about: doc.about.iter().map(|e| e.slug.to_string()).collect(),
        };
        tx.emit(EventDraft::new(event).entity(&entity.slug)).await?;
    }
    Ok(KnowledgeUpsert { doc, created })
}

#[derive(PartialEq)]
enum Written {
    Created,
    Updated,
    Unchanged,
}

impl Engine {
    /// Writes a note: creates it, or updates the note with the same kind and title (any case).
    /// `about` slugs are linked with `documents` (links are only ever added here).
    pub async fn upsert_knowledge(&self, input: &KnowledgeInput) -> Result<KnowledgeUpsert> {
        let mut tx = self.store().begin_write().await?;
        let out = upsert_in(&mut tx, self, input).await?;
        tx.commit().await?;
        Ok(out)
    }

    /// Links a note to an entity it documents.
    pub async fn link_knowledge(&self, note: &str, entity: &str) -> Result<()> {
        let mut tx = self.store().begin_write().await?;
        let source = find_entity(&mut tx, note)
            .await?
            .filter(|e| KnowledgeKind::from_str(&e.entity_type).is_ok())
            .ok_or_else(|| Error::not_found("knowledge", note))?;
        let target = require_entity(&mut tx, entity).await?;
        link_in(&mut tx, self.ontology(), "documents", &source, &target, &json!({}), OnConflict::Reject).await?;
        tx.commit().await?;
        Ok(())
    }

    /// A note by slug or id, with its body and the entities it documents.
    pub async fn knowledge(&self, key: &str) -> Result<KnowledgeDoc> {
        let mut conn = self.store().pool().acquire().await?;
        doc_in(&mut conn, key).await?.ok_or_else(|| Error::not_found("knowledge", key))
    }

    /// Full-text search, best match first. Each hit has a snippet whose only markup is `<b>`.
    pub async fn search_knowledge(&self, query: &str, limit: u32) -> Result<Vec<SearchHit>> {
        let Some(fts) = fts_query(query) else {
            return Ok(Vec::new());
        };
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS},
                    snippet(knowledge_fts, -1, ?2, ?3, '…', ?4) AS snippet,
                    bm25(knowledge_fts, 10.0, 1.0, 4.0) AS rank
               FROM knowledge_fts JOIN knowledge k ON k.id = knowledge_fts.rowid
               JOIN entities e ON e.id = k.entity_id
              WHERE knowledge_fts MATCH ?1
              ORDER BY rank, k.updated_at DESC
              LIMIT ?5"
        );
        let rows = sqlx::query(&sql)
            .bind(&fts)
            .bind(MARK_OPEN.to_string())
            .bind(MARK_CLOSE.to_string())
            .bind(SNIPPET_TOKENS)
            .bind(i64::from(limit.clamp(1, 200)))
            .fetch_all(self.store().pool())
            .await?;
        rows.iter()
            .map(|row| {
                let raw: String = row.try_get("snippet")?;
                let (text, marks) = snippet_marks(&raw);
                Ok(SearchHit {
                    summary: summary_from_row(row)?,
                    snippet: render_snippet(&raw),
                    text,
                    marks,
                    rank: row.try_get("rank")?,
                })
            })
            .collect()
    }

    /// Notes about an entity: those that document it and, for a task, those it produced.
    pub async fn entity_knowledge(&self, key: &str) -> Result<Vec<KnowledgeSummary>> {
        let mut conn = self.store().pool().acquire().await?;
        let entity = require_entity(&mut conn, key).await?;
        knowledge_about(&mut conn, &entity).await
    }

    /// The most recently written notes.
    pub async fn recent_knowledge(&self, limit: u32) -> Result<Vec<KnowledgeSummary>> {
        let sql = format!(
            "SELECT {SUMMARY_COLUMNS} FROM knowledge k JOIN entities e ON e.id = k.entity_id
              ORDER BY k.updated_at DESC, k.id DESC LIMIT ?"
        );
        let rows = sqlx::query(&sql).bind(i64::from(limit.clamp(1, 500))).fetch_all(self.store().pool()).await?;
        rows.iter().map(summary_from_row).collect()
    }

    pub async fn knowledge_stats(&self) -> Result<KnowledgeStats> {
        let by_kind: Vec<(String, i64)> =
            sqlx::query_as("SELECT kind, count(*) FROM knowledge GROUP BY kind").fetch_all(self.store().pool()).await?;
        const WEEK_MS: i64 = 7 * 24 * 3600 * 1000;
        let week_ago = format_ms(self.clock().now_ms().saturating_sub(WEEK_MS));
        let (agent, recent): (i64, i64) =
            sqlx::query_as("SELECT ifnull(sum(author = 'agent'), 0), ifnull(sum(updated_at >= ?), 0) FROM knowledge")
                .bind(week_ago)
                .fetch_one(self.store().pool())
                .await?;
        let mut kinds: BTreeMap<String, u64> = KnowledgeKind::ALL.iter().map(|k| (k.as_str().to_string(), 0)).collect();
        for (kind, n) in by_kind {
            kinds.insert(kind, n.max(0) as u64);
        }
        Ok(KnowledgeStats {
            total: kinds.values().sum(),
            by_kind: kinds,
            agent_authored: agent.max(0) as u64,
            changed_last_7_days: recent.max(0) as u64,
        })
    }

    /// An entity with its status, current relations and knowledge, in one structure.
    pub async fn explain(&self, key: &str) -> Result<Explain> {
        // One read transaction, so the parts describe the same moment.
        let mut read = self.store().pool().begin().await?;
        let entity = require_entity(&mut read, key).await?;
        let status = status_in(&mut read, &entity.id, self.clock().now_ms()).await?;
        let relations = relations_in(&mut read, &entity, false).await?;
        let knowledge = knowledge_about(&mut read, &entity).await?;
        read.commit().await?;
        Ok(Explain { entity, status, relations, knowledge })
    }
}

async fn knowledge_about(conn: &mut SqliteConnection, entity: &Entity) -> Result<Vec<KnowledgeSummary>> {
    let sql = format!(
        "SELECT DISTINCT {SUMMARY_COLUMNS} FROM relationships r
           JOIN entities e ON e.id = r.source_id JOIN knowledge k ON k.entity_id = e.id
          WHERE r.target_id = ? AND r.type IN ('documents', 'produced-by') AND r.valid_to IS NULL
          ORDER BY k.updated_at DESC"
    );
    let rows = sqlx::query(&sql).bind(&entity.id).fetch_all(conn).await?;
    rows.iter().map(summary_from_row).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::entities::NewEntity;
    use crate::testing::engine;
    use nomos_types::Author;

    fn note(kind: KnowledgeKind, title: &str, content: &str) -> KnowledgeInput {
        KnowledgeInput {
            kind,
            title: title.into(),
            content: content.into(),
            source: String::new(),
            author: Author::Operator,
            tags: vec![],
            about: vec![],
        }
    }

    #[tokio::test]
    async fn upsert_by_kind_and_title_does_not_duplicate() {
        let (_dir, eng) = engine().await;
        let first = eng
            .upsert_knowledge(&note(KnowledgeKind::Runbook, "Restart Caddy", "systemctl restart caddy"))
            .await
            .unwrap();
        assert!(first.created);
        assert_eq!(first.doc.summary.slug, "runbook:restart-caddy");
        let second = eng
            .upsert_knowledge(&note(KnowledgeKind::Runbook, "restart caddy", "systemctl reload caddy"))
            .await
            .unwrap();
        assert!(!second.created);
        assert_eq!(second.doc.summary.id, first.doc.summary.id);
        assert_eq!(second.doc.content, "systemctl reload caddy");
        assert_eq!(second.doc.summary.title, "restart caddy");
        assert_eq!(eng.entity("runbook:restart-caddy").await.unwrap().name, "restart caddy", "the graph follows");
        let mut rx = eng.subscribe();
        let same = eng
            .upsert_knowledge(&note(KnowledgeKind::Runbook, "restart caddy", "systemctl reload caddy"))
            .await
            .unwrap();
        assert!(!same.created);
        assert!(rx.try_recv().is_err(), "writing the same note again announces nothing");
        // Another kind with the same title is another note.
        let third =
            eng.upsert_knowledge(&note(KnowledgeKind::Investigation, "Restart Caddy", "why it flapped")).await.unwrap();
        assert!(third.created);
        assert_eq!(eng.knowledge_stats().await.unwrap().total, 2);
        // A title that slugifies like another gets its own slug.
        let fourth = eng.upsert_knowledge(&note(KnowledgeKind::Runbook, "Restart: Caddy!", "x")).await.unwrap();
        assert_eq!(fourth.doc.summary.slug, "runbook:restart-caddy-2");
        assert!(eng.upsert_knowledge(&note(KnowledgeKind::Runbook, "  ", "x")).await.is_err());
    }

    #[tokio::test]
    async fn search_finds_words_ranks_titles_and_snippets_only_bold() {
        let (_dir, eng) = engine().await;
        eng.upsert_knowledge(&note(
            KnowledgeKind::Investigation,
            "Caddy flapping",
            "Caddy restarted every 5 minutes because the <script>alert(1)</script> ACME challenge & DNS timed out.",
        ))
        .await
        .unwrap();
        eng.upsert_knowledge(&note(
            KnowledgeKind::Document,
            "Postgres layout",
            "The shared postgres serves gitea and nextcloud; caddy is not involved.",
        ))
        .await
        .unwrap();
        eng.upsert_knowledge(&note(KnowledgeKind::Runbook, "Docker on Debian 13", "apt-get install docker.io"))
            .await
            .unwrap();

        let hits = eng.search_knowledge("caddy", 10).await.unwrap();
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].summary.title, "Caddy flapping");
        // Title weight: a single title mention beats several mentions in a body.
        eng.upsert_knowledge(&note(KnowledgeKind::Document, "Unbound resolver", "unbound unbound unbound unbound"))
            .await
            .unwrap();
        eng.upsert_knowledge(&note(KnowledgeKind::Document, "DNS overview", "The resolver is unbound, on lxc:dns."))
            .await
            .unwrap();
        let hits = eng.search_knowledge("resolver", 10).await.unwrap();
        assert_eq!(hits[0].summary.title, "Unbound resolver", "{hits:?}");
        let hits = eng.search_knowledge("unbound", 10).await.unwrap();
        assert_eq!(hits[0].summary.title, "Unbound resolver");

        // Stemming: "restarting" finds "restarted".
        let hits = eng.search_knowledge("restarting", 10).await.unwrap();
        assert_eq!(hits.len(), 1);
        let snippet = &hits[0].snippet;
        assert!(snippet.contains("<b>restarted</b>"), "{snippet}");
        assert!(snippet.contains("&lt;script&gt;"), "{snippet}");
        let stripped = snippet.replace("<b>", "").replace("</b>", "");
        assert!(!stripped.contains('<') && !stripped.contains('>'), "only <b> markup: {snippet}");

        // Prefixes, several words, punctuation that would be FTS syntax.
        assert_eq!(eng.search_knowledge("post", 10).await.unwrap().len(), 1);
        assert_eq!(eng.search_knowledge("gitea nextcloud", 10).await.unwrap().len(), 1);
        assert_eq!(eng.search_knowledge("docker.io", 10).await.unwrap().len(), 1);
        assert_eq!(eng.search_knowledge("\"unbalanced AND (", 10).await.unwrap().len(), 0);
        assert!(eng.search_knowledge("  ", 10).await.unwrap().is_empty());
        assert!(eng.search_knowledge("zzzz", 10).await.unwrap().is_empty());

        // An update re-indexes.
        eng.upsert_knowledge(&note(KnowledgeKind::Runbook, "Docker on Debian 13", "use get.docker.com")).await.unwrap();
        assert_eq!(eng.search_knowledge("apt", 10).await.unwrap().len(), 0);
        assert_eq!(eng.search_knowledge("get docker", 10).await.unwrap().len(), 1);
    }

    #[test]
    fn snippet_rendering_escapes_everything_but_marks() {
        let raw = format!("a <i>x</i> & {MARK_OPEN}hit{MARK_CLOSE} \"q\" {MARK_OPEN}open");
        assert_eq!(render_snippet(&raw), "a &lt;i&gt;x&lt;/i&gt; &amp; <b>hit</b> &quot;q&quot; <b>open</b>");
        assert_eq!(fts_query("a-b \"c\""), Some("\"a\"* \"b\"* \"c\"*".to_string()));
        assert_eq!(fts_query("()"), None);
    }

    #[test]
    fn snippet_marks_are_character_ranges_of_the_plain_text() {
        let raw = format!("<i>é</i> {MARK_OPEN}hit{MARK_CLOSE} and {MARK_OPEN}{MARK_CLOSE}{MARK_OPEN}ope");
        let (text, marks) = snippet_marks(&raw);
        assert_eq!(text, "<i>é</i> hit and ope");
        assert_eq!(marks, [[9, 12], [17, 20]]);
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars[9..12].iter().collect::<String>(), "hit");
    }

    #[tokio::test]
    async fn notes_link_to_entities_and_show_in_explain() {
        let (_dir, eng) = engine().await;
        eng.create_entity(NewEntity::new("lxc", "caddy")).await.unwrap();
        eng.create_entity(NewEntity::new("host", "strong")).await.unwrap();
        let mut input = note(KnowledgeKind::Investigation, "TLS renewals", "renewals fail when DNS is down");
        input.about = vec!["lxc:caddy".into()];
        input.tags = vec!["TLS".into(), "tls".into(), " acme ".into()];
        input.author = Author::Agent;
        let up = eng.upsert_knowledge(&input).await.unwrap();
        assert_eq!(up.doc.summary.tags, ["acme", "tls"]);
        assert_eq!(up.doc.about.len(), 1);
        eng.link_knowledge(&up.doc.summary.slug, "host:strong").await.unwrap();
        eng.link_knowledge(&up.doc.summary.slug, "host:strong").await.unwrap();

        let about_caddy = eng.entity_knowledge("lxc:caddy").await.unwrap();
        assert_eq!(about_caddy.len(), 1);
        assert_eq!(about_caddy[0].title, "TLS renewals");
        let explain = eng.explain("host:strong").await.unwrap();
        assert_eq!(explain.knowledge.len(), 1);
        assert_eq!(explain.relations.len(), 1);
        assert_eq!(explain.relations[0].label, "documented-by");
        assert_eq!(eng.knowledge(&up.doc.summary.slug).await.unwrap().about.len(), 2);

        let mut bad = note(KnowledgeKind::Document, "x", "y");
        bad.about = vec!["lxc:nope".into(), "host:gone".into()];
        let err = eng.upsert_knowledge(&bad).await.unwrap_err();
        assert_eq!(err.to_string(), "entity `lxc:nope, host:gone` not found");
        assert_eq!(eng.knowledge_stats().await.unwrap().total, 1, "nothing written on error");
    }

    #[tokio::test]
    async fn recent_and_stats() {
        let (_dir, eng) = engine().await;
        for (i, kind) in
            [KnowledgeKind::Runbook, KnowledgeKind::Runbook, KnowledgeKind::Document].into_iter().enumerate()
        {
            let mut n = note(kind, &format!("note {i}"), "body");
            if i == 0 {
                n.author = Author::Agent;
            }
            eng.upsert_knowledge(&n).await.unwrap();
        }
        sqlx::query("UPDATE knowledge SET updated_at = '2020-01-01T00:00:00.000Z' WHERE title = 'note 1'")
            .execute(eng.store().pool())
            .await
            .unwrap();
        let stats = eng.knowledge_stats().await.unwrap();
        assert_eq!(stats.total, 3);
        assert_eq!(stats.by_kind["runbook"], 2);
        assert_eq!(stats.by_kind["document"], 1);
        assert_eq!(stats.by_kind["investigation"], 0);
        assert_eq!(stats.agent_authored, 1);
        assert_eq!(stats.changed_last_7_days, 2);
        let recent = eng.recent_knowledge(2).await.unwrap();
        let titles: Vec<&str> = recent.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(titles, ["note 2", "note 0"]);
    }
}
