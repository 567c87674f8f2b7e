// The schema migrations of every area, in one list for both stores (the runner: db/migrate.ts;
// the type: db/migration.ts). Areas bring their list (`<area>/migrations.ts`); this file only
// composes them, and areas never import it, so the composition has no import circle.
//
// Versions: 100-199 hold one baseline per area, the schema as release 9cecd55 left it (decision
// P8), numbered in the order their foreign keys need. A later change is a new migration with the
// next free version from 200 on, written once; db/migrations.test.ts refuses two with one version.
import { keyMigrations } from "../auth/migrations.ts";
import { certificateMigrations } from "../certificates/migrations.ts";
import { dlpMigrations } from "../dlp/migrations.ts";
import { dnsMigrations } from "../dns/migrations.ts";
import { eventMigrations } from "../events/migrations.ts";
import { jobMigrations } from "../jobs/migrations.ts";
import { mailboxMessageMigrations } from "../mailbox-reading/migrations.ts";
import { mailboxMigrations } from "../mailboxes/migrations.ts";
import { mailDomainMigrations } from "../maildomains/migrations.ts";
import { mailSendingMigrations } from "../mail-sending/migrations.ts";
import { messengerMigrations } from "../messenger/migrations.ts";
import { projectMigrations } from "../projects/migrations.ts";
import { suppressionMigrations } from "../suppressions/migrations.ts";
import { webhookMigrations } from "../webhooks/migrations.ts";
import { webmailMigrations } from "../webmail/migrations.ts";
import type { Migration } from "./migration.ts";

export const migrations: Migration[] = [
  ...projectMigrations,
  ...keyMigrations,
  ...dnsMigrations,
  ...mailDomainMigrations,
  ...mailboxMigrations,
  ...webmailMigrations,
  ...eventMigrations,
  ...webhookMigrations,
  ...jobMigrations,
  ...mailSendingMigrations,
  ...suppressionMigrations,
  ...dlpMigrations,
  ...mailboxMessageMigrations,
  ...certificateMigrations,
  ...messengerMigrations,
];
