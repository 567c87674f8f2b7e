// confidential: classification markings, in English, Azerbaijani, Russian, Turkish, German, French and Spanish. A marking is a
// label, not a word in a sentence: "We keep your data confidential" is prose. A phrase counts
//  (1) in capitals anywhere (CONFIDENTIAL, MƏXFİ, КОНФИДЕНЦИАЛЬНО), or
//  (2) in any case when it stands alone as a line or starts a line followed by punctuation
//      ("Confidential", "Strictly confidential - do not forward", "Конфиденциально."), or
//  (3) after a classification label ("Classification: Confidential", "Gizlilik: Məxfi",
//      "Гриф: Для служебного пользования", "Sensitivity: Company-Confidential", "Tags: confidential"), or
//  (4) in any case as a tag: inside brackets ("[Confidential] Q3 results", "{Məxfi}"), inside
//      parentheses opening or closing a line ("Fwd: (Internal use only) reorg"), or after #
//      ("#confidential").
// Phrases: confidential, strictly/highly confidential, private and confidential, proprietary and
// confidential, internal use only, for internal use only, restricted, top secret, secret (only
// as (1) with another marking word or alone on its line), do not distribute/forward; məxfi,
// ciddi məxfi, konfidensial, xidməti istifadə üçün, yalnız daxili istifadə üçün, kommersiya
// sirri; конфиденциально, строго конфиденциально, для служебного пользования, коммерческая тайна,
// секретно, совершенно секретно, только для внутреннего использования.
import { match, type Match } from "./detector.ts";

// Azerbaijani phrases as written with or without the Azerbaijani letters. The `i` flag does not
// pair İ with i nor ı with I (Unicode case folding leaves them alone), so "DAXİLİ" and "YALNIZ"
// need their letters spelled out; ə is often typed as e.
function azerbaijani(phrase: string): string {
  return [...phrase].map((c) => ({ "ə": "[əe]", i: "[iİı]", "ı": "[ıi]" })[c] ?? c).join("");
}

const phrases = [
  "strictly confidential", "highly confidential", "(?:strictly )?private (?:and|&) confidential", "proprietary (?:and|&) confidential", "company(?: |-)confidential", "business confidential",
  "confidential", "(?:for )?internal use only", "restricted", "top secret", "do not (?:distribute|forward|disclose)", "not for (?:distribution|disclosure)",
  ...["ciddi məxfi", "məxfi", "konfidensial", "xidməti istifadə üçün", "yalnız daxili istifadə üçün", "kommersiya sirri"].map(azerbaijani),
  "строго конфиденциально", "конфиденциально", "конфиденциальная информация", "для служебного пользования", "коммерческая тайна", "совершенно секретно", "секретно",
  "только для внутреннего использования",
  // Turkish, German, French, Spanish (docs/decisions.md DLP13); Turkish İ/ı as Azerbaijani's.
  ...["çok gizli", "gizli", "kişiye özel", "hizmete özel", "şirket içi", "sadece iç kullanım için", "yalnızca iç kullanım için", "ticari sır"].map(azerbaijani),
  "streng vertraulich", "vertraulich", "nur für den (?:internen|dienst)gebrauch", "nur für den internen gebrauch", "streng geheim", "betriebsgeheimnis", "nicht weitergeben",
  "strictement confidentiel", "confidentiel", "(?:à )?usage interne(?: uniquement)?", "diffusion restreinte", "secret défense", "ne pas diffuser",
  "estrictamente confidencial", "confidencial", "(?:solo |sólo )?(?:para |de )?uso interno(?: exclusivo)?", "no distribuir", "información reservada",
];
const alt = phrases.join("|");
// (1): capitals. Matched case-sensitively against an upper-cased copy, then checked to be capitals in the source.
const anywhere = new RegExp(`(?<![\\p{L}])(${alt})(?![\\p{L}])`, "giu");
// A run of capitals (with the spaces, dashes and "&" between words of a phrase), from a word's start.
const capitalsRun = /(?<!\p{L})\p{Lu}(?:[\p{Lu}\p{M}]|[ &-]+(?=\p{Lu}))+/gu;
// (2): the line starts with the phrase (after bullets, brackets, asterisks) and nothing but punctuation or a dash follows it.
const lineMarking = new RegExp(`^(?:[\\p{L} ]{1,30}:\\s*)?[\\s\\[(*#>"'«_-]*(${alt})[\\s\\])*"'»_]*(?:$|[:.!|–—-])`, "imu");
const labelled = new RegExp(`(?:classification|classified|marking|security level|sensitivity|label|tags?|gizlilik(?: dərəcəsi| qrifi| derecesi| sınıfı)?|qrif|гриф|уровень доступа|einstufung|klassifizierung|vertraulichkeit(?:sstufe)?|schutzstufe|niveau de confidentialité|clasificación|nivel de confidencialidad)\\s*[:=-]\\s*(${alt})(?![\\p{L}])`, "giu");
// (4): a tag. Brackets close on the phrase (with spaces at most): "[Confidential]", not "[Confidential report]".
// Parentheses are also prose ("we keep (confidential) records"): they count only opening a line,
// after reply prefixes ("Fwd: (Internal use only) reorg"), or closing it.
const tag = new RegExp(`(?:[\\[{<]\\s*(${alt})\\s*[\\]}>]|(?<![\\p{L}\\d_#])#(${alt.replace(/ /g, "[_-]?")})(?![\\p{L}\\d_])|^(?:\\p{L}{1,5}:\\s*)*\\(\\s*(${alt})\\s*\\)|\\(\\s*(${alt})\\s*\\)[\\s.]*$)`, "gimu");

