// Tar archives through node-tar (npm's own reader: ustar, pax and GNU long names). A tar used to be
// reported `encrypted` ("no reader for this format"), so a .tar.gz of logs was held or blocked and
// a card number inside one was never seen. Tar stores its files as they are, so it holds no bomb of
// its own; its entries still count against the message's entry limit and inflated bytes (a .tar.gz
// is inflated, within the same allowance, by the gzip step before it gets here).
import { Parser, type ReadEntry } from "tar";
import { type Budget, mb, Uninspectable } from "./limits.ts";

export interface TarItem {
  path: string;
  /** the file's bytes, or why they were not read */
  content: Buffer | Uninspectable;
}

const FILE_TYPES = new Set(["File", "OldFile", "ContiguousFile"]);

/** The archive's regular files in order; links, directories and devices carry no content to scan. */
export function readTar(buf: Buffer, budget: Budget): TarItem[] {
  const items: TarItem[] = [];
  let entries = 0;
  let problem: string | undefined;
  const parser = new Parser({
    onwarn: (code: string, message: string | Error) => {
      problem ??= `${code}: ${typeof message === "string" ? message : message.message}`;
    },
    onReadEntry: (entry: ReadEntry) => {
      if (!FILE_TYPES.has(entry.type)) return void entry.resume();
      if (++entries > budget.limits.maxEntries) return void entry.resume();
      if (entry.size > budget.bytesLeft()) {
        items.push({ path: entry.path, content: new Uninspectable(`not inspected: inflates past ${mb(budget.limits.maxInflatedBytes)} (zip bomb limit)`) });
        return void entry.resume();
      }
      budget.inflate(entry.size);
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => items.push({ path: entry.path, content: Buffer.concat(chunks) }));
    },
  });
  // Given the whole buffer, node-tar parses it synchronously: every entry has ended here.
  parser.end(buf);
  if (entries > budget.limits.maxEntries) throw new Uninspectable(`not inspected: more than ${budget.limits.maxEntries} tar entries`);
  if (problem && items.length === 0) throw new Uninspectable(`not inspected: unreadable tar (${problem})`);
  if (problem) items.push({ path: "", content: new Uninspectable(`not inspected: the rest of the tar is unreadable (${problem})`) });
  return items;
}
