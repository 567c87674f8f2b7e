// A server that stops answering ends the run with exit 2 and one clear line, instead of thousands
// of "599" failures; a wrong port the same, at once. A connection dropped on one input while the
// server still answers is a finding of not_a_server_error, as before.
import { createServer } from "node:net";
import { afterEach, describe, expect, test, vi } from "vitest";
import { main } from "./cli.ts";
import { run } from "./engine/runner.ts";
import { ServerUnreachable } from "./engine/load-contract.ts";
import { CONTRACT_PATH, startPlatform } from "./fixtures/platform.ts";

afterEach(() => vi.restoreAllMocks());

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe("a server that does not answer", () => {
  test("a wrong port exits 2 with the reason, after a handful of requests", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((m: unknown) => void errors.push(String(m)));
    vi.spyOn(console, "log").mockImplementation(() => {});
    const code = await main(["run", "--base-url", `http://127.0.0.1:${await closedPort()}`, "--include-operation-id", "listGroups", "--max-examples", "5"]);
    expect(code).toBe(2);
    expect(errors.join("\n")).toMatch(/stopped answering \(.*ECONNREFUSED.*\) after 0 requests/);
  });

  test("a server that dies during the run ends it with ServerUnreachable, not with failures", async () => {
    let served = 0;
    let kill: () => void = () => {};
    const f = await startPlatform((b) => ({ ...b, finish: (input, reply) => (++served === 60 && setImmediate(kill), b.finish(input, reply)) }));
    kill = () => void f.server.close();
    await expect(run({ spec: CONTRACT_PATH, baseUrl: f.server.url, config: f.config, maxExamples: 20, seed: 1 })).rejects.toThrow(ServerUnreachable);
    expect(served).toBeGreaterThanOrEqual(60);
  });
});
