// Issuing a key, shared by the console and the demo seed: the plain key exists only in the
// return value, to be printed once.
import { generateApiKey } from "./api-key.ts";
import type { ApiKeyRecord, KeyRepository } from "./key-repository.ts";

export const DEFAULT_RATE_LIMIT = 120;

export interface IssueKeyInput {
  projectId: string;
  name: string;
  scopes: string[];
  rateLimit?: number;
  dailyQuota?: number | null;
  monthlyQuota?: number | null;
}

export async function issueKey(keys: KeyRepository, input: IssueKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const { key, hash, hint } = generateApiKey();
  const record = await keys.create({
    projectId: input.projectId,
    name: input.name,
    hash,
    hint,
    scopes: input.scopes,
    rateLimit: input.rateLimit ?? DEFAULT_RATE_LIMIT,
    dailyQuota: input.dailyQuota ?? null,
    monthlyQuota: input.monthlyQuota ?? null,
  });
  return { key, record };
}
