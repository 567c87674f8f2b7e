// The SSRF-safe POST against real sockets on loopback and our own authoritative DNS server as
// the resolver: what is sent, what is refused before any connection, redirects, big answers,
// the timeout, and DNS rebinding.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReceiver, type Answer, type TestReceiver } from "../test/receiver.ts";
import { startTestPlatform, type Tenant, type TestPlatform } from "../test/harness.ts";
import { resolverAt, type HostResolver } from "./host-resolver.ts";
import { closeOutboundConnections, safePost } from "./outbound-http.ts";

let platform: TestPlatform;
let zone: Tenant;
let dns: HostResolver;
let receiver: TestReceiver;

beforeAll(async () => {
  platform = await startTestPlatform();
  zone = await platform.newTenant("rebind");
  dns = resolverAt([`127.0.0.1:${platform.dns!.udpPort}`]);
  // Every answer closes its connection, so each call below makes (and checks) a new one.
  receiver = await startReceiver((req): Answer => (req.path === "/redirect"
    ? { status: 302, headers: { location: "/elsewhere", connection: "close" } }
    : req.path === "/big" ? { status: 200, body: "x".repeat(1 << 20), headers: { connection: "close" } }
    : { status: 204, headers: { connection: "close" } }));
});
afterAll(async () => {
  await closeOutboundConnections();
  await receiver.close();
  await platform.stop();
});

async function record(name: string, type: "A" | "AAAA", data: string): Promise<string> {
  const res = await zone.api("POST", `/v1/dns/${zone.domain}/records`, { type, name, data, ttl: 60 });
  expect(res.status).toBe(200);
  return res.body.id;
}

const local = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;

describe("safePost", () => {
  it("with the development flag POSTs the exact body and headers to loopback", async () => {
    const before = receiver.received.length;
    const body = JSON.stringify({ id: "evt_1", text: "héllo" });
    const res = await safePost(local("/hook"), { body, headers: { "content-type": "application/json", "x-test": "1" }, development: true });
    expect(res).toEqual({ status: 204 });
    expect(receiver.received.slice(before)).toEqual([expect.objectContaining({ method: "POST", path: "/hook", body, headers: expect.objectContaining({ "x-test": "1" }) })]);
  });

  it.each([
    ["a loopback literal", "https://127.0.0.1:{port}/hook"],
    ["a hex loopback literal", "https://0x7f000001:{port}/hook"],
    ["an IPv4-mapped loopback", "https://[::ffff:127.0.0.1]:{port}/hook"],
    ["IPv6 loopback", "https://[::1]:{port}/hook"],
    ["plain http", "http://127.0.0.1:{port}/hook"],
    ["credentials", "https://u:p@example.org/"],
  ])("without the flag refuses %s before connecting", async (_n, template) => {
    const before = receiver.received.length;
    const res = await safePost(template.replace("{port}", String(receiver.port)), { body: "{}" });
    expect(res.status).toBe(0);
    expect(res.error).toMatch(/^refused: /);
    expect(receiver.received.length).toBe(before);
  });

  it("with the flag still refuses private addresses other than loopback", async () => {
    expect(await safePost("http://10.0.0.1/hook", { body: "{}", development: true })).toMatchObject({ status: 0, error: expect.stringMatching(/^refused: .*private/) });
    expect(await safePost("http://[::ffff:a9fe:a9fe]/x", { body: "{}", development: true })).toMatchObject({ status: 0, error: expect.stringMatching(/linkLocal/) });
  });

  it("does not follow redirects: the 302 is the answer", async () => {
    const before = receiver.received.length;
    expect(await safePost(local("/redirect"), { body: "{}", development: true })).toEqual({ status: 302 });
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(["/redirect"]);
  });

  it("reads a large answer only up to its cap, and still reports the status", async () => {
    expect(await safePost(local("/big"), { body: "{}", development: true })).toEqual({ status: 200 });
  });

  it("counts a receiver that never answers as a timeout (no HTTP code)", async () => {
    const silent = await startReceiver(() => "hang");
    try {
      const res = await safePost(silent.url, { body: "{}", development: true, timeoutMs: 300 });
      expect(res).toEqual({ status: 0, error: "timeout" });
      expect(silent.received).toHaveLength(1);
    } finally {
      await silent.close();
    }
  });
});

