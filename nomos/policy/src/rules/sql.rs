//! SQL as the server of each client reads it, split into statements by the dialect's own tokenizer
//! and parsed with a real grammar per dialect (PostgreSQL for `psql` and `cockroach`, MySQL for
//! `mysql`/`mariadb`, SQLite for `sqlite3`), and allowed statement by statement: queries whose
//! every function only computes, `SHOW`, `EXPLAIN` (with `ANALYZE`, as the statement it runs),
//! `USE`, SQLite's reading pragmas. A statement the parser cannot read is not read-only, but for a
//! few `SHOW` forms read by their words. What a statement destroys (`DROP`, `TRUNCATE`, a `DELETE`
//! of every row, also behind a `WHERE` that always holds, `DROP COLUMN`, functions that kill
//! sessions, read the server's files or run programs, SQL sent by `dblink` or kept in a function
//! body) and which password tables it reads (and whether the columns it takes hold secrets) are
//! found in the same tree.

use std::ops::ControlFlow;

use sqlparser::ast::{
    AlterTableOperation, CopySource, CopyTarget, Expr, ObjectName, Query, SetExpr, Statement, TableFactor,
    UtilityOption, Visit, Visitor,
};
use sqlparser::dialect::{Dialect, MySqlDialect, PostgreSqlDialect, SQLiteDialect};
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, Tokenizer};

/// Functions that only compute from their arguments or report the server's state.
#[rustfmt::skip]
const INERT_FUNCTIONS: &[&str] = &[
    // Aggregates and windows.
    "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "json_agg", "jsonb_agg", "group_concat",
    "bool_and", "bool_or", "every", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp",
    "percentile_cont", "percentile_disc", "mode", "row_number", "rank", "dense_rank", "percent_rank",
    "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value", "total",
    // Values.
    "coalesce", "nullif", "greatest", "least", "ifnull", "iif", "if", "isnull", "typeof", "cast",
    "lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length", "bit_length",
    "substr", "substring", "trim", "ltrim", "rtrim", "btrim", "replace", "concat", "concat_ws", "left",
    "right", "lpad", "rpad", "position", "strpos", "instr", "split_part", "reverse", "repeat", "format",
    "to_hex", "hex", "unhex", "quote", "quote_ident", "quote_literal", "regexp_replace", "regexp_match",
    "regexp_matches", "regexp_substr", "translate", "ascii", "chr", "char", "encode", "decode",
    "round", "floor", "ceil", "ceiling", "abs", "mod", "power", "pow", "sqrt", "exp", "ln", "log", "log10",
    "sign", "trunc", "truncate", "random", "rand", "div", "width_bucket",
    "json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array", "row_to_json",
    "to_json", "to_jsonb", "jsonb_pretty", "json_extract", "json_object", "json_array", "json_extract_path",
    "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text", "json_each", "jsonb_each",
    "json_array_length", "jsonb_array_length", "unnest", "generate_series", "array_length", "cardinality",
    "array_to_string", "string_to_array",
    // Time.
    "now", "current_timestamp", "current_date", "current_time", "localtime", "localtimestamp",
    "clock_timestamp", "statement_timestamp", "transaction_timestamp", "date_trunc", "date_part", "extract",
    "to_char", "to_date", "to_timestamp", "to_number", "age", "make_interval", "date", "datetime", "time",
    "strftime", "julianday", "unixepoch", "date_format", "from_unixtime", "unix_timestamp", "sysdate",
    "curdate", "curtime", "timestampdiff", "datediff", "date_add", "date_sub",
    // The server's own state.
    "version", "current_database", "current_schema", "current_schemas", "current_user", "session_user",
    "user", "database", "schema", "connection_id", "inet_server_addr", "inet_server_port", "pg_backend_pid",
    "pg_postmaster_start_time", "pg_conf_load_time", "pg_is_in_recovery", "pg_last_wal_receive_lsn",
    "pg_last_wal_replay_lsn", "pg_current_wal_lsn", "pg_wal_lsn_diff", "pg_last_xact_replay_timestamp",
    "pg_size_pretty", "pg_database_size", "pg_relation_size", "pg_total_relation_size", "pg_table_size",
    "pg_indexes_size", "pg_column_size", "pg_get_viewdef", "pg_get_indexdef", "pg_get_constraintdef",
    "pg_get_userbyid", "pg_encoding_to_char", "pg_table_is_visible", "obj_description", "col_description",
    "has_table_privilege", "has_database_privilege", "has_schema_privilege", "format_type", "pg_typeof",
    "sqlite_version", "changes", "total_changes", "last_insert_rowid", "format_bytes", "found_rows",
];

/// Password tables and their like: reading them discloses hashes or credentials.
#[rustfmt::skip]
const SECRET_TABLES: &[&str] = &[
    "pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_subscription", "mysql.user",
    "mysql.global_priv", "mysql.slave_master_info", "mysql.servers", "sys.sql_logins",
];

/// SQLite pragmas that only report.
#[rustfmt::skip]
const READING_PRAGMAS: &[&str] = &[
    "table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo", "foreign_key_list",
    "integrity_check", "quick_check", "database_list", "compile_options", "function_list", "module_list",
    "pragma_list", "collation_list", "foreign_key_check", "page_count", "page_size", "freelist_count",
    "user_version", "schema_version", "application_id", "encoding", "journal_mode", "data_version",
];

/// Which SQL a client's server reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    Postgres,
    MySql,
    Sqlite,
}

impl Flavor {
    pub(crate) fn of(client: &str) -> Flavor {
        match client {
            "mysql" | "mariadb" => Flavor::MySql,
            "sqlite3" => Flavor::Sqlite,
            _ => Flavor::Postgres,
        }
    }

    fn grammar(self) -> Box<dyn Dialect> {
        match self {
            Flavor::Postgres => Box::new(PostgreSqlDialect {}),
            Flavor::MySql => Box::new(MySqlDialect {}),
            Flavor::Sqlite => Box::new(SQLiteDialect {}),
        }
    }
}

/// What the statements of a text do, as the gate cares.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Judged {
    /// Why they are not read-only (each statement or function that is not).
    pub(crate) changes: Vec<String>,
    /// Why they destroy data.
    pub(crate) destroys: Vec<String>,
    /// Password tables they read.
    pub(crate) secrets: Vec<String>,
    /// The parser read the text (else only `changes` says why it is not read-only).
    pub(crate) parsed: bool,
}

