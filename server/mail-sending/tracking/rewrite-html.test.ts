// Link rewriting on real-world-shaped HTML: what is a link is the parser's call, not a pattern's.
import { describe, expect, it } from "vitest";
import { rewriteHtmlForTracking } from "./rewrite-html.ts";

const urls = { click: (idx: number) => `https://p.test/mail/c/tok${idx}`, open: "https://p.test/mail/o/open&tok" };
const PIXEL = `<img width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px" src="https://p.test/mail/o/open&amp;tok">`;

const cases: [string, { given: string; html: string; links: { idx: number; url: string }[] }][] = [
  [
    "a newsletter: two links, entity in a query, the pixel last in the body",
    {
      given: `<!DOCTYPE html><html><head><title>News</title></head><body><p>Hi <a href="https://shop.example/sale?a=1&amp;b=2">sale</a> and <a class="btn" href="http://blog.example/post">post</a></p></body></html>`,
      html: `<!DOCTYPE html><html><head><title>News</title></head><body><p>Hi <a href="https://p.test/mail/c/tok0">sale</a> and <a class="btn" href="https://p.test/mail/c/tok1">post</a></p>${PIXEL}</body></html>`,
      links: [{ idx: 0, url: "https://shop.example/sale?a=1&b=2" }, { idx: 1, url: "http://blog.example/post" }],
    },
  ],
  [
    "mailto:, tel:, fragments and relative links stay; only web links are counted",
    {
      given: `<body><a href="mailto:help@example.test">mail</a><a href="tel:+15551234">call</a><a href="#top">top</a><a href="/relative">rel</a><a href=" HTTPS://Example.TEST/x ">web</a></body>`,
      html: `<body><a href="mailto:help@example.test">mail</a><a href="tel:+15551234">call</a><a href="#top">top</a><a href="/relative">rel</a><a href="https://p.test/mail/c/tok0">web</a>${PIXEL}</body>`,
      links: [{ idx: 0, url: "https://example.test/x" }],
    },
  ],
  [
    "hrefs in comments, Outlook conditional comments, scripts and text are not links",
    {
      given: `<body><!-- <a href="https://hidden.example/">x</a> --><!--[if mso]><a href="https://mso.example/">o</a><![endif]--><script>var s = '<a href="https://js.example/">';</script><p>see https://text.example/ or href="https://attr.example/"</p><a href="https://real.example/">r</a></body>`,
      html: `<body><!-- <a href="https://hidden.example/">x</a> --><!--[if mso]><a href="https://mso.example/">o</a><![endif]--><script>var s = '<a href="https://js.example/">';</script><p>see https://text.example/ or href="https://attr.example/"</p><a href="https://p.test/mail/c/tok0">r</a>${PIXEL}</body>`,
      links: [{ idx: 0, url: "https://real.example/" }],
    },
  ],
  [
    "a fragment without a body: the pixel goes at the end; image maps count; UTF-8 text is kept",
    {
      given: `<p>Grüße, <a href='https://example.test/ü?q=a b'>Jörg</a></p><map><area href="https://map.example/a" alt="a"></map>`,
      html: `<p>Grüße, <a href="https://p.test/mail/c/tok0">Jörg</a></p><map><area href="https://p.test/mail/c/tok1" alt="a"></map>${PIXEL}`,
      links: [{ idx: 0, url: "https://example.test/%C3%BC?q=a%20b" }, { idx: 1, url: "https://map.example/a" }],
    },
  ],
  [
    "the same URL twice is two links; an opted-out link keeps its URL and loses the marker",
    {
      given: `<body><a href="https://x.example/">1</a><a data-platform-notrack href="https://private.example/">p</a><a href="https://x.example/">2</a></body>`,
      html: `<body><a href="https://p.test/mail/c/tok0">1</a><a href="https://private.example/">p</a><a href="https://p.test/mail/c/tok1">2</a>${PIXEL}</body>`,
      links: [{ idx: 0, url: "https://x.example/" }, { idx: 1, url: "https://x.example/" }],
    },
  ],
  [
    "javascript: and unparsable URLs are left alone",
    {
      given: `<body><a href="javascript:alert(1)">j</a><a href="https://">empty host</a></body>`,
      html: `<body><a href="javascript:alert(1)">j</a><a href="https://">empty host</a>${PIXEL}</body>`,
      links: [],
    },
  ],
];

describe("rewriteHtmlForTracking", () => {
  it.each(cases)("%s", (_name, { given, html, links }) => {
    const out = rewriteHtmlForTracking(given, urls);
    expect(out.html).toBe(html);
    expect(out.links).toEqual(links);
  });
});
