// The client as integrators get it: `npm pack` of generated/client, installed from the tarball
// into a project outside this repository, then used from plain JavaScript on the machine's own
// Node, from strict TypeScript, and from a browser bundle in headless Chromium, each against the
// reference server on loopback.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { launchChromium } from "../support/chromium.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestPlatform, type Tenant, type TestPlatform } from "../../server/test/harness.ts";
import { root } from "../contract/openapi.ts";

const fixtures = join(root, "test/client/package-fixtures");
// The server under test runs in this process: programs that call it must run asynchronously.
const run = async (cmd: string, args: string[], cwd: string) =>
  (await promisify(execFile)(cmd, args, { cwd, encoding: "utf8" })).stdout;
const npm = (args: string[], cwd: string) =>
  execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
let project: string;
let platform: TestPlatform;
let tenant: Tenant;
let pageServer: http.Server;
let pageOrigin: string;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "client-integrator-"));
  // Exactly the README's command, from the repository root: `npm pack generated/client` was
  // read by npm as a GitHub shorthand and failed.
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const packed = /`npm pack (\S+)`/.exec(readme)![1];
  npm(["pack", packed, "--pack-destination", project], root);
  const tarball = readdirSync(project).find((f) => f.endsWith(".tgz"))!;
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "integrator", private: true, type: "module" }),
  );
  const typesNode = JSON.parse(
    execFileSync("node", ["-p", "JSON.stringify(require('./package.json').devDependencies)"], {
      cwd: root,
      encoding: "utf8",
    }),
  )["@types/node"];
  npm(
    [
      "install",
      `./${tarball}`,
      `@types/node@${typesNode}`,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
    ],
    project,
  );
  for (const f of ["main.mjs", "main.ts", "tsconfig.json", "browser-main.js"])
    copyFileSync(join(fixtures, f), join(project, f));

  pageServer = http.createServer((req, res) => {
    res.writeHead(200, {
      "content-type": req.url?.startsWith("/app.js") ? "text/javascript" : "text/html",
    });
    res.end(
      req.url?.startsWith("/app.js")
        ? bundle
        : '<!doctype html><title>integrator</title><script src="/app.js"></script>',
    );
  });
  await new Promise<void>((r) => pageServer.listen(0, "127.0.0.1", r));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as { port: number }).port}`;
  platform = await startTestPlatform({ corsOrigins: [pageOrigin] });
  tenant = await platform.newTenant("pkg");
}, 180_000);

let bundle = "";

/** The machine's Node (Node 20 here), not the project's Node 24 that npm scripts put first on PATH. */
function systemNode(): string {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const candidate = join(dir, "node");
    if (!dir.includes("node_modules") && existsSync(candidate)) return candidate;
  }
  return process.execPath;
}
afterAll(async () => {
  await platform?.stop();
  pageServer?.close();
  rmSync(project, { recursive: true, force: true });
});

describe("the packed client", () => {
  it("installs with one dependency and declares what integrators need", () => {
    const pkg = JSON.parse(
      execFileSync(
        "node",
        ["-p", "JSON.stringify(require('./node_modules/@platform-api/client/package.json'))"],
        { cwd: project, encoding: "utf8" },
      ),
    );
    expect(Object.keys(pkg.dependencies)).toEqual(["openapi-fetch"]);
    expect(pkg.engines.node).toBe(">=20");
    expect(pkg.type).toBe("module");
    expect(readdirSync(join(project, "node_modules/@platform-api/client/dist")).sort()).toEqual([
      "index.d.ts",
      "index.js",
      "node.d.ts",
      "node.js",
      "openapi.d.ts",
      "webhooks.d.ts",
      "webhooks.js",
    ]);
  });

  it("works from plain JavaScript on the machine's own Node", async () => {
    const out = JSON.parse(
      await run(systemNode(), ["main.mjs", platform.url, tenant.key, tenant.domain], project),
    );
    console.log(`plain JavaScript client ran on Node ${out.node}`);
    expect(Number(out.node.split(".")[0])).toBeGreaterThanOrEqual(20);
    expect(out).toMatchObject({
      email: `js-client@${tenant.domain}`,
      refused: { status: 401, code: "unauthorized" },
      walked: [0, 1, 2, 3, 4],
      signatureOk: true,
      key: "string",
    });
    expect(out.listed).toContain(`js-client@${tenant.domain}`);
  });

  it("type-checks under strict TypeScript and runs", async () => {
    execFileSync(
      process.execPath,
      [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      { cwd: project, encoding: "utf8" },
    );
    const out = JSON.parse(
      await run(process.execPath, ["main.ts", platform.url, tenant.key, tenant.domain], project),
    );
    expect(out).toEqual({
      email: `ts-client@${tenant.domain}`,
      status: 404,
      code: "not_found",
      none: null,
    });
  });

  it("a type error in integrator code fails tsc", () => {
    writeFileSync(
      join(project, "bad.ts"),
      'import { createPlatformClient } from "@platform-api/client";\nconst c = createPlatformClient({ baseUrl: "x", apiKey: "y" });\nvoid c.POST("/v1/mailboxes", { body: { name: 1 } });\n',
    );
    writeFileSync(
      join(project, "tsconfig.bad.json"),
      JSON.stringify({ extends: "./tsconfig.json", include: ["bad.ts"] }),
    );
    let output = "";
    try {
      execFileSync(
        process.execPath,
        [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.bad.json"],
        { cwd: project, encoding: "utf8" },
      );
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    // `name` must be a string: the contract's type reached the integrator's compiler.
    expect(output).toMatch(/bad\.ts\(3,\d+\): error TS2322/);
  });

  it("bundles for the browser and calls the server from an allowed origin in Chromium", async () => {
    const result = await build({
      entryPoints: [join(project, "browser-main.js")],
      bundle: true,
      platform: "browser",
      format: "esm",
      write: false,
      absWorkingDir: project,
      logLevel: "silent",
    });
    bundle = result.outputFiles[0].text;
    expect(bundle).not.toContain("node:crypto");
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const query = `?api=${encodeURIComponent(platform.url)}&key=${encodeURIComponent(tenant.key)}`;
      await page.goto(`${pageOrigin}/${query}`);
      const answer = await page.evaluate(
        () => (window as unknown as { result: Promise<unknown> }).result,
      );
      expect(answer).toMatchObject({
        status: 200,
        emails: expect.any(Array),
        remaining: expect.stringMatching(/^\d+$/),
      });
      // The same page on an origin the server does not list is stopped by the browser.
      const other = await startTestPlatform();
      try {
        const otherTenant = await other.newTenant("pkgother");
        await page.goto(
          `${pageOrigin}/?api=${encodeURIComponent(other.url)}&key=${encodeURIComponent(otherTenant.key)}`,
        );
        expect(
          await page.evaluate(() => (window as unknown as { result: Promise<unknown> }).result),
        ).toMatchObject({ failed: expect.stringContaining("TypeError") });
      } finally {
        await other.stop();
      }
    } finally {
      await browser.close();
    }
  });
});
