// The DLP policy and log: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { describeDlpRepository } from "./dlp-repository.contract.ts";
import { SqlDlpRepository } from "./dlp-repository.ts";

for (const backend of backends) describeDlpRepository(backend, (c) => ({ repo: new SqlDlpRepository(c.store), transaction: (fn) => c.store.transaction(fn) }));
