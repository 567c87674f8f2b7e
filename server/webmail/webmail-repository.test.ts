// Webmail links and sessions: the shared suite on both backends.
import { backends, byBackend } from "../test/backends.ts";
import { PgWebmailRepository } from "./pg-webmail-repository.ts";
import { SqliteWebmailRepository } from "./sqlite-webmail-repository.ts";
import { describeWebmailRepository } from "./webmail-repository.contract.ts";
import type { WebmailRepository } from "./webmail-repository.ts";

const make = byBackend<WebmailRepository>({ sqlite: (db) => new SqliteWebmailRepository(db), postgres: (pg) => new PgWebmailRepository(pg) });
for (const backend of backends) describeWebmailRepository(backend, make);
