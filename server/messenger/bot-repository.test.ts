// The messenger's storage: the shared suite on both backends.
import { backends } from "../test/backends.ts";
import { describeBotStorage, type BotStorage } from "./bot-repository.contract.ts";
import { PgBotRepository } from "./pg-bot-repository.ts";
import { SqliteBotRepository } from "./sqlite-bot-repository.ts";

for (const backend of backends) {
  describeBotStorage(backend, (c): BotStorage => {
    if (c.backend === "sqlite") {
      const r = new SqliteBotRepository(c.db);
      return {
        add: async (bot, cap, options) => r.add(bot, cap, options),
        pendingForwards: async (id) => r.pendingForwards(id),
        list: async (p) => r.list(p),
        get: async (p, id) => r.get(p, id),
        byId: async (id) => r.byId(id),
        byHookId: async (h) => r.byHookId(h),
        setForwarding: async (id, f) => r.setForwarding(id, f),
        recordForwardError: async (id, at, e) => r.recordForwardError(id, at, e),
        listPresets: async (p) => r.listPresets(p),
        getPreset: async (p, id) => r.getPreset(p, id),
        createPreset: async (p, x) => r.createPreset(p, x),
        deletePreset: async (p, id) => r.deletePreset(p, id),
        createLink: async (l) => r.createLink(l),
        getLink: async (id) => r.getLink(id),
        bindLinkUser: async (id, u) => r.bindLinkUser(id, u),
        pendingLinkFor: async (u, name, now) => r.pendingLinkFor(u, name, now),
      };
    }
    const r = new PgBotRepository(c.pg);
    return {
      add: (bot, cap, options = {}) => r.add(bot, cap, { consumeLink: options.consumeLink, then: async (_c, b) => options.then?.(b) }),
      pendingForwards: (id) => r.pendingForwards(id),
      list: (p) => r.list(p),
      get: (p, id) => r.get(p, id),
      byId: (id) => r.byId(id),
      byHookId: (h) => r.byHookId(h),
      setForwarding: (id, f) => r.setForwarding(id, f),
      recordForwardError: (id, at, e) => r.recordForwardError(id, at, e),
      listPresets: (p) => r.listPresets(p),
      getPreset: (p, id) => r.getPreset(p, id),
      createPreset: (p, x) => r.createPreset(p, x),
      deletePreset: (p, id) => r.deletePreset(p, id),
      createLink: (l) => r.createLink(l),
      getLink: (id) => r.getLink(id),
      bindLinkUser: (id, u) => r.bindLinkUser(id, u),
      pendingLinkFor: (u, name, now) => r.pendingLinkFor(u, name, now),
    };
  });
}
