// A default start keeps its own contract (issue 42 item 6, decision OP6): `npm start` with nothing
// configured has no manager bot, and `POST /v1/messenger/mybots/create-link` answers 501, which the
// contract now documents. The conformance suite, run as its README says against the server as the
// README starts it, finds nothing wrong with that operation.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../support/server-process.ts";

const repo = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(tmpdir(), "default-contract-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

it("the suite passes create-link on a server started with no messenger settings", async () => {
  // As npm start runs it: the demo on, no MESSENGER_* settings (only free ports and a data folder).
  server = await startServerProcess({ DATA_DIR: path.join(dir, "data"), DEMO: "on" });
  const key = /(platform_sk_[A-Za-z0-9]+)/.exec(server.output())![1];
  const direct = await fetch(`${server.url}/v1/messenger/mybots/create-link`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ suggestedUsername: "acme_helper_bot" }),
  });
  expect(direct.status).toBe(501);
  expect(await direct.json()).toMatchObject({ code: "not_implemented" });

  // The key as the suite's README gives it one (a config's keys.all): the suite then knows it is the
  // credential, and leaves it out where a check asks what happens without one.
  const config = path.join(dir, "conformance.config.json");
  writeFileSync(config, JSON.stringify({ keys: { all: key } }));
  const run = await promisify(execFile)(
    process.execPath,
    [
      path.join(repo, "conformance/cli.ts"),
      "run",
      path.join(repo, "generated/openapi/openapi.json"),
      "--url",
      server.url,
      "--config",
      config,
      "--include-operation-id",
      "createBotLink",
      "--max-examples",
      "20",
      "--seed",
      "1",
    ],
    { cwd: dir, encoding: "utf8" },
  ).catch((error: { code: number; stdout: string; stderr: string }) => error);
  const out = `${run.stdout}\n${run.stderr}`;
  expect("code" in run ? run.code : 0, out).toBe(0);
  expect(out).not.toMatch(/status_code_conformance|Undocumented HTTP status/);
});
