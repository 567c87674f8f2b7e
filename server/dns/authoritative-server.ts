// The authoritative DNS server: UDP and TCP sockets around `respond`. It answers only for
// hosted zones (REFUSED elsewhere: it is not a resolver), and drops what it cannot parse,
// since answering garbage from a spoofed source would make it a reflector.
import dgram from "node:dgram";
import dns from "node:dns";
import net from "node:net";
import type { ZoneIdentity } from "./answer.ts";
import { PacketCache, respondCached } from "./packet-cache.ts";
import type { RespondOptions } from "./respond.ts";
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
  /** The packet cache's counters: answers served from it, and entries held now. */
  packetCache(): { hits: number; entries: number };
  close(): Promise<void>;
}

const MAX_PORT_ATTEMPTS = 20;

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const host = options.host ?? "127.0.0.1";
  const requested = options.port ?? 0;
  const zones = new ZoneCache(options.repository, options);
  // One cache for both transports (the transport is part of its key).
  const cache = new PacketCache();
  for (let attempt = 1; ; attempt++) {
    const udp = await bindUdp(host, requested, { zones, transport: "udp" }, cache);
    const udpPort = udp.address().port;
    try {
      const tcp = await listenTcp(host, udpPort, { zones, transport: "tcp" }, cache, options.tcpIdleMs ?? 10_000);
      return {
        udpPort,
        tcpPort: udpPort,
        packetCache: () => ({ hits: cache.hits, entries: cache.size }),
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

// Replies go to the address a datagram came from, always an IP literal. Node's default
// lookup answers an IP through process.nextTick, a hop per answer; this one calls back at
// once, so the answer is sent in the turn it was computed in.
const lookupLiteral = (address: string, family: number, callback: (error: Error | null, address: string, family: number) => void): void => {
  if (net.isIP(address)) callback(null, address, family);
  else dns.lookup(address, family, callback);
};

function bindUdp(host: string, port: number, options: RespondOptions, cache: PacketCache): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: net.isIPv6(host) ? "udp6" : "udp4", lookup: lookupLiteral as never });
  socket.on("message", (message, remote) => {
    try {
      const response = respondCached(message, options, cache);
      // The hot path (a cached answer) sends at once, without a closure per query.
      if (response instanceof Promise) response.then((late) => late && socket.send(late, remote.port, remote.address), () => undefined);
      else if (response) socket.send(response, remote.port, remote.address);
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

function listenTcp(host: string, port: number, options: RespondOptions, cache: PacketCache, idleMs: number): Promise<TcpListener> {
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
            .then(() => respondCached(message, options, cache))
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
