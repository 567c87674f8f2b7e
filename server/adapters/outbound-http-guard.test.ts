// safePost's guard and connection pool with resolvers the test writes (no DNS server): the exact
// refusal of each kind, that a refused target is never resolved or connected to, that pools are
// kept apart by policy, that a big answer costs its connection and a small one does not, and the
// lookup's answer per address family.
import http from "node:http";
import { once } from "node:events";
import type { AddressInfo, Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { RefusedTarget, checkedLookup, closeOutboundConnections, safePost } from "./outbound-http.ts";
import type { HostResolver } from "./host-resolver.ts";

interface Server {
  port: number;
  sockets: Socket[];
  paths: string[];
  close(): Promise<void>;
}

/** A keep-alive HTTP server on loopback counting its connections; `body` answers each request. */
async function startServer(body: (res: http.ServerResponse) => void | Promise<void> = (res) => void res.writeHead(204).end()): Promise<Server> {
  const sockets: Socket[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? "");
    req.resume();
    req.on("end", () => void body(res));
  });
  server.keepAliveTimeout = 600_000; // idle connections end when the client (the pool) ends them
  server.on("connection", (s: Socket) => sockets.push(s));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    port: (server.address() as AddressInfo).port,
    sockets,
    paths,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

/** A resolver answering `addresses` and counting its calls. */
function fixed(addresses: string[]): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  return Object.assign(async (host: string) => (calls.push(host), addresses), { calls });
}

afterAll(() => closeOutboundConnections());

describe("safePost refuses before resolving or connecting", () => {
  it.each([
    ["not a url", false, "refused: not a valid URL"],
    ["http://hooks.example.org/h", false, "refused: not an https URL"],
    ["ftp://hooks.example.org/h", true, "refused: not an https URL"],
    ["https://user@hooks.example.org/h", false, "refused: credentials in the URL"],
    ["https://:pw@hooks.example.org/h", true, "refused: credentials in the URL"],
    ["https://127.0.0.1/h", false, "refused: 127.0.0.1 is a loopback address"],
    ["https://[::1]/h", false, "refused: ::1 is a loopback address"],
    ["http://10.0.0.1/h", true, "refused: 10.0.0.1 is a private address"],
  ])("%s (development %s): %s", async (url, development, error) => {
    const resolve = fixed(["8.8.8.8"]);
    expect(await safePost(url, { body: "{}", development, resolve })).toEqual({ status: 0, error });
    expect(resolve.calls).toEqual([]);
  });
});

