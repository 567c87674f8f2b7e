// Where a claim of a mail domain stands (decisions O1-O6), and how an owner proved control.

/**
 * `pending`: not proven (yet); `verified`: this project owns the name; `lost`: it was verified and
 * its proof is gone; `ended`: another project proved control first, or the name lies in a zone
 * another project hosts here. Only `verified` sends, receives and gets new mailboxes.
 */
export type ClaimStatus = "pending" | "verified" | "lost" | "ended";

/** How a verified claim proved control: its token found in DNS, or its zone hosted here by the project. */
export type ProofMethod = "dns" | "hosting";
