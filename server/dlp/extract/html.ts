// HTML as what it carries, not only what it renders: text nodes (entities decoded, text hidden
// with CSS or `hidden` included: a parser does not apply styles), comments, and the values of
// attributes (title, alt, href, value of hidden inputs, data-*, meta content...), a tag's on one
// line. Block elements and <br> are line breaks (so table cells do not run together); inline
// elements are joined as rendered. Left out: `style` and `class` (presentation) and data: URIs
// (an inline picture's bytes).
import { Parser } from "htmlparser2";

const blocks = new Set(["p", "div", "br", "tr", "td", "th", "li", "ul", "ol", "table", "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "blockquote", "pre", "hr", "dt", "dd", "title", "option", "script", "style", "noscript", "template", "head", "body"]);
const presentation = new Set(["style", "class"]);

export function htmlText(html: string): string {
  const parts: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (blocks.has(name)) parts.push("\n");
        // One line per tag, each value after its name: a hidden input's name labels its value.
        const carried = Object.entries(attrs).filter(([a, v]) => v && !presentation.has(a) && !/^\s*data:/i.test(v));
        if (carried.length) parts.push(`\n${carried.map(([a, v]) => `${a}: ${v}`).join("; ")}\n`);
      },
      ontext(text) {
        parts.push(text);
      },
      oncomment(text) {
        parts.push(`\n${text}\n`);
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
