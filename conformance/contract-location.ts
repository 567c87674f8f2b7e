// What the CLI says about a contract location before it loads it, in the words a user needs:
// a URL answering 404 is "answered 404", not "not valid JSON"; a Swagger 2.0 document is refused
// naming 2.0 and a converter, not "openapi \"\"". For a URL, the server the contract names (or the
// URL's own origin) is the base URL when --url is not given, as Schemathesis does.
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { parse as parseYaml } from "yaml";
import { ContractError } from "./engine/load-contract.ts";

const isUrl = (s: string) => /^https?:\/\//i.test(s);

export async function checkContractLocation(location: string): Promise<{ baseUrl?: string }> {
  let text: string;
  if (isUrl(location)) {
    let res: Response;
    try {
      res = await fetch(location, { headers: { accept: "application/json, application/yaml;q=0.9, */*;q=0.5" } });
    } catch (error) {
      const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
      throw new ContractError(`cannot fetch contract ${location}: ${cause}`);
    }
    if (!res.ok) throw new ContractError(`contract URL ${location} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}: no contract there`);
    const bytes = Buffer.from(await res.arrayBuffer());
    text = (location.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
  } else {
    let bytes: Buffer;
    try {
      bytes = await readFile(location);
    } catch (error) {
      throw new ContractError(`cannot read contract ${location}: ${(error as Error).message}`);
    }
    text = (location.endsWith(".gz") ? safeGunzip(bytes) : bytes).toString("utf8");
  }
  if (isSwagger2(text)) {
    throw new ContractError(
      `${location} is Swagger 2.0; this suite reads OpenAPI 3.0 and 3.1. Convert it first, e.g. \`npx swagger2openapi ${location} -o openapi.json\`, then run on openapi.json`,
    );
  }
  return { baseUrl: isUrl(location) ? serverOf(text, location) : undefined };
}

function safeGunzip(bytes: Buffer): Buffer {
  try {
    return gunzipSync(bytes);
  } catch {
    return bytes; // the loader says what is wrong with it
  }
}

/** A top-level `swagger: "2.x"` and no top-level `openapi`, in JSON or YAML, without parsing twice. */
export function isSwagger2(text: string): boolean {
  const json = /^\s*\{/.test(text);
  if (json) return /"swagger"\s*:\s*"2\./.test(text) && !/"openapi"\s*:\s*"3\./.test(text);
  return /^["']?swagger["']?\s*:\s*["']?2\./m.test(text) && !/^["']?openapi["']?\s*:/m.test(text);
}

/**
 * The first server of the contract, its variables at their defaults (`https://{region}.api.x.com`
 * with `region: {default: eu}`), resolved against the contract's URL; else the URL's origin.
 */
export function serverOf(text: string, location: string): string {
  let doc: any;
  try {
    doc = /^\s*\{/.test(text) ? JSON.parse(text) : parseYaml(text);
  } catch {
    doc = undefined; // the loader reports it
  }
  const first = doc?.servers?.[0];
  const variables: Record<string, any> = first?.variables && typeof first.variables === "object" ? first.variables : {};
  // A variable without a default cannot be filled in: the origin is used, as for no server.
  const server = typeof first?.url === "string" ? first.url.replace(/\{([^}]+)\}/g, (m: string, name: string) => (Object.hasOwn(variables, name) && variables[name]?.default !== undefined ? String(variables[name].default) : m)) : undefined;
  if (typeof server === "string" && !server.includes("{")) {
    try {
      return new URL(server, location).href.replace(/\/$/, "");
    } catch {
      /* not a URL: fall back to the origin */
    }
  }
  return new URL(location).origin;
}
