// Which of a contract's `webhooks` a configured event names: its key, or the entry whose
// operationId it is (the platform's webhooks are keyed by operation, named by event).
export function webhookEntry(hooks: Record<string, any>, name: string): [string, any] | undefined {
  if (hooks[name]) return [name, hooks[name]];
  return Object.entries(hooks).find(([, h]) => h?.post?.operationId === name);
}
