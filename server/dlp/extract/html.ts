// HTML as a reader sees it: text nodes (entities decoded), the values of alt, title, href and
// value attributes, block elements and <br> as line breaks (so table cells do not run together)
// and inline elements joined as rendered.
import { Parser } from "htmlparser2";

const blocks = new Set(["p", "div", "br", "tr", "td", "th", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "blockquote", "pre", "hr", "dt", "dd", "title", "option"]);

export function htmlText(html: string): string {
  const parts: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (blocks.has(name)) parts.push("\n");
        for (const a of ["alt", "title", "value", "href"]) if (attrs[a]) parts.push(`\n${attrs[a]}\n`);
      },
      ontext(text) {
        parts.push(text);
      },
      onclosetag(name) {
        if (blocks.has(name)) parts.push("\n");
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return parts.join("").replace(/[ \t\u00a0]+/g, " ").replace(/ ?\n[ \n]*/g, "\n");
}
