// Shutdown on real sockets: a connection that never sent a byte does not hold the server open,
// a request in flight still gets its answer, and one that outlives the grace is cut.
import fastify, { type FastifyInstance } from "fastify";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { trackConnections } from "./graceful-close.ts";

let app: FastifyInstance;
afterEach(() => app?.server.closeAllConnections());

async function serve(graceMs: number, handler: () => Promise<unknown>) {
  app = fastify();
  app.get("/slow", handler);
  const connections = trackConnections(app.server, graceMs);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const { port } = app.server.address() as net.AddressInfo;
  const close = async () => {
    const done = connections.begin();
    await app.close();
    done();
  };
  return { port, close };
}

const closed = (socket: net.Socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()));

describe("graceful close", () => {
  it("cuts a connection that never sent a request, so close() returns", async () => {
    const { port, close } = await serve(60_000, async () => "ok");
    const silent = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => silent.once("connect", resolve));
    const socketClosed = closed(silent);
    // Without the tracking, close() waits for this socket's headers timeout (about a minute).
    await close();
    await socketClosed;
    expect(silent.destroyed).toBe(true);
  });

  it("lets a request in flight finish within the grace", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inHandler = new Promise<void>((resolve) => (started = resolve));
    const { port, close } = await serve(60_000, async () => {
      started();
      await gate;
      return { finished: true };
    });
    const response = fetch(`http://127.0.0.1:${port}/slow`);
    await inHandler;
    const closing = close();
    release();
    const res = await response;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ finished: true });
    await closing;
  });

  it("cuts a request that outlives the grace", async () => {
    let started!: () => void;
    const inHandler = new Promise<void>((resolve) => (started = resolve));
    const { port, close } = await serve(50, async () => {
      started();
      await new Promise(() => {}); // never answers
    });
    const response = fetch(`http://127.0.0.1:${port}/slow`);
    await inHandler;
    await close();
    await expect(response).rejects.toThrow();
  });

  it("leaves each connection to Node's native HTTP parser (no data listener takes it back to JavaScript)", async () => {
    let consumed: unknown;
    app = fastify();
    app.get("/", async (request) => {
      // node:_http_server marks a socket its parser reads natively; a "data" listener unmarks it.
      consumed = (request.raw.socket as unknown as { parser?: { _consumed?: boolean } }).parser?._consumed;
      return "ok";
    });
    trackConnections(app.server, 1000);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as net.AddressInfo;
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe("ok");
    expect(consumed).toBe(true);
  });
});
