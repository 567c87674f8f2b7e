// The base URL taken from a contract read from a URL (no --url): its first server, with server
// variables at their defaults. A templated server (`https://{region}.api.example.com/{version}`)
// used to be dropped for the contract URL's origin, so every request went to the wrong host.
import { describe, expect, it } from "vitest";
import { serverOf } from "./contract-location.ts";

const doc = (servers: unknown) => JSON.stringify({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {}, servers });

describe("serverOf", () => {
  it("fills server variables with their defaults", () => {
    const text = doc([{ url: "http://127.0.0.1:{port}/{base}", variables: { port: { default: "8443", enum: ["8443", "9443"] }, base: { default: "v2" } } }]);
    expect(serverOf(text, "http://127.0.0.1:9000/openapi.json")).toBe("http://127.0.0.1:8443/v2");
  });

  it("resolves a relative server against the contract URL, and falls back to the origin when a variable has no default", () => {
    expect(serverOf(doc([{ url: "/api/v3" }]), "http://127.0.0.1:9000/specs/openapi.json")).toBe("http://127.0.0.1:9000/api/v3");
    expect(serverOf(doc([{ url: "http://127.0.0.1:{port}/x", variables: {} }]), "http://127.0.0.1:9000/openapi.json")).toBe("http://127.0.0.1:9000");
  });
});