/// Parses SQL text (client commands already taken out) and judges each statement. `database` is
/// the default database a client connects to (`mysql` makes `user` the password table).
pub(crate) fn judge(text: &str, dialect: Flavor, database: Option<&str>) -> Judged {
    let mut judged = Judged { parsed: true, ..Judged::default() };
    if text.trim().trim_matches(';').trim().is_empty() {
        return judged;
    }
    // SQLite's `PRAGMA table_info(users)` names a table where the parser wants a value; MySQL runs
    // the body of `/*! … */` and `/*M! … */` comments as SQL.
    let rewritten;
    let text = match dialect {
        Flavor::Sqlite => {
            rewritten = quote_pragma_arguments(text);
            rewritten.as_str()
        }
        Flavor::MySql => {
            rewritten = open_executable_comments(text);
            rewritten.as_str()
        }
        Flavor::Postgres => text,
    };
    judge_tokens(text, dialect, database, &mut judged, 0);
    judged
}

/// How deep SQL held in strings (function bodies, `dblink_exec`) is followed.
const MAX_DEPTH: usize = 3;

/// Splits the text into statements with the dialect's own tokenizer (a `;` in a string, a quoted
/// name or a comment does not end one) and judges each.
fn judge_tokens(text: &str, dialect: Flavor, database: Option<&str>, judged: &mut Judged, depth: usize) {
    let grammar = dialect.grammar();
    let tokens = match Tokenizer::new(&*grammar, text).tokenize() {
        Ok(t) => t,
        Err(e) => {
            judged.changes.push(format!("the SQL does not parse ({e}), so it is not known to only read"));
            judged.parsed = false;
            secret_words(text, judged);
            let words: Vec<String> = text
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect();
            unparsed_destroys(&words, judged);
            return;
        }
    };
    let mut database = database.map(str::to_lowercase);
    for statement in tokens.split(|t| matches!(t, Token::SemiColon)) {
        let words: Vec<String> = statement
            .iter()
            .filter_map(|t| match t {
                Token::Word(w) if w.quote_style.is_none() => Some(w.value.to_lowercase()),
                _ => None,
            })
            .collect();
        if statement.iter().all(|t| matches!(t, Token::Whitespace(_) | Token::EOF)) {
            continue;
        }
        by_tokens(statement, &words, judged, dialect, database.as_deref(), depth);
        let parsed = Parser::new(&*grammar).with_tokens(statement.to_vec()).parse_statements();
        let statements = match parsed {
            Ok(s) => s,
            Err(e) => {
                if !reads_by_words(&words) {
                    judged.changes.push(format!("the SQL does not parse ({e}), so it is not known to only read"));
                    judged.parsed = false;
                    unparsed_destroys(&words, judged);
                    // Text the grammar does not read still names its tables.
                    let names: String = statement
                        .iter()
                        .map(|t| match t {
                            Token::Word(w) => unescape_unicode(&w.value),
                            Token::Period => ".".to_string(),
                            _ => " ".to_string(),
                        })
                        .collect();
                    secret_words(&names, judged);
                }
                continue;
            }
        };
        for statement_ast in &statements {
            if let Statement::Use(u) = statement_ast {
                database = Some(use_name(u));
                continue;
            }
            statement_level(statement_ast, judged);
            let mut walk = Walk { judged, database: database.as_deref(), secret_hits: Vec::new(), depth, dialect };
            let _ = statement_ast.visit(&mut walk);
            let Walk { mut secret_hits, .. } = walk;
            let query = matches!(statement_ast, Statement::Query(_));
            let copy = matches!(statement_ast, Statement::Copy { .. });
            if let Statement::Copy { source: CopySource::Table { table_name, .. }, .. } = statement_ast {
                secret_hits.extend(secret_table(table_name, database.as_deref()));
            }
            let every_column = wildcard(statement);
            // A key-value table read for the row a secret's name selects (`WHERE configkey =
            // 'password'`, `name LIKE '%token%'`) prints that secret, whatever the table is called.
            if query {
                if let Some(key) = statement.iter().filter_map(secret_literal).next() {
                    judged.secrets.push(format!("the rows named '{key}'"));
                }
            }
            for (table, system) in secret_hits {
                let discloses = if system {
                    !query || every_column || !only_plain_columns(statement_ast)
                } else {
                    // A settings table's key column (`configkey`) names settings, not secrets: what
                    // a read takes from it is judged by the rows it selects (above).
                    let settings = is_settings_table(&table);
                    copy || (query && (every_column || (!settings && names_secret_column(statement_ast))))
                };
                if discloses {
                    judged.secrets.push(table);
                }
            }
        }
    }
}

/// What the words of a statement say before any grammar: credential disclosure (`SHOW GRANTS`,
/// `SHOW CREATE USER`), MySQL's log and replica resets, SQL held in strings of function bodies and
/// `DO` blocks, password tables named in text that does not parse.
fn by_tokens(
    tokens: &[Token],
    words: &[String],
    judged: &mut Judged,
    dialect: Flavor,
    database: Option<&str>,
    depth: usize,
) {
    let first = words.first().map(String::as_str).unwrap_or("");
    let second = words.get(1).map(String::as_str).unwrap_or("");
    let third = words.get(2).map(String::as_str).unwrap_or("");
    if first == "show" && (second == "grants" || (second == "create" && third == "user")) {
        judged.secrets.push(format!("SHOW {} (privileges and credentials)", second.to_uppercase()));
    }
    if first == "show" && matches!(second, "binlog" | "relaylog") {
        judged.changes.push("the binary log's events hold the data written, not only the server's state".into());
    }
    if first == "purge" || (first == "reset" && matches!(second, "master" | "replica" | "slave" | "binary")) {
        judged.destroys.push(format!(
            "`{} {}` deletes the binary logs or the replica's state",
            first.to_uppercase(),
            second.to_uppercase()
        ));
    }
    if let Some(why) = takes_down(words) {
        judged.destroys.push(why);
    }
    if let Some(why) = rewrites_server(tokens, words, depth) {
        judged.destroys.push(why);
    }
    // SQL kept in strings: function and procedure bodies, `DO` blocks, `EXECUTE`, `PREPARE`.
    let holds_sql = (matches!(first, "create" | "do" | "execute" | "prepare" | "begin")
        || words.iter().any(|w| matches!(w.as_str(), "execute" | "exec")))
        && (first != "create"
            || words.iter().any(|w| matches!(w.as_str(), "function" | "procedure" | "trigger" | "rule")));
    if holds_sql && depth < MAX_DEPTH {
        for t in tokens {
            if let Some(body) = string_of(t) {
                let inner = judge_depth(&body, dialect, database, depth + 1);
                judged.destroys.extend(inner.destroys);
                judged.secrets.extend(inner.secrets);
            }
        }
    }
}

