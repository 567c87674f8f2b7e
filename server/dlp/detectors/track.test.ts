// The magnetic-stripe detector on its own: track 1 and track 2 with and without sentinels, the
// OCR stand-ins for the caret, the exact value, mask and span; and what is not a track (a bad
// month, a Luhn-invalid PAN, an `=`-joined pair of numbers glued to other digits or letters).
import { describe, expect, it } from "vitest";
import { detectTracks } from "./track.ts";

const found = (text: string) => detectTracks(text).map(({ type, value, masked, full, start, end }) => ({ type, value, masked, full, text: text.slice(start, end) }));
const track = (n: 1 | 2, text: string) => ({ type: "track", value: `${n}:4111111111111111`, masked: `track${n} 4111 **** **** 1111`, full: true, text });

describe("track 1", () => {
  it("with sentinels, without them, and with OCR's stand-ins for the caret", () => {
    expect(found("x %B4111111111111111^DOE/JOHN^27121010000000000? y")).toEqual([track(1, "%B4111111111111111^DOE/JOHN^27121010000000000?")]);
    expect(found("B4111111111111111^DOE/JOHN^2712101 y")).toEqual([track(1, "B4111111111111111^DOE/JOHN^2712101")]);
    expect(found("%B4111111111111111~DOE/JOHN\"~2712101?")).toEqual([track(1, "%B4111111111111111~DOE/JOHN\"~2712101?")]);
    expect(found("%B4111111111111111^DOE/JOHN~2712101?")).toEqual([track(1, "%B4111111111111111^DOE/JOHN~2712101?")]);
  });

  it("months 01 and 12 are dates, 00 and 13 are not; the PAN must pass Luhn", () => {
    expect(found("%B4111111111111111^DOE/JOHN^2701101?")).toHaveLength(1);
    expect(found("%B4111111111111111^DOE/JOHN^2700101?")).toEqual([]);
    expect(found("%B4111111111111111^DOE/JOHN^2713101?")).toEqual([]);
    expect(found("%B4111111111111112^DOE/JOHN^2712101?")).toEqual([]);
    // The service code has three digits.
    expect(found("%B4111111111111111^DOE/JOHN^271210?")).toEqual([]);
  });

  it("the name holds 2 to 26 characters", () => {
    expect(found("%B4111111111111111^DO^2712101?")).toHaveLength(1);
    expect(found("%B4111111111111111^D^2712101?")).toEqual([]);
    expect(found(`%B4111111111111111^${"A".repeat(26)}^2712101?`)).toHaveLength(1);
    expect(found(`%B4111111111111111^${"A".repeat(27)}^2712101?`)).toEqual([]);
  });
});

describe("track 2", () => {
  it("with sentinels, without them, and with D as the separator", () => {
    expect(found("x ;4111111111111111=27121010000000? y")).toEqual([track(2, ";4111111111111111=27121010000000?")]);
    expect(found("x 4111111111111111=2712101 y")).toEqual([track(2, "4111111111111111=2712101")]);
    expect(found("x 4111111111111111D2712101 y")).toEqual([track(2, "4111111111111111D2712101")]);
    expect(found("x %4111111111111111=2712101 y")).toEqual([track(2, "%4111111111111111=2712101")]);
    expect(found("x 4111111111111111=271210 y")).toEqual([]);
  });

  it("a bad month, a Luhn-invalid PAN, or a number glued to digits or letters before it is not a track", () => {
    for (const text of ["4111111111111111=2700101", "4111111111111111=2713101", "4111111111111112=2712101", "14111111111111111=2712101", "x4111111111111111=2712101", "id=4111111111111111=271"]) {
      expect([text, found(text)]).toEqual([text, []]);
    }
  });

  it("track 1 and track 2 of one swipe are two findings; a track 2 inside a track 1 is not reported again", () => {
    expect(found("%B4111111111111111^DOE/JOHN^2712101? ;4111111111111111=2712101?")).toEqual([
      track(1, "%B4111111111111111^DOE/JOHN^2712101?"),
      track(2, ";4111111111111111=2712101?"),
    ]);
    expect(found("%B4111111111111111^DOE/JOHN^2712101?;4111111111111111=2712101?")).toHaveLength(2);
    // In either order.
    expect(found(";4111111111111111=2712101? %B4111111111111111^DOE/JOHN^2712101?")).toEqual([
      track(1, "%B4111111111111111^DOE/JOHN^2712101?"),
      track(2, ";4111111111111111=2712101?"),
    ]);
    expect(found("%B4111111111111111^DOE/JOHN^2712101;4111111111111111=2712101")).toEqual([track(1, "%B4111111111111111^DOE/JOHN^2712101;4111111111111111=2712101")]);
  });
});
