// HTML mail made safe to show inside our page. An allow-list (sanitize-html) keeps formatting
// and links and drops everything that runs or loads: scripts, event handlers, styles (CSS can
// fetch), forms, frames, javascript: URLs. Remote images are tracking pixels as often as not, so
// they are held back unless the reader asks for them; the page's CSP repeats both rules, so a
// gap in the sanitizer still would not run a script or load an image.
import sanitizeHtml from "sanitize-html";

export interface SafeHtml {
  html: string;
  /** Images held back; the page offers to show them. */
  blockedImages: number;
}

export function safeHtml(unsafe: string, showImages: boolean): SafeHtml {
  let blockedImages = 0;
  const html = sanitizeHtml(unsafe, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "img", "font", "center"],
    allowedAttributes: {
      a: ["href", "title", "target", "rel"],
      img: ["src", "alt", "width", "height", "title"],
      td: ["colspan", "rowspan", "align", "valign"],
      th: ["colspan", "rowspan", "align", "valign"],
      font: ["color"],
      "*": ["dir", "lang"],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: ["http", "https"] },
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, target: "_blank", rel: "noopener noreferrer nofollow" } }),
      img: (tagName, attribs) => {
        if (showImages || !attribs.src) return { tagName, attribs };
        blockedImages++;
        return { tagName: "span", attribs: { class: "blocked-image" }, text: `[image${attribs.alt ? `: ${attribs.alt}` : ""}]` };
      },
    },
    allowedClasses: { span: ["blocked-image"] },
  });
  return { html, blockedImages };
}