describe("safePost through a resolver", () => {
  it("connects to the resolved loopback address with the development flag, over http", async () => {
    const server = await startServer();
    try {
      const resolve = fixed(["127.0.0.1"]);
      expect(await safePost(`http://receiver.test:${server.port}/hook`, { body: "{}", development: true, resolve })).toEqual({ status: 204 });
      expect(resolve.calls).toEqual(["receiver.test"]);
      expect(server.paths).toEqual(["/hook"]);
    } finally {
      await server.close();
    }
  });

  it("plain http:// under the development flag goes to loopback only: a public name or address is refused without connecting", async () => {
    const resolve = fixed(["8.8.8.8"]);
    expect(await safePost("http://public.test/h", { body: "{}", development: true, resolve })).toEqual({
      status: 0,
      error: "refused: public.test resolves to 8.8.8.8 is not a loopback address (plain http:// goes to loopback only)",
    });
    expect(await safePost("http://8.8.8.8/h", { body: "{}", development: true, resolve })).toEqual({
      status: 0,
      error: "refused: 8.8.8.8 is not a loopback address (plain http:// goes to loopback only)",
    });
    expect(resolve.calls).toEqual(["public.test"]);
  });

  it("a name with no address, or resolving to loopback without the flag, is refused without connecting", async () => {
    expect(await safePost("https://nothing.test/h", { body: "{}", resolve: fixed([]) })).toEqual({ status: 0, error: "refused: nothing.test has no address" });
    expect(await safePost("https://loop.test/h", { body: "{}", resolve: fixed(["8.8.8.8", "127.0.0.1"]) })).toEqual({
      status: 0,
      error: "refused: loop.test resolves to 127.0.0.1 is a loopback address",
    });
  });

  it("the pool of the development flag is not the pool without it: the same resolver is judged again", async () => {
    const server = await startServer();
    try {
      const resolve = fixed(["127.0.0.1"]);
      expect(await safePost(`http://same.test:${server.port}/dev`, { body: "{}", development: true, resolve })).toEqual({ status: 204 });
      expect(await safePost(`https://same.test:${server.port}/prod`, { body: "{}", resolve })).toEqual({
        status: 0,
        error: "refused: same.test resolves to 127.0.0.1 is a loopback address",
      });
      expect(server.paths).toEqual(["/dev"]);
    } finally {
      await server.close();
    }
  });

  it("a resolver failure is reported with its code and message", async () => {
    const failing: HostResolver = async () => {
      throw Object.assign(new Error("queryA ESERVFAIL broken.test"), { code: "ESERVFAIL" });
    };
    expect(await safePost("https://broken.test/h", { body: "{}", resolve: failing })).toEqual({ status: 0, error: "ESERVFAIL: queryA ESERVFAIL broken.test" });
  });

  it("a refusal wrapped by the HTTP client is still reported as the refusal, not as what wraps it", async () => {
    const refusal = new RefusedTarget("wrapped.test resolves to 10.0.0.1 is a private address", { cause: new Error("lookup detail") });
    const wrapping: HostResolver = async () => {
      throw Object.assign(new Error("connect failed", { cause: new Error("socket", { cause: refusal }) }), { code: "UND_ERR_CONNECT" });
    };
    expect(await safePost("https://wrapped.test/h", { body: "{}", resolve: wrapping })).toEqual({ status: 0, error: "refused: wrapped.test resolves to 10.0.0.1 is a private address" });
  });

  it("an error with causes but no refusal is reported by its own code; a long message is cut at 300 characters", async () => {
    const chained: HostResolver = async () => {
      throw Object.assign(new Error("outer", { cause: new Error("inner") }), { code: "EOUTER" });
    };
    expect(await safePost("https://chained.test/h", { body: "{}", resolve: chained })).toEqual({ status: 0, error: "EOUTER: outer" });
    const long: HostResolver = async () => {
      throw new Error("x".repeat(400));
    };
    expect(await safePost("https://long.test/h", { body: "{}", resolve: long })).toEqual({ status: 0, error: `Error: ${"x".repeat(293)}` });
  });

  it("a refused connection is reported with its code and message", async () => {
    const server = await startServer();
    const port = server.port;
    await server.close();
    const res = await safePost(`http://127.0.0.1:${port}/h`, { body: "{}", development: true });
    expect(res).toEqual({ status: 0, error: `ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:${port}` });
  });
});

