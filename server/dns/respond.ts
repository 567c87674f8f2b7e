// One DNS message in, one (or none) out: header rules, the zone lookup, EDNS and UDP
// truncation. Transport-neutral so UDP, TCP and the tests share the exact same path.
import {
  AUTHORITATIVE_ANSWER,
  RECURSION_DESIRED,
  TRUNCATED_RESPONSE,
  decode,
  encode,
  type Answer,
  type DecodedPacket,
  type OptAnswer,
  type Packet,
} from "dns-packet";
import { answerQuestion, type ZoneIndex } from "./answer.ts";
import { compressNames } from "./compress-names.ts";
import type { ZoneCache } from "./zone-cache.ts";

export interface RespondOptions {
  zones: ZoneCache;
  transport: "udp" | "tcp";
}

const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
const OPCODE_MASK = 0x7800;
// Classic limit without EDNS (RFC 1035); with EDNS we honour the client's size up to the
// 1232 bytes that avoid IP fragmentation (DNS flag day 2020).
const UDP_PLAIN_LIMIT = 512;
const UDP_EDNS_LIMIT = 1232;
const TCP_LIMIT = 65535;

type Sections = Pick<Packet, "answers" | "authorities" | "additionals">;

/**
 * The answer to `message`, or undefined when it must be dropped. Synchronous on the hot
 * path (zone prepared, see ZoneCache) so a cached answer costs no promise.
 */
export function respond(message: Buffer, options: RespondOptions): Buffer | undefined | Promise<Buffer | undefined> {
  let query: DecodedPacket;
  try {
    query = decode(message);
  } catch {
    return undefined;
  }
  // Never answer an answer: two servers could otherwise bounce packets forever.
  if (query.type !== "query") return undefined;
  const opt = (query.additionals ?? []).find((a): a is OptAnswer => a.type === "OPT");
  const limit =
    options.transport === "tcp"
      ? TCP_LIMIT
      : opt
        ? Math.min(Math.max(opt.udpPayloadSize, UDP_PLAIN_LIMIT), UDP_EDNS_LIMIT)
        : UDP_PLAIN_LIMIT;

  const build = (rcode: number, aa: boolean, sections: Sections = {}): Buffer => {
    const flags = (query.flags! & (OPCODE_MASK | RECURSION_DESIRED)) | (aa ? AUTHORITATIVE_ANSWER : 0) | rcode;
    const additionals: Answer[] = [...(sections.additionals ?? [])];
    if (opt) additionals.push(ednsRecord());
    const packet: Packet = { type: "response", id: query.id, flags, questions: query.questions, ...sections, additionals };
    // Compressed as the peers send it: smaller answers, and more of them fit the UDP limit.
    const full = compressNames(encode(packet));
    if (full.length <= limit) return full;
    // Truncated: the header says so and the client retries over TCP for the whole answer.
    return encode({ ...packet, flags: flags | TRUNCATED_RESPONSE, answers: [], authorities: [], additionals: opt ? [ednsRecord()] : [] });
  };

  const opcode = (query.flags! & OPCODE_MASK) >> 11;
  if (opcode !== 0) return build(RCODE.NOTIMP, false);
  if (query.questions?.length !== 1) return build(RCODE.FORMERR, false);
  const question = query.questions[0];
  if (question.class !== "IN" && question.class !== undefined) return build(RCODE.REFUSED, false);
  // Zone transfers are not offered: the API is the way to read a zone.
  if (question.type === "AXFR" || question.type === "IXFR") return build(RCODE.REFUSED, false);

  const qname = question.name === "." ? "" : question.name.toLowerCase();
  const finish = (index: ZoneIndex | undefined): Buffer => {
    if (!index) return build(RCODE.REFUSED, false);
    const { rcode, authoritative, answers, authorities, additionals } = answerQuestion(index, qname, question.type, question.name);
    return build(RCODE[rcode], authoritative, { answers, authorities, additionals });
  };
  const servfail = () => build(RCODE.SERVFAIL, false);
  try {
    const found = options.zones.lookup(qname);
    return found instanceof Promise ? found.then(finish).catch(servfail) : finish(found);
  } catch {
    return servfail();
  }
}

function ednsRecord(): OptAnswer {
  return { name: ".", type: "OPT", udpPayloadSize: UDP_EDNS_LIMIT, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
}
