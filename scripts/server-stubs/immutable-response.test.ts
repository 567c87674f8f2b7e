// The serializer's reuse of an immutable response's JSON (templates/server/serialization.ts.tpl):
// the reused text is the text the schema would write, each object and each schema gets its own,
// an object that is not immutable is written anew every time, and immutableResponse refuses what
// freezing cannot fix.
import { describe, expect, it } from "vitest";
import { components, operations } from "./expected/server/operations.ts";
import { createSerializerCompiler, immutableResponse } from "./expected/server/serialization.ts";

const compile = createSerializerCompiler(components);
const listNotes = operations.find((o) => o.operationId === "listNotes")!;
const serializerFor = (schema: unknown) =>
  compile({ schema, method: "GET", url: "/v1/notes", httpStatus: "200" } as never) as (
    data: unknown,
  ) => string;
const notesSchema = (listNotes.schema as { response: Record<string, unknown> }).response["200"];

const note = (id: string, title: string) => ({
  id,
  title,
  kind: "plain",
  secret: "not in the contract",
});

describe("immutable responses", () => {
  it("are written byte for byte as the same data in a plain object, also the second time", () => {
    const serialize = serializerFor(notesSchema);
    const plain = { notes: [note("n1", 'a "quoted" title'), note("n2", "é")] };
    const expected = serialize(structuredClone(plain));
    expect(expected).toBe(
      '{"notes":[{"id":"n1","title":"a \\"quoted\\" title","kind":"plain"},{"id":"n2","title":"é","kind":"plain"}]}',
    );
    const frozen = immutableResponse(structuredClone(plain));
    expect(serialize(frozen)).toBe(expected);
    expect(serialize(frozen)).toBe(expected);
  });

  it("each immutable object keeps its own text", () => {
    const serialize = serializerFor(notesSchema);
    const a = immutableResponse({ notes: [note("a", "first")] });
    const b = immutableResponse({ notes: [note("b", "second")] });
    expect(serialize(a)).toContain('"id":"a"');
    expect(serialize(b)).toContain('"id":"b"');
    expect(serialize(a)).toContain('"id":"a"');
  });

  it("a plain object is written anew each time, so a changed object is never answered with its old text", () => {
    const serialize = serializerFor(notesSchema);
    const body = { notes: [note("n1", "before")] };
    expect(serialize(body)).toContain('"title":"before"');
    body.notes[0].title = "after";
    expect(serialize(body)).toContain('"title":"after"');
    body.notes.push(note("n2", "added"));
    expect(serialize(body)).toContain('"id":"n2"');
  });

  it("the same object under another schema gets that schema's text", () => {
    const notes = serializerFor(notesSchema);
    const loose = serializerFor({ type: "object", additionalProperties: true });
    const body = immutableResponse({ notes: [note("n1", "t")] });
    expect(notes(body)).not.toContain("secret");
    expect(loose(body)).toContain('"secret":"not in the contract"');
    expect(notes(body)).not.toContain("secret");
  });

  it("is frozen all the way down, so nothing can change it after its text was kept", () => {
    const body = immutableResponse({ notes: [note("n1", "t")], meta: { tags: ["x"] } });
    expect(() => {
      (body.notes[0] as { title: string }).title = "changed";
    }).toThrow(TypeError);
    expect(() => (body.meta.tags as string[]).push("y")).toThrow(TypeError);
    expect(() => {
      (body as { extra?: number }).extra = 1;
    }).toThrow(TypeError);
  });

  it("refuses values whose contents freezing does not fix", () => {
    expect(() => immutableResponse({ at: new Date() })).toThrow(
      /plain objects and arrays only, not Date/,
    );
    expect(() => immutableResponse({ m: new Map() })).toThrow(/not Map/);
    expect(() => immutableResponse({ f: () => 1 })).toThrow(/not a function/);
    class Row {
      id = "r";
    }
    expect(() => immutableResponse({ rows: [new Row()] })).toThrow(/not Row/);
    expect(immutableResponse({ ok: null, n: 1, list: [Object.create(null)] })).toBeTruthy();
  });
});
