// The confidential-marking detector on its own: a marking in capitals anywhere, a marking that is
// its line (or starts it, followed by punctuation), a marking after a classification label, in
// English, Azerbaijani and Russian; and the same words in ordinary prose, which are not markings.
import { describe, expect, it } from "vitest";
import { detectConfidential } from "./confidential.ts";

const found = (text: string) =>
  detectConfidential(text).map(({ type, value, masked, start, end }) => ({ type, value, masked, text: text.slice(start, end) }));
const marking = (value: string, masked: string, text: string) => ({ type: "confidential", value, masked, text });

describe("detectConfidential: capitals anywhere", () => {
  it("finds a marking in capitals inside a sentence, in each language", () => {
    expect(found("Please treat the attached file as CONFIDENTIAL until Monday.")).toEqual([marking("confidential", "CONFIDENTIAL", "CONFIDENTIAL")]);
    expect(found("Bu sənəd MƏXFİ sayılır və paylaşılmamalıdır.")).toEqual([marking("məxfi", "MƏXFİ", "MƏXFİ")]);
    expect(found("Sənəd XİDMƏTİ İSTİFADƏ ÜÇÜN nəzərdə tutulub.")).toEqual([marking("xidməti istifadə üçün", "XİDMƏTİ İSTİFADƏ ÜÇÜN", "XİDMƏTİ İSTİFADƏ ÜÇÜN")]);
    expect(found("Bu fayl KOMMERSİYA SİRRİ hesab olunur.")).toEqual([marking("kommersiya sirri", "KOMMERSİYA SİRRİ", "KOMMERSİYA SİRRİ")]);
    expect(found("Sened MEXFI sayilir.")).toEqual([marking("mexfi", "MEXFI", "MEXFI")]);
    expect(found("Документ КОНФИДЕНЦИАЛЬНО, не пересылать коллегам.")).toEqual([marking("конфиденциально", "КОНФИДЕНЦИАЛЬНО", "КОНФИДЕНЦИАЛЬНО")]);
    expect(found("The report, marked TOP SECRET by the sender, is attached here.")).toEqual([marking("top secret", "TOP SECRET", "TOP SECRET")]);
  });

  it("takes the longest phrase, once, and reports its span", () => {
    const text = "x STRICTLY CONFIDENTIAL y";
    expect(detectConfidential(text).map((m) => [m.value, m.start, m.end])).toEqual([["strictly confidential", 2, 23]]);
  });

  it("does not flag the word in ordinary prose, capitalised or not", () => {
    expect(found("We keep your data confidential at all times.")).toEqual([]);
    expect(found("The Confidential report was discussed at length yesterday.")).toEqual([]);
    expect(found("Access is restricted to staff, and the secret is to keep going.")).toEqual([]);
    expect(found("Bu məlumat məxfi saxlanılır, narahat olmayın.")).toEqual([]);
    expect(found("Мы храним ваши данные конфиденциально и бережно.")).toEqual([]);
  });

  it("does not flag capitals that are part of a longer word", () => {
    expect(found("The CONFIDENTIALITY AGREEMENT is attached for review.")).toEqual([]);
    expect(found("See UNRESTRICTED access notes in the wiki for details.")).toEqual([]);
  });

  it("counts RESTRICTED and СЕКРЕТНО in capitals only on a short line (at most 40 characters, trimmed)", () => {
    const at40 = `RESTRICTED ${"x".repeat(29)}`;
    expect(at40.length).toBe(40);
    expect(found(at40)).toEqual([marking("restricted", "RESTRICTED", "RESTRICTED")]);
    expect(found(`   ${at40}   `)).toEqual([marking("restricted", "RESTRICTED", "RESTRICTED")]);
    expect(found(`${at40}x`)).toEqual([]);
    expect(found("THE ROAD IS RESTRICTED TO RESIDENTS AND DELIVERY VANS ONLY")).toEqual([]);
    expect(found(`СЕКРЕТНО ${"ж".repeat(31)}`)).toEqual([marking("секретно", "СЕКРЕТНО", "СЕКРЕТНО")]);
    expect(found(`СЕКРЕТНО ${"ж".repeat(32)}`)).toEqual([]);
    // Other markings in capitals count on a long line too.
    expect(found(`COMPLETELY UNRELATED WORDS BEFORE TOP SECRET AND AFTER IT`)).toEqual([marking("top secret", "TOP SECRET", "TOP SECRET")]);
    expect(found(`ДОКУМЕНТ С ДЛИННЫМ ЗАГОЛОВКОМ СОВЕРШЕННО СЕКРЕТНО ДЛЯ ВСЕХ`)).toEqual([
      marking("совершенно секретно", "СОВЕРШЕННО СЕКРЕТНО", "СОВЕРШЕННО СЕКРЕТНО"),
    ]);
  });

  it("measures only the marking's own line, not its neighbours", () => {
    const long = "a line of ordinary prose that is well over forty characters long";
    expect(found(`${long}\nRESTRICTED AREA\n${long}`)).toEqual([marking("restricted", "RESTRICTED", "RESTRICTED")]);
    expect(found(`RESTRICTED AREA\n${long}`)).toEqual([marking("restricted", "RESTRICTED", "RESTRICTED")]);
    expect(found(`${long}\nRESTRICTED AREA`)).toEqual([marking("restricted", "RESTRICTED", "RESTRICTED")]);
    expect(found(`x\n${long} RESTRICTED\nshort`)).toEqual([]);
    expect(found(`x\nRESTRICTED ${long}`)).toEqual([]);
  });
});

