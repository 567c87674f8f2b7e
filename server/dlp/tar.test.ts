// Tar archives as GNU tar writes them (ustar, GNU long names, gzip-compressed): their files are
// scanned at `attachment:<archive>/<path>` like a zip's entries, a clean one is not reported, and
// the entry, depth and byte limits hold. A tar used to be reported `encrypted` ("no reader for
// this format"): a .tar.gz of logs was held, and a card number inside one never found.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { scanMessage } from "./scanner.ts";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** GNU tar's archive of `files` (path -> content); `flags` adds e.g. `-z`. */
function gnuTar(files: Record<string, string | Buffer>, flags: string[] = []): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "dlp-tar-"));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  return execFileSync("tar", ["-c", ...flags, "-f", "-", "-C", dir, ...Object.keys(files)], { maxBuffer: 64 * 1024 * 1024 });
}

const where = (r: Awaited<ReturnType<typeof scanMessage>>) => r.findings.map((f) => `${f.type} ${f.where} ${f.masked}`);
const card = "card 4111 1111 1111 1111";

describe("DLP reads tar archives", () => {
  it("finds a card number in a file of a tar, at its path", async () => {
    const tar = gnuTar({ "readme.txt": "nothing here", "notes/a.txt": card });
    expect(where(await scanMessage({ attachments: [{ filename: "export.tar", content: tar }] }))).toEqual(["card attachment:export.tar/notes/a.txt 4111 **** **** 1111"]);
  });

  it("opens a .tar.gz (gzip, then tar) and a renamed one by its bytes", async () => {
    const tgz = gnuTar({ "logs/app.log": `2026-11-26 paid with ${card}` }, ["-z"]);
    expect(where(await scanMessage({ attachments: [{ filename: "logs.tar.gz", content: tgz }] }))).toEqual(["card attachment:logs.tar.gz/logs/app.log 4111 **** **** 1111"]);
    expect(where(await scanMessage({ attachments: [{ filename: "photo.jpg", content: tgz }] }))).toEqual(["card attachment:photo.jpg/logs/app.log 4111 **** **** 1111"]);
  });

  it("reads GNU long names and masks a number in a file name", async () => {
    const long = `${"d".repeat(120)}/card-4111111111111111.txt`;
    const r = await scanMessage({ attachments: [{ filename: "a.tar", content: gnuTar({ [long]: "x" }) }] });
    expect(where(r)).toEqual([`card attachment:a.tar/${"d".repeat(120)}/card-4111 **** **** 1111.txt 4111 **** **** 1111`]);
  });

  it("a clean tar is not reported at all", async () => {
    const r = await scanMessage({ attachments: [{ filename: "clean.tar.gz", content: gnuTar({ "a.txt": "hello", "b/c.json": '{"ok":true}' }, ["-z"]) }] });
    expect(r.findings).toEqual([]);
  });

  it("holds the entry, depth and byte limits, and reports what it did not read", async () => {
    const many = gnuTar(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, "x"])));
    expect(where(await scanMessage({ attachments: [{ filename: "many.tar", content: many }] }, { limits: { maxEntries: 10 } }))).toEqual(["encrypted attachment:many.tar not inspected: more than 10 tar entries"]);

    let nested = gnuTar({ "deep.txt": card });
    for (let i = 0; i < 3; i++) nested = gnuTar({ [`level${i}.tar`]: nested });
    expect(where(await scanMessage({ attachments: [{ filename: "nested.tar", content: nested }] }))).toEqual(["encrypted attachment:nested.tar/level2.tar/level1.tar/level0.tar not inspected: archives nested deeper than 3"]);

    const big = gnuTar({ "big.txt": "y".repeat(600_000), "note.txt": card });
    expect(where(await scanMessage({ attachments: [{ filename: "big.tar", content: big }] }, { limits: { maxInflatedBytes: 500_000 } }))).toEqual(["encrypted attachment:big.tar/big.txt not inspected: inflates past 0 MB (zip bomb limit)", "card attachment:big.tar/note.txt 4111 **** **** 1111"]);
  });

  it("an unreadable tar (bad header checksum) is reported, not passed", async () => {
    const fake = Buffer.concat([Buffer.alloc(257), Buffer.from("ustar\u000000"), Buffer.alloc(762)]);
    expect(where(await scanMessage({ attachments: [{ filename: "fake.tar", content: fake }] }))).toEqual([expect.stringMatching(/^encrypted attachment:fake\.tar not inspected: unreadable tar \(TAR_ENTRY_INVALID/)]);
  });
});