// The root upper case is enough: it differs from the Azerbaijani one only on a lower-case i,
// which neither leaves unchanged (and İ, ı's I stay as they are in both).
function isCapitals(s: string): boolean {
  return s === s.toUpperCase();
}

export function detectConfidential(text: string): Match[] {
  const out: Match[] = [];
  const add = (phrase: string, start: number) => {
    // The key of repeats: the Azerbaijani lower case would turn the I of "CONFIDENTIAL" into a
    // dotless ı (a key other than "confidential"s), the plain one turns İ into i plus a dot; both
    // capitals fold to i, and so does ı, so a marking counts once however it is written.
    const key = phrase.replace(/\s+/g, " ").replaceAll("İ", "i").toLowerCase().replaceAll("ı", "i");
    if (out.some((o) => o.start <= start && start < o.end)) return;
    out.push(match("confidential", key, phrase.replace(/\s+/g, " ").toUpperCase(), start, start + phrase.length));
  };
  for (const m of text.matchAll(labelled)) add(m[1], m.index + m[0].length - m[1].length);
  for (const m of text.matchAll(tag)) {
    const phrase = m[1] ?? m[2] ?? m[3] ?? m[4];
    add(phrase.replace(/[_-]/g, " "), m.index + m[0].indexOf(phrase));
  }
  // (1) looks only inside runs of capitals: a phrase in capitals is one, and such runs are rare in
  // prose, so the phrases' long alternation is not tried at every letter of a megabyte.
  for (const run of text.matchAll(capitalsRun)) {
    // The shortest phrase has five letters (GİZLİ, MƏXFİ).
    if (run[0].length < 5) continue;
    anywhere.lastIndex = 0;
    for (let m = anywhere.exec(run[0]); m; m = anywhere.exec(run[0])) {
      const index = run.index + m.index;
      const phrase = m[1];
      if (!/\p{L}{2}/u.test(phrase) || !isCapitals(phrase)) continue;
      // A single capitalised "RESTRICTED" or "SECRET" in a shouted sentence is not a marking: those
      // two count in capitals only when their line is short (a header or a stamp).
      if (/^(?:restricted|секретно)$/i.test(phrase)) {
        const lineStart = text.lastIndexOf("\n", index) + 1;
        const lineEnd = text.indexOf("\n", index);
        if (text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd).trim().length > 40) continue;
      }
      add(phrase, index);
    }
  }
  let offset = 0;
  for (const line of text.split("\n")) {
    const m = lineMarking.exec(line);
    if (m) add(m[1], offset + line.indexOf(m[1]));
    offset += line.length + 1;
  }
  return out;
}
