// Per-address SMTP limits (decision I1) on their own: whose share a client address counts
// against, the connection count per client, and the session and DATA deadlines on a fake clock
// (vitest's timers, moved by hand: nothing here waits). The same limits over real sockets are
// client-limits.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ConnectionsPerClient, DATA_TOO_LONG, SESSION_TOO_LONG, SessionDeadlines, TOO_MANY_FROM_CLIENT, clientKey } from "./client-limits.ts";

describe("clientKey", () => {
  it.each([
    ["an IPv4 address as is", "192.0.2.7", "192.0.2.7"],
    ["an IPv4-mapped IPv6 address as its IPv4 address", "::ffff:192.0.2.7", "192.0.2.7"],
    ["an IPv6 address by its /64", "2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["another address of the same /64 alike", "2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["a neighbouring /64 apart", "2001:db8:1:3::1", "2001:db8:1:3::/64"],
    ["the IPv6 loopback by its /64", "::1", "::/64"],
    ["what is no address as given", "not-an-address", "not-an-address"],
  ])("keys %s", (_name, address, want) => {
    expect(clientKey(address)).toBe(want);
  });
});

describe("ConnectionsPerClient", () => {
  it("admits up to the limit per client and the rest are not counted", () => {
    const c = new ConnectionsPerClient(2);
    expect([c.admit("192.0.2.1", "a"), c.admit("192.0.2.1", "b"), c.admit("192.0.2.1", "c")]).toEqual([true, true, false]);
    // Another client has its own share; the refused connection took none.
    expect(c.admit("192.0.2.2", "d")).toBe(true);
    c.release("c");
    expect(c.admit("192.0.2.1", "e")).toBe(false);
  });

  it("counts a /64 as one client", () => {
    const c = new ConnectionsPerClient(1);
    expect(c.admit("2001:db8::1", "a")).toBe(true);
    expect(c.admit("2001:db8::2", "b")).toBe(false);
    expect(c.admit("2001:db8:0:1::1", "c")).toBe(true);
  });

  it("frees a slot on release, once per connection", () => {
    const c = new ConnectionsPerClient(2);
    c.admit("192.0.2.1", "a");
    c.admit("192.0.2.1", "b");
    c.release("a");
    c.release("a");
    c.release("unknown");
    expect(c.admit("192.0.2.1", "c")).toBe(true);
    expect(c.admit("192.0.2.1", "d")).toBe(false);
    // All released: the client starts again from nothing.
    for (const id of ["b", "c"]) c.release(id);
    expect([c.admit("192.0.2.1", "e"), c.admit("192.0.2.1", "f"), c.admit("192.0.2.1", "g")]).toEqual([true, true, false]);
  });

  it("a connection released twice after its client's last one is a no-op, not a crash", () => {
    const c = new ConnectionsPerClient(1);
    c.admit("192.0.2.1", "a");
    c.release("a");
    expect(() => c.release("a")).not.toThrow();
    expect(c.admit("192.0.2.1", "b")).toBe(true);
  });

  it("has no limit at 0", () => {
    const c = new ConnectionsPerClient(0);
    expect(Array.from({ length: 50 }, (_, i) => c.admit("192.0.2.1", String(i))).every(Boolean)).toBe(true);
  });
});

describe("SessionDeadlines", () => {
  let cuts: [string, string][];
  let d: SessionDeadlines;
  beforeEach(() => {
    vi.useFakeTimers();
    cuts = [];
    d = new SessionDeadlines({ sessionMs: 1000, dataMs: 300 }, (id, text) => cuts.push([id, text]));
  });
  afterEach(() => vi.useRealTimers());

  it("cuts a session at its deadline, and only that one", () => {
    d.start("a");
    vi.advanceTimersByTime(500);
    d.start("b");
    vi.advanceTimersByTime(499);
    expect(cuts).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(cuts).toEqual([["a", SESSION_TOO_LONG]]);
    vi.advanceTimersByTime(500);
    expect(cuts).toEqual([["a", SESSION_TOO_LONG], ["b", SESSION_TOO_LONG]]);
  });

  it("cuts a DATA phase at its own deadline", () => {
    d.start("a");
    d.dataStarted("a");
    vi.advanceTimersByTime(299);
    expect(cuts).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(cuts).toEqual([["a", DATA_TOO_LONG]]);
  });

  it("stops the DATA deadline when the message is in, and again once answered", () => {
    d.start("a");
    d.dataStarted("a");
    d.dataEnded("a");
    d.answered("a");
    d.dataStarted("a");
    d.answered("a");
    vi.advanceTimersByTime(999);
    expect(cuts).toEqual([]);
  });

  it("lets a message being stored finish: the session deadline cuts once it is answered", () => {
    d.start("a");
    d.dataStarted("a");
    vi.advanceTimersByTime(200);
    d.dataEnded("a");
    vi.advanceTimersByTime(900);
    expect(cuts).toEqual([]);
    d.answered("a");
    expect(cuts).toEqual([["a", SESSION_TOO_LONG]]);
  });

  it("does not cut an answered session before its deadline", () => {
    d.start("a");
    d.dataStarted("a");
    d.dataEnded("a");
    d.answered("a");
    expect(cuts).toEqual([]);
    // A later message of the session is again stored in peace, then cut.
    vi.advanceTimersByTime(1000);
    expect(cuts).toEqual([["a", SESSION_TOO_LONG]]);
  });

  it("forgets an ended session: its timers are cleared and later calls start nothing", () => {
    d.start("a");
    d.dataStarted("a");
    d.end("a");
    expect(vi.getTimerCount()).toBe(0);
    d.dataStarted("a");
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    d.dataEnded("a");
    d.answered("a");
    expect(cuts).toEqual([]);
    d.end("a");
  });

  it("ignores calls for a session never started", () => {
    for (const call of [() => d.dataStarted("x"), () => d.dataEnded("x"), () => d.answered("x"), () => d.end("x")]) call();
    vi.advanceTimersByTime(5000);
    expect(cuts).toEqual([]);
  });

  it("does not keep the process alive for its timers", () => {
    d.start("a");
    d.dataStarted("a");
    const timers = vi.getTimerCount();
    expect(timers).toBe(2);
    // Real timers: unref'd ones (checked through the handle each start made).
    vi.useRealTimers();
    const refs: boolean[] = [];
    const real = new SessionDeadlines({ sessionMs: 60_000, dataMs: 60_000 }, () => {});
    const orig = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      const t = orig(fn, ms);
      queueMicrotask(() => refs.push(t.hasRef()));
      return t;
    }) as typeof setTimeout;
    try {
      real.start("r");
      real.dataStarted("r");
    } finally {
      globalThis.setTimeout = orig;
    }
    real.end("r");
    return Promise.resolve().then(() => expect(refs).toEqual([false, false]));
  });
});

describe("reply texts", () => {
  it.each([
    [TOO_MANY_FROM_CLIENT, "4.7.0 too many connections from your address, try again later"],
    [SESSION_TOO_LONG, "4.4.2 session time limit reached, closing connection"],
    [DATA_TOO_LONG, "4.4.2 message not received in time, nothing was stored; closing connection"],
  ])("%s", (text, want) => {
    expect(text).toBe(want);
  });
});
