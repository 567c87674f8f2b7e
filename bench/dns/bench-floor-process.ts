// The floor of the DNS benchmark (peers-bench.ts): a bare node:dgram socket that answers every
// query with a reply computed once, copying in only the query's ID. It does what no server can
// skip in Node (one `message` event and one `send` per datagram) and nothing of ours per query,
// so its CPU per query against PowerDNS's says how much of the platform's gap is Node's dgram
// and how much is our code. Each distinct query (bytes after the ID; dnsperf repeats the same
// twelve) is answered by `respond` the first time it is seen, so the floor's answers are the
// platform's and the answer comparison holds for it too.
// Usage (by peers-bench.ts only): node bench-floor-process.ts <port>
import dgram from "node:dgram";
import { createExampleZone } from "../../server/dns/example-zone.ts";
import { BENCH_RECORDS } from "./bench-platform-process.ts";
import { respond } from "../../server/dns/respond.ts";
import { ZoneCache } from "../../server/dns/zone-cache.ts";

if (import.meta.main) {
  const { repository } = await createExampleZone(BENCH_RECORDS);
  const options = { zones: new ZoneCache(repository), transport: "udp" as const };
  const replies = new Map<string, Buffer>();
  // As the platform's socket: replies go to an IP literal, sent without Node's nextTick lookup hop.
  const lookup = (address: string, family: number, callback: (error: Error | null, address: string, family: number) => void) => callback(null, address, family);
  const socket = dgram.createSocket({ type: "udp4", lookup: lookup as never });
  socket.on("message", (message, remote) => {
    const key = message.toString("latin1", 2);
    const reply = replies.get(key);
    if (!reply) {
      // First sighting: computed once, kept, and sent (not a plain function call on the hot path).
      void Promise.resolve(respond(message, options)).then((computed) => {
        if (!computed) return;
        replies.set(key, computed);
        socket.send(computed, remote.port, remote.address);
      });
      return;
    }
    const out = Buffer.allocUnsafe(reply.length);
    reply.copy(out);
    out[0] = message[0];
    out[1] = message[1];
    socket.send(out, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(Number(process.argv[2]), "127.0.0.1", resolve));
  process.stdin.on("close", () => process.exit(0)).resume();
  process.on("SIGTERM", () => socket.close(() => process.exit(0)));
  console.log(JSON.stringify({ port: socket.address().port }));
}
