// Projects: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { describeProjectRepository } from "./project-repository.contract.ts";
import { SqlProjectRepository } from "./project-repository.ts";

for (const backend of backends) describeProjectRepository(backend, (c) => new SqlProjectRepository(c.store));
