// Shutting the HTTP server down without waiting on connections that have nothing in flight.
// Node's server.close() (and fastify's "idle" forceCloseConnections) closes keep-alive
// connections between requests, but a connection that opened and never sent a byte (a load
// balancer's TCP check, a port scan, a client's pre-opened socket) counts as busy until its
// headers timeout, about a minute. Those are cut at once; requests still running get a grace
// period, then their connections are cut too, so a stop is bounded.
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface GracefulClose {
  /** Call before fastify's close(): cuts silent connections now and the rest after the grace. */
  begin(): () => void;
}

export function trackConnections(server: Server, graceMs: number): GracefulClose {
  const open = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    // Never a "data" (or "readable") listener here: adding one makes Node's HTTP server hand the
    // socket from its native parser back to JavaScript for the connection's whole life, which
    // cost every request about 3 µs of CPU (socketOnData and the stream machinery). Whether a
    // byte ever came is read from bytesRead, which the native read path counts anyway.
    socket.once("close", () => open.delete(socket));
  });
  return {
    begin() {
      for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
      const timer = setTimeout(() => server.closeAllConnections(), graceMs);
      timer.unref();
      return () => clearTimeout(timer);
    },
  };
}
