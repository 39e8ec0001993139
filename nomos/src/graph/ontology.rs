//! The ontology: which entity and relationship types exist, how types nest, which endpoints a
//! relationship accepts, its cardinality, and which way impact travels along it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

use crate::store::Store;

/// The ontology shipped with Oikos.
pub const BUILTIN_YAML: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../seeds/ontology.yaml"));

/// The root type: an endpoint declared as `entity` accepts any type.
pub const ROOT_TYPE: &str = "entity";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OntologyError {
    #[error("unknown entity type `{name}` (allowed: {})", allowed.join(", "))]
    UnknownEntityType { name: String, allowed: Vec<String> },
    #[error("entity type `{name}` is abstract (use one of: {})", concrete.join(", "))]
    AbstractEntityType { name: String, concrete: Vec<String> },
    #[error("unknown relationship type `{name}` (allowed: {})", allowed.join(", "))]
    UnknownRelationshipType { name: String, allowed: Vec<String> },
    #[error(
        "relationship `{rel}` cannot have {slug} ({actual}) as its {end}; allowed {end} types: {}",
        allowed.join(", ")
    )]
    EndpointMismatch { rel: String, end: &'static str, slug: String, actual: String, allowed: Vec<String> },
    #[error("ontology: {0}")]
    Invalid(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cardinality {
    OneToOne,
    OneToMany,
    ManyToOne,
    ManyToMany,
}

impl Cardinality {
    pub fn as_str(self) -> &'static str {
        match self {
            Cardinality::OneToOne => "one-to-one",
            Cardinality::OneToMany => "one-to-many",
            Cardinality::ManyToOne => "many-to-one",
            Cardinality::ManyToMany => "many-to-many",
        }
    }

    /// Each source may have at most one current target.
    pub fn single_target(self) -> bool {
        matches!(self, Cardinality::OneToOne | Cardinality::ManyToOne)
    }

    /// Each target may have at most one current source.
    pub fn single_source(self) -> bool {
        matches!(self, Cardinality::OneToOne | Cardinality::OneToMany)
    }
}

/// Which way trouble travels along an edge, for the blast radius.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Impact {
    SourceToTarget,
    TargetToSource,
    None,
}

impl Impact {
    pub fn as_str(self) -> &'static str {
        match self {
            Impact::SourceToTarget => "source-to-target",
            Impact::TargetToSource => "target-to-source",
            Impact::None => "none",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntityTypeDef {
    #[serde(skip)]
    pub name: String,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default, rename = "abstract")]
    pub is_abstract: bool,
    #[serde(default)]
    pub domain: String,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RelationshipTypeDef {
    #[serde(skip)]
    pub name: String,
    pub inverse: String,
    pub source: Vec<String>,
    pub target: Vec<String>,
    pub cardinality: Cardinality,
    pub impact: Impact,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OntologyFile {
    entity_types: BTreeMap<String, EntityTypeDef>,
    relationship_types: BTreeMap<String, RelationshipTypeDef>,
}

/// A validated ontology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ontology {
    entity_types: BTreeMap<String, EntityTypeDef>,
    relationship_types: BTreeMap<String, RelationshipTypeDef>,
}

impl Ontology {
    pub fn builtin() -> Result<Ontology, OntologyError> {
        Ontology::from_yaml(BUILTIN_YAML)
    }

    /// Parses and checks an ontology: every parent and endpoint type exists, the type tree has one
    /// root and no cycles, and names are well-formed.
    pub fn from_yaml(text: &str) -> Result<Ontology, OntologyError> {
        let file: OntologyFile = serde_yaml_ng::from_str(text).map_err(|e| OntologyError::Invalid(e.to_string()))?;
        let mut entity_types = file.entity_types;
        let mut relationship_types = file.relationship_types;
        for (name, def) in entity_types.iter_mut() {
            def.name = name.clone();
        }
        for (name, def) in relationship_types.iter_mut() {
            def.name = name.clone();
        }
        let onto = Ontology { entity_types, relationship_types };
        onto.check()?;
        Ok(onto)
    }

