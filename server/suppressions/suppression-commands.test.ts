// `platform-admin suppressions list|add|remove` on both stores, through the console's own command
// runner and repositories: the operator's view is the API's list, and bad input changes nothing.
import { beforeAll, describe, expect, it } from "vitest";
import { scopeCatalogue } from "../auth/scopes.ts";
import { runCommand, UsageError } from "../console/commands.ts";
import { consoleStoreOn } from "../console/console-store.ts";
import { suppress } from "../mail-sending/suppression-rules.ts";
import { backends, newProject, useStore } from "../test/backends.ts";

for (const backend of backends)
  describe(`platform-admin suppressions on ${backend}`, () => {
    const store = useStore(backend);
    let run: (line: string) => Promise<string>;
    let p: string;
    let q: string;

    beforeAll(async () => {
      const deps = { ...consoleStoreOn(store.main.store), scopes: scopeCatalogue() };
      run = (line) => runCommand(deps, line.split(" ").filter(Boolean));
      p = await newProject(store.main, "console-sup");
      q = await newProject(store.main, "console-other");
      await suppress(store.main.store, { projectId: p, address: "gone@c.test", kind: "hard", scope: "", reason: "bounced", messageId: "msg_c1", detail: "550 5.1.1 unknown", at: Date.UTC(2026, 10, 1) });
    });

    it("lists, adds and removes, the list showing reason, stream, scope and the message", async () => {
      expect(await run(`suppressions list --project ${p}`)).toMatch(/^id +address +reason +stream +scope +message +created +detail\n\d+ +gone@c\.test +bounced +all +- +msg_c1 +2026-11-01T00:00:00\.000Z +550 5\.1\.1 unknown$/);
      const added = await run(`suppressions add --project ${p} Shopper@c.test --stream marketing --scope shop-a`);
      const id = /^suppression (\d+): shopper@c\.test blocked \(marketing for shop-a, reason manual\)$/.exec(added)![1];
      expect(await run(`suppressions list --project ${p} --reason manual`)).toMatch(new RegExp(`\\n${id} +shopper@c\\.test +manual +marketing +shop-a +- +\\d{4}-`));
      expect(await run(`suppressions list --project ${p} --stream transactional`)).not.toContain("shopper@c.test");
      expect(await run(`suppressions list --project ${q}`)).toBe("(none)");
      await expect(run(`suppressions remove --project ${q} ${id}`)).rejects.toThrow(`no suppression ${id} in project ${q}`);
      expect(await run(`suppressions remove --project ${p} ${id}`)).toBe(`removed suppression ${id}: the next message to its address is sent`);
      expect(await run(`suppressions list --project ${p} --address shopper@c.test`)).toBe("(none)");
    });

    it.each([
      ["no project", "suppressions list", "--project <id> is required"],
      ["an unknown project", "suppressions list --project prj_nope", "no project prj_nope"],
      ["an unknown reason", "suppressions list --project P --reason spam", "--reason must be one of"],
      ["an unknown stream filter", "suppressions list --project P --stream all", "--stream must be transactional or marketing"],
      ["a bad since", "suppressions list --project P --since yesterday", "--since must be an ISO 8601 time"],
      ["a limit above 200", "suppressions list --project P --limit 201", "--limit must be an integer from 1 to 200"],
      ["no address", "suppressions add --project P", "needs one address"],
      ["not an address", "suppressions add --project P bob", "is not an e-mail address"],
      ["a test recipient", "suppressions add --project P bounced@sandbox.platform.test", "never suppressed"],
      ["a scope on all streams", "suppressions add --project P x@c.test --scope shop-a", "only for stream marketing"],
      ["an unknown stream", "suppressions add --project P x@c.test --stream transactional", "--stream must be all or marketing"],
      ["no id", "suppressions remove --project P", "needs one suppression id"],
      ["an id that is no number", "suppressions remove --project P abc", "suppression id must be an integer"],
      ["an unknown action", "suppressions purge --project P", "unknown command: suppressions purge"],
    ])("%s is a usage error and changes nothing", async (_, line, message) => {
      const before = await run(`suppressions list --project ${p}`);
      const error = await run(line.replaceAll(" P", ` ${p}`)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(message);
      expect(await run(`suppressions list --project ${p}`)).toBe(before);
    });
  });
