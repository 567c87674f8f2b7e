// Starts the real platform (HTTP + DNS + SQLite in a temporary folder) on kernel-chosen ports,
// and gives tests keys made the way the console makes them.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { IssueKeyInput } from "../auth/issue-key.ts";
import { scopeCatalogue } from "../auth/scopes.ts";
import { defaults, type ServerConfig } from "../config.ts";
import { provisionProject } from "../demo/seed-demo.ts";
import { startPlatform, type Platform, type PlatformOptions } from "../platform.ts";

export interface TestPlatform extends Platform {
  /** The SQLite connection, for tests that look into the store; throws on a PostgreSQL platform. */
  db: DatabaseSync;
  dataDir: string;
  /** A project with a zone `<label>.test` bound to it and connected as a mail domain, and a key. */
  newTenant(label: string, key?: Partial<IssueKeyInput>): Promise<Tenant>;
  stop(): Promise<void>;
}

export interface Tenant {
  projectId: string;
  domain: string;
  key: string;
  api: Api;
}

export type Api = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse>;

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

export async function startTestPlatform(overrides: Partial<ServerConfig> = {}, options: PlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "platform-test-"));
  const config: ServerConfig = {
    ...defaults,
    port: 0,
    dataDir,
    dns: { enabled: true, host: "127.0.0.1", port: 0 },
    smtp: { ...defaults.smtp, port: 0 },
    demo: false,
    ...overrides,
  };
  let platform: Platform;
  try {
    platform = await startPlatform(config, options);
  } catch (error) {
    // A start that fails (a missing PLATFORM_SERVER_KEY, a port taken) leaves no folder behind.
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const allScopes = scopeCatalogue(platform.openapi);
  return {
    ...platform,
    get db(): DatabaseSync {
      if (!platform.db) throw new Error("this platform runs on PostgreSQL: look into the store through services.backend");
      return platform.db;
    },
    dataDir,
    async newTenant(label, key = {}) {
      const domain = `${label}.test`;
      const issued = await provisionProject(platform.services, label, domain, { name: label, scopes: allScopes, ...key });
      return { projectId: issued.projectId, domain, key: issued.key, api: apiFor(platform.url, issued.key) };
    },
    async stop() {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function apiFor(base: string, key: string | undefined): Api {
  return async (method, url, body, headers = {}) => {
    const res = await fetch(base + url, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text for the assertion message.
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}
