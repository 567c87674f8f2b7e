// The text of an HTML-only message, for `text` and the preview: what a reader sees, line breaks
// at block elements, nothing of scripts or styles. mailparser can do this too, but it converts
// every message's parts on the way (half its parsing time on a plain 10 KB message), so the
// listener parses with that off and converts only when there is no text part.
import { Parser } from "htmlparser2";

const BLOCK = new Set(["p", "div", "br", "h1", "h2", "h3", "h4", "h5", "h6", "li", "tr", "table", "blockquote", "pre", "hr", "section", "article", "header", "footer", "ul", "ol"]);
const HIDDEN = new Set(["script", "style", "head", "title", "template"]);

export function htmlToText(html: string): string {
  let out = "";
  let hidden = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (HIDDEN.has(name)) hidden++;
        else if (BLOCK.has(name)) out += "\n";
      },
      onclosetag(name) {
        if (HIDDEN.has(name)) hidden = Math.max(0, hidden - 1);
        else if (BLOCK.has(name)) out += "\n";
      },
      ontext(text) {
        if (!hidden) out += text.replace(/\s+/g, " ");
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.replace(/[ \t]*\n[ \t]*/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}
