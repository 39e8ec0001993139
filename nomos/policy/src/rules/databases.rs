//! Databases: SQL clients (the SQL they run is judged), Redis, MongoDB.

use nomos_types::Risk::{ConfigMutation as CM, Destructive as DE};

use super::Args;
use super::{quoted_literals, ro};
use crate::shell::{Analysis, Stdin};

#[rustfmt::skip]
pub(super) const SQL_CLIENTS: &[&str] = &[
    "psql", "mysql", "mariadb", "sqlite3", "cockroach",
];

/// SQL clients: the SQL they run (options, operands, standard input) is judged.
pub(super) fn sql_client(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, stdin: &Stdin) {
    let mut sql: Vec<String> =
        a.values(&["-c", "--command", "-e", "--execute"]).iter().map(|v| v.shown().to_string()).collect();
    if a.value(&["-f", "--file"]).is_some() {
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
        let ops = a.operands(&["-cmd", "-separator", "-nullvalue", "-init"]);
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
    for text in sql {
        judge_sql(an, base, &text);
    }
    if listing {
        ro(an, format!("`{base} -l` only lists"));
    }
}

/// Judges SQL text: shell escapes, drops and unbounded deletes, side-effecting functions.
pub(super) fn judge_sql(an: &mut Analysis<'_>, base: &str, sql: &str) {
    // Client shell escapes run commands on this machine: `\!` (psql, mysql), `system` (mysql),
    // `.shell`/`.system` (sqlite3).
    for line in sql.lines().flat_map(|l| l.split(';')) {
        let t = line.trim();
        let escape = t
            .strip_prefix("\\!")
            .or_else(|| t.strip_prefix(".shell "))
            .or_else(|| t.strip_prefix(".system "))
            .or_else(|| (base != "psql").then(|| t.strip_prefix("system ")).flatten());
        if let Some(cmd) = escape {
            an.raise(CM, format!("`{base}` runs a shell command"));
            an.script(cmd);
        }
    }
    let lower = sql.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '\\' && c != '.')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
    if has("drop", "table")
        || has("drop", "database")
        || has("drop", "schema")
        || has("drop", "owned")
        || words.contains(&"truncate")
        || has("drop", "column")
    {
        return an.raise(DE, format!("`{base}` runs DROP/TRUNCATE"));
    }
    for statement in lower.split(';').map(str::trim).filter(|s| !s.is_empty()) {
        if statement.starts_with("delete") && !statement.contains(" where ") {
            return an.raise(DE, format!("`{base}` deletes every row of a table"));
        }
    }
    let side_effects = [
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
    if let Some(table) = PASSWORD_TABLES.iter().find(|t| {
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
    let read_only = lower.split(';').map(str::trim).filter(|s| !s.is_empty()).all(|s| {
        let first = s.split_whitespace().next().unwrap_or("");
        let reading = matches!(first, "select" | "show" | "with" | "table" | "values" | "describe" | "desc")
            || (first == "explain" && !s.contains("analyze"))
            || (first.starts_with('\\')
                && !matches!(
                    first,
                    "\\!"
                        | "\\o"
                        | "\\w"
                        | "\\copy"
                        | "\\i"
                        | "\\ir"
                        | "\\g"
                        | "\\gexec"
                        | "\\s"
                        | "\\setenv"
                        | "\\lo_import"
                        | "\\lo_export"
                        | "\\lo_unlink"
                ))
            || (first.starts_with('.')
                && matches!(
                    first,
                    ".tables"
                        | ".schema"
                        | ".indexes"
                        | ".databases"
                        | ".dbinfo"
                        | ".dump"
                        | ".show"
                        | ".help"
                        | ".fullschema"
                        | ".mode"
                        | ".headers"
                ));
        reading && !s.contains(" into ") && !side_effects.iter().any(|f| s.contains(f))
    });
    if read_only {
        ro(an, format!("`{base}` runs only queries"));
    } else {
        an.raise(CM, format!("`{base}` runs SQL that may change data"));
    }
}

/// Redis-compatible clients: reading commands only read.
pub(super) fn redis(an: &mut Analysis<'_>, base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let ops = a.operands(&["-h", "-p", "-a", "-n", "-u", "--user", "--pass", "-s", "-r", "-i", "--tls", "--cacert"]);
    let cmd = ops.first().map(|o| o.shown().to_ascii_uppercase());
    match cmd.as_deref() {
        None if a.long("--scan")
            || a.long("--bigkeys")
            || a.long("--memkeys")
            || a.long("--stat")
            || a.long_prefix("--latency") =>
        {
            ro(an, format!("`{base}` inspection only reads"))
        }
        None => an.raise(CM, format!("`{base}` without a command opens an interactive session")),
        Some("FLUSHALL" | "FLUSHDB" | "SHUTDOWN") => an.raise(DE, format!("`{base}` flushes or stops the database")),
        // Passwords and ACL hashes.
        Some("CONFIG")
            if ops.get(1).is_some_and(|o| o.shown().eq_ignore_ascii_case("GET"))
                && ops.iter().skip(2).any(|o| {
                    let p = o.shown().to_ascii_lowercase();
                    p.contains("pass") || p.contains("auth") || p.contains('*') || p.contains('?')
                }) =>
        {
            an.raise_secret(DE, format!("`{base} CONFIG GET` prints passwords"))
        }
        Some("ACL")
            if ops.get(1).is_some_and(|o| matches!(o.shown().to_ascii_uppercase().as_str(), "LIST" | "GETUSER")) =>
        {
            an.raise_secret(DE, format!("`{base} ACL` prints password hashes"))
        }
        Some(
            "GET" | "MGET" | "KEYS" | "SCAN" | "INFO" | "PING" | "TTL" | "PTTL" | "TYPE" | "EXISTS" | "DBSIZE"
            | "LRANGE" | "LLEN" | "HGET" | "HGETALL" | "HKEYS" | "HLEN" | "SMEMBERS" | "SCARD" | "ZRANGE" | "ZCARD"
            | "STRLEN" | "MEMORY" | "SLOWLOG" | "LASTSAVE" | "TIME" | "ROLE" | "XLEN" | "XRANGE" | "CLIENT" | "CONFIG",
        ) => {
            let second = ops.get(1).map(|o| o.shown().to_ascii_uppercase());
            if matches!(cmd.as_deref(), Some("CONFIG" | "CLIENT" | "MEMORY" | "SLOWLOG"))
                && !matches!(second.as_deref(), Some("GET" | "LIST" | "INFO" | "STATS" | "USAGE" | "DOCTOR" | "LEN"))
            {
                an.raise(CM, format!("`{base}` changes server settings"));
            } else {
                ro(an, format!("`{base}` query only reads"));
            }
        }
        Some(_) => an.raise(CM, format!("`{base}` command changes data")),
    }
}

/// MongoDB shells run code; dropping databases destroys.
pub(super) fn mongosh(an: &mut Analysis<'_>, _base: &str, a: &Args<'_>, _stdin: &Stdin) {
    let js = a.value(&["--eval"]).map(|v| v.shown().to_lowercase()).unwrap_or_default();
    if js.contains("showcredentials") || js.contains("system.users") {
        an.raise_secret(DE, "`mongosh` prints users' credentials");
    }
    if js.contains("dropdatabase") || js.contains(".drop(") || js.contains("deletemany({})") {
        an.raise(DE, "`mongosh` drops data");
    } else {
        an.raise(CM, "`mongosh` runs database code");
    }
}
