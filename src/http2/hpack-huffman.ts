/**
 * HPACK's Huffman code (RFC 7541, Appendix B), decoding only: Herald sends
 * its own header strings raw and reads the gateways' answers, which servers
 * usually Huffman-encode.
 *
 * The code is canonical, so the bit length of each symbol (0–255, and 256 for
 * EOS) is all it takes to rebuild it: codes of one length are consecutive in
 * symbol order, and each length starts where the shorter ones left off.
 */
const codeLengths = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];

const eos = 256;

/** Each symbol's code, rebuilt from the lengths (codes up to 30 bits fit a double exactly). */
export function huffmanCodes(): { code: number; bits: number }[] {
  const symbols = codeLengths.map((bits, symbol) => ({ symbol, bits })).sort((a, b) => a.bits - b.bits || a.symbol - b.symbol);
  const codes = new Array<{ code: number; bits: number }>(codeLengths.length);
  let code = 0;
  let bits = symbols[0]?.bits ?? 0;
  for (const [rank, entry] of symbols.entries()) {
    if (rank > 0) {
      code = (code + 1) * 2 ** (entry.bits - bits);
      bits = entry.bits;
    }
    codes[entry.symbol] = { code, bits };
  }
  return codes;
}

/**
 * The decoder is a state machine that reads four bits at a time: a state is
 * a node of the code's tree (0 the root), and for each state and nibble the
 * tables give the next state and the symbol completed on the way, if any (a
 * code is at least five bits long, so a nibble completes at most one).
 */
interface NibbleTables {
  next: Uint16Array;
  /** The symbol a step completes, or -1. */
  emit: Int16Array;
  /** Whether ending in a state is proper padding: the bits since the last symbol are all ones, and fewer than eight. */
  accepts: Uint8Array;
}

function buildNibbleTables(): NibbleTables {
  // The tree: children[node * 2 + bit] is an inner node (> 0), or a leaf as -(symbol + 1); 0 means no child yet.
  const children: number[] = [0, 0];
  let nodes = 1;
  for (const [symbol, { code, bits }] of huffmanCodes().entries()) {
    let node = 0;
    for (let bit = bits - 1; bit >= 0; bit -= 1) {
      const slot = node * 2 + (Math.floor(code / 2 ** bit) % 2);
      if (bit === 0) {
        children[slot] = -(symbol + 1);
      } else {
        if (children[slot] === 0) {
          children[slot] = nodes;
          nodes += 1;
          children.push(0, 0);
        }
        node = children[slot] as number;
      }
    }
  }
  // A node reached from the root by ones only, and how deep.
  const onesDepth = new Int8Array(nodes).fill(-1);
  for (let node = 0, depth = 0; node >= 0 && node < nodes && depth < 8; depth += 1) {
    onesDepth[node] = depth;
    const next = children[node * 2 + 1] as number;
    node = next > 0 ? next : -1;
  }
  const next = new Uint16Array(nodes * 16);
  const emit = new Int16Array(nodes * 16).fill(-1);
  for (let state = 0; state < nodes; state += 1) {
    for (let nibble = 0; nibble < 16; nibble += 1) {
      let node = state;
      for (let bit = 3; bit >= 0; bit -= 1) {
        const child = children[node * 2 + ((nibble >> bit) & 1)] as number;
        if (child > 0) {
          node = child;
        } else {
          emit[state * 16 + nibble] = -child - 1;
          node = 0;
        }
      }
      next[state * 16 + nibble] = node;
    }
  }
  const accepts = new Uint8Array(nodes);
  for (let node = 0; node < nodes; node += 1) accepts[node] = (onesDepth[node] as number) >= 0 ? 1 : 0;
  return { next, emit, accepts };
}

const tables = buildNibbleTables();

/** Why a Huffman string was refused; the connection answers COMPRESSION_ERROR. */
export class HuffmanError extends Error {}

let scratch = Buffer.allocUnsafe(1024);

/**
 * Decodes `input[start, end)` to a string of octets (latin1). Refuses EOS in
 * the string and padding that is not a proper prefix of EOS (RFC 7541, 5.2).
 */
export function decodeHuffman(input: Uint8Array, start: number, end: number): string {
  // Each symbol takes at least five bits.
  const most = Math.ceil(((end - start) * 8) / 5);
  if (scratch.length < most) scratch = Buffer.allocUnsafe(Math.max(most, scratch.length * 2));
  const out = scratch;
  const { next, emit, accepts } = tables;
  let state = 0;
  let length = 0;
  for (let index = start; index < end; index += 1) {
    const byte = input[index] as number;
    let step = state * 16 + (byte >> 4);
    let symbol = emit[step] as number;
    if (symbol >= 0) {
      if (symbol === eos) throw new HuffmanError('EOS inside a Huffman string');
      out[length++] = symbol;
    }
    state = next[step] as number;
    step = state * 16 + (byte & 15);
    symbol = emit[step] as number;
    if (symbol >= 0) {
      if (symbol === eos) throw new HuffmanError('EOS inside a Huffman string');
      out[length++] = symbol;
    }
    state = next[step] as number;
  }
  if (accepts[state] !== 1) throw new HuffmanError('Huffman string padded with something other than the start of EOS');
  return out.toString('latin1', 0, length);
}
