// The documents a contract is made of: the root (a file or a URL) and every file or URL its
// references reach, read once, up front, as Redocly's bundler does, so that the loader and
// everything after it work on one resolved set (multi-file contracts: DigitalOcean's 1,500 files,
// kube-openapi outputs). References are resolved against the document they are written in; JSON and
// YAML are read whatever the extension says; a document that cannot be read or parsed is kept as
// an error and named, with the pointer of every reference to it, when the loader follows one.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import { forEachRef } from "./dereference.ts";
import type { DocumentSet } from "./types.ts";

// DocumentSet is in types.ts: dereference.ts reads it and this file walks references with
// dereference.ts, so neither imports the other both ways.
export type { DocumentSet } from "./types.ts";

const ACCESS = /\b(?:readOnly|writeOnly)\b/;

/** How many documents are read at once (files or URLs). */
const PARALLEL = 16;

export class DocumentError extends Error {
  override name = "DocumentError";
}

/** The URL a contract location names: a path becomes a `file:` URL. */
export function locationUrl(location: string): string {
  return /^https?:\/\//i.test(location) ? new URL(location).href : pathToFileURL(path.resolve(location)).href;
}

/** One document's text; throws DocumentError saying what went wrong (a 404 is a 404, not bad JSON). */
export async function readDocument(url: string): Promise<string> {
  let bytes: Buffer;
  if (url.startsWith("file:")) {
    bytes = await readFile(fileURLToPath(url));
  } else {
    const res = await fetch(url, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new DocumentError(`${url} answered ${res.status} ${res.statusText}`.trim());
    bytes = Buffer.from(await res.arrayBuffer());
  }
  // Large public contracts are kept gzipped (conformance/fixtures/contracts/).
  return (new URL(url).pathname.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}

/** JSON or YAML: by extension first, then whichever reads (a `.yml` file holding JSON is YAML too). */
export function parseDocument(text: string, url: string): unknown {
  const name = new URL(url).pathname.replace(/\.gz$/, "");
  if (name.endsWith(".json")) return JSON.parse(text);
  try {
    return parseYaml(text);
  } catch (error) {
    try {
      return JSON.parse(text);
    } catch {
      throw error;
    }
  }
}

/**
 * Reads the root and, breadth first, every document its references name. The root's own read and
 * parse errors are thrown (nothing to run); the others are recorded in `errors`.
 */
export async function loadDocuments(root: string, rootDoc: unknown, rootText?: string): Promise<DocumentSet> {
  const set: DocumentSet = { root, docs: new Map([[root, rootDoc]]), errors: new Map(), marksAccess: rootText === undefined || ACCESS.test(rootText) };
  const queued = new Set<string>([root]);
  let wave = [root];
  while (wave.length) {
    const next: string[] = [];
    for (const url of wave) {
      const doc = set.docs.get(url);
      forEachRef(doc, (ref) => {
        const target = referencedDocument(ref, url);
        if (target && !queued.has(target)) {
          queued.add(target);
          next.push(target);
        }
      });
    }
    for (let i = 0; i < next.length; i += PARALLEL) {
      await Promise.all(
        next.slice(i, i + PARALLEL).map(async (url) => {
          try {
            const text = await readDocument(url);
            set.docs.set(url, parseDocument(text, url));
            if (ACCESS.test(text)) set.marksAccess = true;
          } catch (error) {
            set.errors.set(url, describe(error as Error));
          }
        }),
      );
    }
    wave = next.filter((u) => set.docs.has(u));
  }
  return set;
}

/** The document (URL without fragment) a reference written in `base` points into, if another one. */
function referencedDocument(ref: string, base: string): string | undefined {
  const hash = ref.indexOf("#");
  const file = hash < 0 ? ref : ref.slice(0, hash);
  if (!file) return undefined;
  try {
    const u = new URL(file, base);
    u.hash = "";
    return u.protocol === "file:" || u.protocol === "http:" || u.protocol === "https:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

function describe(error: Error): string {
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return `${(error as NodeJS.ErrnoException).path} does not exist`;
  if (error instanceof DocumentError) return error.message;
  if (error instanceof SyntaxError || error.name === "YAMLParseError") return `not valid JSON/YAML (${error.message.split("\n")[0]})`;
  return error.message;
}