describe("detectConfidential: a marking that is its line", () => {
  it("finds a marking alone on its line, in any case, in each language", () => {
    expect(found("Confidential")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Hello team,\nConfidential\nsee below")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Конфиденциально.")).toEqual([marking("конфиденциально", "КОНФИДЕНЦИАЛЬНО", "Конфиденциально")]);
    expect(found("Məxfi")).toEqual([marking("məxfi", "MƏXFI", "Məxfi")]);
    expect(found("Xidməti istifadə üçün")).toEqual([marking("xidməti istifadə üçün", "XIDMƏTI ISTIFADƏ ÜÇÜN", "Xidməti istifadə üçün")]);
    expect(found("Для служебного пользования")).toEqual([marking("для служебного пользования", "ДЛЯ СЛУЖЕБНОГО ПОЛЬЗОВАНИЯ", "Для служебного пользования")]);
    expect(found("Internal use only")).toEqual([marking("internal use only", "INTERNAL USE ONLY", "Internal use only")]);
  });

  it("finds a marking that starts its line and is followed by punctuation or a dash", () => {
    expect(found("Strictly confidential - do not forward")).toEqual([marking("strictly confidential", "STRICTLY CONFIDENTIAL", "Strictly confidential")]);
    expect(found("Confidential: for the board")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Confidential | page 2")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Confidential — draft")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Confidential! Read carefully")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
  });

  it("allows bullets, brackets and quotes around it", () => {
    expect(found("* Confidential *")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("[Confidential]")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("«Конфиденциально»")).toEqual([marking("конфиденциально", "КОНФИДЕНЦИАЛЬНО", "Конфиденциально")]);
    expect(found("> Private and confidential")).toEqual([marking("private and confidential", "PRIVATE AND CONFIDENTIAL", "Private and confidential")]);
  });

  it("allows a short label of up to 30 letters before it", () => {
    expect(found("Subject: Confidential")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found(`${"a".repeat(30)}: Confidential`)).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found(`${"a".repeat(31)}: Confidential`)).toEqual([]);
  });

  it("does not flag a line that merely starts with the word", () => {
    expect(found("Confidential information is handled by the legal team")).toEqual([]);
    expect(found("Restricted areas are marked on the map")).toEqual([]);
    expect(found("Конфиденциально говоря, мы не знаем")).toEqual([]);
  });

  it("reports the span on later lines", () => {
    const text = "first line\nsecond\n  Confidential";
    expect(detectConfidential(text).map((m) => [m.start, m.end])).toEqual([[20, 32]]);
  });
});

