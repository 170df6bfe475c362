/**
 * A name no other holder has, in this process or on another replica sharing the same store: the
 * time and two draws of V8's randomly seeded generator. Only for names that must be unique but
 * need not be secret (nobody chooses or guesses their way into one); ids a client holds come from
 * node:crypto. This one does not load node:crypto, which a stdio start otherwise would not need.
 */
export function uniqueName(): string {
  const draw = () => Math.random().toString(36).slice(2);
  return `${Date.now().toString(36)}.${draw()}${draw()}`;
}