describe("safePost connections", () => {
  it("keeps a connection alive across deliveries when the answer is small, read in several chunks", async () => {
    const server = await startServer(async (res) => {
      res.writeHead(200, { "content-length": String(6 * 10_240) });
      for (let i = 0; i < 6; i++) {
        res.write("y".repeat(10_240));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
    try {
      const resolve = fixed(["127.0.0.1"]);
      for (let i = 0; i < 6; i++) expect(await safePost(`http://small.test:${server.port}/s`, { body: "{}", development: true, resolve })).toEqual({ status: 200 });
      // Reused: a request may still open a second connection while the first is being released,
      // but six deliveries never take six connections (one each is what dropping them would cost).
      expect(server.sockets.length).toBeLessThan(6);
    } finally {
      await server.close();
    }
  });

  it("drops the connection of an answer past 64 KiB after reading its start: every delivery needs a new one", async () => {
    const server = await startServer((res) => void res.writeHead(200, { "content-length": String(1 << 22) }).end("z".repeat(1 << 22)));
    try {
      const resolve = fixed(["127.0.0.1"]);
      for (let i = 0; i < 4; i++) expect(await safePost(`http://big.test:${server.port}/b`, { body: "{}", development: true, resolve })).toEqual({ status: 200 });
      expect(server.sockets).toHaveLength(4);
      const last = server.sockets[3];
      await new Promise((r) => (last.destroyed ? r(undefined) : last.once("close", r)));
    } finally {
      await server.close();
    }
  });

  it("the timeout covers the whole exchange: a resolver that never answers is a timeout at the deadline", async () => {
    const never: HostResolver = () => new Promise(() => {});
    const res = await safePost("http://stuck.test:9/x", { body: "{}", development: true, resolve: never, timeoutMs: 200 });
    expect(res).toEqual({ status: 0, error: "timeout" });
    // Nor does the request stay queued in the pool: closing it (which waits for queued requests)
    // ends now, not after a connect timeout longer than the test's.
    await closeOutboundConnections();
  });

  it("a status that came before the deadline is the answer even when the body never ends; the connection is dropped", async () => {
    const server = await startServer((res) => void res.writeHead(202, { "content-length": "1000" }).write("partial"));
    try {
      const res = await safePost(`http://slow-body.test:${server.port}/s`, { body: "{}", development: true, resolve: fixed(["127.0.0.1"]), timeoutMs: 300 });
      expect(res).toEqual({ status: 202 });
      const [socket] = server.sockets;
      await new Promise((r) => (socket.destroyed ? r(undefined) : socket.once("close", r)));
    } finally {
      await server.close();
    }
  });

  it("answers each of many concurrent POSTs with its own status", async () => {
    const server = await startServer((res) => void res.writeHead(200 + Number(res.req.url!.slice(3)) % 7).end());
    try {
      const resolve = fixed(["127.0.0.1"]);
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => safePost(`http://many.test:${server.port}/n/${i}`, { body: "{}", development: true, resolve })));
      expect(results.map((r) => r.status)).toEqual(Array.from({ length: 40 }, (_, i) => 200 + (i % 7)));
    } finally {
      await server.close();
    }
  });

  it("closeOutboundConnections closes pooled connections, and posting afterwards opens a new one", async () => {
    // The server asks to keep idle connections 10 minutes, so only closing the pool ends this one.
    const server = await startServer((res) => void res.writeHead(204, { "keep-alive": "timeout=600" }).end());
    try {
      const resolve = fixed(["127.0.0.1"]);
      expect(await safePost(`http://pooled.test:${server.port}/1`, { body: "{}", development: true, resolve })).toEqual({ status: 204 });
      const [socket] = server.sockets;
      const closed = new Promise((r) => socket.once("close", r));
      await closeOutboundConnections();
      expect(await safePost(`http://pooled.test:${server.port}/2`, { body: "{}", development: true, resolve })).toEqual({ status: 204 });
      expect(server.sockets).toHaveLength(2);
      await closed;
    } finally {
      await server.close();
    }
  });
});

describe("checkedLookup", () => {
  type Result = { error: Error | null; address: unknown; family?: number };
  const lookup = (addresses: string[], options: { family?: number; all?: boolean }, allowLoopback = true) =>
    new Promise<Result>((resolve) => {
      const fn = checkedLookup(async () => addresses, { allowLoopback }) as unknown as (h: string, o: object, cb: (e: Error | null, a: unknown, f?: number) => void) => void;
      fn("dual.test", options, (error, address, family) => resolve({ error, address, family }));
    });

  it("answers the first address, or all of them with their families", async () => {
    expect(await lookup(["127.0.0.1", "::1"], {})).toEqual({ error: null, address: "127.0.0.1", family: 4 });
    expect(await lookup(["::1", "127.0.0.1"], { family: 0 })).toEqual({ error: null, address: "::1", family: 6 });
    expect(await lookup(["127.0.0.1", "::1"], { all: true })).toEqual({ error: null, address: [{ address: "127.0.0.1", family: 4 }, { address: "::1", family: 6 }], family: undefined });
  });

  it("keeps to the family the socket asks for", async () => {
    expect(await lookup(["127.0.0.1", "::1"], { family: 6 })).toEqual({ error: null, address: "::1", family: 6 });
    expect(await lookup(["::1", "127.0.0.1"], { family: 4 })).toEqual({ error: null, address: "127.0.0.1", family: 4 });
    expect(await lookup(["::1", "127.0.0.1"], { family: 4, all: true })).toEqual({ error: null, address: [{ address: "127.0.0.1", family: 4 }], family: undefined });
  });

  it("refuses when the asked family has no address", async () => {
    const r = await lookup(["127.0.0.1"], { family: 6 });
    expect(r.error?.message).toBe("dual.test has no IPv6 address");
    expect((await lookup(["::1"], { family: 4 })).error?.message).toBe("dual.test has no IPv4 address");
  });

  it("refuses the whole answer when one address is not allowed", async () => {
    expect((await lookup(["127.0.0.1", "10.0.0.1"], {})).error?.message).toBe("dual.test resolves to 10.0.0.1 is a private address");
    expect((await lookup(["127.0.0.1"], {}, false)).error?.message).toBe("dual.test resolves to 127.0.0.1 is a loopback address");
  });
});
