//! Databases: SQL clients (the SQL they run is judged) and MongoDB shells (Redis clients are table
//! entries).

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{quoted_literals, ro};
use crate::shell::{Analysis, Arg, Stdin};

#[rustfmt::skip]
pub(super) const SQL_CLIENTS: &[&str] = &[
    "psql", "mysql", "mariadb", "sqlite3", "cockroach", "clickhouse-client", "cqlsh",
];

/// SQL clients: the SQL they run (options, operands, standard input) is judged.
pub(super) fn sql_client(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    // sqlite3's options are single-dash words (`-readonly`, `-header`): not clusters of `-e`/`-c`.
    let mut sql: Vec<String> = if base == "sqlite3" {
        Vec::new()
    } else if base == "clickhouse-client" {
        a.values(&["-q", "--query"]).iter().map(|v| v.shown().to_string()).collect()
    } else if base == "cqlsh" {
        a.values(&["-e", "--execute"]).iter().map(|v| v.shown().to_string()).collect()
    } else {
        a.values(&["-c", "--command", "-e", "--execute"]).iter().map(|v| v.shown().to_string()).collect()
    };
    if base != "sqlite3" && a.value(&["-f", "--file"]).is_some() {
        an.raise(CM, format!("`{base} -f` runs SQL from a file"));
    }
    // Files the client writes: query output (psql -o), a session log (psql -L, mysql --tee).
    let outputs: &[&str] = match base {
        "psql" => &["-o", "--output", "-L", "--log-file"],
        "mysql" | "mariadb" => &["--tee"],
        _ => &[],
    };
    for out in a.values(outputs) {
        an.write_target(&out, &format!("`{base}`"));
    }
    if matches!(base, "mysql" | "mariadb") {
        // SQL run on connecting is SQL run.
        sql.extend(a.values(&["--init-command"]).iter().map(|v| v.shown().to_string()));
        for pager in a.values(&["--pager"]) {
            an.raise(CM, format!("`{base} --pager` runs another program"));
            an.script(pager.shown());
        }
        // Plugins are code; option files can set a pager, init commands and plugins.
        if a.value(&["--plugin-dir", "--default-auth", "--defaults-file", "--defaults-extra-file"]).is_some() {
            an.raise(CM, format!("`{base}` loads plugins or options from another file"));
        }
    }
    if base == "sqlite3" {
        // `sqlite3 [options] DB [SQL…]`
        let ops = a.operands(&[
            "-cmd",
            "-separator",
            "-nullvalue",
            "-init",
            "-newline",
            "-maxsize",
            "-mmap",
            "-pagecache",
            "-lookaside",
            "-vfs",
            "-heap",
        ]);
        sql.extend(ops.iter().skip(1).map(|o| o.shown().to_string()));
        sql.extend(a.values(&["-cmd"]).iter().map(|v| v.shown().to_string()));
        if a.value(&["-init"]).is_some() {
            an.raise(CM, "`sqlite3 -init` runs SQL from a file");
        }
    }
    let listing = (base == "psql" && a.flag('l', "--list")) || a.long("--version") || a.short('V');
    sql.extend(stdin.texts.iter().cloned());
    if sql.is_empty() && !listing {
        return an.raise(CM, format!("`{base}` without SQL opens an interactive session"));
    }
    if stdin.unknown && stdin.texts.is_empty() && !listing {
        an.raise(CM, format!("`{base}` runs SQL from its input, which cannot be seen"));
    }
    // The database a client starts in (`mysql`'s `user` is the password table `mysql.user`).
    let database = match base {
        "mysql" | "mariadb" => a.value(&["-D", "--database"]).map(|d| d.shown().to_string()).or_else(|| {
            a.operands(&["-D", "--database", "-e", "--execute", "-u", "--user", "-h", "--host", "-P", "--port"])
                .first()
                .map(|o| o.shown().to_string())
        }),
        _ => None,
    };
    for text in sql {
        judge_sql_in(an, base, &text, database.as_deref());
    }
    if listing {
        ro(an, format!("`{base} -l` only lists"));
    }
}

/// Judges SQL text: client commands that run programs or write files, drops and unbounded
/// deletes (also inside a `WITH`), data-modifying statements however they start, side-effecting
/// functions.
pub(super) fn judge_sql(an: &mut Analysis<'_>, base: &str, sql: &str) {
    judge_sql_in(an, base, sql, None);
}

