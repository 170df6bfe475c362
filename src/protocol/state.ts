/** What one protocol instance holds, shared by all its connections. */
import type { CatalogRef } from '../catalog/types.js';
import type { AuditTrail } from '../governance/audit/trail.js';
import type { Logger } from '../log.js';
import type { TaskEngine } from '../tasks/engine.js';
import type { ResourceFollows } from './follows.js';
import type { NotificationHub } from './hub.js';
import type { StateSigner } from './request-state.js';

/** Everything one protocol instance shares across its connections. */
export interface ServerState {
  readonly ref: CatalogRef;
  readonly log: Logger;
  /** Whether list_changed is advertised (and therefore ever sent). */
  readonly listChanged: boolean;
  /** ttlMs on cacheable 2026 results. */
  readonly ttlMs: number;
  /** The capabilities object, built once: both eras advertise the same one. */
  readonly capabilities: object;
  readonly hub: NotificationHub;
  /** The resources followed for their subscribers (an upstream's): counted per URI. */
  readonly follows: ResourceFollows;
  /** Seals and opens the 2026 `requestState` of interactive calls. */
  readonly signer: StateSigner;
  /** Tasks of every connection (tools called now, fetched later). */
  readonly tasks: TaskEngine;
  /** Where each audited request is recorded; undefined without `server.audit`. */
  readonly audit?: AuditTrail;
}
