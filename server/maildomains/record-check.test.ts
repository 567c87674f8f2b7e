// The `ready` check of a mail domain's required records against what DNS answers, table-driven:
// MX by host (any case, trailing dot) and priority, TXT by exact joined value, and a failed
// lookup read as "not there yet", never an error.
import { describe, expect, it } from "vitest";
import { checkRecord, checkRecords } from "./record-check.ts";
import type { RequiredRecord } from "./required-records.ts";
import { lookupError, tableResolver, type ResolverTable } from "./test/table-resolver.ts";

const mx: RequiredRecord = { purpose: "mx", type: "MX", name: "shop.example", data: "mail.platform.test", priority: 10, ttl: 3600 };
const spf: RequiredRecord = { purpose: "spf", type: "TXT", name: "shop.example", data: "v=spf1 a:mail.platform.test -all", ttl: 3600 };

describe("checkRecord", () => {
  it.each<[string, RequiredRecord, ResolverTable, boolean]>([
    ["MX published", mx, { mx: { "shop.example": [{ exchange: "mail.platform.test", priority: 10 }] } }, true],
    ["MX among others", mx, { mx: { "shop.example": [{ exchange: "mx.other.test", priority: 5 }, { exchange: "mail.platform.test", priority: 10 }] } }, true],
    ["MX host in another case with the root's dot", mx, { mx: { "shop.example": [{ exchange: "MAIL.Platform.Test.", priority: 10 }] } }, true],
    ["MX of another priority", mx, { mx: { "shop.example": [{ exchange: "mail.platform.test", priority: 20 }] } }, false],
    ["MX to another host", mx, { mx: { "shop.example": [{ exchange: "mail.other.test", priority: 10 }] } }, false],
    ["MX at another name", mx, { mx: { "www.shop.example": [{ exchange: "mail.platform.test", priority: 10 }] } }, false],
    ["MX asked where only TXT is", mx, { txt: { "shop.example": ["mail.platform.test"] } }, false],
    ["no MX", mx, {}, false],
    ["MX lookup timed out", mx, { mx: { "shop.example": lookupError("ETIMEOUT") } }, false],
    ["TXT published", spf, { txt: { "shop.example": ["v=spf1 a:mail.platform.test -all"] } }, true],
    ["TXT among others", spf, { txt: { "shop.example": ["google-site-verification=x", "v=spf1 a:mail.platform.test -all"] } }, true],
    ["TXT with another value", spf, { txt: { "shop.example": ["v=spf1 a:mail.platform.test ~all"] } }, false],
    ["TXT only containing the value", spf, { txt: { "shop.example": ["x v=spf1 a:mail.platform.test -all"] } }, false],
    ["TXT asked where only MX is", spf, { mx: { "shop.example": [{ exchange: "v=spf1 a:mail.platform.test -all", priority: 10 }] } }, false],
    ["TXT lookup refused", spf, { txt: { "shop.example": lookupError("EREFUSED") } }, false],
  ])("%s", async (_name, record, table, want) => {
    expect(await checkRecord(tableResolver(table), record)).toBe(want);
  });
});

describe("checkRecords", () => {
  it("answers each record in order", async () => {
    const resolver = tableResolver({ txt: { "shop.example": [spf.data] } });
    expect(await checkRecords(resolver, [mx, spf, mx])).toEqual([false, true, false]);
    expect(await checkRecords(resolver, [])).toEqual([]);
  });
});
