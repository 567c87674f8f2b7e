// The MX's RCPT TO decision, on the real route table: what it accepts, and the exact refusal
// (code and enhanced status) for an unknown mailbox of a connected domain versus any other
// domain. The listener's side (the reply on the wire) is in smtp-listener.test.ts.
import { describe, expect, it } from "vitest";
import type { Recipient } from "./delivery-repository.ts";
import { recipientRefusal } from "./recipient-check.ts";
import { InboundRoutes } from "./routes.ts";

const directory: Record<string, Recipient> = {
  "alice@hosted.test": { kind: "mailbox", id: "mbx_1", projectId: "p1", email: "alice@hosted.test" },
  "team@hosted.test": { kind: "group", id: "mbx_2", projectId: "p1", email: "team@hosted.test" },
  "nobody@hosted.test": { kind: "unknown" },
};
const looked: string[] = [];
const lookup = (address: string): Recipient => {
  looked.push(address);
  return directory[address] ?? { kind: "foreign" };
};
const noRoutes = new InboundRoutes();

describe("RCPT TO", async () => {
  it("accepts a mailbox and a group of a connected domain", async () => {
    expect(await recipientRefusal(noRoutes, lookup, "alice@hosted.test")).toBeNull();
    expect(await recipientRefusal(noRoutes, lookup, "team@hosted.test")).toBeNull();
  });

  it("refuses an unknown address of a connected domain as no such mailbox (5.1.1)", async () => {
    expect(await recipientRefusal(noRoutes, lookup, "nobody@hosted.test")).toEqual({ code: 550, text: "5.1.1 <nobody@hosted.test>: no such mailbox here" });
  });

  it("refuses any other domain as relaying (5.7.1): never an open relay", async () => {
    expect(await recipientRefusal(noRoutes, lookup, "victim@elsewhere.test")).toEqual({ code: 550, text: "5.7.1 <victim@elsewhere.test>: relay access denied" });
  });

  it("accepts what a route claims, on any domain, without looking it up; other addresses still go to the lookup", async () => {
    const routes = new InboundRoutes();
    routes.route((rcpt) => rcpt.startsWith("bounce+"), async () => {});
    looked.length = 0;
    expect(await recipientRefusal(routes, lookup, "bounce+abc@elsewhere.test")).toBeNull();
    expect(looked).toEqual([]);
    expect(await recipientRefusal(routes, lookup, "victim@elsewhere.test")).toEqual({ code: 550, text: "5.7.1 <victim@elsewhere.test>: relay access denied" });
    expect(looked).toEqual(["victim@elsewhere.test"]);
  });

  it("an asynchronous lookup (PostgreSQL) decides the same, and its failure reaches the caller", async () => {
    const later = (address: string) => Promise.resolve(lookup(address));
    expect(await recipientRefusal(noRoutes, later, "team@hosted.test")).toBeNull();
    expect(await recipientRefusal(noRoutes, later, "nobody@hosted.test")).toEqual({ code: 550, text: "5.1.1 <nobody@hosted.test>: no such mailbox here" });
    await expect(recipientRefusal(noRoutes, () => Promise.reject(new Error("database away")), "alice@hosted.test")).rejects.toThrow("database away");
  });

  it("a route that answers later (a promise) decides the same: false still refuses, true accepts", async () => {
    const routes = new InboundRoutes();
    routes.route(async (rcpt) => rcpt.startsWith("verp+"), async () => {});
    expect(await recipientRefusal(routes, lookup, "victim@elsewhere.test")).toEqual({ code: 550, text: "5.7.1 <victim@elsewhere.test>: relay access denied" });
    expect(await recipientRefusal(routes, lookup, "verp+x@elsewhere.test")).toBeNull();
  });

  it("a route that was unregistered claims nothing any more", async () => {
    const routes = new InboundRoutes();
    const off = routes.route((rcpt) => rcpt.startsWith("fbl@"), async () => {});
    expect(await recipientRefusal(routes, lookup, "fbl@elsewhere.test")).toBeNull();
    off();
    expect(await recipientRefusal(routes, lookup, "fbl@elsewhere.test")).toEqual({ code: 550, text: "5.7.1 <fbl@elsewhere.test>: relay access denied" });
  });
});