/// [`judge_sql`] for a client connected to `database`. The statements are read by the server's
/// own grammar (`sql.rs`): read-only only when every one parses and only reads; the older text
/// checks below still raise what they find.
fn judge_sql_in(an: &mut Analysis<'_>, base: &str, sql: &str, database: Option<&str>) {
    let (meta, mut statements) = split_client(base, sql);
    // psql's `\copy` is `COPY` run through the client: what it reads is judged as SQL.
    for line in meta.iter().filter(|l| base == "psql" && l.starts_with("\\copy")) {
        statements.push_str(";\n");
        statements.push_str(line.trim_start_matches('\\'));
    }
    let judged = super::sql::judge(&statements, super::sql::Flavor::of(base), database);
    for why in &judged.destroys {
        an.raise(DE, format!("`{base}`: {why}"));
    }
    for table in &judged.secrets {
        an.raise_secret(DE, format!("`{base}` reads the password table `{table}`"));
    }
    let meta_only_reads = meta.iter().all(|line| {
        let command = line.split_whitespace().next().unwrap_or("");
        meta_command_reads(base, command, line)
    });
    if !meta_only_reads {
        an.raise(CM, format!("`{base}` runs a client command that is not known to only show things"));
    }
    meta_commands_destroy(an, base, &meta);
    if let Some(why) = judged.changes.first() {
        an.raise(CM, format!("`{base}`: {why}"));
    }
    if base == "psql" && interpolates(&statements) {
        an.raise(CM, format!("`{base}` puts variables into the SQL (`:name`), which are not seen"));
    }
    for line in sql.lines() {
        client_commands(an, base, line);
    }
    let code = strip_sql(sql);
    let lower = code.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\\' && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |a: &str, b: &str| words.windows(2).any(|w| matches!(w, [x, y] if *x == a && *y == b));
    // Text the parser could not read is searched for what destroys.
    if !judged.parsed
        && (has("drop", "table")
            || has("drop", "database")
            || has("drop", "schema")
            || has("drop", "owned")
            || words.contains(&"truncate")
            || has("drop", "column"))
    {
        return an.raise(DE, format!("`{base}` runs DROP/TRUNCATE"));
    }
    if !judged.parsed && unbounded_delete(&lower) {
        return an.raise(DE, format!("`{base}` deletes every row of a table"));
    }
    // `COPY … TO/FROM PROGRAM 'cmd'` (server side and psql's \copy) runs a shell command.
    let lowered_original = sql.to_lowercase();
    // Only ASCII letters are folded, so a match's offset is the same in `sql`.
    let folded = sql.to_ascii_lowercase();
    for (k, _) in folded.match_indices("program") {
        if let Some(command) = sql.get(k..).and_then(|from| quoted_literals(from).into_iter().next()) {
            an.raise(CM, format!("`{base}` copies to or from a program"));
            an.script(&command);
        }
    }
    // psql `\gexec` runs every value of the result as a statement: the literals are SQL too.
    if lowered_original.contains("\\gexec") {
        an.raise(CM, format!("`{base} \\gexec` runs the query's results as SQL"));
        for literal in quoted_literals(sql) {
            judge_sql(an, base, &literal);
        }
    }
    // sqlite3's edit(TEXT, EDITOR) starts EDITOR.
    for (k, _) in folded.match_indices("edit(") {
        if let Some(editor) = sql.get(k..).and_then(|from| quoted_literals(from).into_iter().take(2).nth(1)) {
            an.raise(CM, format!("`{base}` edit() starts a program"));
            an.script(&editor);
        }
    }
    let side_effects = [
        "pg_promote",
        "pg_file_",
        "pg_stat_reset",
        "pg_stat_statements_reset",
        "pg_wal_replay_",
        "lo_from_bytea",
        "lo_create",
        "lo_creat(",
        "lo_put",
        "lo_truncate",
        "pg_replication_origin_",
        "pg_replication_slot_advance",
        "pg_logical_emit_message",
        "pg_backup_start",
        "pg_backup_stop",
        "pg_start_backup",
        "pg_stop_backup",
        "pg_import_system_collations",
        "pg_truncate_visibility_map",
        "pg_log_backend_memory_contexts",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_drop",
        "pg_reload_conf",
        "pg_rotate",
        "pg_switch_wal",
        "pg_create",
        "nextval",
        "setval",
        "lo_unlink",
        "lo_import",
        "lo_export",
        "dblink",
        "set_config",
        "pg_advisory",
        "into outfile",
        "into dumpfile",
        "load_file",
        "writefile",
        "load_extension",
        "edit(",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "query_to_xml",
        "sys_exec",
        "sys_eval",
    ];
    // Password tables and credential columns: reading them discloses the hashes or secrets.
    const PASSWORD_TABLES: &[&str] = &[
        "mysql.user",
        "mysql.global_priv",
        "mysql.slave_master_info",
        "pg_shadow",
        "pg_authid",
        "pg_user_mapping",
        "pg_user_mappings",
        "pg_subscription",
        "mysql.servers",
        "sys.sql_logins",
    ];
    let credential_column = words.iter().any(|w| {
        w.contains("password")
            || w.contains("passwd")
            || w.contains("secret")
            || w.contains("credential")
            || matches!(*w, "authentication_string" | "rolpassword" | "umoptions" | "api_key" | "apikey")
            || w.ends_with("token")
            || w.ends_with("tokens")
    });
    // `mysql`.`user`, "pg_catalog"."pg_authid": quoting does not change the table.
    let unquoted = lower.replace(['`', '"'], "").replace(" . ", ".");
    if let Some(table) = PASSWORD_TABLES.iter().filter(|_| !judged.parsed).find(|t| {
        unquoted
            .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
            .any(|w| w == **t || w.ends_with(&format!(".{t}")))
    }) {
        an.raise_secret(DE, format!("`{base}` reads the password table `{table}`"));
    } else if has("create", "user") && words.first() == Some(&"show") {
        an.raise_secret(DE, format!("`{base}` prints a user's password hash"));
    } else if credential_column && lower.split(';').any(|s| s.trim_start().starts_with("select")) {
        an.raise_secret(DE, format!("`{base}` reads credential columns"));
    }
    // sqlite's readfile() and friends read files of this machine.
    for literal in quoted_literals(sql) {
        if an.is_secret(literal.trim()) {
            an.raise_secret(DE, format!("`{base}` reads secret material `{}`", literal.trim()));
        }
    }
    // Read-only by the parser's judgement when it read the text, else by the older text checks.
    let read_only = if judged.parsed {
        judged.changes.is_empty() && judged.destroys.is_empty() && meta_only_reads
    } else {
        lower.split(';').map(str::trim).filter(|s| !s.is_empty()).all(|s| statement_reads(base, s))
            && !side_effects.iter().any(|f| lower.contains(f))
    };
    if read_only {
        ro(an, format!("`{base}` runs only queries"));
    } else {
        an.raise(CM, format!("`{base}` runs SQL that may change data"));
    }
}

