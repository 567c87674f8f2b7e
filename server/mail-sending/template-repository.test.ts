// Mail templates: the shared suite on both stores.
import { backends } from "../test/backends.ts";
import { describeTemplateRepository } from "./template-repository.contract.ts";
import { SqlTemplateRepository } from "./template-repository.ts";

for (const backend of backends) describeTemplateRepository(backend, (c) => new SqlTemplateRepository(c.store));
