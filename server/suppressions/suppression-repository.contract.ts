// The behaviour of the suppression list on either store (server/test/backends.ts): the manual
// blocks and the filters, cursor and isolation of the list users page through, and that the
// send path's check (mail-sending/suppression-rules.ts) reads exactly these rows.
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "../jobs/clock.ts";
import { isSuppressed, suppress, type SuppressionKind, type SuppressionReason } from "../mail-sending/suppression-rules.ts";
import { newProject, useStore, type BackendName, type Connection } from "../test/backends.ts";
import type { SuppressionFilter, SuppressionRepository } from "./suppression-repository.ts";

type Make = (c: Connection, clock: ReturnType<typeof manualClock>) => SuppressionRepository;

export function describeSuppressionStorage(backend: BackendName, make: Make): void {
  describe(`suppression list on ${backend}`, () => {
    const store = useStore(backend);
    const clock = manualClock(Date.UTC(2026, 10, 1));
    let repo: SuppressionRepository;
    let p1: string;
    let p2: string;
    let seq = 0;
    // As the bounce, complaint and unsubscribe paths record them, one minute apart.
    const caused = (projectId: string, address: string, kind: SuppressionKind, scope: string, reason: SuppressionReason) => {
      clock.advance(60_000);
      return suppress(store.main.store, { projectId, address, kind, scope, reason, messageId: `msg_${++seq}`, detail: kind === "hard" ? "550 5.1.1 no such user" : null, at: clock.now() });
    };
    const addresses = async (projectId: string, f: Partial<SuppressionFilter> = {}) =>
      (await repo.list(projectId, { limit: 200, ...f })).map((s) => `${s.address} ${s.stream}/${s.scope}`);

    beforeAll(async () => {
      repo = make(store.main, clock);
      p1 = await newProject(store.main, "sup-1");
      p2 = await newProject(store.main, "sup-2");
      await caused(p1, "gone@list.test", "hard", "", "bounced");
      await caused(p1, "spam@list.test", "marketing", "shop-a", "complained");
      await caused(p1, "tired@list.test", "marketing", "", "unsubscribed");
      await caused(p1, "other@list.test", "marketing", "shop-b", "unsubscribed");
      await caused(p2, "gone@list.test", "hard", "", "bounced");
    });

    it("lists newest first with reason, stream, scope, the causing message and the server's text", async () => {
      const [newest, , , oldest] = await repo.list(p1, { limit: 10 });
      expect(oldest).toMatchObject({ address: "gone@list.test", reason: "bounced", stream: "all", scope: "", detail: "550 5.1.1 no such user", projectId: p1 });
      expect(oldest.messageId).toMatch(/^msg_/);
      expect(newest).toMatchObject({ address: "other@list.test", reason: "unsubscribed", stream: "marketing", scope: "shop-b", detail: null });
      expect(newest.id).toBeGreaterThan(oldest.id);
      expect(newest.createdAt).toBeGreaterThan(oldest.createdAt);
    });

    const since = Date.UTC(2026, 10, 1) + 2 * 60_000; // after the second row
    it.each<[string, Partial<SuppressionFilter>, string[]]>([
      ["address, any case", { address: "GONE@List.test" }, ["gone@list.test all/"]],
      ["reason", { reason: "unsubscribed" }, ["other@list.test marketing/shop-b", "tired@list.test marketing/"]],
      ["transactional stream: only what blocks it (hard)", { stream: "transactional" }, ["gone@list.test all/"]],
      ["marketing stream: everything blocks it", { stream: "marketing" }, ["other@list.test marketing/shop-b", "tired@list.test marketing/", "spam@list.test marketing/shop-a", "gone@list.test all/"]],
      ["scope: its own and the project-wide ones", { scope: "shop-a" }, ["tired@list.test marketing/", "spam@list.test marketing/shop-a", "gone@list.test all/"]],
      ["scope with transactional", { scope: "shop-a", stream: "transactional" }, ["gone@list.test all/"]],
      ["since: strictly later", { since }, ["other@list.test marketing/shop-b", "tired@list.test marketing/"]],
      ["no match", { address: "nobody@list.test" }, []],
    ])("filters by %s", async (_, filter, want) => {
      expect(await addresses(p1, filter)).toEqual(want);
    });

    it("pages with the before cursor, which stays valid when the row it names is removed", async () => {
      const first = await repo.list(p1, { limit: 2 });
      expect(first.map((s) => s.address)).toEqual(["other@list.test", "tired@list.test"]);
      const cursor = first[1].id;
      const scratch = await repo.add(p1, { address: "scratch@list.test", stream: "all", scope: "" });
      expect(await repo.remove(p1, scratch.id)).toBe(true);
      const second = await repo.list(p1, { limit: 2, before: cursor });
      expect(second.map((s) => s.address)).toEqual(["spam@list.test", "gone@list.test"]);
      expect(await repo.list(p1, { limit: 2, before: second[1].id })).toEqual([]);
    });

    it("a project never sees another's suppressions", async () => {
      expect(await addresses(p2)).toEqual(["gone@list.test all/"]);
      expect(await addresses(p2, { address: "spam@list.test" })).toEqual([]);
    });

    it("a manual block: reason manual, no message, lower case; the same block again answers the first", async () => {
      const a = await repo.add(p1, { address: "Block.Me@List.test", stream: "all", scope: "" });
      expect(a).toMatchObject({ address: "block.me@list.test", reason: "manual", stream: "all", scope: "", messageId: null, detail: null });
      const again = await repo.add(p1, { address: "block.me@list.test", stream: "all", scope: "" });
      expect(again).toEqual(a);
      expect(await addresses(p1, { address: "block.me@list.test" })).toEqual(["block.me@list.test all/"]);
      // Blocking what a bounce already blocks answers the bounce's row, unchanged.
      expect(await repo.add(p1, { address: "gone@list.test", stream: "all", scope: "" })).toMatchObject({ reason: "bounced" });
      const m = await repo.add(p1, { address: "news-only@list.test", stream: "marketing", scope: "shop-c" });
      expect(m).toMatchObject({ stream: "marketing", scope: "shop-c", reason: "manual" });
    });

    it("the send path's check reads these rows: blocked while listed, sent again once removed", async () => {
      const all = await repo.add(p1, { address: "lift@list.test", stream: "all", scope: "" });
      const mkt = await repo.add(p1, { address: "lift@list.test", stream: "marketing", scope: "shop-a" });
      const db = store.main.store;
      expect(await isSuppressed(db, p1, "lift@list.test", "transactional", "")).toBe(true);
      expect(await isSuppressed(db, p2, "lift@list.test", "transactional", "")).toBe(false);
      expect(await repo.remove(p1, all.id)).toBe(true);
      expect(await isSuppressed(db, p1, "lift@list.test", "transactional", "")).toBe(false);
      expect(await isSuppressed(db, p1, "lift@list.test", "marketing", "shop-a")).toBe(true);
      expect(await isSuppressed(db, p1, "lift@list.test", "marketing", "shop-b")).toBe(false);
      expect(await repo.remove(p1, mkt.id)).toBe(true);
      expect(await isSuppressed(db, p1, "lift@list.test", "marketing", "shop-a")).toBe(false);
    });

    it("removes only the project's own suppression, once; other ids name nothing", async () => {
      const [theirs] = await repo.list(p2, { limit: 1 });
      expect(await repo.remove(p1, theirs.id)).toBe(false);
      expect(await addresses(p2)).toEqual(["gone@list.test all/"]);
      const mine = await repo.add(p1, { address: "once@list.test", stream: "all", scope: "" });
      expect(await repo.remove(p1, mine.id)).toBe(true);
      expect(await repo.remove(p1, mine.id)).toBe(false);
      for (const id of [0, -1, 1e30, 1.5, Number.MAX_SAFE_INTEGER]) expect(await repo.remove(p1, id)).toBe(false);
    });

    it.each<[SuppressionKind, SuppressionReason]>([
      ["hard", "bounced"],
      ["marketing", "complained"],
      ["marketing", "unsubscribed"],
      ["hard", "manual"],
    ])("a test recipient is never suppressed (%s, %s)", async (kind, reason) => {
      expect(await caused(p1, "Bounced+x@sandbox.platform.test", kind, "", reason)).toBe(false);
      expect(await addresses(p1, { address: "bounced+x@sandbox.platform.test" })).toEqual([]);
      expect(await isSuppressed(store.main.store, p1, "bounced+x@sandbox.platform.test", "marketing", "")).toBe(false);
    });
  });
}
