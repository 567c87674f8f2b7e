// One scanning thread: receives a message, answers its findings. Extraction and OCR run here, so
// a 15 MB attachment occupies this thread, not the server's event loop.
import { parentPort } from "node:worker_threads";
import type { OutgoingContent } from "./dlp-port.ts";
import { scanMessage, type ScanOptions } from "./scanner.ts";

export interface ScanRequest {
  id: number;
  content: OutgoingContent;
  options: ScanOptions;
}

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

parentPort!.on("message", async (req: ScanRequest) => {
  try {
    const content = { ...req.content, attachments: req.content.attachments.map((a) => ({ ...a, content: asBuffer(a.content) })) };
    parentPort!.postMessage({ id: req.id, result: await scanMessage(content, req.options) });
  } catch (error) {
    parentPort!.postMessage({ id: req.id, error: (error as Error).message });
  }
});
