import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../src/http2/frame-writer.ts';
import { CompressionError, HpackDecoder, type HeaderList } from '../../src/http2/hpack-decoder.ts';
import { HpackEncoder, InvalidHeaderValue, checkHeaderValue } from '../../src/http2/hpack-encoder.ts';
import { decodeHuffman, huffmanCodes } from '../../src/http2/hpack-huffman.ts';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

function decodeAll(decoder: HpackDecoder, block: Buffer): [string, string][] {
  const list: HeaderList = [];
  decoder.decode(block, 0, block.length, list);
  const pairs: [string, string][] = [];
  for (let index = 0; index < list.length; index += 2) pairs.push([list[index] as string, list[index + 1] as string]);
  return pairs;
}

/** Huffman-codes `text` (octets) with the code the decoder is built from, padded with ones. */
function huffman(text: string, padding = '1'): Buffer {
  const codes = huffmanCodes();
  let bits = '';
  for (const char of Buffer.from(text, 'latin1')) {
    const { code, bits: length } = codes[char] as { code: number; bits: number };
    bits += code.toString(2).padStart(length, '0');
  }
  while (bits.length % 8 !== 0) bits += padding;
  const out = Buffer.alloc(bits.length / 8);
  for (let index = 0; index < out.length; index += 1) out[index] = parseInt(bits.slice(index * 8, index * 8 + 8), 2);
  return out;
}

/** The header block the encoder writes for `headers` (`:path` literal, the rest indexed). */
function encodeBlock(encoder: HpackEncoder, headers: [string, string][]): Buffer {
  const writer = new FrameWriter();
  writer.reserve(16_384);
  encoder.begin(writer);
  for (const [name, value] of headers) {
    if (name === ':path') encoder.literal(writer, name, value);
    else encoder.indexed(writer, name, value);
  }
  return Buffer.concat(writer.take());
}

