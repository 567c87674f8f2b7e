// Test recipients (decision H4), as Resend's delivered@/bounced@/complained@ and SES's mailbox
// simulator: every address of the reserved domain SANDBOX_DOMAIN answers the relay with a fixed
// behaviour chosen by its local part, in-process (no DNS, no socket). What follows goes through the
// real state machine: the relay records the reply as from any server, and the recipient's later
// reactions (a DSN, a complaint report, an open, a click) come back through the paths real ones take
// (sandbox-reactions.ts).
import type { RelayResult } from "../../adapters/smtp-relay.ts";

/** Reserved: `.test` names resolve nowhere (RFC 2606), so no real mail can be meant for it. */
export const SANDBOX_DOMAIN = "sandbox.platform.test";

export const SANDBOX_BEHAVIOURS = ["delivered", "bounced", "softbounced", "complained", "opened", "clicked", "delayed"] as const;
export type SandboxBehaviour = (typeof SANDBOX_BEHAVIOURS)[number];

/** What the recipient does after its server accepted the message (a `mail.sandbox` job). */
export type SandboxReaction = "bounced" | "complained" | "opened" | "clicked";

const REACTIONS = new Set<string>(["bounced", "complained", "opened", "clicked"]);

export function isSandboxAddress(rcpt: string): boolean {
  return rcpt.slice(rcpt.lastIndexOf("@") + 1).toLowerCase() === SANDBOX_DOMAIN;
}

/** The behaviour of `bounced+anything@`: the part before `+`, so each test can have a fresh (unsuppressed) address. */
export function behaviourOf(rcpt: string): SandboxBehaviour | undefined {
  const local = rcpt.slice(0, rcpt.lastIndexOf("@")).toLowerCase().split("+")[0];
  return (SANDBOX_BEHAVIOURS as readonly string[]).includes(local) ? (local as SandboxBehaviour) : undefined;
}

export function reactionOf(rcpt: string): SandboxReaction | undefined {
  const b = behaviourOf(rcpt);
  return b && REACTIONS.has(b) ? (b as SandboxReaction) : undefined;
}

const HOST = SANDBOX_DOMAIN;

/** The sandbox server's answer to attempt number `attempt` (1 for the first) for these recipients. */
export function sandboxAnswer(rcpts: string[], attempt: number): RelayResult {
  const behaviour = behaviourOf(rcpts[0]);
  switch (behaviour) {
    case undefined:
      return { kind: "rejected", code: 550, host: HOST, reply: `550 5.1.1 <${rcpts[0]}>: not a sandbox recipient; the local part is one of ${SANDBOX_BEHAVIOURS.join(", ")} (optionally +tag)` };
    case "delayed":
      return { kind: "deferred", code: 451, host: HOST, reply: "451 4.2.1 sandbox: mailbox busy, try again later (every attempt)" };
    case "softbounced":
      if (attempt <= 1) return { kind: "deferred", code: 451, host: HOST, reply: "451 4.2.2 sandbox: mailbox full, try again later (first attempt only)" };
      break;
  }
  return { kind: "accepted", host: HOST, reply: `250 2.0.0 sandbox: accepted (${behaviour})`, rejected: [] };
}
