// The DNS schema on its own: idempotent, so the core's runner or a direct exec may apply it again.
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { dnsMigrations } from "./migrations.ts";

describe("dnsMigrations", () => {
  it("applies twice without harm and keeps the rows", () => {
    const db = new DatabaseSync(":memory:");
    db.exec(dnsMigrations);
    db.prepare("INSERT INTO zones (name, created_at) VALUES ('a.test', '2026-01-01')").run();
    expect(() => db.exec(dnsMigrations)).not.toThrow();
    expect(db.prepare("SELECT name, serial FROM zones").all()).toEqual([{ name: "a.test", serial: 1 }]);
    db.close();
  });
});