/// Statements whose harm is in what they name rather than their verb: a write to the server's
/// own catalogs (`UPDATE pg_database SET datallowconn`, `DELETE FROM mysql.user`), a statement
/// kept to be run later (`PREPARE p AS DELETE …`), SQL built at run time and executed
/// (`EXECUTE 'DR' || 'OP …'`, `PREPARE s FROM @q`), any `DROP` (its `CASCADE` takes what depends on
/// it), a table made to discard its rows (`ENGINE=BLACKHOLE`, `DISCARD TABLESPACE`).
fn rewrites_server(tokens: &[Token], words: &[String], depth: usize) -> Option<String> {
    let first = words.first().map(String::as_str).unwrap_or("");
    let has = |w: &str| words.iter().any(|x| x == w);
    // The table written: after `UPDATE [ONLY]`, `INTO`, `DELETE FROM`, `TRUNCATE [TABLE]`, `ALTER TABLE`.
    let target = match first {
        "update" | "truncate" | "alter" => {
            words.iter().skip(1).find(|w| !matches!(w.as_str(), "only" | "table" | "low_priority" | "ignore"))
        }
        "insert" | "replace" | "merge" => words.iter().skip_while(|w| *w != "into").nth(1),
        "delete" => words.iter().skip_while(|w| *w != "from").nth(1),
        _ => None,
    };
    let catalog = target.is_some_and(|w| {
        (w.starts_with("pg_") && w != "pg_temp") || matches!(w.as_str(), "mysql" | "pg_catalog" | "sys")
    });
    if catalog {
        return Some("a write to the server's own catalog changes who may connect or what exists".into());
    }
    if first == "drop" {
        return Some(format!(
            "`DROP {}` removes it and what it holds",
            words.get(1).map_or("", |w| w.as_str()).to_uppercase()
        ));
    }
    if has("blackhole") || (has("discard") && has("tablespace")) {
        return Some("the table is made to discard its rows".into());
    }
    // `PREPARE name AS statement` (PostgreSQL) keeps a statement for `EXECUTE`: judged as it.
    if first == "prepare" {
        if let Some(at) = words.iter().position(|w| w == "as") {
            let mut inner = Judged::default();
            let rest = words.get(at + 1..).unwrap_or(&[]);
            unparsed_destroys(rest, &mut inner);
            if !inner.destroys.is_empty() || rest.first().is_some_and(|w| matches!(w.as_str(), "delete" | "update")) {
                return Some("`PREPARE` keeps a statement that deletes or rewrites rows, for `EXECUTE` to run".into());
            }
        }
        // `PREPARE s FROM @q`: the text is a variable, built where it cannot be seen.
        let literal = tokens.iter().any(|t| string_of(t).is_some());
        if has("from") && !literal {
            return Some("`PREPARE … FROM` a variable runs SQL built at run time, which cannot be judged".into());
        }
    }
    // SQL built by concatenation or formatting and executed: its words are not there to judge.
    let executes = has("execute") || has("exec") || (has("immediate") && first == "execute");
    let built = tokens.iter().any(|t| matches!(t, Token::StringConcat))
        || words.iter().any(|w| {
            matches!(
                w.as_str(),
                "concat" | "format" | "concat_ws" | "replace" | "chr" | "char" | "reverse" | "translate"
            )
        });
    // Inside a body (`DO $$ … $$`, a function), `EXECUTE v` runs whatever the variable holds.
    let variable = depth > 0 && tokens_after_execute(tokens).is_some_and(|literal| !literal);
    if executes && (built || variable) {
        return Some("it executes SQL built at run time, which cannot be judged".into());
    }
    None
}

/// Whether the first thing after the word `execute` is a string literal (`Some(true)`), a word
/// (`Some(false)`), or nothing.
fn tokens_after_execute(tokens: &[Token]) -> Option<bool> {
    let at = tokens.iter().position(|t| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("execute")))?;
    tokens.get(at + 1..)?.iter().find(|t| !matches!(t, Token::Whitespace(_))).map(|t| string_of(t).is_some())
}

/// A statement the grammar cannot read is judged by its words: one that says it drops, empties,
/// deletes, stops the server, runs a program or changes who may log in is taken to do so.
fn unparsed_destroys(words: &[String], judged: &mut Judged) {
    let has = |w: &str| words.iter().any(|x| x == w);
    let why = if let Some(w) = words.iter().find(|w| matches!(w.as_str(), "drop" | "truncate" | "shutdown" | "purge")) {
        Some(format!(
            "a statement that does not parse says `{}`, which removes data or stops the server",
            w.to_uppercase()
        ))
    } else if has("delete") || (has("update") && !has("where")) {
        Some("a statement that does not parse deletes or rewrites rows, perhaps all of them".to_string())
    } else if has("program") || (has("system") && (has("copy") || has("call"))) {
        Some("a statement that does not parse runs a program on the server".to_string())
    } else if (has("user") || has("role") || has("login") || has("password"))
        && words.iter().any(|w| matches!(w.as_str(), "alter" | "rename" | "set" | "revoke" | "create" | "grant"))
    {
        Some("a statement that does not parse changes an account or its password".to_string())
    } else {
        None
    };
    judged.destroys.extend(why);
}

/// A string token's text.
fn string_of(t: &Token) -> Option<String> {
    match t {
        Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s) | Token::NationalStringLiteral(s) => {
            Some(s.clone())
        }
        Token::DollarQuotedString(d) => Some(d.value.clone()),
        _ => None,
    }
}

/// A string literal that names a credential (`'smtp_pass'`, `'%token%'`, `"api_key"` in MySQL).
fn secret_literal(t: &Token) -> Option<String> {
    let text = match t {
        Token::DoubleQuotedString(s) => Some(s.clone()),
        _ => string_of(t),
    }?;
    super::disclosure::is_credential_pattern(&text).then_some(text)
}

