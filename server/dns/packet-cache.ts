// Encoded answers reused for the same question, as PowerDNS's packet cache does: decoding
// the query, walking the zone index and encoding the answer with dns-packet cost most of a
// query's CPU, yet nearly every query repeats one asked a moment ago. A hit copies the
// stored answer and rewrites only the ID and the question's own spelling (resolvers
// randomise the case of names, "0x20", and check it comes back).
//
// The key is the whole query except its ID, with the name lowercased, plus the transport:
// everything `respond` reads, so two queries with one key get answers that differ only in
// ID and in the echoed spelling. Where the spelling is echoed is learned on the miss by
// answering the lowercase and the uppercase spelling and comparing; an answer that differs
// anywhere else is not cached. Entries belong to one generation of the zone cache: when the
// repository's change token moves (the same once-per-turn check that keeps prepared zones
// fresh) the whole cache is dropped, so an answer never outlives a committed change.
import { respond, type RespondOptions } from "./respond.ts";

/** Bound memory against floods of distinct names (random subdomains); oldest entries go first. */
export const PACKET_CACHE_MAX_ENTRIES = 10_000;
export const PACKET_CACHE_MAX_BYTES = 8 * 1024 * 1024;

const HEADER = 12;

interface Entry {
  /** The answer to the lowercase spelling of the question. */
  answer: Buffer;
  /** Offsets in `answer` where the question's name is echoed in the asker's spelling. */
  echoes: number[];
}

