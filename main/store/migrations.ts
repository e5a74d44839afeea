/**
 * Numbered migrations. Each runs in its own transaction together with the row
 * that records it, so a crash leaves the database at a whole version. Never edit
 * a migration that has shipped: add the next number.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'background jobs',
    sql: `
      CREATE TABLE jobs (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        command      TEXT    NOT NULL,
        cwd          TEXT    NOT NULL,
        pid          INTEGER,
        status       TEXT    NOT NULL CHECK (status IN ('starting','running','exited','killed','lost')),
        exit_code    INTEGER,
        started_at   INTEGER NOT NULL,
        ended_at     INTEGER,
        read_offset  INTEGER NOT NULL DEFAULT 0,
        log_path     TEXT    NOT NULL,
        exit_path    TEXT    NOT NULL,
        session      TEXT,
        note         TEXT
      );
      CREATE INDEX jobs_status ON jobs(status);
    `,
  },
  {
    version: 2,
    name: 'tasks, plans, callbacks, questions',
    sql: `
      CREATE TABLE tasks (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        name         TEXT    NOT NULL,
        created_at   INTEGER NOT NULL,
        completed_at INTEGER
      );
      CREATE TABLE task_steps (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id      INTEGER NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
        text         TEXT    NOT NULL,
        created_at   INTEGER NOT NULL,
        done_at      INTEGER
      );
      CREATE INDEX task_steps_task ON task_steps(task_id);
      CREATE TABLE kv (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE plans (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        goal        TEXT    NOT NULL,
        status      TEXT    NOT NULL CHECK (status IN ('active','submitted','approved','rejected','reset')),
        started_at  INTEGER NOT NULL,
        exited_at   INTEGER,
        plan_file   TEXT,
        plan_text   TEXT,
        comment     TEXT
      );
      CREATE TABLE callbacks (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        slot         INTEGER NOT NULL,
        session      TEXT,
        message      TEXT    NOT NULL,
        delay_s      INTEGER NOT NULL,
        repeat_total INTEGER NOT NULL,
        fires_done   INTEGER NOT NULL DEFAULT 0,
        next_fire_at INTEGER NOT NULL,
        status       TEXT    NOT NULL CHECK (status IN ('active','done','cancelled')),
        created_at   INTEGER NOT NULL,
        ended_at     INTEGER
      );
      CREATE UNIQUE INDEX callbacks_active_slot ON callbacks(slot) WHERE status = 'active';
      CREATE TABLE callback_fires (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        callback_id  INTEGER NOT NULL REFERENCES callbacks(id) ON DELETE CASCADE,
        session      TEXT,
        message      TEXT    NOT NULL,
        fire_number  INTEGER NOT NULL,
        scheduled_at INTEGER NOT NULL,
        fired_at     INTEGER NOT NULL,
        late         INTEGER NOT NULL DEFAULT 0,
        notified     INTEGER NOT NULL DEFAULT 0,
        delivered    INTEGER NOT NULL DEFAULT 0,
        UNIQUE (callback_id, fire_number)
      );
      CREATE INDEX callback_fires_session ON callback_fires(session, delivered);
      CREATE TABLE questions (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        session      TEXT,
        client       TEXT,
        questions    TEXT    NOT NULL,
        status       TEXT    NOT NULL CHECK (status IN ('pending','answered','declined','timeout','cancelled')),
        answer       TEXT,
        purpose      TEXT    NOT NULL DEFAULT 'ask',
        created_at   INTEGER NOT NULL,
        answered_at  INTEGER
      );
      CREATE INDEX questions_status ON questions(status);
    `,
  },
  {
    version: 3,
    name: 'tool call activity, dashboard sessions',
    sql: `
      CREATE TABLE tool_calls (
        id           TEXT    PRIMARY KEY,
        tool         TEXT    NOT NULL,
        session      TEXT,
        client       TEXT,
        args         TEXT    NOT NULL,
        started_at   INTEGER NOT NULL,
        ms           INTEGER,
        is_error     INTEGER,
        summary      TEXT
      );
      CREATE INDEX tool_calls_started ON tool_calls(started_at);
      CREATE INDEX tool_calls_tool_started ON tool_calls(tool, started_at);
      CREATE INDEX tool_calls_session ON tool_calls(session, started_at);
      CREATE TABLE dashboard_sessions (
        id_hash      TEXT    PRIMARY KEY,
        key_hash     TEXT    NOT NULL,
        created_at   INTEGER NOT NULL
      );
    `,
  },
  {
    version: 4,
    name: 'MCP tasks (the io.modelcontextprotocol/tasks extension)',
    sql: `
      CREATE TABLE mcp_tasks (
        id           TEXT    PRIMARY KEY,
        tool         TEXT    NOT NULL,
        client       TEXT,
        status       TEXT    NOT NULL CHECK (status IN ('working','input_required','completed','failed','cancelled')),
        status_message TEXT,
        owner        TEXT    NOT NULL,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        ttl_ms       INTEGER NOT NULL,
        result       TEXT,
        error        TEXT,
        input_requests TEXT
      );
      CREATE INDEX mcp_tasks_status ON mcp_tasks(status);
    `,
  },
  {
    version: 5,
    name: 'MCP tasks: the work that outlives the hub',
    sql: `
      ALTER TABLE mcp_tasks ADD COLUMN work TEXT;
    `,
  },
  {
    version: 6,
    name: 'Dashboard sessions end: last use, and the token they were opened under',
    sql: `
      ALTER TABLE dashboard_sessions ADD COLUMN last_used_at INTEGER;
      ALTER TABLE dashboard_sessions ADD COLUMN token_tag TEXT;
    `,
  },
  {
    version: 7,
    name: 'MCP tasks belong to the client that started them',
    sql: `
      ALTER TABLE mcp_tasks ADD COLUMN requestor TEXT;
      CREATE INDEX mcp_tasks_requestor_live ON mcp_tasks(requestor, status);
    `,
  },
];

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
