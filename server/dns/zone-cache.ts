// Prepared zones for the wire server. Reading every zone's records on every query cost
// over 80% of throughput (see README, benchmark); instead the zones and their indexes are
// kept until the repository's change token moves. The token is read once per event-loop
// turn, not per query: queries handled in one turn arrived in one batch, concurrently with
// anything else in that batch, so none of them can be causally after a write made in it;
// any write completed before a query was sent is seen by that query.
import { buildZoneIndex, type ZoneIdentity, type ZoneIndex } from "./answer.ts";
import type { DnsRecordRepository, DnsZone } from "./zone-repository.ts";

export class ZoneCache {
  readonly #repository: DnsRecordRepository;
  readonly #identity: ZoneIdentity;
  #token: string | undefined;
  // Bumped on every invalidation, so a load that started before it cannot store stale data.
  #generation = 0;
  #zones: Map<string, DnsZone> | undefined;
  #indexes = new Map<string, ZoneIndex>();
  #checkedThisTurn = false;

  constructor(repository: DnsRecordRepository, identity: ZoneIdentity = {}) {
    this.#repository = repository;
    this.#identity = identity;
  }

  /**
   * The index of the most specific hosted zone containing `qname` (canonical), if any.
   * Synchronous when it is prepared and the token was checked this turn (the hot path:
   * no promise per query), a promise otherwise.
   */
  lookup(qname: string): ZoneIndex | undefined | Promise<ZoneIndex | undefined> {
    if (this.#checkedThisTurn && this.#zones) {
      const zone = this.#findZone(this.#zones, qname);
      if (!zone) return undefined;
      const index = this.#indexes.get(zone.name);
      if (index) return index;
    }
    return this.#lookupSlowly(qname);
  }

  /**
   * Bumped whenever the change token moves: whatever was derived from the zones under an
   * older generation (the packet cache's answers) is stale.
   */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Reads the change token unless it was already read this turn (the hot path: nothing to do);
   * after it, `generation` is current for the rest of the turn. Throws when the store cannot tell.
   */
  ensureFresh(): void {
    if (this.#checkedThisTurn) return;
    this.#apply(this.#repository.changeToken());
    this.#markChecked();
  }

  #markChecked(): void {
    this.#checkedThisTurn = true;
    setImmediate(this.#nextTurn);
  }

  // One function for every turn, not a closure per turn.
  readonly #nextTurn = (): void => {
    this.#checkedThisTurn = false;
  };

  async #lookupSlowly(qname: string): Promise<ZoneIndex | undefined> {
    this.ensureFresh();
    const generation = this.#generation;
    let zones = this.#zones;
    if (!zones) {
      zones = new Map((await this.#repository.listZones()).map((z) => [z.name, z]));
      if (generation === this.#generation) this.#zones = zones;
    }
    const zone = this.#findZone(zones, qname);
    if (!zone) return undefined;
    let index = this.#indexes.get(zone.name);
    if (!index) {
      index = buildZoneIndex(zone, await this.#repository.listZoneRecords(zone.name), this.#identity);
      if (generation === this.#generation) this.#indexes.set(zone.name, index);
    }
    return index;
  }

  #findZone(zones: Map<string, DnsZone>, qname: string): DnsZone | undefined {
    // Most specific first, so a child zone hosted here wins over its parent.
    for (let name = qname; ; name = name.slice(name.indexOf(".") + 1)) {
      const zone = zones.get(name);
      if (zone || !name.includes(".")) return zone;
    }
  }

  #apply(token: string): void {
    if (token === this.#token) return;
    this.#token = token;
    this.#generation++;
    this.#zones = undefined;
    this.#indexes = new Map();
  }
}
