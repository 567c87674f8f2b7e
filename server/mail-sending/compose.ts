// MIME by nodemailer's composer (never by hand) and the DKIM signature with the sender domain's
// key. Composition runs on every relay attempt from the stored row; Message-ID and Date are
// fixed at accept time, so every attempt carries the same identity.
import { createPrivateKey, type KeyObject } from "node:crypto";
import MessageParser, { type MessageParserHeaderLine } from "nodemailer/lib/dkim/message-parser";
import RelaxedBody from "nodemailer/lib/dkim/relaxed-body";
import signatureField from "nodemailer/lib/dkim/sign";
import MailComposer from "nodemailer/lib/mail-composer";
import { BoundedMemo } from "../bounded-memo.ts";
import type { StoredMessage } from "./message-repository.ts";

// nodemailer's default list plus List-Unsubscribe-Post: RFC 8058 §4 requires both list headers
// under the signature, and the default leaves the -Post one out.
export const SIGNED_HEADERS = [
  "From", "Sender", "Reply-To", "Subject", "Date", "Message-ID", "To", "Cc", "MIME-Version", "Content-Type",
  "Content-Transfer-Encoding", "Content-ID", "Content-Description", "In-Reply-To", "References",
  "List-Id", "List-Help", "List-Unsubscribe", "List-Unsubscribe-Post", "List-Subscribe", "List-Post", "List-Owner", "List-Archive",
].join(":");

export function composeMessage(m: StoredMessage): Promise<Buffer> {
  const composer = new MailComposer({
    from: m.from,
    to: m.to,
    cc: m.cc.length ? m.cc : undefined,
    bcc: m.bcc.length ? m.bcc : undefined,
    replyTo: m.replyTo.length ? m.replyTo : undefined,
    subject: m.subject,
    text: m.text,
    html: m.html,
    headers: m.headers,
    messageId: `<${m.rfcMessageId}>`,
    date: new Date(m.createdAt),
    attachments: m.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
  });
  return new Promise((resolve, reject) => composer.compile().build((error, message) => (error ? reject(error) : resolve(message))));
}

export interface DkimKey {
  domainName: string;
  keySelector: string;
  privateKey: string;
}

/**
 * The message with its DKIM-Signature field in front, made by nodemailer's DKIM parts: its header
 * parser, its relaxed body hash and its signature function, the three its DKIM class streams a
 * message through. The class takes a stream (and spills large ones to disk); for a message already
 * in memory it added two more streams and four turns of the event loop to every relayed message.
 * The bytes are the class's (compose.test.ts compares them), including its answer to a key that
 * cannot sign: the message without a signature.
 */
export function dkimSign(raw: Buffer, key: DkimKey): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parser = new MessageParser();
    const body = new RelaxedBody({ hashAlgo: "sha256" });
    let headers: MessageParserHeaderLine[] = [];
    parser.on("headers", (h: MessageParserHeaderLine[]) => (headers = h));
    parser.on("error", reject);
    body.on("error", reject);
    body.on("hash", (bodyHash: string) => {
      try {
        const field = signatureField(headers, "sha256", bodyHash, {
          domainName: key.domainName, keySelector: key.keySelector, privateKey: importedKey(key.privateKey), headerFieldNames: SIGNED_HEADERS,
        });
        resolve(field ? Buffer.concat([Buffer.from(`${field}\r\n`), raw]) : raw);
      } catch (error) {
        reject(error);
      }
    });
    // The body passes through the hash unchanged and is not needed again: `raw` holds it.
    body.resume();
    parser.pipe(body);
    parser.end(raw);
  });
}

// Private keys imported once per key, not once per message: nodemailer hands the PEM to
// crypto's sign, which parses it again every time, and that parse was the largest single cost of
// relaying a message. The cache is keyed by the PEM itself, so a domain whose key changed (removed
// and added again, a rotation) is signed with its new key at once, never a stale one; bounded,
// the oldest imported key goes first.
const KEY_CACHE_SIZE = 1000;
const importedKeys = new BoundedMemo<KeyObject>(KEY_CACHE_SIZE, (pem) => createPrivateKey(pem));

/** The imported private key of a PEM, from the cache or parsed now (exported for its test). */
export const importedKey = (pem: string): KeyObject => importedKeys.get(pem);
