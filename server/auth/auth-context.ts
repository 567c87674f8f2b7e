/** What every handler learns about the caller: the key's project decides what it can reach. */
export interface AuthContext {
  projectId: string;
  keyId: string;
  scopes: string[];
}
