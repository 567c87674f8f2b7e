// A file answered as a download: saved by a browser, never rendered, sniffed or cached by a shared
// proxy. Received mail is written by strangers, so an attachment shown inline on this origin would
// run its HTML or SVG with the reader's session (decision M9).
import type { FastifyReply } from "fastify";
import { contentDisposition } from "../mailbox-reading/attachments.ts";

export function sendDownload(reply: FastifyReply, type: string, filename: string, body: Buffer): FastifyReply {
  return reply
    .code(200)
    .header("content-type", type)
    .header("content-disposition", contentDisposition(filename))
    .header("x-content-type-options", "nosniff")
    .header("cache-control", "private, no-store")
    .header("content-security-policy", "default-src 'none'; sandbox")
    .send(body);
}
