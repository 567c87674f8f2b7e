// Schema of the DLP area (version block 30-39): the project's enabled types beside the mode and
// OCR switch that projects already hold, and the DLP log (one row per finding).
export const dlpMigrations = `
ALTER TABLE projects ADD COLUMN dlp_types TEXT;
CREATE TABLE dlp_events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  project_id TEXT NOT NULL REFERENCES projects (id),
  created_at TEXT NOT NULL,
  action TEXT NOT NULL CHECK (action IN ('warned', 'blocked')),
  message_id TEXT,
  from_addr TEXT NOT NULL,
  to_addr TEXT NOT NULL,
  finding TEXT NOT NULL
);
CREATE INDEX dlp_events_project ON dlp_events (project_id, seq);
`;
