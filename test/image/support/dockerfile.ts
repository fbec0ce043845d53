/** One instruction of a Dockerfile, its continuation lines joined. */
export interface DockerInstruction {
  /** Upper case: FROM, RUN, COPY… */
  keyword: string;
  /** Everything after the keyword, as written. */
  args: string;
}

/** A build stage: its FROM and the instructions up to the next FROM. */
export interface DockerStage {
  image: string;
  /** The `AS` name, if any. */
  name: string | undefined;
  instructions: DockerInstruction[];
}

/** A COPY or ADD: where from (a stage name, or undefined for the build context), what and where to. */
export interface DockerCopy {
  from: string | undefined;
  sources: string[];
  destination: string;
}

/**
 * Reads a Dockerfile the way the builder splits it: comment lines dropped
 * (also inside a continued instruction), `\` continuations joined, then one
 * stage per FROM. Enough for the instructions Herald's Dockerfile uses; no
 * variable expansion and no heredocs.
 */
export function parseDockerfile(text: string): DockerStage[] {
  const instructions: DockerInstruction[] = [];
  let pending = '';
  for (const line of text.split('\n')) {
    if (/^\s*#/.test(line)) continue;
    const continued = /\\\s*$/.test(line);
    pending += `${continued ? line.replace(/\\\s*$/, '') : line} `;
    if (continued) continue;
    const joined = pending.trim();
    pending = '';
    if (joined === '') continue;
    const match = /^(\S+)\s*(.*)$/.exec(joined);
    if (match === null) throw new Error(`cannot read the Dockerfile line "${joined}"`);
    instructions.push({ keyword: (match[1] as string).toUpperCase(), args: (match[2] as string).trim() });
  }
  if (pending.trim() !== '') throw new Error(`the Dockerfile ends inside a continued instruction: "${pending.trim()}"`);
  const stages: DockerStage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (from === null) throw new Error(`cannot read FROM ${instruction.args}`);
      stages.push({ image: from[1] as string, name: from[2], instructions: [] });
    } else if (stages.length > 0) {
      stages.at(-1)?.instructions.push(instruction);
    } else if (instruction.keyword !== 'ARG') {
      throw new Error(`${instruction.keyword} before the first FROM`);
    }
  }
  return stages;
}

/** The instructions of a stage with this keyword. */
export function instructionsOf(stage: DockerStage, keyword: string): DockerInstruction[] {
  return stage.instructions.filter((instruction) => instruction.keyword === keyword);
}

/** The one instruction of a stage with this keyword; fails when there is none or more than one. */
export function onlyInstruction(stage: DockerStage, keyword: string): DockerInstruction {
  const found = instructionsOf(stage, keyword);
  if (found.length !== 1) throw new Error(`expected one ${keyword} in the stage FROM ${stage.image}, found ${found.length}`);
  return found[0] as DockerInstruction;
}

/** The JSON array of an exec-form instruction (`CMD ["node", …]`); fails on the shell form. */
export function execForm(args: string): string[] {
  if (!args.startsWith('[')) throw new Error(`not in exec form: ${args}`);
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === 'string')) throw new Error(`not an array of strings: ${args}`);
  return parsed;
}

/** `key=value` pairs of LABEL, ENV and ARG, double quotes removed. */
export function keyValues(args: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of args.matchAll(/([\w.-]+)(?:=("(?:[^"\\]|\\.)*"|\S*))?/g)) {
    const raw = match[2] ?? '';
    pairs[match[1] as string] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return pairs;
}

/** Every COPY of a stage: `--from=<stage>` or the build context, sources and destination. */
export function copiesOf(stage: DockerStage): DockerCopy[] {
  return instructionsOf(stage, 'COPY').map(({ args }) => {
    const words = args.split(/\s+/);
    const options = words.filter((word) => word.startsWith('--'));
    const paths = words.filter((word) => !word.startsWith('--'));
    const from = options.find((option) => option.startsWith('--from='))?.slice('--from='.length);
    if (paths.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
    return { from, sources: paths.slice(0, -1), destination: paths.at(-1) as string };
  });
}
