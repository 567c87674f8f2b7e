// Open and click tracking in a message's HTML, done on the parsed document (htmlparser2), never
// with regular expressions: an href inside a comment, a <script>, an attribute value or a
// conditional comment for Outlook is not a link, and only the parser knows which is which.
// Text parts are not touched (a tracked text URL would be visible and ugly).
import { DomUtils, parseDocument } from "htmlparser2";

export interface TrackedLinkTarget {
  /** 0-based position of the link among the tracked links of the HTML, in document order. */
  idx: number;
  /** The original URL, normalized (WHATWG URL serialization), where the click redirects. */
  url: string;
}

export interface TrackingUrls {
  /** The click URL of the link at `idx`. */
  click(idx: number): string;
  /** The open pixel's URL. */
  open: string;
}

export interface TrackedHtml {
  html: string;
  links: TrackedLinkTarget[];
}

/** Links opted out by the sender keep their URL; the attribute itself is removed. */
export const NO_TRACK_ATTRIBUTE = "data-platform-notrack";

/** Only web links are tracked: mailto:, tel:, fragments and relative URLs lead nowhere we could redirect to. */
function webUrl(href: string | undefined): string | undefined {
  if (href === undefined) return undefined;
  const trimmed = href.trim();
  if (!/^https?:\/\//i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed).href;
  } catch {
    return undefined;
  }
}

const PIXEL = `<img width="1" height="1" alt="" style="display:block;border:0;width:1px;height:1px">`;

export function rewriteHtmlForTracking(html: string, urls: TrackingUrls): TrackedHtml {
  const doc = parseDocument(html);
  const links: TrackedLinkTarget[] = [];
  const anchors = DomUtils.findAll((el) => (el.name === "a" || el.name === "area") && el.attribs.href !== undefined, doc.children);
  for (const el of anchors) {
    if (NO_TRACK_ATTRIBUTE in el.attribs) {
      delete el.attribs[NO_TRACK_ATTRIBUTE];
      continue;
    }
    const url = webUrl(el.attribs.href);
    if (!url) continue;
    const idx = links.length;
    links.push({ idx, url });
    el.attribs.href = urls.click(idx);
  }
  // The pixel goes last in the body, so a client that renders progressively loads it only once
  // the message is shown; without a body element, at the end of the document.
  const pixel = DomUtils.findOne((el) => el.name === "img", parseDocument(PIXEL).children);
  if (!pixel) throw new Error("the pixel template holds no img");
  pixel.attribs.src = urls.open;
  const body = DomUtils.findOne((el) => el.name === "body", doc.children);
  if (body) DomUtils.appendChild(body, pixel);
  else DomUtils.appendChild(doc, pixel);
  // utf8: keep non-ASCII text as it was written, escape only what HTML needs escaped.
  return { html: DomUtils.getOuterHTML(doc, { encodeEntities: "utf8", emptyAttrs: true }), links };
}