/// Statements that change data, wherever they sit: a `WITH` may hold them (`WITH x AS (DELETE …)`,
/// `WITH … UPDATE …`), `SELECT … FOR UPDATE` locks rows.
const MODIFYING: &[&str] =
    &["insert", "update", "delete", "merge", "truncate", "drop", "alter", "create", "grant", "revoke", "into"];

/// Whether one statement (lower case, comments and string contents stripped) only reads.
fn statement_reads(base: &str, statement: &str) -> bool {
    let words: Vec<&str> =
        statement.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty()).collect();
    let first = statement.split_whitespace().next().unwrap_or("");
    if first.starts_with('\\') {
        return meta_command_reads(base, first, statement);
    }
    if first.starts_with('.') {
        return matches!(
            first,
            ".tables"
                | ".schema"
                | ".indexes"
                | ".databases"
                | ".dbinfo"
                | ".show"
                | ".help"
                | ".fullschema"
                | ".mode"
                | ".headers"
        );
    }
    let querying = matches!(first, "select" | "with" | "table" | "values");
    // EXPLAIN (DESCRIBE in MySQL) ANALYZE runs the statement it explains.
    let explaining =
        matches!(first, "explain" | "describe" | "desc") && !words.iter().any(|w| matches!(*w, "analyze" | "analyse"));
    first == "show" || ((querying || explaining) && !words.iter().skip(1).any(|w| MODIFYING.contains(w)))
}

