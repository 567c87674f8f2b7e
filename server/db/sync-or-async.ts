// Chaining a value that is synchronous on SQLite and a promise on PostgreSQL (decision P1), for
// code inside backend.transact: on SQLite the whole chain must stay synchronous (the transaction
// refuses a promise), so `then` cannot be used unconditionally.

/** `fn(value)`, at once when value is not a promise, after it resolves when it is. */
export function after<T, U>(value: T | Promise<T>, fn: (value: T) => U | Promise<U>): U | Promise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
