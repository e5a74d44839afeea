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
  {
    version: 8,
    name: 'A year of use: archived tasks, job log sizes, indexes for paging and retention',
    sql: `
      ALTER TABLE tasks ADD COLUMN archived_at INTEGER;
      CREATE INDEX tasks_completed ON tasks(completed_at);
      ALTER TABLE jobs ADD COLUMN log_bytes INTEGER;
      CREATE INDEX jobs_ended ON jobs(ended_at, log_bytes) WHERE ended_at IS NOT NULL;
      CREATE INDEX jobs_status_code ON jobs(status, exit_code);
      CREATE INDEX tasks_archived ON tasks(archived_at) WHERE archived_at IS NOT NULL;
      CREATE INDEX tool_calls_client ON tool_calls(client, started_at);
      CREATE INDEX tool_calls_tool_ms ON tool_calls(tool, started_at, ms);
      CREATE INDEX tool_calls_errors ON tool_calls(started_at) WHERE is_error = 1;
      CREATE INDEX questions_settled ON questions(answered_at) WHERE status != 'pending';
      CREATE INDEX callbacks_ended ON callbacks(ended_at) WHERE status != 'active';
      CREATE INDEX callback_fires_callback ON callback_fires(callback_id);
      CREATE INDEX callback_fires_fired ON callback_fires(fired_at);
      CREATE INDEX plans_exited ON plans(exited_at) WHERE status != 'active';
      CREATE INDEX mcp_tasks_created ON mcp_tasks(created_at);
      CREATE INDEX mcp_tasks_expiry ON mcp_tasks(updated_at + ttl_ms) WHERE status IN ('completed','failed','cancelled');

      -- Per-tool totals kept by triggers, so that the Tools page reads a row instead of counting every call.
      CREATE TABLE tool_totals (tool TEXT PRIMARY KEY, calls INTEGER NOT NULL, errors INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO tool_totals SELECT tool, COUNT(*), COALESCE(SUM(is_error), 0) FROM tool_calls WHERE ms IS NOT NULL GROUP BY tool;
      CREATE TRIGGER tool_totals_insert AFTER INSERT ON tool_calls WHEN new.ms IS NOT NULL BEGIN
        INSERT INTO tool_totals (tool, calls, errors) VALUES (new.tool, 1, COALESCE(new.is_error, 0))
          ON CONFLICT (tool) DO UPDATE SET calls = calls + 1, errors = errors + excluded.errors;
      END;
      CREATE TRIGGER tool_totals_finish AFTER UPDATE OF ms ON tool_calls WHEN old.ms IS NULL AND new.ms IS NOT NULL BEGIN
        INSERT INTO tool_totals (tool, calls, errors) VALUES (new.tool, 1, COALESCE(new.is_error, 0))
          ON CONFLICT (tool) DO UPDATE SET calls = calls + 1, errors = errors + excluded.errors;
      END;
      CREATE TRIGGER tool_totals_delete AFTER DELETE ON tool_calls WHEN old.ms IS NOT NULL BEGIN
        UPDATE tool_totals SET calls = calls - 1, errors = errors - COALESCE(old.is_error, 0) WHERE tool = old.tool;
      END;

      -- Text search: trigram indexes naming candidates; the exact, case-insensitive match is still checked
      -- on the row (store/search.ts). Activity's is filled off the call path (store/activity-search.ts:
      -- rows past the 'activity_indexed' mark in kv, a batch at a time while the hub is quiet; the rows
      -- past it are scanned), since indexing as each call is written would cost every call ~150 µs.
      CREATE VIRTUAL TABLE tool_calls_search USING fts5(body, content='', contentless_delete=1, tokenize='trigram', detail='none');
      CREATE TRIGGER tool_calls_search_update AFTER UPDATE OF summary ON tool_calls
        WHEN old.rowid <= COALESCE((SELECT CAST(value AS INTEGER) FROM kv WHERE key = 'activity_indexed'), 0) BEGIN
        DELETE FROM tool_calls_search WHERE rowid = old.rowid;
        INSERT INTO tool_calls_search (rowid, body) VALUES (new.rowid, new.tool || ' ' || new.args || ' ' || COALESCE(new.summary, '') || ' ' || COALESCE(new.client, ''));
      END;
      CREATE TRIGGER tool_calls_search_delete AFTER DELETE ON tool_calls
        WHEN old.rowid <= COALESCE((SELECT CAST(value AS INTEGER) FROM kv WHERE key = 'activity_indexed'), 0) BEGIN
        DELETE FROM tool_calls_search WHERE rowid = old.rowid;
      END;
      -- Tasks: names and steps (one row each, so a step costs only its own text), kept by triggers: tasks
      -- are written rarely.
      CREATE VIRTUAL TABLE task_search USING fts5(body, content='', contentless_delete=1, tokenize='trigram', detail='none');
      INSERT INTO task_search (rowid, body) SELECT id, name FROM tasks;
      CREATE TRIGGER task_search_insert AFTER INSERT ON tasks BEGIN
        INSERT INTO task_search (rowid, body) VALUES (new.id, new.name);
      END;
      CREATE TRIGGER task_search_delete AFTER DELETE ON tasks BEGIN
        DELETE FROM task_search WHERE rowid = old.id;
      END;
      CREATE VIRTUAL TABLE step_search USING fts5(body, content='', contentless_delete=1, tokenize='trigram', detail='none');
      INSERT INTO step_search (rowid, body) SELECT id, text FROM task_steps;
      CREATE TRIGGER step_search_insert AFTER INSERT ON task_steps BEGIN
        INSERT INTO step_search (rowid, body) VALUES (new.id, new.text);
      END;
      CREATE TRIGGER step_search_delete AFTER DELETE ON task_steps BEGIN
        DELETE FROM step_search WHERE rowid = old.id;
      END;
    `,
  },
];

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
