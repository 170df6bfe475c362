/**
 * Reading the client's answers: an ElicitResult, a CreateMessageResult, a ListRootsResult. Each
 * reader checks the shape the spec gives and throws InvalidInputResponse (2026: -32602; 2025: a
 * tool error) naming the question, so a confused client learns what it sent wrong.
 */
import { fileURLToPath } from 'node:url';
import { isObject } from '../util/is-object.js';
import { InvalidInputResponse } from './interaction.js';

export type ElicitAction = 'accept' | 'decline' | 'cancel';

export interface ElicitAnswer {
  readonly action: ElicitAction;
  /** The submitted fields (accept only; an empty object when none were sent). */
  readonly content: Record<string, unknown>;
}

export interface Root {
  readonly uri: string;
  readonly name?: string;
}

const invalid = (key: string, expected: string, got: unknown): InvalidInputResponse =>
  new InvalidInputResponse(
    `the answer to input request "${key}" must be ${expected}; got ${JSON.stringify(got)?.slice(0, 200)}`,
  );

export function readElicitResult(key: string, answer: unknown): ElicitAnswer {
  const expected = 'an ElicitResult: {action: "accept" | "decline" | "cancel", content?: {…}}';
  if (!isObject(answer)) throw invalid(key, expected, answer);
  const { action, content } = answer;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel')
    throw invalid(key, expected, answer);
  if (content !== undefined && content !== null && !isObject(content)) throw invalid(key, expected, answer);
  return { action, content: action === 'accept' && isObject(content) ? { ...content } : {} };
}

/** The text of the model's reply; several text blocks are joined, anything else is refused. */
export function readSamplingText(key: string, answer: unknown): string {
  const expected = 'a CreateMessageResult: {role, content: {type: "text", text}, model}';
  if (!isObject(answer)) throw invalid(key, expected, answer);
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  const texts: string[] = [];
  for (const block of blocks) {
    if (!isObject(block)) throw invalid(key, expected, answer);
    if (block.type !== 'text' || typeof block.text !== 'string') {
      throw new InvalidInputResponse(
        `the answer to input request "${key}" holds ${String(block.type)} content; this tool needs the model to reply with text`,
      );
    }
    texts.push(block.text);
  }
  if (texts.length === 0) throw invalid(key, expected, answer);
  return texts.join('\n');
}

export function readRoots(key: string, answer: unknown): Root[] {
  const expected = 'a ListRootsResult: {roots: [{uri, name?}]}';
  if (!isObject(answer) || !Array.isArray(answer.roots)) throw invalid(key, expected, answer);
  return answer.roots.map((root) => {
    if (!isObject(root) || typeof root.uri !== 'string') throw invalid(key, expected, answer);
    if (root.name !== undefined && typeof root.name !== 'string') throw invalid(key, expected, answer);
    return root.name === undefined ? { uri: root.uri } : { uri: root.uri, name: root.name };
  });
}

/** The filesystem path of the first `file:` root, if the client shared one. */
export function firstRootPath(roots: readonly Root[]): string | undefined {
  for (const root of roots) {
    if (!root.uri.startsWith('file:')) continue;
    try {
      return fileURLToPath(root.uri);
    } catch {
      // A malformed file: URI (a remote host, bad escapes) is no folder here; try the next root.
    }
  }
  return undefined;
}
