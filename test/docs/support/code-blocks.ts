import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * How a code block of the documents is checked, from its language and the
 * marker comment on the line right above its opening fence:
 *
 *     <!-- example: <part>; <part>; … -->
 *
 * where a part is one of
 *
 * - a kind: `shell` (the default for sh), `node` (js, mjs, ts), `config`
 *   (yaml: Herald's config file, through loadConfig), `helm-values` (yaml:
 *   values for charts/herald, through helm template), `push-data` (json: the
 *   `data` of a push, sent to a Herald);
 * - `skip: <reason>`: the block is neither run nor checked, and the test
 *   prints the reason (output, diagrams, outlines with elided values);
 * - `sub <from> <to>`: replace the text `<from>` by `<to>` before running;
 *   a `<to>` of the form `$NAME` is the value of the test's variable NAME
 *   (`sub myapp $APP_ID`); a placeholder with spaces is quoted
 *   (`sub "<hosted app id>" $APP_ID`);
 * - `at <path>`: a config fragment, placed at this path of a config whose
 *   one app is the test's (`at apps.0.settings`);
 * - `keys`: apps of a config block without keys get the test's;
 * - `over <file>`: helm values applied over this values file;
 * - `expect <text>`: the block's output must contain the text.
 *
 * A block of another language, or a json or plain block, must carry a kind
 * or a skip: no block goes unchecked.
 */
export interface CodeBlock {
  /** Repository-relative file and the line of the opening fence. */
  file: string;
  line: number;
  language: string;
  text: string;
  kind: BlockKind | undefined;
  skip: string | undefined;
  subs: [string, string][];
  at: string | undefined;
  keys: boolean;
  over: string | undefined;
  expect: string[];
}

export type BlockKind = 'shell' | 'node' | 'config' | 'helm-values' | 'push-data';

const kinds: readonly BlockKind[] = ['shell', 'node', 'config', 'helm-values', 'push-data'];
const defaultKinds: Record<string, BlockKind> = { sh: 'shell', bash: 'shell', shell: 'shell', js: 'node', mjs: 'node', ts: 'node', yaml: 'config', yml: 'config' };

/** The fenced code blocks of a Markdown file, with their markers; throws on a marker it cannot read. */
export function codeBlocksOf(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index] as string);
    if (open === null) continue;
    const [, indent = '', fence = '', language = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length && !(lines[end] as string).trim().startsWith(fence); end += 1) body.push((lines[end] as string).startsWith(indent) ? (lines[end] as string).slice(indent.length) : (lines[end] as string));
    if (end >= lines.length) throw new Error(`${file}:${index + 1}: the code block is never closed`);
    const marker = /^\s*<!--\s*example:(.*?)-->\s*$/.exec(lines[index - 1] ?? '')?.[1];
    blocks.push({ file: relative(root, join(root, file)), line: index + 1, language, text: body.join('\n'), ...readMarker(marker, `${file}:${index}`, language) });
    index = end;
  }
  return blocks;
}

function readMarker(marker: string | undefined, where: string, language: string): Omit<CodeBlock, 'file' | 'line' | 'language' | 'text'> {
  const block: Omit<CodeBlock, 'file' | 'line' | 'language' | 'text'> = { kind: defaultKinds[language], skip: undefined, subs: [], at: undefined, keys: false, over: undefined, expect: [] };
  if (marker === undefined) return block;
  const skipAt = marker.search(/(^|;)\s*skip:/);
  const parts = (skipAt < 0 ? marker : marker.slice(0, skipAt)).split(';').map((part) => part.trim()).filter((part) => part !== '');
  if (skipAt >= 0) {
    block.skip = marker.slice(marker.indexOf('skip:', skipAt) + 'skip:'.length).trim();
    if (block.skip === '') throw new Error(`${where}: a skip marker must say why`);
  }
  for (const part of parts) {
    // Words, or "quoted words" for a placeholder with spaces (sub "<hosted app id>" $APP_ID).
    const [word = '', ...rest] = [...part.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? (match[2] as string));
    if ((kinds as readonly string[]).includes(part)) block.kind = part as BlockKind;
    else if (word === 'sub' && rest.length === 2) block.subs.push([rest[0] as string, rest[1] as string]);
    else if (word === 'at' && rest.length === 1) block.at = rest[0];
    else if (word === 'over' && rest.length === 1) block.over = rest[0];
    else if (word === 'expect' && rest.length > 0) block.expect.push(rest.join(' '));
    else if (part === 'keys') block.keys = true;
    else throw new Error(`${where}: cannot read "${part}" in the example marker`);
  }
  return block;
}

/**
 * The block's text with its substitutions and the test's own (addresses)
 * made; `variables` are the values a `$NAME` target stands for.
 */
export function substituted(block: CodeBlock, global: readonly [string, string][], variables: Readonly<Record<string, string>> = {}): string {
  let text = block.text;
  for (const [from, to] of [...block.subs, ...global]) {
    const name = /^\$(\w+)$/.exec(to)?.[1];
    const value = name === undefined ? to : variables[name];
    if (value === undefined) throw new Error(`${block.file}:${block.line}: sub ${from} names $${name}, which the test does not set`);
    text = text.split(from).join(value);
  }
  return text;
}
