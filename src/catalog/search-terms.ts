/**
 * The words of tool search (tool-search.ts): how a tool's text and a model's request become terms.
 * Both sides go through the same steps, so a request meets a tool in whatever words either used:
 *
 * - split: snake_case, kebab-case, camelCase, paths and punctuation all part words
 *   (`reposListForOrg` → repos list for org);
 * - a few abbreviations spelled out (`PR` → pull request, `repo` → repository);
 * - common words dropped (a, the, my, …);
 * - stemmed with Porter's first steps (plurals, -ed, -ing: `repositories`, `starred` and `starring`
 *   meet `repository` and `star`), enough for API language without a stemming library;
 * - each term also stands for its synonym group (`~create` for create, add, new, make, open): a
 *   request that says "add" meets a tool that says "create", while the word itself still scores
 *   higher (tool-search.ts weighs group terms less).
 *
 * The synonym table is general API language on purpose, not fitted to one API's names.
 */

/** Abbreviations as users type them, spelled out. */
const ABBREVIATIONS: Readonly<Record<string, readonly string[]>> = {
  pr: ['pull', 'request'],
  prs: ['pull', 'requests'],
  repo: ['repository'],
  repos: ['repositories'],
  org: ['organization'],
  orgs: ['organizations'],
  env: ['environment'],
  envs: ['environments'],
  config: ['configuration'],
  info: ['information'],
  stats: ['statistics'],
  ci: ['workflow'],
  db: ['database'],
  msg: ['message'],
  desc: ['description'],
  perms: ['permissions'],
};

/** Words that carry no meaning for finding a tool. */
const STOPWORDS = new Set(
  (
    'a an the to for of in on at by from with and or is are be been was were it its this that these those ' +
    'we our us you your he she they them their his her can could would should will shall do does have has ' +
    'did please want need like let lets some any into onto about as so just there here what which who whom how ' +
    'when where why via using use also up information details detail'
  ).split(' '),
);

/**
 * Synonym groups of API verbs and nouns; the first word names the group. Words are given plain and
 * stemmed when the table is built.
 */
const SYNONYMS: readonly (readonly string[])[] = [
  ['create', 'add', 'new', 'make', 'open', 'post', 'insert', 'register', 'submit'],
  ['delete', 'remove', 'destroy', 'erase', 'drop', 'purge', 'discard', 'kick', 'expel'],
  ['authenticated', 'current', 'my', 'me', 'mine', 'i', 'myself', 'self'],
  ['list', 'show', 'all', 'enumerate', 'browse', 'every'],
  ['get', 'fetch', 'read', 'view', 'retrieve', 'display', 'lookup', 'inspect', 'check'],
  ['update', 'edit', 'change', 'modify', 'patch', 'alter', 'set', 'adjust'],
  ['search', 'find', 'query', 'look', 'locate'],
  ['issue', 'bug', 'ticket'],
  ['star', 'favorite', 'bookmark'],
  ['fork', 'copy'],
  ['user', 'person', 'people', 'account', 'someone'],
  ['member', 'collaborator', 'contributor'],
  ['organization', 'company'],
  ['comment', 'reply', 'remark'],
  ['workflow', 'pipeline', 'action'],
  ['secret', 'credential', 'password'],
  ['notification', 'inbox'],
  ['cancel', 'stop', 'abort', 'halt'],
  ['rerun', 'retry', 'restart'],
  ['enable', 'activate'],
  ['disable', 'deactivate'],
  ['webhook', 'hook', 'callback'],
  ['file', 'content', 'document'],
  ['gist', 'snippet', 'paste'],
  ['subscription', 'subscribe', 'watch', 'watcher'],
  ['permission', 'access', 'role', 'right'],
  ['block', 'ban'],
  ['commit', 'changeset', 'revision'],
  ['compare', 'diff', 'difference'],
  ['statistics', 'metric', 'analytics', 'insight', 'traffic', 'visit', 'visitor'],
  ['limit', 'quota', 'remaining'],
  ['review', 'approve', 'approval'],
  ['branch', 'ref', 'reference'],
  ['email', 'mail'],
  ['download', 'archive', 'export'],
  ['rename', 'move'],
  ['invite', 'invitation'],
];

