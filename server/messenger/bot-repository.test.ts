// The messenger's storage: the shared suite on both stores.
import { backendOn } from "../db/backend.ts";
import { systemClock } from "../jobs/clock.ts";
import { backends } from "../test/backends.ts";
import { describeBotStorage, type BotStorage } from "./bot-repository.contract.ts";
import { SqlBotRepository } from "./bot-repository.ts";

for (const backend of backends) describeBotStorage(backend, (c): BotStorage => ({ bots: new SqlBotRepository(c.store), backend: backendOn(c.store, systemClock) }));
