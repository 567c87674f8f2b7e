// The client retries a 429 after its Retry-After, a bounded number of times, on a real server.
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createPlatformClient } from "../../generated/client/index.ts";

let server: Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

/** A server that answers 429 `limited` times, then 200; it records each request's body. */
async function limitedServer(limited: number, retryAfter: string) {
  const seen: string[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      seen.push(`${req.headers.authorization} ${body}`);
      const status = seen.length <= limited ? 429 : 200;
      res.writeHead(status, { "content-type": "application/json", "retry-after": retryAfter });
      res.end(
        status === 200
          ? JSON.stringify({ email: "a@example.test", id: "mbx_1" })
          : JSON.stringify({ error: "slow down", code: "rate_limited" }),
      );
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, seen };
}

const body = { name: "alice", domain: "example.test", password: "long enough" };

describe("429 retry", () => {
  it("retries after Retry-After and resends the same body and key", async () => {
    const { baseUrl, seen } = await limitedServer(2, "0");
    const client = createPlatformClient({ baseUrl, apiKey: "platform_sk_k" });
    const { data, response } = await client.POST("/v1/mailboxes", { body });
    expect(response.status).toBe(200);
    expect(data?.id).toBe("mbx_1");
    expect(seen).toHaveLength(3);
    expect(new Set(seen)).toEqual(new Set([`Bearer platform_sk_k ${JSON.stringify(body)}`]));
  });

  it("gives up after maxRetries and returns the typed 429", async () => {
    const { baseUrl, seen } = await limitedServer(5, "0");
    const client = createPlatformClient({ baseUrl, apiKey: "platform_sk_k", maxRetries: 1 });
    const { error, response } = await client.POST("/v1/mailboxes", { body });
    expect(response.status).toBe(429);
    expect(error?.code).toBe("rate_limited");
    expect(seen).toHaveLength(2);
  });

  it("does not wait when Retry-After is beyond maxRetryAfterSeconds or unreadable", async () => {
    for (const retryAfter of ["3600", "soon"]) {
      const { baseUrl, seen } = await limitedServer(1, retryAfter);
      const client = createPlatformClient({ baseUrl, apiKey: "platform_sk_k" });
      const { response } = await client.POST("/v1/mailboxes", { body });
      expect(response.status).toBe(429);
      expect(seen).toHaveLength(1);
      await new Promise<void>((resolve) => server!.close(() => resolve()));
      server = undefined;
    }
  });
});
