/** `escapeControls`: what a terminal would act on is shown escaped; what only lays text out stays. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { escapeControls } from '../../src/cli/print.js';

describe('escapeControls', () => {
  const cases: [string, string, string][] = [
    ['CSI: clear the screen', 'a\x1b[2Jb', 'a\\x1b[2Jb'],
    [
      'OSC 8 link with BEL',
      '\x1b]8;;http://evil\x07click\x1b]8;;\x07',
      '\\x1b]8;;http://evil\\x07click\\x1b]8;;\\x07',
    ],
    ['a lone CR that overwrites the line', 'safe\rrm -rf', 'safe\\x0drm -rf'],
    ['NUL, backspace, vertical tab, form feed, DEL', '\x00\x08\x0b\x0c\x7f', '\\x00\\x08\\x0b\\x0c\\x7f'],
    ['C1 controls: CSI U+009B, NEL U+0085', 'x\u009b31my\u0085', 'x\\u009b31my\\u0085'],
    [
      'bidi overrides and isolates',
      '\u202aa\u202bb\u202cc\u202dd\u202ee\u2066f\u2067g\u2068h\u2069',
      '\\u202aa\\u202bb\\u202cc\\u202dd\\u202ee\\u2066f\\u2067g\\u2068h\\u2069',
    ],
    ['tab, newline and CRLF lay text out', 'a\tb\nc\r\nd', 'a\tb\nc\r\nd'],
    ['other text is untouched', 'café — 注文 🛒 \\x1b', 'café — 注文 🛒 \\x1b'],
  ];
  for (const [what, given, shown] of cases) test(what, () => assert.equal(escapeControls(given), shown));
});
