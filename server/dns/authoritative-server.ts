// The authoritative DNS server: UDP and TCP sockets around `respond`. It answers only for
// hosted zones (REFUSED elsewhere: it is not a resolver), and drops what it cannot parse,
// since answering garbage from a spoofed source would make it a reflector.
import dgram from "node:dgram";
import net from "node:net";
import type { ZoneIdentity } from "./answer.ts";
import { respond, type RespondOptions } from "./respond.ts";
import { ZoneCache } from "./zone-cache.ts";
import type { DnsRecordRepository } from "./zone-repository.ts";

export interface DnsServerOptions extends ZoneIdentity {
  host?: string;
  /** 0 picks a free port, shared by UDP and TCP so clients can retry a truncated answer. */
  port?: number;
  repository: DnsRecordRepository;
  /** Idle TCP connections are closed after this long (RFC 7766 suggests seconds). */
  tcpIdleMs?: number;
}

export interface DnsServer {
  udpPort: number;
  tcpPort: number;
  close(): Promise<void>;
}

const MAX_PORT_ATTEMPTS = 20;

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const host = options.host ?? "127.0.0.1";
  const requested = options.port ?? 0;
  const zones = new ZoneCache(options.repository, options);
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(host, requested, { zones, transport: "udp" });
    const udpPort = udp.address().port;
    try {
      const tcp = await listenTcp(host, udpPort, { zones, transport: "tcp" }, options.tcpIdleMs ?? 10_000);
      return {
        udpPort,
        tcpPort: udpPort,
        close: async () => {
          await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), tcp.close()]);
        },
      };
    } catch (error) {
      udp.close();
      // With port 0 the UDP port the kernel chose may be taken on TCP; pick another.
      const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
      if (requested !== 0 || !inUse || attempt >= MAX_PORT_ATTEMPTS) throw error;
    }
  }
}

function bindUdp(host: string, port: number, options: RespondOptions): Promise<dgram.Socket> {
  const socket = dgram.createSocket(net.isIPv6(host) ? "udp6" : "udp4");
  socket.on("message", (message, remote) => {
    const reply = (response: Buffer | undefined) => {
      if (response) socket.send(response, remote.port, remote.address);
    };
    try {
      const response = respond(message, options);
      if (response instanceof Promise) response.then(reply, () => undefined);
      else reply(response);
    } catch {
      // An answer that cannot be encoded is dropped; the server keeps serving.
    }
  });
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, host, () => {
      socket.off("error", reject);
      // A send to a vanished client (ICMP unreachable) must not take the server down.
      socket.on("error", () => undefined);
      resolve(socket);
    });
  });
}

interface TcpListener {
  close(): Promise<void>;
}

function listenTcp(host: string, port: number, options: RespondOptions, idleMs: number): Promise<TcpListener> {
  const connections = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    socket.setTimeout(idleMs, () => socket.destroy());
    let pending = Buffer.alloc(0);
    // Answers go back in query order: each waits for the one before it.
    let queue = Promise.resolve();
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const length = pending.readUInt16BE(0);
        if (pending.length < 2 + length) break;
        const message = pending.subarray(2, 2 + length);
        pending = pending.subarray(2 + length);
        queue = queue.then(async () => {
          const response = await Promise.resolve()
            .then(() => respond(message, options))
            .catch(() => undefined);
          if (!response || socket.destroyed) return;
          const frame = Buffer.alloc(2);
          frame.writeUInt16BE(response.length);
          socket.write(Buffer.concat([frame, response]));
        });
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            for (const socket of connections) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
