/**
 * Collections for what comes and goes at request rate inside something that lives long: the
 * responses a server has open, the requests in flight on a connection.
 *
 * A plain Map or Set there keeps every request's objects alive past V8's young generation. Under
 * churn its hash table is rebuilt every few dozen operations, and the table it leaves still points
 * at the members it held then, and at the table that replaced it. Once the collection is old, so is
 * that abandoned table, and the scavenger takes every pointer from the old generation as live: each
 * request that was in flight at a rebuild survives until the next full collection. Serving a SQL
 * tool over HTTP at 8 connections, 8 to 14% of all the bytes a call allocated were promoted that
 * way (a whole request: its IncomingMessage, ServerResponse, headers and scope), and collecting
 * them took about a third of each call's CPU.
 *
 * - LiveSet keeps its members in an array: a removed member's place is cleared and reused, so the
 *   array is as long as the most members ever held at once.
 * - LiveMap keeps each value in a slot that is emptied when its key is removed, so an abandoned table
 *   holds only the key and an empty slot.
 */

/** A set of members added and removed often; `add` gives the member's place, `delete` takes it. */
export class LiveSet<T extends object> {
  private readonly places: (T | undefined)[] = [];
  private readonly free: number[] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds `member` and returns its place, for `delete`. */
  add(member: T): number {
    const at = this.free.pop() ?? this.places.length;
    this.places[at] = member;
    this.count++;
    return at;
  }

  /** Removes `member` from its place; nothing if it is no longer there (removed twice). */
  delete(at: number, member: T): void {
    if (this.places[at] !== member) return;
    this.places[at] = undefined;
    this.free.push(at);
    this.count--;
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const member of this.places) if (member !== undefined) yield member;
  }
}

/** A map whose entries are set and deleted often (see the file's comment for why not a Map). */
export class LiveMap<K, V> {
  private readonly slots = new Map<K, { value: V | undefined }>();

  get size(): number {
    return this.slots.size;
  }

  get(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  has(key: K): boolean {
    return this.slots.has(key);
  }

  set(key: K, value: V): void {
    const slot = this.slots.get(key);
    if (slot === undefined) this.slots.set(key, { value });
    else slot.value = value;
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    slot.value = undefined;
    return this.slots.delete(key);
  }

  clear(): void {
    for (const slot of this.slots.values()) slot.value = undefined;
    this.slots.clear();
  }

  values(): V[] {
    const values: V[] = [];
    for (const slot of this.slots.values()) values.push(slot.value!);
    return values;
  }
}
