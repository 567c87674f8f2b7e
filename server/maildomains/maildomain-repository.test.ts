// Mail domains: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { describeMailDomainRepository } from "./maildomain-repository.contract.ts";
import { PgMailDomainRepository } from "./pg-maildomain-repository.ts";
import { SqliteMailDomainRepository } from "./sqlite-maildomain-repository.ts";

for (const backend of backends) {
  describeMailDomainRepository(backend, (c, secrets) => (c.backend === "sqlite" ? new SqliteMailDomainRepository(c.db, secrets) : new PgMailDomainRepository(c.pg, secrets)));
}
