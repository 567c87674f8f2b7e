// The id of a smarthost's 250 reply becomes `relayMessageId` (S11): the shapes real MTAs answer.
import { expect, it } from "vitest";
import { queueIdOf } from "./smtp-relay.ts";

it.each([
  ["250 2.0.0 Ok: queued as ABC123", "ABC123"],
  ["250 Ok: queued as 4Xq9Lm0Zk2z1", "4Xq9Lm0Zk2z1"],
  ["250 OK id=1rAbCd-000Ab1-Xy", "1rAbCd-000Ab1-Xy"],
  ["250 2.0.0 3AL1Xyz0012345 Message accepted for delivery", "3AL1Xyz0012345"],
  ["250 2.0.0 OK  1700000000 d12-20020a05.123 - gsmtp", "d12-20020a05.123"],
  ["250 2.6.0 <a1b2@mail.example> [InternalId=123, Hostname=X] Queued mail for delivery", "a1b2@mail.example"],
  ["250 Ok 0100018bc0ffee00-11112222-000000", "0100018bc0ffee00-11112222-000000"],
])("%s -> %s", (reply, id) => {
  expect(queueIdOf(reply)).toBe(id);
});

it.each(["250 OK", "250 2.0.0 Message accepted", "250 Thanks"])("%s names no id", (reply) => {
  expect(queueIdOf(reply)).toBeUndefined();
});
