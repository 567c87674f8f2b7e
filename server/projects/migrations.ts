// Schema of projects, the owner of nearly every row. The DLP policy lives on the project row
// (mode, OCR switch, enabled types; server/dlp).
import type { Migration } from "../db/migration.ts";

export const projectMigrations: Migration[] = [
  {
    version: 100,
    name: "projects (baseline of release 9cecd55)",
    baseline: true,
    sql: `
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        dlp_mode TEXT NOT NULL DEFAULT 'off' CHECK (dlp_mode IN ('off', 'warn', 'block')),
        dlp_ocr BOOLEAN NOT NULL DEFAULT FALSE,
        dlp_types TEXT,
        created_at TEXT NOT NULL
      );`,
  },
];
