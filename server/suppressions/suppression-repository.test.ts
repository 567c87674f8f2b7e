// The suppression list: the shared suite on both stores.
import { backends } from "../test/backends.ts";
import { describeSuppressionStorage } from "./suppression-repository.contract.ts";
import { SqlSuppressionRepository } from "./suppression-repository.ts";

for (const backend of backends) describeSuppressionStorage(backend, ({ store }, clock) => new SqlSuppressionRepository(store, clock));