/// Client meta-commands (psql `\…`, mysql `\…`) that only show things.
/// Client commands that replace a database's content or write a query's result over a file:
/// sqlite3's `.restore` and `.import`, psql's `\copy … to 'FILE'`.
fn meta_commands_destroy(an: &mut Analysis<'_>, base: &str, meta: &[String]) {
    for line in meta {
        let words: Vec<&str> = line.split_whitespace().collect();
        let command = words.first().copied().unwrap_or("").to_ascii_lowercase();
        match (base, command.as_str()) {
            ("sqlite3", ".restore" | ".import" | ".recover" | ".load") => an.raise(
                DE,
                format!("`{base} {command}` replaces or fills tables from a file it cannot be seen to hold"),
            ),
            ("psql", "\\copy") => {
                // The word after a lone `to` is the file written (a quoted path, or stdout).
                let target = words
                    .windows(2)
                    .find(|w| w.first().is_some_and(|t| t.eq_ignore_ascii_case("to")))
                    .and_then(|w| w.get(1))
                    .map(|t| t.trim_matches(|c| c == '\'' || c == '"' || c == ';'));
                if let Some(file) = target.filter(|f| !f.is_empty() && !f.eq_ignore_ascii_case("stdout")) {
                    an.write_target(&Arg::Static(file.to_string()), &format!("`{base} \\copy … to`"));
                }
            }
            _ => {}
        }
    }
}

fn meta_command_reads(base: &str, command: &str, statement: &str) -> bool {
    let argument = statement.split_whitespace().nth(1);
    let lower = command.to_lowercase();
    match base {
        "sqlite3" => matches!(
            command,
            ".tables"
                | ".schema"
                | ".indexes"
                | ".indices"
                | ".databases"
                | ".dbinfo"
                | ".show"
                | ".help"
                | ".fullschema"
                | ".mode"
                | ".headers"
                | ".header"
                | ".width"
                | ".nullvalue"
                | ".separator"
                | ".timer"
                | ".print"
                | ".eqp"
                | ".stats"
                | ".changes"
                | ".bail"
                | ".echo"
                | ".quit"
                | ".exit"
                | ".version"
                | ".prompt"
        ),
        // mysql's short forms are case-sensitive (`\\t` stops a tee, `\\T` starts one); its long
        // forms are not.
        "mysql" | "mariadb" => {
            matches!(command, "\\c" | "\\q" | "\\s" | "\\h" | "\\?" | "\\n" | "\\w" | "\\t" | "\\G" | "\\g")
                || matches!(
                    lower.as_str(),
                    "status"
                        | "help"
                        | "quit"
                        | "exit"
                        | "warnings"
                        | "nowarning"
                        | "nopager"
                        | "notee"
                        | "go"
                        | "ego"
                        | "print"
                        | "rehash"
                )
                || (command == "\\u" && argument.is_some())
        }
        // psql: the describing, listing and formatting commands; `\g` with no file or pipe.
        _ => {
            let name = command.trim_start_matches('\\');
            name.starts_with('d') && name.chars().all(|c| c.is_ascii_alphabetic() || c == '+')
                || matches!(
                    name,
                    "l" | "l+"
                        | "list"
                        | "list+"
                        | "z"
                        | "x"
                        | "timing"
                        | "q"
                        | "conninfo"
                        | "echo"
                        | "qecho"
                        | "a"
                        | "t"
                        | "H"
                        | "f"
                        | "C"
                        | "r"
                        | "p"
                        | "?"
                        | "h"
                        | "help"
                        | "copyright"
                        | "errverbose"
                        | "sf"
                        | "sf+"
                        | "sv"
                        | "sv+"
                        | "pset"
                        | "set"
                        | "unset"
                        | "if"
                        | "elif"
                        | "else"
                        | "endif"
                        | "watch"
                        | "warn"
                )
                || (matches!(name, "g" | "gx" | "encoding") && argument.is_none())
        }
    }
}