/** Term → its synonym group's term (`~create`), built once. */
let groups: Map<string, string> | undefined;

function synonymGroups(): Map<string, string> {
  if (groups !== undefined) return groups;
  groups = new Map();
  for (const words of SYNONYMS) {
    const name = `~${stem(words[0]!)}`;
    for (const word of words) groups.set(stem(word), name);
  }
  return groups;
}

/** Whether a term stands for a synonym group rather than a word. */
export const isGroupTerm = (term: string): boolean => term.startsWith('~');

/** Splits text into words: camelCase, snake_case, paths and punctuation part them. */
export function tokenize(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/**
 * One word as terms: lower-cased, spelled out, without stopwords, stemmed, each with its synonym
 * group. Null when nothing is left.
 */
export function processTerm(word: string): string[] | null {
  const lower = word.toLowerCase();
  const words = ABBREVIATIONS[lower] ?? [lower];
  const terms: string[] = [];
  for (const w of words) {
    if (STOPWORDS.has(w)) continue;
    const term = stem(w);
    terms.push(term);
    const group = synonymGroups().get(term);
    if (group !== undefined) terms.push(group);
  }
  return terms.length > 0 ? terms : null;
}

const VOWEL = /[aeiou]/;

/** Porter's measure: the number of vowel-consonant sequences in `word`. */
function measure(word: string): number {
  const form = word.replace(/[^aeiouy]+/g, 'C').replace(/[aeiouy]+/g, 'V');
  return (form.match(/VC/g) ?? []).length;
}

const hasVowel = (word: string): boolean => VOWEL.test(word) || /.y/.test(word);
const doubleConsonant = (word: string): boolean => /([^aeiouylsz])\1$/.test(word);
/** Consonant-vowel-consonant at the end, the last not w, x or y (hop, not hoop). */
const cvc = (word: string): boolean => /[^aeiou][aeiouy][^aeiouwxy]$/.test(word);

/**
 * Porter's steps 1a, 1b and 1c, plus -ation and -ness: plurals, past tenses and gerunds meet their
 * stem (`repositories` and `repository` → `repositori`, `starred` → `star`). Short words and numbers
 * are kept as they are.
 */
export function stem(word: string): string {
  if (word.length < 3 || /\d/.test(word)) return word;
  let w = word;
  // 1a
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('ss')) {
    /* kept */
  } else if (w.endsWith('s') && w.length > 3) w = w.slice(0, -1);
  // 1b
  let cleanup = false;
  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
  } else if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) {
    w = w.slice(0, -2);
    cleanup = true;
  } else if (w.endsWith('ing') && hasVowel(w.slice(0, -3)) && w.length > 5) {
    w = w.slice(0, -3);
    cleanup = true;
  }
  if (cleanup) {
    if (/(at|bl|iz)$/.test(w)) w += 'e';
    else if (doubleConsonant(w)) w = w.slice(0, -1);
    else if (measure(w) === 1 && cvc(w)) w += 'e';
  }
  // 1c
  if (w.endsWith('y') && hasVowel(w.slice(0, -1))) w = `${w.slice(0, -1)}i`;
  // A few of step 2's and 3's suffixes that API words use.
  if (w.endsWith('ation') && measure(w.slice(0, -5)) > 0) w = `${w.slice(0, -5)}ate`;
  else if (w.endsWith('ness') && measure(w.slice(0, -4)) > 0) w = w.slice(0, -4);
  else if (w.endsWith('er') && measure(w.slice(0, -2)) > 1) w = w.slice(0, -2);
  // A final e, as step 5 drops it: `delete` meets `deleting` and `deleted`.
  if (w.endsWith('e') && measure(w.slice(0, -1)) > 1) w = w.slice(0, -1);
  else if (w.endsWith('e') && measure(w.slice(0, -1)) === 1 && !cvc(w.slice(0, -1))) w = w.slice(0, -1);
  return w;
}
