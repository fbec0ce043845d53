const literalPattern = /true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The keys that occur more than once in one object of a JSON text, as
 * dotted paths (`app`, `req.headers.host`). JSON.parse keeps the last of
 * repeated keys without a word, so a check for them has to read the text.
 * Throws on text that is not JSON.
 */
export function duplicateJsonKeys(text: string): string[] {
  const repeats: string[] = [];
  let at = 0;

  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at ${at} in ${text.slice(0, 200)}`);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\r\n'.includes(text[at] as string)) at += 1;
  };
  const readString = (): string => {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    if (at >= text.length) fail('unterminated string');
    at += 1;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const readValue = (path: string): void => {
    skipSpace();
    const char = text[at];
    if (char === '{') {
      at += 1;
      const seen = new Set<string>();
      skipSpace();
      if (text[at] === '}') {
        at += 1;
        return;
      }
      for (;;) {
        skipSpace();
        if (text[at] !== '"') fail('expected a key');
        const key = readString();
        const keyPath = path === '' ? key : `${path}.${key}`;
        if (seen.has(key)) repeats.push(keyPath);
        seen.add(key);
        skipSpace();
        if (text[at] !== ':') fail('expected :');
        at += 1;
        readValue(keyPath);
        skipSpace();
        if (text[at] === ',') at += 1;
        else if (text[at] === '}') {
          at += 1;
          return;
        } else fail('expected , or }');
      }
    }
    if (char === '[') {
      at += 1;
      skipSpace();
      if (text[at] === ']') {
        at += 1;
        return;
      }
      for (let index = 0; ; index += 1) {
        readValue(`${path}[${index}]`);
        skipSpace();
        if (text[at] === ',') at += 1;
        else if (text[at] === ']') {
          at += 1;
          return;
        } else fail('expected , or ]');
      }
    }
    if (char === '"') {
      readString();
      return;
    }
    literalPattern.lastIndex = at;
    const literal = literalPattern.exec(text);
    if (!literal) fail('unexpected character');
    at += (literal as RegExpExecArray)[0].length;
  };

  readValue('');
  skipSpace();
  if (at !== text.length) fail('text after the value');
  return repeats;
}