/// Client commands that run a program or pipe output to one (psql `\o |cmd`, `\g |cmd`; mysql
/// `pager cmd`, `\P cmd`; sqlite `.once |cmd`, `.output |cmd`, `.read |cmd`, `.import |cmd`) and
/// shell escapes (`\!`, `system`, `.shell`, `.system`): the command is judged.
fn client_commands(an: &mut Analysis<'_>, base: &str, line: &str) {
    for part in line.split(';') {
        let t = part.trim();
        // The mysql client's own commands are read in any case (`SYSTEM`, `Pager`).
        let word = |w: &str| t.get(..w.len()).filter(|p| p.eq_ignore_ascii_case(w)).and_then(|_| t.get(w.len()..));
        let escape = t
            .strip_prefix("\\!")
            .or_else(|| t.strip_prefix(".shell "))
            .or_else(|| t.strip_prefix(".system "))
            .or_else(|| (base != "psql").then(|| word("system ")).flatten())
            .or_else(|| (base != "psql").then(|| word("pager ")).flatten())
            .or_else(|| (base != "psql").then(|| t.strip_prefix("\\P ")).flatten());
        if let Some(cmd) = escape {
            an.raise(CM, format!("`{base}` runs a shell command"));
            an.script(cmd);
            continue;
        }
        let mut words = t.splitn(2, char::is_whitespace);
        let command = words.next().unwrap_or("");
        let argument = words.next().unwrap_or("").trim().trim_matches(['\'', '"']);
        let pipes = matches!(
            command,
            "\\o" | "\\out" | "\\g" | "\\gx" | "\\w" | "\\write" | ".once" | ".output" | ".read" | ".import"
        );
        if let Some(cmd) = argument.strip_prefix('|').filter(|_| pipes) {
            an.raise(CM, format!("`{base} {command}` pipes to a shell command"));
            // A shell or interpreter reading the query's output runs text no one sees before.
            let program = cmd.split_whitespace().next().unwrap_or("").rsplit('/').next().unwrap_or("");
            if matches!(program, "sh" | "bash" | "dash" | "zsh" | "ksh" | "busybox" | "xargs")
                || super::interpreters::is_interpreter(program)
            {
                an.raise(DE, format!("`{base} {command}` runs the query's output as commands, which cannot be judged"));
            }
            an.script(cmd);
        }
        // Output files: the target is judged as a redirect's is (`\o /etc/passwd` is `> /etc/passwd`).
        let writes = matches!(
            command,
            "\\o"
                | "\\out"
                | "\\w"
                | "\\write"
                | "\\g"
                | "\\gx"
                | ".once"
                | ".output"
                | ".save"
                | ".backup"
                | ".log"
                | ".trace"
        );
        let target = argument.split_whitespace().last().unwrap_or("").trim_matches(['\'', '"']);
        if writes && !target.is_empty() && !target.starts_with('|') && !matches!(target, "stdout" | "stderr" | "off") {
            an.write_target(&Arg::Static(target.to_string()), &format!("`{base} {command}`"));
        }
        if command == ".excel" {
            an.raise(CM, format!("`{base} .excel` opens a spreadsheet program"));
        }
    }
}

