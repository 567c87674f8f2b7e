// Nested transactions as savepoints, the same on both stores (db/sql.ts: a transaction opened
// inside an open one is a savepoint of it). The savepoints of one frame are a stack: one opened
// beside an open sibling waits for it (two callbacks awaiting side by side would otherwise nest
// into each other's savepoint); a throw rolls back to the savepoint and is thrown on, the rest
// of the transaction standing; what a released savepoint noted joins its parent.

/** A transaction or savepoint of a store, in the async context of its callback. */
export interface Frame {
  open: boolean;
  /** The last nested savepoint of this frame, settled or not: the next one starts after it. */
  chain: Promise<unknown>;
  /** Nested savepoints started and not yet settled: with none, the next starts at once (no turn lost). */
  running: number;
  depth: number;
}

export interface SavepointSteps<F extends Frame> {
  /** The child frame at `depth`. */
  frame(depth: number): F;
  /** Runs one statement of the savepoint's own (SAVEPOINT, RELEASE, ROLLBACK TO) on the transaction's connection. */
  exec(sql: string): unknown;
  /** Runs the callback with `frame` as the caller's context. */
  enter<T>(frame: F, fn: () => Promise<T>): Promise<T>;
  /** After a release: the child's notes join the parent's. */
  released(child: F): void;
}

export function inSavepoint<F extends Frame, T>(parent: F, steps: SavepointSteps<F>, fn: () => Promise<T>): Promise<T> {
  const body = async (): Promise<T> => {
    const name = `sp${parent.depth + 1}`;
    const frame = steps.frame(parent.depth + 1);
    try {
      await steps.exec(`SAVEPOINT ${name}`);
    } catch (error) {
      parent.running--;
      throw error;
    }
    try {
      const result = await steps.enter(frame, fn);
      await steps.exec(`RELEASE SAVEPOINT ${name}`);
      steps.released(frame);
      return result;
    } catch (error) {
      await steps.exec(`ROLLBACK TO SAVEPOINT ${name}`);
      await steps.exec(`RELEASE SAVEPOINT ${name}`);
      throw error;
    } finally {
      frame.open = false;
      parent.running--;
    }
  };
  const turn = parent.running++ === 0 ? body() : parent.chain.then(body);
  parent.chain = turn.catch(() => {});
  return turn;
}
