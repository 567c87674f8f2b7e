// A DNS resolver answering from a table, for unit tests of what the mail-domain checks conclude
// from answers: DNS is the outside world (an adapter), and the tables name each case's answers.
// A name missing from the table answers nothing (the `*OrEmpty` lookups' empty list); an Error
// in the table is a failed lookup (timeout, refusal), thrown as the real adapter would.
import type { MxRecord } from "node:dns";
import type { DnsResolver } from "../../dns/resolver.ts";

export interface ResolverTable {
  txt?: Record<string, string[] | Error>;
  mx?: Record<string, MxRecord[] | Error>;
}

export function tableResolver(table: ResolverTable): DnsResolver {
  const answer = async <T>(entries: Record<string, T[] | Error> | undefined, name: string): Promise<T[]> => {
    const found = entries?.[name];
    if (found instanceof Error) throw found;
    return found ?? [];
  };
  const unused = () => Promise.reject(new Error("not used by the mail-domain checks"));
  return {
    resolveTxt: unused,
    resolveMx: unused,
    resolveCname: unused,
    resolve4: unused,
    resolve: unused,
    resolveTxtJoinedOrEmpty: (name) => answer(table.txt, name),
    resolveMxOrEmpty: (name) => answer(table.mx, name),
  };
}

/** A failed lookup as node:dns rejects it. */
export function lookupError(code: string): Error {
  return Object.assign(new Error(`query failed: ${code}`), { code });
}
