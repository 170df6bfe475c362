/**
 * Task ids: 128 random bits from the system CSPRNG, base64url (22 characters). A task id is all a
 * 2026 caller without credentials needs to read a task, so it must be unguessable; binding to the
 * caller (engine.ts) is the second lock.
 */
import { nodeCrypto } from '../util/lazy-node.js';

export function newTaskId(): string {
  return nodeCrypto().randomBytes(16).toString('base64url');
}
