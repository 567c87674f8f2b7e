// The vocabulary of a DLP policy, apart from the scanner so the console can use it without
// loading parsers.
import type { DlpType } from "./dlp-port.ts";

export const ALL_TYPES: readonly DlpType[] = ["card", "track", "iban", "swift", "fin", "passport", "voen", "secret", "confidential", "encrypted"];
/** What the scanner reads (the policy's `attachmentTypes`); images only with OCR on. */
export const ATTACHMENT_TYPES = ["txt", "csv", "json", "html", "docx", "xlsx", "pptx", "pdf", "zip"];
export const OCR_TYPES = ["png", "jpeg"];
