//! Tool arguments: the JSON Schema of an argument struct, and the check of a call against it.
//!
//! The check runs before anything else and names what was wrong — the field, what it expected,
//! what it got — so the model can correct its call. Nothing is filled in with defaults for an
//! argument that does not parse.

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value as Json};

use super::ToolResult;

/// The JSON Schema (draft 2020-12, subschemas inlined) of an argument struct, without the
/// `$schema` and `title` keys a model does not need.
pub fn schema_of<A: JsonSchema>() -> Json {
    let generator = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(map) = schema.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

/// The arguments text a model wrote, as a JSON object. Empty text means no arguments (`{}`), as
/// several servers send it.
pub fn parse_arguments(text: &str) -> Result<Json, String> {
    if text.trim().is_empty() {
        return Ok(Json::Object(Map::new()));
    }
    match serde_json::from_str::<Json>(text) {
        Ok(v @ Json::Object(_)) => Ok(v),
        Ok(other) => Err(format!("the arguments must be a JSON object, got {}", kind(&other))),
        Err(e) => Err(format!("the arguments are not valid JSON ({e})")),
    }
}

/// Arguments already checked against the schema, as their struct. A mismatch left over (the
/// schema cannot say everything) is a tool error too.
pub fn parse<A: DeserializeOwned>(args: Json) -> Result<A, ToolResult> {
    serde_json::from_value(args).map_err(|e| ToolResult::error(format!("invalid arguments: {e}. Nothing was run.")))
}

/// Checks `value` against `schema`: types, enums and constants, required and unknown fields,
/// number and length bounds, array items, `oneOf`/`anyOf`. The first problem is reported.
pub fn check(schema: &Json, value: &Json) -> Result<(), String> {
    check_at(schema, value, "")
}

fn field(path: &str) -> String {
    if path.is_empty() {
        "the arguments".into()
    } else {
        format!("`{path}`")
    }
}

fn kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// A value as shown in a message: short.
fn show(value: &Json) -> String {
    let text = value.to_string();
    if text.len() > 60 {
        let cut = (0..=57).rev().find(|i| text.is_char_boundary(*i)).unwrap_or(0);
        format!("{}…", &text[..cut])
    } else {
        text
    }
}

fn is_type(ty: &str, value: &Json) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn check_at(schema: &Json, value: &Json, path: &str) -> Result<(), String> {
    let Some(s) = schema.as_object() else {
        // `true` accepts anything, `false` nothing.
        return if schema == &Json::Bool(false) { Err(format!("{} is not allowed", field(path))) } else { Ok(()) };
    };
    if let Some(c) = s.get("const") {
        if value != c {
            return Err(format!("{}: expected {c}, got {}", field(path), show(value)));
        }
    }
    if let Some(Json::Array(allowed)) = s.get("enum") {
        if !allowed.contains(value) {
            let list: Vec<String> = allowed.iter().map(Json::to_string).collect();
            return Err(format!("{}: expected one of {}, got {}", field(path), list.join(", "), show(value)));
        }
    }
    if let Some(ty) = s.get("type") {
        let types: Vec<&str> = match ty {
            Json::String(t) => vec![t.as_str()],
            Json::Array(ts) => ts.iter().filter_map(Json::as_str).collect(),
            _ => Vec::new(),
        };
        if !types.is_empty() && !types.iter().any(|t| is_type(t, value)) {
            let expected: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
            let optional = if types.contains(&"null") { " (or null)" } else { "" };
            return Err(format!(
                "{}: expected {}{optional}, got {} {}",
                field(path),
                expected.join(" or "),
                kind(value),
                show(value)
            ));
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(Json::Array(branches)) = s.get(key) {
            check_branches(branches, value, path)?;
        }
    }
    match value {
        Json::Number(n) => check_number(s, n, path)?,
        Json::String(text) => check_length(s, text.chars().count(), "characters", "minLength", "maxLength", path)?,
        Json::Array(items) => {
            check_length(s, items.len(), "items", "minItems", "maxItems", path)?;
            if let Some(item) = s.get("items") {
                for (i, v) in items.iter().enumerate() {
                    check_at(item, v, &format!("{path}[{i}]"))?;
                }
            }
        }
        Json::Object(map) => check_object(s, map, path)?,
        Json::Null | Json::Bool(_) => {}
    }
    Ok(())
}

fn check_branches(branches: &[Json], value: &Json, path: &str) -> Result<(), String> {
    let mut first = None;
    for b in branches {
        match check_at(b, value, path) {
            Ok(()) => return Ok(()),
            Err(e) => {
                first.get_or_insert(e);
            }
        }
    }
    let consts: Vec<String> = branches.iter().filter_map(|b| b.get("const")).map(Json::to_string).collect();
    if !consts.is_empty() && consts.len() == branches.len() {
        return Err(format!("{}: expected one of {}, got {}", field(path), consts.join(", "), show(value)));
    }
    Err(first.unwrap_or_else(|| format!("{}: matches none of the allowed forms", field(path))))
}

fn check_number(s: &Map<String, Json>, n: &serde_json::Number, path: &str) -> Result<(), String> {
    let Some(x) = n.as_f64() else { return Ok(()) };
    if let Some(min) = s.get("minimum").and_then(Json::as_f64) {
        if x < min {
            return Err(format!("{}: must be at least {min}, got {n}", field(path)));
        }
    }
    if let Some(max) = s.get("maximum").and_then(Json::as_f64) {
        if x > max {
            return Err(format!("{}: must be at most {max}, got {n}", field(path)));
        }
    }
    Ok(())
}

fn check_length(
    s: &Map<String, Json>,
    len: usize,
    unit: &str,
    min_key: &str,
    max_key: &str,
    path: &str,
) -> Result<(), String> {
    let len = len as u64;
    if let Some(min) = s.get(min_key).and_then(Json::as_u64) {
        if len < min {
            return Err(format!("{}: needs at least {min} {unit}, got {len}", field(path)));
        }
    }
    if let Some(max) = s.get(max_key).and_then(Json::as_u64) {
        if len > max {
            return Err(format!("{}: allows at most {max} {unit}, got {len}", field(path)));
        }
    }
    Ok(())
}

fn check_object(s: &Map<String, Json>, map: &Map<String, Json>, path: &str) -> Result<(), String> {
    let empty = Map::new();
    let properties = s.get("properties").and_then(Json::as_object).unwrap_or(&empty);
    let closed = s.get("additionalProperties") == Some(&Json::Bool(false));
    for key in map.keys() {
        if closed && !properties.contains_key(key) {
            let allowed: Vec<&str> = properties.keys().map(String::as_str).collect();
            let within = if path.is_empty() { String::new() } else { format!(" in `{path}`") };
            return Err(format!("unknown field `{key}`{within}; allowed: {}", allowed.join(", ")));
        }
    }
    if let Some(Json::Array(required)) = s.get("required") {
        if let Some(missing) = required.iter().filter_map(Json::as_str).find(|r| !map.contains_key(*r)) {
            let expected =
                properties.get(missing).and_then(|p| p.get("type")).and_then(Json::as_str).map(|t| format!(" ({t})"));
            return Err(format!("missing required field `{}`{}", join(path, missing), expected.unwrap_or_default()));
        }
    }
    for (key, v) in map {
        if let Some(p) = properties.get(key) {
            check_at(p, v, &join(path, key))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Demo {
        slug: String,
        limit: Option<u32>,
        mode: Option<Mode>,
        steps: Option<Vec<Step>>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Mode {
        /// Quick.
        Fast,
        /// Careful.
        Slow,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Step {
        title: String,
    }

    fn err(args: Json) -> String {
        check(&schema_of::<Demo>(), &args).unwrap_err()
    }

    #[test]
    fn the_schema_refuses_unknown_fields_and_carries_no_noise() {
        let s = schema_of::<Demo>();
        assert_eq!(s["additionalProperties"], json!(false));
        assert!(s.get("$schema").is_none() && s.get("title").is_none());
        assert_eq!(s["required"], json!(["slug"]));
    }

    #[test]
    fn good_arguments_pass() {
        let s = schema_of::<Demo>();
        check(&s, &json!({"slug": "host:pve1"})).unwrap();
        check(&s, &json!({"slug": "a", "limit": 5, "mode": "slow", "steps": [{"title": "x"}], "mode": null})).unwrap();
    }

    #[test]
    fn each_mismatch_names_the_field_and_what_was_expected() {
        assert_eq!(err(json!({})), "missing required field `slug` (string)");
        assert_eq!(err(json!({"slug": 5})), "`slug`: expected string, got an integer 5");
        assert_eq!(
            err(json!({"slug": "a", "limit": "ten"})),
            "`limit`: expected integer (or null), got a string \"ten\""
        );
        assert_eq!(err(json!({"slug": "a", "limit": -1})), "`limit`: must be at least 0, got -1");
        assert_eq!(err(json!({"slug": "a", "limit": 1.5})), "`limit`: expected integer (or null), got a number 1.5");
        assert_eq!(err(json!({"slug": "a", "extra": 1})), "unknown field `extra`; allowed: limit, mode, slug, steps");
        assert!(
            err(json!({"slug": "a", "mode": "medium"})).starts_with("`mode`: expected one of"),
            "{}",
            err(json!({"slug": "a", "mode": "medium"}))
        );
        assert_eq!(
            err(json!({"slug": "a", "steps": [{"title": "x"}, {}]})),
            "missing required field `steps[1].title` (string)"
        );
        assert_eq!(
            err(json!({"slug": "a", "steps": [{"title": "x", "why": 1}]})),
            "unknown field `why` in `steps[0]`; allowed: title"
        );
    }

    #[test]
    fn arguments_text_must_be_a_json_object() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments("  ").unwrap(), json!({}));
        assert!(parse_arguments("{\"slug\": ").unwrap_err().starts_with("the arguments are not valid JSON"));
        assert_eq!(parse_arguments("[1]").unwrap_err(), "the arguments must be a JSON object, got an array");
        assert_eq!(parse_arguments("\"x\"").unwrap_err(), "the arguments must be a JSON object, got a string");
    }
}
