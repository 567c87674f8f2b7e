// Webmail links and sessions: the shared suite on both stores.
import { backends } from "../test/backends.ts";
import { describeWebmailRepository } from "./webmail-repository.contract.ts";
import { SqlWebmailRepository } from "./webmail-repository.ts";

for (const backend of backends) describeWebmailRepository(backend, (c) => new SqlWebmailRepository(c.store));