describe("safePost resolving through our own DNS server", () => {
  it("refuses a name whose answer holds a loopback address, even beside a public one, without connecting", async () => {
    await record("mixed", "A", "8.8.8.8");
    await record("mixed", "A", "127.0.0.1");
    await record("mapped", "AAAA", "::ffff:127.0.0.1");
    await record("loop", "A", "127.0.0.1");
    const before = receiver.received.length;
    for (const name of ["mixed", "mapped", "loop"]) {
      const res = await safePost(`https://${name}.${zone.domain}:${receiver.port}/hook`, { body: "{}", resolve: dns });
      expect(res, name).toMatchObject({ status: 0, error: expect.stringMatching(new RegExp(`^refused: ${name}\\.rebind\\.test resolves to .*loopback`)) });
    }
    expect(receiver.received.length).toBe(before);
  });

  it("DNS rebinding: the name is resolved once and the connection goes to exactly the checked address", async () => {
    // The rebinding attack flips a name from an allowed address (at check time) to a refused one
    // (at connect time). Tests reach nothing but loopback, so with the development flag loopback
    // plays the allowed address and 10.0.0.1 the refused one. The record flips right after the
    // first lookup returns: a second lookup (a check apart from the connect) would get 10.0.0.1.
    const id = await record("flip", "A", "127.0.0.1");
    const lookups: string[][] = [];
    const flipping: HostResolver = async (host) => {
      const answer = await dns(host);
      lookups.push(answer);
      if (lookups.length === 1) {
        expect((await zone.api("DELETE", `/v1/dns/${zone.domain}/records/${id}`)).status).toBe(200);
        await record("flip", "A", "10.0.0.1");
      }
      return answer;
    };
    const target = `http://flip.${zone.domain}:${receiver.port}/rebound`;
    const before = receiver.received.length;
    expect(await safePost(target, { body: "{}", development: true, resolve: flipping })).toEqual({ status: 204 });
    expect(lookups).toEqual([["127.0.0.1"]]);
    expect(receiver.received.slice(before).map((r) => r.path)).toEqual(["/rebound"]);
    // The next connection sees the new answer and is refused before connecting.
    const again = await safePost(target, { body: "{}", development: true, resolve: flipping });
    expect(again).toMatchObject({ status: 0, error: expect.stringMatching(/resolves to 10\.0\.0\.1 is a private address/) });
    expect(lookups).toEqual([["127.0.0.1"], ["10.0.0.1"]]);
    expect(receiver.received.length).toBe(before + 1);
  });

  it("a name with no address is an error, not a crash", async () => {
    const res = await safePost(`https://nothing.${zone.domain}/hook`, { body: "{}", resolve: dns });
    expect(res).toMatchObject({ status: 0, error: expect.stringMatching(/has no address/) });
  });
});

describe("safePost keeping connections alive (one pool per resolver and policy)", () => {
  it("reuses a connection only to the address it checked: after the name moves to a private address, the next new connection is refused", async () => {
    // A receiver that keeps connections open unless asked to close one.
    const keeping = await startReceiver((req): Answer => (req.path === "/close" ? { status: 204, headers: { connection: "close" } } : 204));
    try {
      const id = await record("keep", "A", "127.0.0.1");
      const lookups: string[][] = [];
      const counting: HostResolver = async (host) => {
        const answer = await dns(host);
        lookups.push(answer);
        return answer;
      };
      const post = (path: string) => safePost(`http://keep.${zone.domain}:${keeping.port}${path}`, { body: "{}", development: true, resolve: counting });
      for (let i = 0; i < 5; i++) expect(await post(`/before${i}`)).toEqual({ status: 204 });
      // Each new connection resolves and checks once; reused ones do not: fewer lookups than requests.
      const opened = lookups.length;
      expect(opened).toBeLessThan(5);
      expect(lookups.every((answer) => answer.length === 1 && answer[0] === "127.0.0.1")).toBe(true);
      // The name moves to a private address while checked connections are still open.
      expect((await zone.api("DELETE", `/v1/dns/${zone.domain}/records/${id}`)).status).toBe(200);
      await record("keep", "A", "10.0.0.1");
      await new Promise((r) => setImmediate(r)); // the last answer's connection back in the pool
      // An open connection still leads to the address that was checked (each of these closes one);
      // once none is left, the next connection resolves again and is refused before connecting.
      let kept = 0;
      let refused: Awaited<ReturnType<typeof post>> | undefined;
      for (let i = 0; i <= opened && !refused; i++) {
        const r = await post("/close");
        if (r.status === 204) kept++;
        else refused = r;
      }
      expect(kept).toBeLessThanOrEqual(opened);
      expect(refused).toMatchObject({ status: 0, error: expect.stringMatching(/resolves to 10\.0\.0\.1 is a private address/) });
      expect(lookups.slice(opened)).toEqual([["10.0.0.1"]]);
      expect(keeping.received.filter((r) => r.path === "/close")).toHaveLength(kept);
    } finally {
      await keeping.close();
    }
  });
});