export class PacketCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #entries = new Map<string, Entry>();
  #bytes = 0;
  #generation = -1;
  /** Answers served from the cache since start, for tests and operators. */
  hits = 0;

  constructor(maxEntries = PACKET_CACHE_MAX_ENTRIES, maxBytes = PACKET_CACHE_MAX_BYTES) {
    this.#maxEntries = maxEntries;
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Drop every entry when the zones changed since they were stored. */
  sync(generation: number): void {
    if (generation === this.#generation) return;
    this.#generation = generation;
    this.#entries = new Map();
    this.#bytes = 0;
  }

  get(key: string): Entry | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: Entry): void {
    const cost = key.length + entry.answer.length;
    if (cost > this.#maxBytes || this.#entries.has(key)) return;
    for (const [oldest, { answer }] of this.#entries) {
      if (this.#entries.size < this.#maxEntries && this.#bytes + cost <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= oldest.length + answer.length;
    }
    this.#entries.set(key, entry);
    this.#bytes += cost;
  }
}

/**
 * `respond`, served from `cache` when the same question was answered since the zones last
 * changed. Queries the cache cannot key safely (unusual names, several questions, records
 * in the answer sections) go to `respond` unchanged.
 */
export function respondCached(message: Buffer, options: RespondOptions, cache: PacketCache): Buffer | undefined | Promise<Buffer | undefined> {
  const nameEnd = cacheableNameEnd(message);
  if (nameEnd === undefined) return respond(message, options);
  try {
    options.zones.ensureFresh();
  } catch {
    // The store failed to say whether the zones changed: the uncached path answers (SERVFAIL).
    return respond(message, options);
  }
  return fromCache(message, nameEnd, options, cache);
}

function fromCache(message: Buffer, nameEnd: number, options: RespondOptions, cache: PacketCache): Buffer | undefined | Promise<Buffer | undefined> {
  cache.sync(options.zones.generation);
  const key = cacheKey(message, nameEnd, options.transport);
  const entry = cache.get(key);
  if (entry) {
    cache.hits++;
    return patch(entry, message, nameEnd);
  }
  const generation = options.zones.generation;
  const store = (answer: Buffer | undefined): Buffer | undefined => {
    // A promise means the zone was being loaded; if the zones changed meanwhile, the
    // answer may already be stale and is sent but not kept.
    if (!answer || generation !== options.zones.generation) return answer;
    try {
      const learned = learnEchoes(message, nameEnd, options, answer);
      if (learned) cache.set(key, learned);
    } catch {
      // Not cached; the answer itself was computed and goes out.
    }
    return answer;
  };
  const answer = respond(message, options);
  return answer instanceof Promise ? answer.then(store) : store(answer);
}

function patch(entry: Entry, message: Buffer, nameEnd: number): Buffer {
  const out = Buffer.allocUnsafe(entry.answer.length);
  entry.answer.copy(out);
  out[0] = message[0];
  out[1] = message[1];
  for (const offset of entry.echoes) message.copy(out, offset, HEADER, nameEnd);
  return out;
}

function learnEchoes(message: Buffer, nameEnd: number, options: RespondOptions, answer: Buffer): Entry | undefined {
  const spelled = (upper: boolean): Buffer => {
    const copy = Buffer.from(message);
    for (let i = HEADER; i < nameEnd; i++) {
      const c = copy[i];
      if (upper && c >= 0x61 && c <= 0x7a) copy[i] = c - 0x20;
      else if (!upper && c >= 0x41 && c <= 0x5a) copy[i] = c + 0x20;
    }
    return copy;
  };
  const lowerQuery = spelled(false);
  const upperQuery = spelled(true);
  // Most askers do not randomise case: their own answer is already one of the two.
  const lower = lowerQuery.equals(message) ? answer : respond(lowerQuery, options);
  const upper = upperQuery.equals(message) ? answer : respond(upperQuery, options);
  if (!Buffer.isBuffer(lower) || !Buffer.isBuffer(upper) || lower.length !== answer.length || upper.length !== answer.length) return undefined;
  const lowerName = lowerQuery.subarray(HEADER, nameEnd);
  const upperName = upperQuery.subarray(HEADER, nameEnd);
  const width = nameEnd - HEADER;
  const echoes: number[] = [];
  const covered = new Uint8Array(answer.length);
  for (let offset = 2; offset + width <= answer.length; offset++) {
    if (lower.subarray(offset, offset + width).equals(lowerName) && upper.subarray(offset, offset + width).equals(upperName)) {
      echoes.push(offset);
      covered.fill(1, offset, offset + width);
      offset += width - 1;
    }
  }
  // Any other difference between the two spellings is a use of the name this cache does
  // not understand; such a question is always answered afresh.
  for (let i = 2; i < answer.length; i++) if (lower[i] !== upper[i] && !covered[i]) return undefined;
  const entry = { answer: lower, echoes };
  // The entry must reproduce the answer just computed for the asker's own spelling.
  return patch(entry, message, nameEnd).equals(answer) ? entry : undefined;
}

// The key is assembled in this buffer and read out as one string: one allocation per query
// instead of a string per part, their concatenation and its flattening for the Map's hash.
let scratch = Buffer.allocUnsafe(1024);

/**
 * The key: the transport, the header but its ID, the name lowercased, then what follows the
 * name (type, class and the additional section), except that an OPT record carrying only
 * COOKIE options (RFC 7873) is keyed without them. This server does not answer cookies and
 * `respond` ignores them, and dig sends a fresh one with every query; the framing is checked
 * so a malformed option still goes to `respond` keyed by its whole bytes. A marker before
 * the tail tells the two forms apart, so no tail can pass for the other.
 */
export function cacheKey(message: Buffer, nameEnd: number, transport: "udp" | "tcp"): string {
  if (scratch.length < message.length + 2) scratch = Buffer.allocUnsafe(message.length + 2);
  const key = scratch;
  key[0] = transport === "udp" ? 0x75 : 0x74;
  let at = 1;
  for (let i = 2; i < HEADER; i++) key[at++] = message[i];
  for (let i = HEADER; i < nameEnd; i++) {
    const c = message[i];
    key[at++] = c >= 0x41 && c <= 0x5a ? c + 0x20 : c;
  }
  const tailEnd = cookiesOnly(message, nameEnd) ? nameEnd + 4 + 9 : message.length;
  key[at++] = tailEnd === message.length ? 0x3d : 0x63; // "=" whole tail, "c" cookies left out
  for (let i = nameEnd; i < tailEnd; i++) key[at++] = message[i];
  return key.toString("latin1", 0, at);
}

/** True when the query's one additional record is an OPT whose options are all well-framed COOKIEs. */
function cookiesOnly(message: Buffer, nameEnd: number): boolean {
  const opt = nameEnd + 4;
  const rdata = opt + 11;
  if (message.readUInt16BE(10) !== 1 || rdata > message.length || message[opt] !== 0 || message.readUInt16BE(opt + 1) !== 41) return false;
  if (rdata + message.readUInt16BE(opt + 9) !== message.length) return false;
  for (let offset = rdata; offset < message.length; ) {
    if (offset + 4 > message.length || message.readUInt16BE(offset) !== 10) return false;
    offset += 4 + message.readUInt16BE(offset + 2);
    if (offset > message.length) return false;
  }
  return true;
}

/**
 * The end of the question's name when the query can be keyed safely: a query header, one
 * question, no answer or authority records, and a name of plain uncompressed labels (letters,
 * digits, hyphen, underscore), whose case folding is a byte-wise ASCII one.
 */
function cacheableNameEnd(message: Buffer): number | undefined {
  if (message.length < HEADER + 5) return undefined;
  if (message[2] & 0x80) return undefined;
  if (message.readUInt16BE(4) !== 1 || message.readUInt16BE(6) !== 0 || message.readUInt16BE(8) !== 0 || message.readUInt16BE(10) > 1) return undefined;
  let offset = HEADER;
  for (;;) {
    const length = message[offset];
    if (length === undefined || length > 63) return undefined;
    offset++;
    if (length === 0) break;
    if (offset + length > message.length) return undefined;
    for (let i = offset; i < offset + length; i++) {
      const c = message[i];
      const plain = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
      if (!plain) return undefined;
    }
    offset += length;
  }
  return offset + 4 <= message.length ? offset : undefined;
}