describe('HPACK decoder', () => {
  // RFC 7541, C.3: requests without Huffman coding, one table across them.
  it('decodes the RFC\'s requests without Huffman coding, keeping its table across blocks', () => {
    const decoder = new HpackDecoder();
    expect(decodeAll(decoder, hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ]);
    expect(decoder.tableSize).toBe(57);
    expect(decodeAll(decoder, hex('8286 84be 5808 6e6f 2d63 6163 6865')).at(-1)).toEqual(['cache-control', 'no-cache']);
    expect(decoder.tableSize).toBe(110);
    expect(decodeAll(decoder, hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'))).toEqual([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ]);
    expect(decoder.tableSize).toBe(164);
  });

  // RFC 7541, C.4: the same requests Huffman-coded.
  it('decodes the RFC\'s Huffman-coded requests', () => {
    const decoder = new HpackDecoder();
    expect(decodeAll(decoder, hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff')).at(-1)).toEqual([':authority', 'www.example.com']);
    expect(decodeAll(decoder, hex('8286 84be 5886 a8eb 1064 9cbf')).at(-1)).toEqual(['cache-control', 'no-cache']);
    expect(decodeAll(decoder, hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')).at(-1)).toEqual(['custom-key', 'custom-value']);
    expect(decoder.tableSize).toBe(164);
  });

  // RFC 7541, C.6: answers in a 256-octet table, where entries are evicted.
  it('decodes the RFC\'s Huffman-coded answers in a 256-octet table, evicting the oldest entries', () => {
    const decoder = new HpackDecoder(256);
    expect(
      decodeAll(decoder, hex('4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3')),
    ).toEqual([
      [':status', '302'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:21 GMT'],
      ['location', 'https://www.example.com'],
    ]);
    expect(decoder.tableSize).toBe(222);
    expect(decodeAll(decoder, hex('4883 640e ffc1 c0bf'))[0]).toEqual([':status', '307']);
    expect(decoder.tableSize).toBe(222);
    expect(
      decodeAll(
        decoder,
        hex(
          '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
        ),
      ),
    ).toEqual([
      [':status', '200'],
      ['cache-control', 'private'],
      ['date', 'Mon, 21 Oct 2013 20:13:22 GMT'],
      ['location', 'https://www.example.com'],
      ['content-encoding', 'gzip'],
      ['set-cookie', 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1'],
    ]);
    expect(decoder.tableSize).toBe(215);
  });

  it('decodes every octet through the Huffman code', () => {
    const every = String.fromCharCode(...Array.from({ length: 256 }, (_, n) => n));
    const coded = huffman(every);
    expect(decodeHuffman(coded, 0, coded.length)).toBe(every);
  });

  it.each([
    ['padding of zeros', () => huffman('a', '0')],
    ['padding of eight ones', () => Buffer.concat([huffman('aaaaaaaa'), Buffer.from([0xff])])],
    ['EOS inside the string', () => Buffer.from([0xff, 0xff, 0xff, 0xff])],
  ])('refuses a Huffman string with %s', (_, coded) => {
    const bytes = coded();
    expect(() => decodeHuffman(bytes, 0, bytes.length)).toThrow();
  });

  it.each([
    ['index 0', '80'],
    ['an index beyond the table', 'be'],
    ['a table size over the limit (4097)', '3fe21f'],
    ['a table size update after a header', '8220'],
    ['a string cut off', '400a6375'],
    ['an integer cut off', '3fff'],
    ['a Huffman string with bad padding', `0085${huffman('a', '0').toString('hex')}`],
  ])('refuses a block with %s', (_, block) => {
    const bytes = hex(block);
    expect(() => new HpackDecoder().decode(bytes, 0, bytes.length, [])).toThrow(CompressionError);
  });
});

describe('HPACK encoder', () => {
  it('indexes repeating headers after their first block and leaves :path out of the table', () => {
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder();
    const headers = (token: string): [string, string][] => [
      [':method', 'POST'],
      [':scheme', 'https'],
      [':authority', 'api.push.apple.com'],
      [':path', `/3/device/${token}`],
      ['apns-topic', 'com.example.app'],
      ['authorization', `bearer ${'x'.repeat(200)}`],
    ];
    const first = encodeBlock(encoder, headers('a'.repeat(64)));
    expect(decodeAll(decoder, first)).toEqual(headers('a'.repeat(64)));
    const second = encodeBlock(encoder, headers('b'.repeat(64)));
    expect(decodeAll(decoder, second)).toEqual(headers('b'.repeat(64)));
    // Five one-byte indexes and the literal path: 2 + 74.
    expect(second.length).toBe(5 + 2 + 74);
    expect(encoder.tableSize).toBe(decoder.tableSize);
  });

  it('evicts as the decoder does when the table fills, and its indexes stay right', () => {
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder();
    for (let round = 0; round < 200; round += 1) {
      const headers: [string, string][] = [
        ['x-round', String(round)],
        ['x-long', `${round}-${'v'.repeat(round % 7 === 0 ? 3000 : 40)}`],
        ['x-steady', 'same'],
      ];
      expect(decodeAll(decoder, encodeBlock(encoder, headers))).toEqual(headers);
      expect(encoder.tableSize).toBe(decoder.tableSize);
    }
  });

  it('announces a smaller table the peer asks for, and a value larger than the table goes literally', () => {
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder();
    const headers: [string, string][] = [['x-a', 'one'], ['x-b', 'two']];
    decodeAll(decoder, encodeBlock(encoder, headers));
    encoder.setPeerTableSize(0);
    expect(decodeAll(decoder, encodeBlock(encoder, headers))).toEqual(headers);
    expect(decoder.tableSize).toBe(0);
    encoder.setPeerTableSize(64);
    const larger: [string, string][] = [['x-c', 'v'.repeat(100)], ['x-d', 'd']];
    expect(decodeAll(decoder, encodeBlock(encoder, larger))).toEqual(larger);
    expect(decodeAll(decoder, encodeBlock(encoder, larger))).toEqual(larger);
    expect(encoder.tableSize).toBe(decoder.tableSize);
    expect(decoder.tableSize).toBe(3 + 1 + 32);
  });

  it.each([
    ['a line feed', 'a\nb'],
    ['a carriage return', 'a\rb'],
    ['a NUL', 'a\0b'],
    ['a character beyond one octet', 'caf\u00e9 \u2603'],
  ])('refuses a value with %s', (_, value) => {
    expect(() => checkHeaderValue('apns-collapse-id', value)).toThrow(InvalidHeaderValue);
  });

  it('takes tabs, visible ASCII and octets above 127 in values', () => {
    expect(() => checkHeaderValue('x', '\tcaf\u00c3\u00a9 ~')).not.toThrow();
  });
});
