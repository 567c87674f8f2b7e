// A minimal DNS client over raw sockets, for tests and the benchmark: unlike node:dns it
// shows the header flags (AA, TC), the rcode and every section exactly as served.
import dgram from "node:dgram";
import net from "node:net";
import { decode, encode, type DecodedPacket, type Packet } from "dns-packet";

/** dns-packet decodes the rcode but its typings omit it. */
export type Reply = DecodedPacket & { rcode: string };

export interface WireQuery {
  name: string;
  type: string;
  /** Advertise this EDNS UDP size; omit to send a plain (512-byte) query. */
  edns?: number;
  id?: number;
}

export function queryPacket({ name, type, edns, id }: WireQuery): Packet {
  return {
    type: "query",
    id: id ?? Math.floor(Math.random() * 65536),
    flags: 0,
    questions: [{ name, type: type as never, class: "IN" }],
    additionals: edns
      ? [{ name: ".", type: "OPT", udpPayloadSize: edns, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }]
      : [],
  };
}

export function queryUdp(port: number, query: WireQuery | Buffer, host = "127.0.0.1", timeoutMs = 5000): Promise<Reply> {
  const socket = dgram.createSocket("udp4");
  const message = Buffer.isBuffer(query) ? query : encode(queryPacket(query));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no UDP answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("message", (reply) => {
      clearTimeout(timer);
      socket.close();
      try {
        resolve(decode(reply) as Reply);
      } catch (error) {
        reject(error);
      }
    });
    socket.send(message, port, host);
  });
}

/**
 * Send length-prefixed messages on one TCP connection and collect `expected` answers
 * (fewer than the queries when some are deliberately malformed and must go unanswered).
 */
export function queryTcp(port: number, queries: (WireQuery | Buffer)[], expected = queries.length, host = "127.0.0.1"): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, host);
    const answers: Reply[] = [];
    let pending = Buffer.alloc(0);
    socket.on("connect", () => {
      for (const query of queries) {
        const body = Buffer.isBuffer(query) ? query : encode(queryPacket(query));
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(body.length);
        socket.write(Buffer.concat([frame, body]));
      }
    });
    socket.on("data", (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const length = pending.readUInt16BE(0);
        answers.push(decode(pending.subarray(2, 2 + length)) as Reply);
        pending = pending.subarray(2 + length);
      }
      if (answers.length >= expected) {
        socket.end();
        resolve(answers);
      }
    });
    socket.on("error", reject);
  });
}
