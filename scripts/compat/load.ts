// Reads an OpenAPI document (JSON or YAML, 3.0 or 3.1) and every file its $refs reach, into one
// object: an external document is placed under `x-compat-external/<n>` and its refs rewritten to
// point there, so the rest of the gate only ever follows local refs.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse as parseYaml } from "yaml";

export type Doc = Record<string, any>;

/** A document that cannot be read or is not OpenAPI; the CLI exits 2 naming it. */
export class LoadError extends Error {}

/** Reads a file's text by its absolute path: from disk, or from a git revision (inputs.ts). */
export type Reader = (file: string) => string;
const fromDisk: Reader = (file) => readFileSync(file, "utf8");

function parseFile(file: string, read: Reader, name = file): Doc {
  let text: string;
  try {
    text = read(file);
  } catch (e) {
    throw new LoadError(`cannot read ${name}: ${(e as Error).message.split("\n")[0]}`);
  }
  try {
    // YAML is a superset of JSON; `uniqueKeys: false` because real documents repeat keys.
    return parseYaml(text, { uniqueKeys: false, maxAliasCount: -1 }) as Doc;
  } catch (e) {
    throw new LoadError(`cannot parse ${name}: ${(e as Error).message.split("\n")[0]}`);
  }
}

export function loadDocument(file: string, read: Reader = fromDisk, label: string = file): Doc {
  const path = resolve(file);
  const doc = parseFile(path, read, label);
  file = label;
  if (
    !doc ||
    typeof doc !== "object" ||
    (typeof doc.openapi !== "string" && typeof doc.swagger !== "string")
  )
    throw new LoadError(`${file} is not an OpenAPI document (no "openapi" field)`);
  if (typeof doc.swagger === "string")
    throw new LoadError(`${file} is Swagger ${doc.swagger}; only OpenAPI 3.0 and 3.1 are read`);
  return inlineExternal(doc, path, read);
}

/** Rewrites refs to other files into local refs to a copy kept under x-compat-external. */
export function inlineExternal(doc: Doc, path: string, read: Reader = fromDisk): Doc {
  const external: Record<string, Doc> = {};
  const keys = new Map<string, string>([[path, ""]]);
  const pending: { node: any; file: string }[] = [{ node: doc, file: path }];
  const keyOf = (file: string): string => {
    let key = keys.get(file);
    if (key === undefined) {
      key = String(keys.size);
      keys.set(file, key);
      external[key] = parseFile(file, read);
      pending.push({ node: external[key], file });
    }
    return key;
  };
  const prefix = (key: string) => (key === "" ? "#" : `#/x-compat-external/${key}`);
  while (pending.length) {
    const { node, file } = pending.pop()!;
    const walk = (n: any): void => {
      if (!n || typeof n !== "object") return;
      if (Array.isArray(n)) return n.forEach(walk);
      if (typeof n.$ref === "string" && !n.$ref.startsWith("#") && !/^[a-z]+:/i.test(n.$ref)) {
        const [target, fragment = ""] = n.$ref.split("#");
        n.$ref = `${prefix(keyOf(resolve(dirname(file), target)))}${fragment}`;
      } else if (typeof n.$ref === "string" && n.$ref.startsWith("#") && file !== path) {
        n.$ref = `${prefix(keys.get(file)!)}${n.$ref.slice(1)}`;
      }
      for (const v of Object.values(n)) walk(v);
    };
    walk(node);
  }
  if (Object.keys(external).length) doc["x-compat-external"] = external;
  return doc;
}
