// ZIP archives through yauzl. The encryption flag is read before anything is inflated (an
// encrypted entry inflated by a library that does not check it yields ciphertext that scans
// clean); declared sizes are checked against the message's allowance and a ratio before reading,
// and yauzl checks the inflated bytes against the declared size while reading.
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { type Budget, mb, Uninspectable } from "./limits.ts";

export interface ZipItem {
  path: string;
  encrypted: boolean;
  size: number;
  compressedSize: number;
  entry: Entry;
}

export interface OpenZip {
  items: ZipItem[];
  read(item: ZipItem): Promise<Buffer>;
  close(): void;
}

const fromBuffer = (buf: Buffer) =>
  new Promise<ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(buf, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => (err ? reject(err) : resolve(zip))),
  );

export async function openZip(buf: Buffer, budget: Budget): Promise<OpenZip> {
  let zip: ZipFile;
  try {
    zip = await fromBuffer(buf);
  } catch (error) {
    throw new Uninspectable(`not inspected: unreadable zip (${(error as Error).message})`);
  }
  if (zip.entryCount > budget.limits.maxEntries) {
    zip.close();
    throw new Uninspectable(`not inspected: ${zip.entryCount} zip entries, more than ${budget.limits.maxEntries}`);
  }
  const items = await new Promise<ZipItem[]>((resolve, reject) => {
    const list: ZipItem[] = [];
    zip.on("entry", (entry: Entry) => {
      if (!entry.fileName.endsWith("/")) {
        list.push({ path: entry.fileName, encrypted: entry.isEncrypted(), size: entry.uncompressedSize, compressedSize: entry.compressedSize, entry });
      }
      zip.readEntry();
    });
    zip.on("end", () => resolve(list));
    zip.on("error", (e: Error) => reject(new Uninspectable(`not inspected: unreadable zip (${e.message})`)));
    zip.readEntry();
  });
  return {
    items,
    close: () => zip.close(),
    read: (item) => readEntry(zip, item, budget),
  };
}

/** Refuses an entry by its declared sizes, before inflating anything. */
export function checkEntry(item: ZipItem, budget: Budget): void {
  const { maxCompressionRatio } = budget.limits;
  if (item.size > 1024 * 1024 && item.size / Math.max(1, item.compressedSize) > maxCompressionRatio) {
    throw new Uninspectable(`not inspected: inflates ${Math.round(item.size / Math.max(1, item.compressedSize))}:1 (zip bomb limit ${maxCompressionRatio}:1)`);
  }
  if (item.size > budget.bytesLeft()) throw new Uninspectable(`not inspected: inflates past ${mb(budget.limits.maxInflatedBytes)} (zip bomb limit)`);
}

function readEntry(zip: ZipFile, item: ZipItem, budget: Budget): Promise<Buffer> {
  checkEntry(item, budget);
  budget.inflate(item.size);
  return new Promise((resolve, reject) => {
    zip.openReadStream(item.entry, (err, stream) => {
      if (err) return reject(new Uninspectable(`not inspected: unreadable zip entry (${err.message})`));
      const chunks: Buffer[] = [];
      let total = 0;
      stream.on("data", (c: Buffer) => {
        total += c.length;
        // yauzl stops at the declared size; this guards a declared size of 0 with data behind it.
        if (total > item.size) stream.destroy(new Error("entry larger than declared"));
        else chunks.push(c);
      });
      stream.on("error", (e: Error) => reject(new Uninspectable(`not inspected: unreadable zip entry (${e.message})`)));
      stream.on("end", () => resolve(Buffer.concat(chunks)));
    });
  });
}
