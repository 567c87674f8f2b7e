// A function of a string, remembered for the most recent keys: for what is costly to derive and
// never changes for the same key (a parsed private key from its PEM, an HMAC key from a sealed
// secret, a target URL's verdict). Bounded, the oldest key forgotten first; a compute that throws
// remembers nothing.
export class BoundedMemo<T> {
  private readonly compute: (key: string) => T;
  private readonly max: number;
  private readonly values = new Map<string, T>();

  constructor(max: number, compute: (key: string) => T) {
    this.max = max;
    this.compute = compute;
  }

  get(key: string): T {
    let value = this.values.get(key);
    if (value === undefined) {
      value = this.compute(key);
      if (this.values.size >= this.max) this.values.delete(this.values.keys().next().value!);
      this.values.set(key, value);
    }
    return value;
  }

  get size(): number {
    return this.values.size;
  }
}
