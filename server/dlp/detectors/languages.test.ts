// Labels and markings in the seven languages of docs/decisions.md DLP13 (issue 40), for every
// labelled type, and .env-style variables; and the same words where they label nothing.
import { describe, expect, it } from "vitest";
import { detect, TEXT_TYPES } from "./index.ts";

const all = new Set(TEXT_TYPES);
const found = (text: string) => detect(text, all).map((m) => `${m.type} ${m.masked}`);

describe("labelled types in Azerbaijani, Russian, Turkish, English, German, French and Spanish", () => {
  it.each([
    ["Pasport: C4F7G2K91", "passport C4*****91"],
    ["Паспорт: 45 08 392817", "passport 45******17"],
    ["Pasaport no: U23918475", "passport U2*****75"],
    ["Passport number: P4271936", "passport P4****36"],
    ["Reisepass-Nr.: C4F7G2K92", "passport C4*****92"],
    ["Passnummer C01X00T47", "passport C0*****47"],
    ["Numéro de passeport : 18AV12345", "passport 18*****45"],
    ["Pasaporte: XDA482913", "passport XD*****13"],
    ["FİN: 3KP9RWZ", "fin 3*****Z"],
    ["Персональный идентификационный номер: 2QX8VTL", "fin 2*****L"],
    ["Kişisel kimlik numarası 7HJ2M4N", "fin 7*****N"],
    ["VÖEN: 1503847261", "voen 15******61"],
    ["ИНН 2304918572", "voen 23******72"],
    ["Vergi kimlik numarası: 1503 847 261", "voen 15******61"],
    ["VKN: 2003456782", "voen 20******82"],
    ["Steuernummer: 1702345671", "voen 17******71"],
    ["numéro fiscal : 1702345671", "voen 17******71"],
    ["NIF 1400057421", "voen 14******21"],
    ["şifrə: Gizli_Soz9", "secret password ********"],
    ["пароль: Zima2027!", "secret password ********"],
    ["şifre: Ankara2026*", "secret password ********"],
    ["parola: Deniz.4455", "secret password ********"],
    ["Passwort: Winter2026!", "secret password ********"],
    ["Kennwort = Geheim99x", "secret password ********"],
    ["mot de passe : Soleil#2026", "secret password ********"],
    ["contraseña: Madrid_2026", "secret password ********"],
    // Found by the blind check written at the end (README): the connector word, then a colon.
    ["La contraseña es: Verano#2027", "secret password ********"],
    ["Das Passwort ist: Alpen#Blick42", "secret password ********"],
    ["ROOT_PASSWORD=s3cr3tRoot!", "secret password ********"],
    ["MYSQL_ROOT_PASSWORD: Pa55w0rd_x", "secret password ********"],
    ["DB_PASS=hunter2hunter2", "secret password ********"],
    ["APP_SECRET=9f8e7d6c5b4a3f2e1d0c", "secret api-key 9f8e7d****1d0c"],
    ["MƏXFİ", "confidential MƏXFİ"],
    ["КОНФИДЕНЦИАЛЬНО", "confidential КОНФИДЕНЦИАЛЬНО"],
    ["KİŞİYE ÖZEL", "confidential KİŞİYE ÖZEL"],
    ["Gizlilik derecesi: Hizmete özel", "confidential HIZMETE ÖZEL"],
    ["VERTRAULICH", "confidential VERTRAULICH"],
    ["Einstufung: Nur für den Dienstgebrauch", "confidential NUR FÜR DEN DIENSTGEBRAUCH"],
    ["[Confidentiel] budget 2027", "confidential CONFIDENTIEL"],
    ["Diffusion restreinte", "confidential DIFFUSION RESTREINTE"],
    ["CONFIDENCIAL", "confidential CONFIDENCIAL"],
    ["Clasificación: uso interno", "confidential USO INTERNO"],
  ])("%s", (text, expected) => {
    expect(found(text)).toContain(expected);
  });
});

describe("the same words labelling nothing", () => {
  it.each([
    "Ich habe mein Passwort vergessen.",
    "¿Olvidó su contraseña? Renueve su pasaporte el 2027-01-15.",
    "Gizlilik politikamız güncellendi.",
    "Mot de passe oublié ? Cliquez ici.",
    "ROOT_PASSWORD=${ROOT_PASSWORD}",
    "DB_PASS=changeme",
    "PASSWORD_MIN_LENGTH=12",
    "DB_PASS_FILE=/run/secrets/db",
    "Die Steuernummer beantrage ich nächste Woche.",
    "Reference of the passport office and opening hours of the desk: 123456789",
    "Das ist vertraulich zu behandeln, sagte sie.",
  ])("%s", (text) => {
    expect(found(text)).toEqual([]);
  });
});
