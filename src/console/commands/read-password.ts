/** Where a password is read from: a terminal to prompt at, or a pipe. */
export interface PasswordInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Shortest console password accepted. */
export const minPasswordChars = 12;
const maxPasswordChars = 1024;

/**
 * The password from standard input: its first line when piped in, or
 * typed twice at a terminal without being echoed. Answers a problem instead
 * when it is missing, too short or too long, or the two differ.
 */
export async function readPassword(input: PasswordInput, prompt: NodeJS.WritableStream): Promise<string | { problem: string }> {
  let password: string;
  if (input.isTTY === true && input.setRawMode !== undefined) {
    password = await typed(input, prompt, 'Password: ');
    const again = await typed(input, prompt, 'Password again: ');
    if (again !== password) return { problem: 'the two passwords differ' };
  } else {
    password = (await piped(input)).split(/\r?\n/)[0] ?? '';
  }
  if (password.length < minPasswordChars) return { problem: `the password needs at least ${minPasswordChars} characters` };
  if (password.length > maxPasswordChars) return { problem: `the password has more than ${maxPasswordChars} characters` };
  return password;
}

async function piped(input: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk).toString('utf8');
    if (text.length > maxPasswordChars * 4) break;
  }
  return text;
}

/** One line typed at the terminal, in raw mode so it is not echoed; Ctrl-C gives up. */
function typed(input: PasswordInput, prompt: NodeJS.WritableStream, question: string): Promise<string> {
  prompt.write(question);
  input.setRawMode?.(true);
  input.resume();
  return new Promise((resolve) => {
    let line = '';
    const done = (value: string) => {
      input.removeListener('data', onData);
      input.setRawMode?.(false);
      input.pause();
      prompt.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return done(line);
        if (char === '\u0003') return done('');
        if (char === '\u007f' || char === '\b') line = line.slice(0, -1);
        else line += char;
      }
    };
    input.on('data', onData);
  });
}