/// Judges SQL text held in a string, one level deeper.
fn judge_depth(text: &str, dialect: Flavor, database: Option<&str>, depth: usize) -> Judged {
    let mut judged = Judged { parsed: true, ..Judged::default() };
    judge_tokens(text, dialect, database, &mut judged, depth);
    judged
}

/// PostgreSQL's `U&"d\0061ta"` escapes (`\XXXX`, `\+XXXXXX`) decoded.
fn unescape_unicode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let wide = chars.peek() == Some(&'+');
        if wide {
            chars.next();
        }
        let digits: String = chars.clone().take(if wide { 6 } else { 4 }).collect();
        match u32::from_str_radix(&digits, 16).ok().and_then(char::from_u32) {
            Some(d) if digits.len() == if wide { 6 } else { 4 } => {
                out.push(d);
                for _ in 0..digits.len() {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Password tables named in text the grammar did not read (`mysql.user` only so qualified).
fn secret_words(text: &str, judged: &mut Judged) {
    let lower = text.to_lowercase();
    for t in SECRET_TABLES {
        let dotted = format!(".{t}");
        if lower.split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.').any(|w| w == *t || w.ends_with(&dotted))
        {
            judged.secrets.push((*t).to_string());
        }
    }
}

/// Statements the grammar cannot read that only show the server's state (`SHOW FULL
/// PROCESSLIST`, `SHOW ENGINE INNODB STATUS`, `SHOW SLAVE STATUS`).
fn reads_by_words(words: &[String]) -> bool {
    let mut rest = words.iter().map(String::as_str);
    if rest.next() != Some("show") {
        return false;
    }
    let mut what = rest.next().unwrap_or("");
    while matches!(what, "full" | "global" | "session" | "extended" | "all") {
        what = rest.next().unwrap_or("all");
    }
    matches!(
        what,
        "tables"
            | "databases"
            | "schemas"
            | "status"
            | "variables"
            | "processlist"
            | "engines"
            | "engine"
            | "slave"
            | "replica"
            | "replicas"
            | "master"
            | "binary"
            | "plugins"
            | "warnings"
            | "errors"
            | "index"
            | "indexes"
            | "keys"
            | "table"
            | "triggers"
            | "events"
            | "privileges"
            | "character"
            | "charset"
            | "collation"
            | "open"
            | "columns"
            | "fields"
            | "profiles"
            | "profile"
            | "function"
            | "procedure"
            | "count"
            | "storage"
    ) && !words.iter().any(|w| matches!(w.as_str(), "grants" | "user"))
}

/// A `*` that stands for every column (`SELECT *`, `t.*`), not `count(*)` or a product; `TABLE t`.
fn wildcard(tokens: &[Token]) -> bool {
    let significant: Vec<&Token> = tokens.iter().filter(|t| !matches!(t, Token::Whitespace(_))).collect();
    significant.iter().enumerate().any(|(i, t)| {
        let before = i.checked_sub(1).and_then(|p| significant.get(p));
        match t {
            Token::Mul => match before {
                None => true,
                Some(Token::Word(w)) => matches!(w.value.to_lowercase().as_str(), "select" | "distinct" | "all"),
                Some(b) => matches!(b, Token::Comma | Token::Period),
            },
            Token::Word(w) => w.quote_style.is_none() && w.value.eq_ignore_ascii_case("table"),
            _ => false,
        }
    })
}

/// Whether a query names only columns known to hold no secret (`SELECT user, host FROM mysql.user`,
/// `SELECT rolname FROM pg_authid`): a whole-row reference (`SELECT a FROM pg_authid a`) does not.
fn only_plain_columns(statement: &Statement) -> bool {
    struct Columns(bool);
    impl Visitor for Columns {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            let last = match expr {
                Expr::Identifier(i) => Some(i.value.to_lowercase()),
                Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.to_lowercase()),
                _ => None,
            };
            if let Some(column) = last {
                if !PLAIN_COLUMNS.contains(&column.as_str()) {
                    self.0 = false;
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut columns = Columns(true);
    let _ = statement.visit(&mut columns);
    columns.0
}

/// Whether a statement names a column that by its name holds a credential (`user_pass`,
/// `password_hash`, `api_token`).
fn names_secret_column(statement: &Statement) -> bool {
    struct Columns(bool);
    impl Visitor for Columns {
        type Break = ();
        fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
            let last = match expr {
                Expr::Identifier(i) => Some(i.value.to_lowercase()),
                Expr::CompoundIdentifier(parts) => parts.last().map(|i| i.value.to_lowercase()),
                _ => None,
            };
            if last.is_some_and(|c| {
                ["pass", "hash", "token", "secret", "salt", "otp", "key", "credential"].iter().any(|w| c.contains(w))
            }) {
                self.0 = true;
            }
            ControlFlow::Continue(())
        }
    }
    let mut columns = Columns(false);
    let _ = statement.visit(&mut columns);
    columns.0
}

/// Columns of the password tables that hold no secret.
#[rustfmt::skip]
const PLAIN_COLUMNS: &[&str] = &[
    "user", "host", "usename", "usesysid", "usecreatedb", "usesuper", "userepl", "usebypassrls", "valuntil",
    "rolname", "rolsuper", "rolinherit", "rolcreaterole", "rolcreatedb", "rolcanlogin", "rolreplication",
    "rolbypassrls", "rolconnlimit", "rolvaliduntil", "oid", "account_locked", "password_expired", "plugin",
    "max_connections", "max_user_connections", "select_priv", "insert_priv", "update_priv", "delete_priv",
    "create_priv", "drop_priv", "super_priv", "grant_priv", "is_role", "default_role", "ssl_type", "umuser",
    "srvname", "usename", "subname", "subenabled", "subowner", "subdbid", "username", "id", "is_active",
    "is_staff", "is_superuser", "last_login", "date_joined", "email", "first_name", "last_name", "name",
];

/// MySQL's executable comments (`/*! … */`, `/*!50000 … */`, `/*M! … */`) as the SQL they hold.
fn open_executable_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("/*") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let body = from.get(2..).unwrap_or("");
        let opened = body.strip_prefix('!').or_else(|| body.strip_prefix("M!"));
        match opened {
            Some(inner) => {
                let inner = inner.trim_start_matches(|c: char| c.is_ascii_digit());
                let (sql, after) = inner.split_once("*/").unwrap_or((inner, ""));
                out.push(' ');
                out.push_str(sql);
                out.push(' ');
                rest = after;
            }
            None => {
                out.push_str("/*");
                rest = body;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `PRAGMA name(ident)` as `PRAGMA name('ident')`.
fn quote_pragma_arguments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.to_ascii_lowercase().find("pragma") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let Some(open) = from.find('(') else { break };
        let Some(close) = from.find(')') else { break };
        let (head, tail) = from.split_at(open);
        let inner = if close > open { from.get(open + 1..close).unwrap_or("") } else { "" };
        if inner.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !inner.is_empty()
            && head.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c.is_whitespace())
        {
            out.push_str(head);
            out.push_str(&format!("('{inner}')"));
            rest = from.get(close + 1..).unwrap_or("");
        } else {
            out.push_str(head);
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn use_name(u: &sqlparser::ast::Use) -> String {
    use sqlparser::ast::Use;
    match u {
        Use::Catalog(n) | Use::Schema(n) | Use::Database(n) | Use::Object(n) | Use::Warehouse(n) | Use::Role(n) => {
            name_of(n)
        }
        _ => String::new(),
    }
}

/// An object's name as the server resolves it: its parts, unquoted, in lower case.
fn name_of(name: &ObjectName) -> String {
    name.0
        .iter()
        .map(|p| p.as_ident().map(|i| i.value.to_lowercase()).unwrap_or_else(|| p.to_string().to_lowercase()))
        .collect::<Vec<_>>()
        .join(".")
}

/// What a statement is, as a whole.
/// Statements that stop the server, lock logins out, make it refuse writes, rewrite its
/// configuration or replace rows, read by their words (so also where the grammar fails).
fn takes_down(words: &[String]) -> Option<String> {
    let first = words.first().map(String::as_str).unwrap_or("");
    let second = words.get(1).map(String::as_str).unwrap_or("");
    let has = |w: &str| words.iter().any(|x| x == w);
    let why = match first {
        "shutdown" => "`SHUTDOWN` stops the database server",
        "alter" if matches!(second, "user" | "role") && (has("nologin") || has("lock") || has("password")) => {
            "`ALTER USER/ROLE` locks a login out or changes its password"
        }
        "alter" if second == "system" => "`ALTER SYSTEM` rewrites the server's configuration for its next start",
        "alter"
            if matches!(second, "database" | "role" | "user" | "schema")
                && (has("allow_connections")
                    || (has("connection") && has("limit"))
                    || (has("valid") && has("until"))
                    || has("default_transaction_read_only")) =>
        {
            "it refuses the clients' connections or expires a login"
        }
        "revoke" if has("connect") => "`REVOKE CONNECT` takes away the clients' right to connect",
        "reassign" => "`REASSIGN OWNED` hands every object of a role to another",
        "vacuum" if has("full") || has("into") => {
            "`VACUUM FULL/INTO` locks the tables or writes the database elsewhere"
        }
        "replace" => "`REPLACE` deletes the rows it replaces",
        "insert" if second == "or" && has("replace") => "`INSERT OR REPLACE` deletes the rows it replaces",
        "set"
            if matches!(second, "global" | "persist" | "@@global")
                && (has("read_only") || has("super_read_only") || has("offline_mode") || has("max_connections")) =>
        {
            "`SET GLOBAL` makes the server refuse writes or connections"
        }
        "flush" if has("read") && has("lock") => "`FLUSH TABLES WITH READ LOCK` blocks every write",
        _ => return None,
    };
    Some(why.to_string())
}

fn statement_level(statement: &Statement, judged: &mut Judged) {
    match statement {
        Statement::Query(q) => query_level(q, judged),
        Statement::Explain { analyze, options, statement: inner, .. } => {
            // `EXPLAIN ANALYZE` runs what it explains.
            let analyzes = *analyze || options.as_ref().is_some_and(|o| o.iter().any(analyze_option));
            // It is judged as the statement it runs.
            if analyzes {
                statement_level(inner, judged);
            }
        }
        Statement::ExplainTable { .. }
        | Statement::ShowFunctions { .. }
        | Statement::ShowVariable { .. }
        | Statement::ShowStatus { .. }
        | Statement::ShowVariables { .. }
        | Statement::ShowColumns { .. }
        | Statement::ShowDatabases { .. }
        | Statement::ShowSchemas { .. }
        | Statement::ShowCharset(_)
        | Statement::ShowObjects(_)
        | Statement::ShowTables { .. }
        | Statement::ShowViews { .. }
        | Statement::ShowCollation { .. } => {}
        Statement::ShowCreate { obj_type, .. } => {
            if obj_type.to_string().eq_ignore_ascii_case("user") {
                judged.secrets.push("SHOW CREATE USER".into());
            }
        }
        Statement::Pragma { name, value, .. } => {
            let pragma = name_of(name);
            let pragma = pragma.rsplit('.').next().unwrap_or(&pragma);
            // `PRAGMA table_info(x)` is parsed with a value: a reading pragma reads with any.
            if !READING_PRAGMAS.contains(&pragma) || (value.is_some() && is_settable_pragma(pragma)) {
                judged.changes.push(format!("`PRAGMA {pragma}` may change the database"));
            }
        }
        Statement::Drop { .. } | Statement::Truncate { .. } => {
            judged.destroys.push(format!("`{}` drops or empties data", first_words(statement)));
        }
        Statement::Delete(d) if d.selection.as_ref().is_none_or(always_true) => {
            judged.destroys.push("a `DELETE` without a `WHERE` that bounds it removes every row".into());
        }
        // A `WHERE` written to hold for every row overwrites them all; every account's password
        // overwritten locks its users out.
        Statement::Update { selection, assignments, .. }
            if selection.as_ref().is_some_and(always_true)
                || (selection.is_none()
                    && assignments.iter().any(|a| {
                        let column = a.target.to_string().to_ascii_lowercase();
                        ["pass", "hash", "authentication_string", "token", "secret"].iter().any(|c| column.contains(c))
                    })) =>
        {
            judged.destroys.push("an `UPDATE` without a `WHERE` that bounds it overwrites every row".into());
        }
        Statement::AlterTable { operations, .. }
            if operations.iter().any(|o| matches!(o, AlterTableOperation::DropColumn { .. })) =>
        {
            judged.destroys.push("`ALTER TABLE … DROP COLUMN` drops a column's data".into());
        }
        Statement::Copy { target: CopyTarget::Program { .. }, .. } => {
            judged.destroys.push("`COPY … PROGRAM` runs a shell command as the database server".into());
        }
        other => judged.changes.push(format!("`{}` changes the database or its session", first_words(other))),
    }
}

/// A `WHERE` that holds for every row: `1=1`, `true`, `x OR true`, `'a'='a'`, `id = id`.
fn always_true(e: &Expr) -> bool {
    use sqlparser::ast::{BinaryOperator as B, Value};
    match e {
        Expr::Value(v) => match &v.value {
            Value::Boolean(b) => *b,
            Value::Number(n, _) => n.parse::<f64>().is_ok_and(|n| n != 0.0),
            _ => false,
        },
        Expr::Nested(inner) => always_true(inner),
        Expr::UnaryOp { op: sqlparser::ast::UnaryOperator::Not, expr } => always_false(expr),
        Expr::BinaryOp { left, op, right } => match op {
            B::Or => always_true(left) || always_true(right),
            B::And => always_true(left) && always_true(right),
            B::Eq | B::GtEq | B::LtEq | B::Spaceship => {
                left.to_string() == right.to_string()
                    || compare(left, right).is_some_and(|o| match op {
                        B::GtEq => o.is_ge(),
                        B::LtEq => o.is_le(),
                        _ => o.is_eq(),
                    })
            }
            B::NotEq | B::Gt | B::Lt => compare(left, right).is_some_and(|o| match op {
                B::Gt => o.is_gt(),
                B::Lt => o.is_lt(),
                _ => o.is_ne(),
            }),
            _ => false,
        },
        Expr::IsNotNull(inner) => matches!(&**inner, Expr::Value(v) if !matches!(v.value, Value::Null)),
        Expr::IsNull(inner) => matches!(&**inner, Expr::Value(v) if matches!(v.value, Value::Null)),
        Expr::IsTrue(inner) | Expr::IsNotFalse(inner) => always_true(inner),
        Expr::Like { negated: false, pattern, .. } | Expr::ILike { negated: false, pattern, .. } => {
            matches!(&**pattern, Expr::Value(v) if matches!(&v.value, Value::SingleQuotedString(p) if !p.is_empty() && p.chars().all(|c| c == '%')))
        }
        _ => false,
    }
}

fn always_false(e: &Expr) -> bool {
    use sqlparser::ast::Value;
    match e {
        Expr::Value(v) => match &v.value {
            Value::Boolean(b) => !*b,
            Value::Number(n, _) => n.parse::<f64>().is_ok_and(|n| n == 0.0),
            _ => false,
        },
        Expr::Nested(inner) => always_false(inner),
        _ => false,
    }
}

/// Two literals compared (numbers as numbers, strings as strings).
fn compare(left: &Expr, right: &Expr) -> Option<std::cmp::Ordering> {
    use sqlparser::ast::Value;
    let literal = |e: &Expr| match e {
        Expr::Value(v) => Some(v.value.clone()),
        Expr::Nested(inner) => match &**inner {
            Expr::Value(v) => Some(v.value.clone()),
            _ => None,
        },
        _ => None,
    };
    match (literal(left)?, literal(right)?) {
        (Value::Number(a, _), Value::Number(b, _)) => a.parse::<f64>().ok()?.partial_cmp(&b.parse::<f64>().ok()?),
        (Value::SingleQuotedString(a), Value::SingleQuotedString(b)) => Some(a.cmp(&b)),
        _ => None,
    }
}

/// SQLite pragmas that, given a value, set it.
fn is_settable_pragma(pragma: &str) -> bool {
    matches!(pragma, "user_version" | "schema_version" | "application_id" | "journal_mode" | "page_size" | "encoding")
}

fn analyze_option(o: &UtilityOption) -> bool {
    (o.name.value.eq_ignore_ascii_case("analyze") || o.name.value.eq_ignore_ascii_case("analyse"))
        && !o.arg.as_ref().is_some_and(|a| matches!(a.to_string().to_lowercase().as_str(), "false" | "off" | "0"))
}

/// The first words of a statement, for a reason.
fn first_words(statement: &Statement) -> String {
    statement.to_string().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
}

/// A query is read-only when it writes into nothing, locks nothing and modifies nothing (in a
/// `WITH` either).
fn query_level(q: &Query, judged: &mut Judged) {
    if !q.locks.is_empty() {
        judged.changes.push("`SELECT … FOR UPDATE/SHARE` locks rows".into());
    }
    if let Some(with) = &q.with {
        for cte in &with.cte_tables {
            query_level(&cte.query, judged);
        }
    }
    set_level(&q.body, judged);
}

fn set_level(body: &SetExpr, judged: &mut Judged) {
    match body {
        SetExpr::Select(s) => {
            if s.into.is_some() {
                judged.changes.push("`SELECT … INTO` writes a table or a file".into());
            }
        }
        SetExpr::Query(q) => query_level(q, judged),
        SetExpr::SetOperation { left, right, .. } => {
            set_level(left, judged);
            set_level(right, judged);
        }
        SetExpr::Values(_) | SetExpr::Table(_) => {}
        SetExpr::Insert(s) | SetExpr::Update(s) | SetExpr::Delete(s) | SetExpr::Merge(s) => statement_level(s, judged),
    }
}

/// Functions that destroy, stop sessions or the server's role, read the server's files or run
/// programs.
#[rustfmt::skip]
const DANGEROUS_FUNCTIONS: &[&str] = &[
    "pg_terminate_backend", "pg_drop_replication_slot", "pg_read_file", "pg_read_binary_file",
    "lo_import", "load_file", "sys_exec", "sys_eval", "pg_file_unlink",
    "lo_unlink", "pg_truncate_visibility_map", "pg_replication_origin_drop",
];

/// A name that is a password table, as the server resolves it, and whether it is a system table
/// (every column but a few known ones is secret) or an application's (secret in bulk).
fn secret_table(relation: &ObjectName, database: Option<&str>) -> Option<(String, bool)> {
    let name = unescape_unicode(&name_of(relation));
    let qualified = match (database, name.contains('.')) {
        (Some(db), false) => format!("{db}.{name}"),
        _ => name.clone(),
    };
    let short = name.rsplit('.').next().unwrap_or(&name).to_string();
    let system = SECRET_TABLES.iter().any(|t| {
        name == *t || qualified == *t || name.ends_with(&format!(".{t}")) || (!t.contains('.') && short == *t)
    });
    if system {
        return Some((qualified, true));
    }
    let lower = short.to_ascii_lowercase();
    // `totp_configurations`, `user_secrets`, `oauth_tokens`: named for what they hold.
    let named = lower.split(['_', '-']).any(|part| CREDENTIAL_WORDS.contains(&part));
    (CREDENTIAL_TABLES.contains(&lower.as_str()) || named || is_account_table(&lower)).then_some((qualified, false))
}

/// Whether a table or collection holds accounts or an application's settings, behind any
/// application prefix (`oc_accounts`, `core_user`, `phpbb_users`, `wp_options`, `oc_appconfig`):
/// read whole, its rows carry password hashes, tokens and the application's own secrets.
pub(crate) fn is_account_table(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit(['_', '-', '.']).next().unwrap_or(&lower);
    ACCOUNT_WORDS.contains(&last) || CREDENTIAL_TABLES.contains(&lower.as_str())
}

/// Whether a table holds an application's settings as keys and values (`wp_options`, `oc_appconfig`).
fn is_settings_table(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let last = lower.rsplit(['_', '-', '.']).next().unwrap_or(&lower);
    SETTINGS_WORDS.contains(&last)
}

/// The last word of the name of a table of accounts, sessions or settings.
#[rustfmt::skip]
const ACCOUNT_WORDS: &[&str] = &[
    "user", "users", "account", "accounts", "member", "members", "login", "logins", "auth", "authtoken",
    "authtokens", "identity", "identities", "session", "sessions", "secrets", "tokens", "credentials",
    "appconfig", "settings", "options", "preferences", "config", "configuration",
];

/// The last word of the name of a table of settings.
const SETTINGS_WORDS: &[&str] = &["appconfig", "settings", "options", "preferences", "config", "configuration"];

/// Words a table's name is made of that say it holds credentials.
#[rustfmt::skip]
const CREDENTIAL_WORDS: &[&str] = &[
    "totp", "otp", "mfa", "webauthn", "u2f", "secret", "secrets", "token", "tokens", "password", "passwords", "passwd",
    "credential", "credentials", "apikey", "apikeys",
];

/// Applications' account and token tables: all their columns read at once include the hashes.
#[rustfmt::skip]
const CREDENTIAL_TABLES: &[&str] = &[
    "auth_user", "users", "user", "accounts", "account", "credentials", "api_keys", "api_tokens", "access_tokens",
    "personal_access_tokens", "oauth_access_tokens", "oauth2_token", "authtoken_token", "access_token",
    "two_factor", "webauthn_credential", "oc_users", "wp_users", "user_auth_token", "login_source",
];

/// Everything inside a statement: functions called, tables read.
struct Walk<'j, 'd> {
    judged: &'j mut Judged,
    database: Option<&'d str>,
    /// Password tables the statement names (whether what it reads of them is secret is judged after).
    secret_hits: Vec<(String, bool)>,
    depth: usize,
    dialect: Flavor,
}

impl Walk<'_, '_> {
    /// `dblink_exec(conn, sql)`, `dblink(conn, sql)`: the SQL it sends to another server is judged
    /// as that server would run it.
    fn remote(&mut self, short: &str, call: &str) {
        if self.depth >= MAX_DEPTH {
            return;
        }
        let grammar = self.dialect.grammar();
        let strings: Vec<String> =
            Tokenizer::new(&*grammar, call).tokenize().unwrap_or_default().iter().filter_map(string_of).collect();
        if let Some(sql) = strings.last().filter(|_| strings.len() >= 2 || short == "dblink_exec") {
            let inner = judge_depth(sql, self.dialect, None, self.depth + 1);
            if !inner.changes.is_empty() || !inner.destroys.is_empty() || short == "dblink_exec" {
                self.judged.destroys.push(format!("`{short}` runs a statement that writes on another server"));
            }
            self.judged.secrets.extend(inner.secrets);
        }
    }
}

impl Visitor for Walk<'_, '_> {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = expr {
            let name = name_of(&f.name);
            let short = name.rsplit('.').next().unwrap_or(&name);
            if DANGEROUS_FUNCTIONS.contains(&short) {
                self.judged.destroys.push(format!(
                    "it calls `{name}`, which stops sessions, reads the server's files or runs programs"
                ));
            } else if short.starts_with("dblink") {
                self.remote(short, &f.to_string());
            }
            if !INERT_FUNCTIONS.contains(&short) {
                self.judged.changes.push(format!("it calls `{name}`, which is not a function known to be inert"));
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table { name, args: Some(_), .. } => {
                let name = name_of(name);
                let short = name.rsplit('.').next().unwrap_or(&name);
                if short.starts_with("dblink") {
                    self.remote(short, &factor.to_string());
                }
                if !matches!(short, "generate_series" | "unnest" | "json_each" | "jsonb_each" | "pragma_table_info") {
                    self.judged.changes.push(format!("it reads the table function `{name}`, not known to be inert"));
                }
            }
            TableFactor::Function { .. } | TableFactor::TableFunction { .. } => {
                self.judged.changes.push("it reads a table function, not known to be inert".into());
            }
            // PostgreSQL's `FROM ONLY pg_authid` reads as the table `only` named `pg_authid` here.
            TableFactor::Table { name, alias: Some(alias), .. } if name_of(name) == "only" => {
                let table = ObjectName::from(vec![alias.name.clone()]);
                self.secret_hits.extend(secret_table(&table, self.database));
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        self.secret_hits.extend(secret_table(relation, self.database));
        ControlFlow::Continue(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pg(s: &str) -> Judged {
        judge(s, Flavor::Postgres, None)
    }

    #[test]
    fn queries_that_only_read() {
        for (sql, d) in [
            ("SELECT count(*) FROM users WHERE active", Flavor::Postgres),
            ("SELECT pg_size_pretty(pg_database_size(current_database()))", Flavor::Postgres),
            ("SELECT E'it\\'s'", Flavor::Postgres),
            ("SELECT $$don't$$", Flavor::Postgres),
            ("EXPLAIN DELETE FROM audit_log", Flavor::Postgres),
            ("SHOW TABLES", Flavor::MySql),
            ("SELECT 1 AS [it's]", Flavor::Sqlite),
            ("PRAGMA integrity_check", Flavor::Sqlite),
            ("PRAGMA table_info(users)", Flavor::Sqlite),
            ("WITH x AS (SELECT 1) SELECT * FROM x", Flavor::Postgres),
        ] {
            let j = judge(sql, d, None);
            assert_eq!(j, Judged { parsed: true, ..Judged::default() }, "{sql}");
        }
    }

    #[test]
    fn desynchronising_lexers_does_not_hide_statements() {
        assert!(!pg("SELECT E'it\\'s'; DROP TABLE app.sessions; SELECT 'x'").destroys.is_empty());
        assert!(!pg("SELECT $$don't$$; TRUNCATE audit_log; SELECT 'x';").destroys.is_empty());
        assert!(!pg("SELECT $q$ $$ ' $q$; DROP SCHEMA public CASCADE; SELECT 1").destroys.is_empty());
        let my = |s: &str| judge(s, Flavor::MySql, None);
        assert!(!my("SELECT 1--1; DROP TABLE shop.orders").destroys.is_empty());
        assert!(!my("SELECT 'a\\''; DROP TABLE shop.orders; SELECT ''").destroys.is_empty());
        let lite = |s: &str| judge(s, Flavor::Sqlite, None);
        assert!(!lite("SELECT 1 AS [it's]; DROP TABLE users; SELECT 'x'").destroys.is_empty());
        assert!(!lite("SELECT 1 AS \"it's\"; DELETE FROM users").destroys.is_empty());
    }

    #[test]
    fn side_effects_and_secrets_are_found() {
        assert!(!pg("SELECT pg_terminate_backend(42)").changes.is_empty());
        assert!(!pg("SELECT nextval('s')").changes.is_empty());
        assert!(!pg("SELECT * FROM t FOR UPDATE").changes.is_empty());
        assert!(!pg("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d").destroys.is_empty());
        assert!(!pg("EXPLAIN (ANALYZE true, BUFFERS) UPDATE users SET pw = null").changes.is_empty());
        assert!(!judge("SELECT data FROM fsdir('/etc')", Flavor::Sqlite, None).changes.is_empty());
        assert_eq!(pg("SELECT rolpassword FROM \"pg_catalog\".\"pg_authid\"").secrets, ["pg_catalog.pg_authid"]);
        assert_eq!(judge("USE mysql; SELECT * FROM user", Flavor::MySql, None).secrets, ["mysql.user"]);
        assert!(!pg("SELEC 1").changes.is_empty(), "what does not parse is not read-only");
    }

    #[test]
    fn statements_are_split_by_the_tokenizer() {
        assert!(!pg("SELECT ';'; DROP TABLE t").destroys.is_empty());
        assert!(!pg("SELECT \"a;b\" FROM t; TRUNCATE t").destroys.is_empty());
        assert!(pg("SELECT ';' AS x; SELECT 2").changes.is_empty());
    }

    #[test]
    fn unparsed_read_forms_and_disclosures() {
        let my = |s: &str| judge(s, Flavor::MySql, None);
        assert_eq!(my("SHOW FULL PROCESSLIST"), Judged { parsed: true, ..Judged::default() });
        assert_eq!(my("SHOW ENGINE INNODB STATUS"), Judged { parsed: true, ..Judged::default() });
        assert!(!my("SHOW GRANTS FOR root").secrets.is_empty());
        assert!(!my("SHOW CREATE USER root").secrets.is_empty());
        assert!(!my("PURGE BINARY LOGS BEFORE NOW()").destroys.is_empty());
        assert!(!my("RESET MASTER").destroys.is_empty());
        assert!(!my("HANDLER t OPEN").changes.is_empty());
    }

    #[test]
    fn password_tables_by_column() {
        let my = |s: &str| judge(s, Flavor::MySql, None);
        assert!(my("SELECT user, host FROM mysql.user").secrets.is_empty());
        assert!(!my("SELECT * FROM mysql.user").secrets.is_empty());
        assert!(!my("SELECT u.* FROM mysql.user u").secrets.is_empty());
        assert!(pg("SELECT rolname FROM pg_authid").secrets.is_empty());
        assert!(!pg("SELECT a FROM pg_authid a").secrets.is_empty());
        assert!(!pg("SELECT * FROM ONLY pg_authid").secrets.is_empty());
        assert!(!pg("TABLE pg_authid").secrets.is_empty());
        assert!(!pg("COPY pg_authid TO STDOUT").secrets.is_empty());
        assert!(!pg("SELECT * FROM U&\"pg_auth\\0069d\"").secrets.is_empty());
        assert!(!pg("SELECT * FROM auth_user").secrets.is_empty());
        assert!(pg("SELECT id, username FROM auth_user").secrets.is_empty());
        assert!(pg("DELETE FROM users WHERE id = 3").secrets.is_empty());
    }

    #[test]
    fn tautologies_code_bodies_and_functions() {
        for sql in [
            "DELETE FROM t WHERE 1=1",
            "DELETE FROM t WHERE id = 2 OR TRUE",
            "DELETE FROM t WHERE 'a' = 'a'",
            "DELETE FROM t WHERE (2 > 1)",
            "EXPLAIN ANALYZE DELETE FROM t",
            "ALTER TABLE t DROP COLUMN c",
            "CREATE FUNCTION f() RETURNS void AS $$ DROP TABLE x $$ LANGUAGE sql",
            "SELECT dblink_exec('dbname=x', 'DROP TABLE t')",
            "SELECT * FROM dblink('dbname=x', 'DELETE FROM t RETURNING 1') AS t(a int)",
            "SELECT pg_terminate_backend(1)",
            "SELECT pg_read_file('/etc/passwd')",
            "COPY t FROM PROGRAM 'id'",
        ] {
            assert!(!pg(sql).destroys.is_empty(), "{sql}");
        }
        assert!(pg("DELETE FROM t WHERE id > 5").destroys.is_empty());
        assert_eq!(pg("EXPLAIN ANALYZE SELECT 1"), Judged { parsed: true, ..Judged::default() });
    }

    proptest::proptest! {
        #[test]
        fn any_text_is_judged_without_panicking(text in "[ -~\\n]{0,80}") {
            for flavor in [Flavor::Postgres, Flavor::MySql, Flavor::Sqlite] {
                let _ = judge(&text, flavor, Some("mysql"));
            }
        }
    }
}
