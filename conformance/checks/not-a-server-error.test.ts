// not_a_server_error's one exception (decision OP6): a 501 the operation itself documents is its
// contract's answer for a deployment that does not offer it. Every other 5xx still fails, and so
// does a 501 covered only by `default` or `5XX` (those say nothing about this status).
import { describe, expect, it } from "vitest";
import type { Exchange } from "../engine/types.ts";
import { notAServerError } from "./not-a-server-error.ts";

const exchange = (status: number, documented: string[]) =>
  ({ response: { status, text: "{}" }, operation: { responses: documented.map((s) => ({ status: s })) } }) as unknown as Exchange;

describe("not_a_server_error", () => {
  it.each([
    [501, ["200", "501"], false],
    [501, ["200", "default"], true],
    [501, ["200", "5XX"], true],
    [501, ["200"], true],
    [500, ["200", "500"], true],
    [503, ["200", "503"], true],
    [502, ["200", "502"], true],
    [404, ["200"], false],
  ])("%i with %j documented: fails %s", (status, documented, fails) => {
    const found = notAServerError.response!({} as never, exchange(status, documented)) as unknown[];
    expect(found.length > 0).toBe(fails);
  });
});
