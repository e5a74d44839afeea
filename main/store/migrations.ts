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
];

export const LATEST_VERSION = Math.max(...MIGRATIONS.map((m) => m.version));
