// The alphabet of a free string: printable ASCII and, one code point in five, multi-byte, astral,
// combining and right-to-left characters (issue 39 item 8). Apart from unicode-strings.ts, which
// turns whole cases non-ASCII and so needs the case validator: the schema generators need only
// the alphabet, and importing it from there tied them into a circle with the case builder.
import fc from "fast-check";

/** Two-, three- and four-byte UTF-8, a combining mark, Hebrew, Arabic, bidi controls, zero width. */
export const NON_ASCII = ["ë", "ß", "Ω", "中", "文", "😀", "𝄞", "\u0301", "ש", "ל", "ب", "ي", "\u202E", "\u200F", "\u200B", "\uFEFF"];
const ascii = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
/** One code point (a JSON Schema length unit) of a free string. */
export const textUnit: fc.Arbitrary<string> = fc.oneof({ arbitrary: ascii, weight: 4 }, { arbitrary: fc.constantFrom(...NON_ASCII), weight: 1 });
