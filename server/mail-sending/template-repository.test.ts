// Mail templates: the shared suite on both backends.
import { backends, byBackend } from "../test/backends.ts";
import { PgTemplateRepository } from "./pg-template-repository.ts";
import { SqliteTemplateRepository } from "./sqlite-template-repository.ts";
import { describeTemplateRepository } from "./template-repository.contract.ts";
import type { TemplateRepository } from "./template-repository.ts";

const make = byBackend<TemplateRepository>({ sqlite: (db) => new SqliteTemplateRepository(db), postgres: (pg) => new PgTemplateRepository(pg) });
for (const backend of backends) describeTemplateRepository(backend, make);