/// SQL with comments removed and string literals emptied (`'…'` becomes `''`), so keywords in them
/// are not read as statements.
fn strip_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                out.push_str("''");
                while let Some(d) = chars.next() {
                    if d == '\'' {
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                        } else {
                            break;
                        }
                    }
                }
            }
            '-' if chars.peek() == Some(&'-') => {
                for d in chars.by_ref() {
                    if d == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                // MySQL and MariaDB run the body of `/*! … */` and `/*M! … */` (after an optional
                // version number) as SQL: keep it.
                let executable =
                    chars.peek() == Some(&'!') || (chars.peek() == Some(&'M') && chars.clone().nth(1) == Some('!'));
                let mut body = String::new();
                let mut last = ' ';
                for d in chars.by_ref() {
                    if last == '*' && d == '/' {
                        body.pop();
                        break;
                    }
                    body.push(d);
                    last = d;
                }
                out.push(' ');
                if executable {
                    let body = body.trim_start_matches('M').trim_start_matches('!');
                    out.push_str(&strip_sql(body.trim_start_matches(|c: char| c.is_ascii_digit())));
                    out.push(' ');
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// A `DELETE` with no `WHERE` of its own (at its level of parentheses, in its statement): every
/// row goes, also when it sits in a `WITH`.
fn unbounded_delete(lower: &str) -> bool {
    for statement in lower.split(';') {
        let mut tokens: Vec<(usize, String)> = Vec::new();
        let mut depth = 0usize;
        let mut word = String::new();
        for c in statement.chars().chain(std::iter::once(' ')) {
            if c.is_alphanumeric() || c == '_' {
                word.push(c);
                continue;
            }
            if !word.is_empty() {
                tokens.push((depth, std::mem::take(&mut word)));
            }
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
        for (k, (level, token)) in tokens.iter().enumerate() {
            // The statement, not a word used as a name: `DELETE FROM`, or first at its level
            // (`WITH x AS (DELETE t …`).
            let statement_start = k.checked_sub(1).and_then(|p| tokens.get(p)).is_none_or(|(d, _)| d < level);
            if token != "delete" || !(statement_start || tokens.get(k + 1).is_some_and(|(_, t)| t == "from")) {
                continue;
            }
            let bounded = tokens
                .iter()
                .skip(k + 1)
                .take_while(|(d, _)| d >= level)
                .any(|(d, t)| d == level && (t == "where" || t == "limit"));
            if !bounded {
                return true;
            }
        }
    }
    false
}

/// MongoDB shells run code; dropping databases destroys.
pub(super) fn mongosh(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let js = a.values(&["--eval"]).iter().map(|v| v.shown().to_lowercase()).collect::<Vec<_>>().join(";");
    // Script files given as operands run too.
    let scripts = a
        .operands(&[
            "--eval",
            "-f",
            "--file",
            "-u",
            "--username",
            "-p",
            "--password",
            "--host",
            "--port",
            "--authenticationDatabase",
        ])
        .iter()
        .any(|o| o.shown().to_lowercase().ends_with(".js") || o.shown().starts_with('-'));
    if js.contains("showcredentials") || js.contains("system.users") {
        an.raise_secret(DE, "`mongosh` prints users' credentials");
    }
    let compact: String = js.chars().filter(|c| !c.is_whitespace()).collect();
    // `db.users.find()`, `db.getCollection('sessions').find()`: whole account documents.
    if let Some(c) = compact.split(';').find_map(|s| {
        let s = s.trim_start_matches("printjson(").trim_start_matches("print(");
        let documents = (s.contains(".find") || s.contains(".aggregate(")) && !s.contains(".count");
        let rest = s.strip_prefix("db.").filter(|_| documents)?;
        let coll = match rest.strip_prefix("getcollection(") {
            Some(r) => r.split(')').next()?.trim_matches(['"', '\'']),
            None => rest.split('.').next()?,
        };
        super::sql::is_account_table(coll).then(|| coll.to_string())
    }) {
        an.raise_secret(CM, format!("`mongosh` prints the `{c}` collection, its accounts' secrets with it"));
    }
    let empties = [
        "deletemany({})",
        "deletemany()",
        "remove({})",
        "remove()",
        ".drop(",
        "dropdatabase",
        "dropuser",
        "dropallusers",
        "dropindexes",
        "dropindex(",
        "shutdownserver",
        "fsynclock",
        // `adminCommand({shutdown: 1})`, `runCommand("shutdown")`: the server stopped.
        "{shutdown:",
        "(\"shutdown\"",
        "('shutdown'",
    ];
    // Calls that only read: `db.x.find()`, `db.stats()`, `db.serverStatus()`.
    let reads = !compact.is_empty()
        && compact.split(';').filter(|s| !s.is_empty()).all(|s| {
            let call = s.trim_start_matches("printjson(").trim_start_matches("print(");
            call.starts_with("db.")
                && [
                    ".find(",
                    ".findone(",
                    ".count(",
                    ".countdocuments(",
                    ".estimateddocumentcount(",
                    "db.stats(",
                    "db.serverstatus(",
                    "db.getcollectionnames(",
                    "db.version(",
                    "db.hostinfo(",
                    ".stats(",
                    "rs.status(",
                    "db.currentop(",
                    ".getindexes(",
                ]
                .iter()
                .any(|r| call.contains(&r.to_lowercase()))
                && ![
                    "$where",
                    "$function",
                    "$accumulator",
                    "$out",
                    "$merge",
                    "mapreduce",
                    "insert",
                    "update",
                    "delete",
                    "remove",
                    "drop",
                    "create",
                    "eval",
                    "system.",
                    "run",
                    "admin",
                    "getsiblingdb",
                    "=",
                    "`",
                ]
                .iter()
                .any(|w| call.contains(w))
        });
    if empties.iter().any(|e| compact.contains(e)) {
        an.raise(DE, "`mongosh` drops data");
    } else if reads && !scripts && a.value(&["-f", "--file"]).is_none() {
        ro(an, "`mongosh --eval` only finds and reports");
    } else {
        an.raise(CM, "`mongosh` runs database code");
    }
}

/// Separates a client's own commands from the SQL it sends: psql's and mysql's backslash commands
/// (from a backslash outside quotes to the end of the line; mysql's `\g`/`\G` end a statement),
/// sqlite3's dot commands and mysql's word commands at the start of a line.
fn split_client(base: &str, text: &str) -> (Vec<String>, String) {
    const MYSQL_WORDS: &[&str] = &[
        "source",
        "pager",
        "nopager",
        "tee",
        "notee",
        "system",
        "delimiter",
        "status",
        "help",
        "quit",
        "exit",
        "connect",
        "charset",
        "warnings",
        "nowarning",
        "edit",
        "ego",
        "go",
        "print",
        "prompt",
        "rehash",
        "resetconnection",
        "query_attributes",
        "ssl_session_data_print",
    ];
    let mut meta = Vec::new();
    let mut sql = String::new();
    let mut state = Quote::None;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if state == Quote::None {
            let word = trimmed.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("").to_lowercase();
            if (base == "sqlite3" && trimmed.starts_with('.'))
                || (matches!(base, "mysql" | "mariadb") && MYSQL_WORDS.contains(&word.as_str()))
            {
                meta.push(trimmed.trim_end().to_string());
                sql.push('\n');
                continue;
            }
        }
        let mut chars = line.char_indices().peekable();
        let mut cut = None;
        while let Some((i, c)) = chars.next() {
            let next = chars.peek().map(|(_, n)| *n);
            state = match (state, c) {
                (Quote::None, '\\') if base != "sqlite3" => {
                    cut = Some(i);
                    break;
                }
                (Quote::None, '\'') => Quote::Single,
                (Quote::None, '"') => Quote::Double,
                (Quote::None, '`') => Quote::Back,
                (Quote::None, '-') if next == Some('-') => Quote::Line,
                (Quote::None, '#') if matches!(base, "mysql" | "mariadb") => Quote::Line,
                (Quote::None, '/') if next == Some('*') => Quote::Block,
                (Quote::None, '$') if base != "sqlite3" && matches!(next, Some('$')) => Quote::Dollar,
                (Quote::Single, '\\') if base != "sqlite3" => {
                    // MySQL and PostgreSQL's E'' strings escape with a backslash.
                    chars.next();
                    Quote::Single
                }
                (Quote::Single, '\'') | (Quote::Double, '"') | (Quote::Back, '`') => Quote::None,
                (Quote::Block, '*') if next == Some('/') => {
                    chars.next();
                    Quote::None
                }
                (Quote::Dollar, '$') if next == Some('$') => {
                    chars.next();
                    Quote::None
                }
                (s, _) => s,
            };
        }
        if state == Quote::Line {
            state = Quote::None;
        }
        match cut {
            Some(i) => {
                let (before, after) = line.split_at(i);
                sql.push_str(before);
                // mysql's `\g` and `\G` send the statement, as `;` does.
                let command = after.trim_end();
                if matches!(base, "mysql" | "mariadb") && matches!(command.get(..2), Some("\\g" | "\\G")) {
                    sql.push(';');
                    let rest = command.get(2..).unwrap_or("").trim();
                    if !rest.is_empty() {
                        meta.push(rest.to_string());
                    }
                } else {
                    meta.push(command.to_string());
                }
                sql.push('\n');
            }
            None => sql.push_str(line),
        }
    }
    (meta, sql)
}

/// Where the splitter is in the SQL text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    None,
    Single,
    Double,
    Back,
    Line,
    Block,
    Dollar,
}

/// psql's `:name`, `:'name'`, `:"name"` interpolation outside quotes (not the `::` cast).
fn interpolates(sql: &str) -> bool {
    let chars: Vec<char> = sql.chars().collect();
    let mut quoted = false;
    chars.iter().enumerate().any(|(i, &c)| {
        if c == '\'' {
            quoted = !quoted;
        }
        let before = i.checked_sub(1).and_then(|p| chars.get(p)).copied();
        let after = chars.get(i + 1).copied();
        !quoted
            && c == ':'
            && before != Some(':')
            && after.is_some_and(|a| a.is_ascii_alphabetic() || a == '_' || a == '\'' || a == '"' || a == '{')
    })
}
