/**
 * A JSON Schema object, as plain data. It lives at the bottom of src/ because every layer handles
 * schemas: the manifest pipeline compiles the ones users write (manifest/user-schemas.ts), the kinds
 * declare theirs, the catalog and the protocol serve them. kinds/contract/types.ts re-exports it, so
 * a kind still imports only its contract.
 */
export type JsonSchema = { [key: string]: unknown };