describe("detectConfidential: after a classification label", () => {
  it("finds the marking after a label, anywhere on the line, in each language", () => {
    expect(found("Attached, classification: restricted, thanks")).toEqual([marking("restricted", "RESTRICTED", "restricted")]);
    expect(found("Note; sensitivity = highly confidential")).toEqual([marking("highly confidential", "HIGHLY CONFIDENTIAL", "highly confidential")]);
    expect(found("Sənəd, gizlilik dərəcəsi: məxfi")).toEqual([marking("məxfi", "MƏXFI", "məxfi")]);
    expect(found("Документ, гриф - для служебного пользования")).toEqual([marking("для служебного пользования", "ДЛЯ СЛУЖЕБНОГО ПОЛЬЗОВАНИЯ", "для служебного пользования")]);
  });

  it("does not take a word that merely starts with a marking", () => {
    expect(found("Attached, classification: confidentiality levels explained")).toEqual([]);
  });

  it("reports a marking matched by several rules once", () => {
    expect(found("Classification: Confidential")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("Classification: CONFIDENTIAL")).toEqual([marking("confidential", "CONFIDENTIAL", "CONFIDENTIAL")]);
    expect(found("CONFIDENTIAL")).toEqual([marking("confidential", "CONFIDENTIAL", "CONFIDENTIAL")]);
  });

  it("keys a marking the same in capitals and in lower case (Azerbaijani İ and ı, English I)", () => {
    expect(found("Gizlilik: MƏXFİ").map((m) => m.value)).toEqual(["məxfi"]);
    expect(found("Gizlilik: MƏXFI").map((m) => m.value)).toEqual(["məxfi"]);
    expect(found("YALNIZ DAXİLİ İSTİFADƏ ÜÇÜN").map((m) => m.value)).toEqual(["yalniz daxili istifadə üçün"]);
    expect(found("YALNIZ DAXİLİ İSTİFADƏ ÜÇÜN").map((m) => m.value)).toEqual(found("Yalnız daxili istifadə üçün").map((m) => m.value));
  });
});

describe("detectConfidential: several markings", () => {
  it("reports a marking that stands before one found by an earlier rule", () => {
    expect(found("CONFIDENTIAL report, classification: restricted")).toEqual([
      marking("restricted", "RESTRICTED", "restricted"),
      marking("confidential", "CONFIDENTIAL", "CONFIDENTIAL"),
    ]);
  });

  it("reports each marking of a text", () => {
    const text = "CONFIDENTIAL\nBody text here.\nDo not distribute.";
    expect(found(text)).toEqual([marking("confidential", "CONFIDENTIAL", "CONFIDENTIAL"), marking("do not distribute", "DO NOT DISTRIBUTE", "Do not distribute")]);
  });
});

describe("detectConfidential: tags and labels (issue 31)", () => {
  it("finds a marking in brackets, in any case, at the start of a subject or inside it", () => {
    expect(found("[Confidential] Q3 results")).toEqual([marking("confidential", "CONFIDENTIAL", "Confidential")]);
    expect(found("RE: (Internal use only) roadmap")).toEqual([marking("internal use only", "INTERNAL USE ONLY", "Internal use only")]);
    expect(found("Roadmap 2027 (Internal use only)")).toEqual([marking("internal use only", "INTERNAL USE ONLY", "Internal use only")]);
    expect(found("Hesabat {Məxfi} 2026")).toEqual([marking("məxfi", "MƏXFI", "Məxfi")]);
    expect(found("Отчёт [Конфиденциально] за квартал")).toEqual([marking("конфиденциально", "КОНФИДЕНЦИАЛЬНО", "Конфиденциально")]);
  });

  it("finds a marking as a hashtag, with _ or - between its words", () => {
    expect(found("Notes #confidential #finance")).toEqual([marking("confidential", "CONFIDENTIAL", "confidential")]);
    expect(found("#internal_use_only")).toEqual([marking("internal use only", "INTERNAL USE ONLY", "internal_use_only")]);
  });

  it("finds a marking after a sensitivity, label or tags field, and company-confidential", () => {
    expect(found("Sensitivity: Company-Confidential").map((m) => m.value)).toEqual(["company-confidential"]);
    expect(found("Tags: confidential, finance").map((m) => m.value)).toEqual(["confidential"]);
    expect(found("Company Confidential").map((m) => m.value)).toEqual(["company confidential"]);
  });

  it("leaves brackets around prose and hashtags of other words alone", () => {
    expect(found("Keep (confidential data) safe")).toEqual([]);
    expect(found("we keep #confidentiality in mind")).toEqual([]);
    expect(found("the confidential [report] is here")).toEqual([]);
    expect(found("a (restricted area) sign")).toEqual([]);
    expect(found("We keep (confidential) records as the law requires.")).toEqual([]);
  });
});
