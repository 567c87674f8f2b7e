// Projects: the shared suite on both backends.
import { backends, byBackend } from "../test/backends.ts";
import { describeProjectRepository } from "./project-repository.contract.ts";
import type { ProjectRepository } from "./project-repository.ts";
import { PgProjectRepository } from "./pg-project-repository.ts";
import { SqliteProjectRepository } from "./sqlite-project-repository.ts";

const make = byBackend<ProjectRepository>({ sqlite: (db) => new SqliteProjectRepository(db), postgres: (pg) => new PgProjectRepository(pg) });
for (const backend of backends) describeProjectRepository(backend, make);