    fn check(&self) -> Result<(), OntologyError> {
        let bad = |m: String| Err(OntologyError::Invalid(m));
        if !self.entity_types.contains_key(ROOT_TYPE) {
            return bad(format!("the root type `{ROOT_TYPE}` is missing"));
        }
        for (name, def) in &self.entity_types {
            if !valid_type_name(name) {
                return bad(format!("entity type name `{name}` must be lowercase letters, digits and '-'"));
            }
            match (&def.parent, name.as_str()) {
                (None, ROOT_TYPE) => {}
                (None, _) => return bad(format!("entity type `{name}` has no parent")),
                (Some(_), ROOT_TYPE) => return bad(format!("the root type `{ROOT_TYPE}` cannot have a parent")),
                (Some(p), _) if !self.entity_types.contains_key(p) => {
                    return bad(format!("entity type `{name}` has unknown parent `{p}`"))
                }
                _ => {}
            }
            // Walking up must reach the root within as many steps as there are types.
            let mut cur = def;
            let mut steps = 0;
            while let Some(p) = &cur.parent {
                steps += 1;
                if steps > self.entity_types.len() {
                    return bad(format!("entity type `{name}` is part of a parent cycle"));
                }
                match self.entity_types.get(p) {
                    Some(next) => cur = next,
                    None => break,
                }
            }
        }
        let mut inverses = BTreeSet::new();
        for (name, def) in &self.relationship_types {
            if !valid_type_name(name) || !valid_type_name(&def.inverse) {
                return bad(format!("relationship type `{name}` (inverse `{}`) is not a valid name", def.inverse));
            }
            if self.relationship_types.contains_key(&def.inverse) || !inverses.insert(def.inverse.clone()) {
                return bad(format!(
                    "inverse `{}` of `{name}` collides with another relationship or inverse name",
                    def.inverse
                ));
            }
            if def.source.is_empty() || def.target.is_empty() {
                return bad(format!("relationship type `{name}` needs source and target types"));
            }
            for t in def.source.iter().chain(&def.target) {
                if !self.entity_types.contains_key(t) {
                    return bad(format!("relationship type `{name}` names unknown entity type `{t}`"));
                }
            }
        }
        Ok(())
    }

    pub fn entity_type(&self, name: &str) -> Option<&EntityTypeDef> {
        self.entity_types.get(name)
    }

    pub fn entity_types(&self) -> impl Iterator<Item = &EntityTypeDef> {
        self.entity_types.values()
    }

    pub fn relationship_type(&self, name: &str) -> Option<&RelationshipTypeDef> {
        self.relationship_types.get(name)
    }

    pub fn relationship_types(&self) -> impl Iterator<Item = &RelationshipTypeDef> {
        self.relationship_types.values()
    }

    /// Whether `ty` is `ancestor` or lies below it in the type tree.
    pub fn is_a(&self, ty: &str, ancestor: &str) -> bool {
        let mut cur = Some(ty);
        let mut steps = 0;
        while let Some(t) = cur {
            if t == ancestor {
                return true;
            }
            steps += 1;
            if steps > self.entity_types.len() {
                return false;
            }
            cur = self.entity_types.get(t).and_then(|d| d.parent.as_deref());
        }
        false
    }

    fn concrete_types(&self) -> Vec<String> {
        self.entity_types.values().filter(|d| !d.is_abstract).map(|d| d.name.clone()).collect()
    }

    /// The type and every type below it (for filters: `compute` → host, lxc, vm); unknown names
    /// are an error naming the allowed ones.
    pub fn types_below(&self, name: &str) -> Result<Vec<&str>, OntologyError> {
        if !self.entity_types.contains_key(name) {
            return Err(OntologyError::UnknownEntityType {
                name: name.to_string(),
                allowed: self.entity_types.keys().cloned().collect(),
            });
        }
        Ok(self.entity_types.keys().filter(|t| self.is_a(t, name)).map(String::as_str).collect())
    }

    /// Checks that entities of this type may be created.
    pub fn check_entity_type(&self, name: &str) -> Result<&EntityTypeDef, OntologyError> {
        match self.entity_types.get(name) {
            None => Err(OntologyError::UnknownEntityType { name: name.to_string(), allowed: self.concrete_types() }),
            Some(def) if def.is_abstract => Err(OntologyError::AbstractEntityType {
                name: name.to_string(),
                concrete: self
                    .entity_types
                    .values()
                    .filter(|d| !d.is_abstract && self.is_a(&d.name, name))
                    .map(|d| d.name.clone())
                    .collect(),
            }),
            Some(def) => Ok(def),
        }
    }

    pub fn check_relationship_type(&self, name: &str) -> Result<&RelationshipTypeDef, OntologyError> {
        self.relationship_types.get(name).ok_or_else(|| OntologyError::UnknownRelationshipType {
            name: name.to_string(),
            allowed: self.relationship_types.keys().cloned().collect(),
        })
    }

