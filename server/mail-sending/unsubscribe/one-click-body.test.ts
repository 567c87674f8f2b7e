// The bodies mailbox providers POST for RFC 8058 one-click unsubscribe, and look-alikes that are not.
import { describe, expect, it } from "vitest";
import { oneClickHeaders } from "./headers.ts";
import { isOneClickRequest } from "./one-click-body.ts";

const multipart = (boundary: string, name: string, value: string) =>
  `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n--${boundary}--\r\n`;

describe("isOneClickRequest", () => {
  it.each([
    ["urlencoded, as RFC 8058 §3.2 shows", "application/x-www-form-urlencoded", "List-Unsubscribe=One-Click", true],
    ["urlencoded with a charset and another field", "application/x-www-form-urlencoded; charset=utf-8", "x=1&List-Unsubscribe=One-Click", true],
    ["multipart/form-data", "multipart/form-data; boundary=----b7", multipart("----b7", "List-Unsubscribe", "One-Click"), true],
    ["multipart with a quoted boundary", 'multipart/form-data; boundary="q b"', multipart("q b", "List-Unsubscribe", "One-Click"), true],
    ["another value", "application/x-www-form-urlencoded", "List-Unsubscribe=Yes", false],
    ["another field name", "application/x-www-form-urlencoded", "Unsubscribe=One-Click", false],
    ["an empty body", "application/x-www-form-urlencoded", "", false],
    ["multipart, other field", "multipart/form-data; boundary=b", multipart("b", "List-Unsubscribe-Post", "One-Click"), false],
    ["multipart without a boundary", "multipart/form-data", multipart("b", "List-Unsubscribe", "One-Click"), false],
    ["text/plain", "text/plain", "List-Unsubscribe=One-Click", false],
    ["no content type", undefined, "List-Unsubscribe=One-Click", false],
  ])("%s", (_name, type, body, want) => {
    expect(isOneClickRequest(type, body)).toBe(want);
  });
});

describe("oneClickHeaders", () => {
  it("writes the RFC 8058 pair", () => {
    expect(oneClickHeaders("https://p.test/mail/u/t.abc")).toEqual({
      "List-Unsubscribe": "<https://p.test/mail/u/t.abc>",
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    });
  });
  it("refuses a URL that would break the header", () => {
    expect(() => oneClickHeaders("https://p.test/a>,<mailto:x@y")).toThrow();
  });
});