    /// Checks a relationship between two entities (given as slug and type) against its declaration.
    pub fn check_relationship(
        &self,
        rel: &str,
        source: (&str, &str),
        target: (&str, &str),
    ) -> Result<&RelationshipTypeDef, OntologyError> {
        let def = self.check_relationship_type(rel)?;
        for (end, (slug, ty), allowed) in [("source", source, &def.source), ("target", target, &def.target)] {
            if !allowed.iter().any(|a| self.is_a(ty, a)) {
                return Err(OntologyError::EndpointMismatch {
                    rel: rel.to_string(),
                    end,
                    slug: slug.to_string(),
                    actual: ty.to_string(),
                    allowed: allowed.clone(),
                });
            }
        }
        Ok(def)
    }

    /// Relationship types along which impact travels, split by direction:
    /// `(source_to_target, target_to_source)`.
    pub fn impact_types(&self) -> (Vec<String>, Vec<String>) {
        let pick = |want: Impact| {
            self.relationship_types.values().filter(|d| d.impact == want).map(|d| d.name.clone()).collect()
        };
        (pick(Impact::SourceToTarget), pick(Impact::TargetToSource))
    }

    /// Writes the ontology into the `entity_types` / `relationship_types` tables. Types that have
    /// disappeared from the file are kept (existing rows may refer to them).
    pub async fn sync(&self, store: &Store) -> Result<(), sqlx::Error> {
        let mut tx = store.begin_write().await?;
        for def in self.entity_types.values() {
            sqlx::query(
                "INSERT INTO entity_types (name, parent, abstract, domain, description) VALUES (?, ?, ?, ?, ?)
                 ON CONFLICT (name) DO UPDATE SET parent = excluded.parent, abstract = excluded.abstract,
                   domain = excluded.domain, description = excluded.description
                 WHERE (parent, abstract, domain, description) IS NOT
                       (excluded.parent, excluded.abstract, excluded.domain, excluded.description)",
            )
            .bind(&def.name)
            .bind(&def.parent)
            .bind(def.is_abstract)
            .bind(&def.domain)
            .bind(&def.description)
            .execute(&mut *tx)
            .await?;
        }
        for def in self.relationship_types.values() {
            let source = serde_json::to_string(&def.source).unwrap_or_else(|_| "[]".into());
            let target = serde_json::to_string(&def.target).unwrap_or_else(|_| "[]".into());
            sqlx::query(
                "INSERT INTO relationship_types (name, inverse, source_types, target_types, cardinality, impact, description)
                 VALUES (?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT (name) DO UPDATE SET inverse = excluded.inverse, source_types = excluded.source_types,
                   target_types = excluded.target_types, cardinality = excluded.cardinality,
                   impact = excluded.impact, description = excluded.description
                 WHERE (inverse, source_types, target_types, cardinality, impact, description) IS NOT
                       (excluded.inverse, excluded.source_types, excluded.target_types, excluded.cardinality,
                        excluded.impact, excluded.description)",
            )
            .bind(&def.name)
            .bind(&def.inverse)
            .bind(source)
            .bind(target)
            .bind(def.cardinality.as_str())
            .bind(def.impact.as_str())
            .bind(&def.description)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
}

impl fmt::Display for Cardinality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

fn valid_type_name(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && s.as_bytes()[0].is_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const REQUIRED_ENTITY_TYPES: &[&str] = &[
        "host",
        "lxc",
        "vm",
        "service",
        "container",
        "storage",
        "network",
        "bridge",
        "dns-record",
        "certificate",
        "agent",
        "task",
        "execution",
        "document",
        "investigation",
        "runbook",
        "signal",
    ];
    const REQUIRED_RELATIONSHIPS: &[&str] = &[
        "hosts",
        "runs-on",
        "depends-on",
        "provides",
        "routes-to",
        "uses-storage",
        "member-of",
        "documents",
        "involves",
        "produced-by",
        "procedure-for",
    ];

    #[test]
    fn builtin_ontology_has_the_homelab_vocabulary() {
        let o = Ontology::builtin().unwrap();
        for t in REQUIRED_ENTITY_TYPES {
            assert!(o.check_entity_type(t).is_ok(), "{t}");
        }
        for r in REQUIRED_RELATIONSHIPS {
            assert!(o.check_relationship_type(r).is_ok(), "{r}");
        }
        assert!(o.is_a("bridge", "network"));
        assert!(o.is_a("lxc", "compute"));
        assert!(o.is_a("runbook", "entity"));
        assert!(!o.is_a("service", "compute"));
    }

    #[test]
    fn unknown_and_abstract_types_name_what_is_allowed() {
        let o = Ontology::builtin().unwrap();
        let err = o.check_entity_type("toaster").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("unknown entity type `toaster` (allowed: "), "{msg}");
        assert!(msg.contains("lxc") && msg.contains("host"), "{msg}");
        assert!(!msg.contains("compute"), "abstract types are not offered: {msg}");

        let msg = o.check_entity_type("compute").unwrap_err().to_string();
        assert_eq!(msg, "entity type `compute` is abstract (use one of: host, lxc, vm)");

        let msg = o.check_relationship_type("likes").unwrap_err().to_string();
        assert!(msg.starts_with("unknown relationship type `likes` (allowed: "), "{msg}");
        assert!(msg.contains("depends-on"), "{msg}");
    }

    #[test]
    fn endpoints_must_fit_the_declaration() {
        let o = Ontology::builtin().unwrap();
        assert!(o.check_relationship("hosts", ("host:a", "host"), ("lxc:b", "lxc")).is_ok());
        let err = o.check_relationship("hosts", ("lxc:b", "lxc"), ("host:a", "host")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "relationship `hosts` cannot have lxc:b (lxc) as its source; allowed source types: host"
        );
        // `entity` accepts anything; parents accept children.
        assert!(o.check_relationship("documents", ("runbook:x", "runbook"), ("bridge:y", "bridge")).is_ok());
        assert!(o.check_relationship("member-of", ("vm:v", "vm"), ("bridge:y", "bridge")).is_ok());
    }

    #[test]
    fn malformed_ontologies_are_rejected() {
        let cases = [
            ("entity_types: {}\nrelationship_types: {}\n", "root type"),
            (
                "entity_types:\n  entity: {}\n  a: {parent: b}\n  b: {parent: a}\nrelationship_types: {}\n",
                "cycle",
            ),
            ("entity_types:\n  entity: {}\n  a: {parent: nope}\nrelationship_types: {}\n", "unknown parent"),
            (
                "entity_types:\n  entity: {}\nrelationship_types:\n  r: {inverse: s, source: [x], target: [entity], cardinality: many-to-many, impact: none}\n",
                "unknown entity type `x`",
            ),
            (
                "entity_types:\n  entity: {}\nrelationship_types:\n  r: {inverse: r, source: [entity], target: [entity], cardinality: many-to-many, impact: none}\n",
                "collides",
            ),
            ("entity_types:\n  entity: {colour: red}\nrelationship_types: {}\n", "unknown field"),
        ];
        for (yaml, expect) in cases {
            let err = Ontology::from_yaml(yaml).unwrap_err().to_string();
            assert!(err.contains(expect), "{yaml:?}: {err}");
        }
    }

    #[test]
    fn impact_directions_come_from_the_file() {
        let o = Ontology::builtin().unwrap();
        let (forward, backward) = o.impact_types();
        assert!(forward.contains(&"hosts".to_string()));
        assert!(forward.contains(&"routes-to".to_string()));
        assert!(backward.contains(&"depends-on".to_string()));
        assert!(backward.contains(&"runs-on".to_string()));
        assert!(!forward.contains(&"documents".to_string()) && !backward.contains(&"documents".to_string()));
    }

    #[tokio::test]
    async fn sync_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("o.db")).await.unwrap();
        let o = Ontology::builtin().unwrap();
        o.sync(&store).await.unwrap();
        let count = |sql: &'static str| {
            let pool = store.pool().clone();
            async move { sqlx::query_scalar::<_, i64>(sql).fetch_one(&pool).await.unwrap() }
        };
        let e1 = count("SELECT count(*) FROM entity_types").await;
        let r1 = count("SELECT count(*) FROM relationship_types").await;
        o.sync(&store).await.unwrap();
        assert_eq!(e1, count("SELECT count(*) FROM entity_types").await);
        assert_eq!(r1, count("SELECT count(*) FROM relationship_types").await);
        assert_eq!(e1 as usize, o.entity_types().count());
        assert_eq!(r1 as usize, o.relationship_types().count());

        // A changed definition is written over the stored one.
        let changed =
            Ontology::from_yaml(&BUILTIN_YAML.replace(
                "description: A Proxmox node runs a guest.",
                "description: A node runs a guest.\n    # changed",
            ))
            .unwrap();
        changed.sync(&store).await.unwrap();
        let desc: String = sqlx::query_scalar("SELECT description FROM relationship_types WHERE name = 'hosts'")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(desc, "A node runs a guest.");
        let inverse: String = sqlx::query_scalar("SELECT inverse FROM relationship_types WHERE name = 'hosts'")
            .fetch_one(store.pool())
            .await
            .unwrap();
        assert_eq!(inverse, "hosted-by");
    }
}
