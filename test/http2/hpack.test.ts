import { describe, expect, it } from 'vitest';
import { FrameWriter } from '../../src/http2/frame-writer.ts';
import { ConnectionError, ErrorCode } from '../../src/http2/connection-error.ts';
import { CompressionError, HpackDecoder, largestInteger, type HeaderList } from '../../src/http2/hpack-decoder.ts';
import { HpackEncoder, InvalidHeaderValue, checkHeaderValue } from '../../src/http2/hpack-encoder.ts';
import { decodeHuffman, huffmanCodes } from '../../src/http2/hpack-huffman.ts';
import { hpackInteger, hpackString } from './support/wire.ts';

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
  ])('refuses a block with %s', (_, block) => {
    const bytes = hex(block);
    expect(() => new HpackDecoder().decode(bytes, 0, bytes.length, [])).toThrow(CompressionError);
  });

  it.each([
    ['padding of zeros', huffman('a', '0'), 'padded with something other than the start of EOS'],
    ['padding of eight ones', Buffer.concat([huffman('aaaaaaaa'), Buffer.from([0xff])]), 'padded with something other than the start of EOS'],
    ['EOS inside', Buffer.from([0xff, 0xff, 0xff, 0xff]), 'EOS inside a Huffman string'],
  ])('refuses a Huffman-coded name with %s as a CompressionError', (_, coded, message) => {
    // A literal without indexing whose new name is Huffman-coded (the length's top bit), the whole string inside the block.
    const block = Buffer.concat([Buffer.from([0x00, 0x80 | coded.length]), coded, Buffer.from([0x01, 0x61])]);
    expect(() => new HpackDecoder().decode(block, 0, block.length, [])).toThrow(new CompressionError(`Huffman string ${message}`.replace('Huffman string EOS', 'EOS')));
  });

  it('reads a Huffman-coded name and value', () => {
    const block = Buffer.concat([Buffer.from([0x00, 0x80 | huffman('x-reason').length]), huffman('x-reason'), Buffer.from([0x80 | huffman('Unregistered').length]), huffman('Unregistered')]);
    expect(decodeAll(new HpackDecoder(), block)).toEqual([['x-reason', 'Unregistered']]);
  });
});

/** An integer of `continuations` octets after a full 7-bit prefix, as the length of a raw string, followed by nothing. */
function longLength(octets: number[]): Buffer {
  return Buffer.from([0x00, 0x7f, ...octets]);
}

function errorOf(decode: () => void): string | undefined {
  try {
    decode();
  } catch (error) {
    if (error instanceof CompressionError || error instanceof ConnectionError) return `${error.code}: ${error.message}`;
    throw error;
  }
  return undefined;
}

describe('HPACK decoder limits', () => {
  const decode = (block: Buffer, decoder = new HpackDecoder()): string | undefined => errorOf(() => decoder.decode(block, 0, block.length, []));

  it('reads an integer of four continuation octets and refuses a fifth, whatever their value', () => {
    // 127 + 0: four octets with the continuation bit, the last without; the string they announce is then cut off.
    expect(decode(longLength([0x80, 0x80, 0x80, 0x00]))).toBe(`${ErrorCode.compressionError}: string cut off`);
    expect(decode(longLength([0x80, 0x80, 0x80, 0x80, 0x00]))).toBe(`${ErrorCode.compressionError}: an integer of more than 4 continuation octets`);
    // Once such an integer read as NaN and the rest of the block was dropped without a word.
    expect(decode(longLength(Array.from({ length: 200 }, () => 0x80).concat(0)))).toBe(`${ErrorCode.compressionError}: an integer of more than 4 continuation octets`);
  });

  it('reads integers up to 2^28 and refuses one above', () => {
    const upTo = (value: number): number[] => [...hpackInteger(0, 7, value)].slice(1);
    expect(decode(longLength(upTo(largestInteger)))).toBe(`${ErrorCode.compressionError}: string cut off`);
    expect(decode(longLength(upTo(largestInteger + 1)))).toBe(`${ErrorCode.compressionError}: integer too large`);
  });

  it('reads an integer that exactly fills its prefix as the start of a longer one', () => {
    // 0x7f then 0x00: 127, not 127 and a new field.
    const block = Buffer.concat([Buffer.from([0x00, 0x01, 0x78, 0x7f, 0x00]), Buffer.alloc(127, 0x61)]);
    expect(decodeAll(new HpackDecoder(), block)).toEqual([['x', 'a'.repeat(127)]]);
    // 126 fits the prefix alone.
    const shorter = Buffer.concat([Buffer.from([0x00, 0x01, 0x78, 0x7e]), Buffer.alloc(126, 0x61)]);
    expect(decodeAll(new HpackDecoder(), shorter)).toEqual([['x', 'a'.repeat(126)]]);
  });

  it('takes a table size update of exactly the size it allows, several at a block\'s start, and refuses one more', () => {
    const decoder = new HpackDecoder(4096);
    expect(decode(Buffer.concat([hpackInteger(0x20, 5, 0), hpackInteger(0x20, 5, 4096), Buffer.from([0x82])]), decoder)).toBeUndefined();
    expect(decode(hpackInteger(0x20, 5, 4097), decoder)).toBe(`${ErrorCode.compressionError}: dynamic table size 4097 over the 4096 allowed`);
  });

  it('keeps an entry exactly the size of the table, and the table holds it alone', () => {
    const decoder = new HpackDecoder(64);
    // 32 octets of overhead, 1 of name, 31 of value: 64.
    decodeAll(decoder, Buffer.concat([indexedLiteral('y', 'first'), indexedLiteral('x', 'v'.repeat(31))]));
    expect([decoder.tableSize, decoder.tableEntries]).toEqual([64, 1]);
    expect(decodeAll(decoder, Buffer.from([0xbe]))).toEqual([['x', 'v'.repeat(31)]]);
  });

  it('empties the table for an entry larger than it and does not add it (RFC 7541, 4.4), yet reads the field', () => {
    const decoder = new HpackDecoder(64);
    expect(decodeAll(decoder, Buffer.concat([indexedLiteral('y', 'first'), indexedLiteral('x', 'v'.repeat(32))]))).toEqual([
      ['y', 'first'],
      ['x', 'v'.repeat(32)],
    ]);
    expect([decoder.tableSize, decoder.tableEntries]).toEqual([0, 0]);
    expect(decode(Buffer.from([0xbe]), decoder)).toBe(`${ErrorCode.compressionError}: header index 62 beyond the table`);
  });

  it('evicts the oldest entries first, and a new entry may take the name of one it evicts', () => {
    const decoder = new HpackDecoder(100);
    decodeAll(decoder, Buffer.concat([indexedLiteral('a', 'one'), indexedLiteral('b', 'two')]));
    // 36 octets each. Newest is 62 ('b'), then 63 ('a'). A literal naming 63 whose insertion (53 octets) evicts 'a' alone keeps the name it read.
    expect(decodeAll(decoder, Buffer.concat([hpackInteger(0x40, 6, 63), hpackString('x'.repeat(20))]))).toEqual([['a', 'x'.repeat(20)]]);
    expect(decodeAll(decoder, Buffer.from([0xbe, 0xbf]))).toEqual([
      ['a', 'x'.repeat(20)],
      ['b', 'two'],
    ]);
    expect(decoder.tableSize).toBe(89);
    expect(decoder.tableEntries).toBe(2);
  });

  it('reads the last static entry and refuses the first index past the table', () => {
    expect(decodeAll(new HpackDecoder(), Buffer.from([0xbd]))).toEqual([['www-authenticate', '']]);
    expect(decode(Buffer.from([0xbe]))).toBe(`${ErrorCode.compressionError}: header index 62 beyond the table`);
  });

  it('keeps the table as it is for literals without indexing and never indexed', () => {
    const decoder = new HpackDecoder();
    expect(decodeAll(decoder, Buffer.concat([Buffer.from([0x00]), hpackString('x-a'), hpackString('1'), Buffer.from([0x10]), hpackString('x-b'), hpackString('2'), Buffer.from([0x1f, 0x1f]), hpackString('3')]))).toEqual([
      ['x-a', '1'],
      ['x-b', '2'],
      ['location', '3'],
    ]);
    expect(decoder.tableEntries).toBe(0);
  });

  it('reads a header list of exactly its limit and refuses one octet more', () => {
    // Each field counts its name, its value and 32.
    const field = (valueLength: number): Buffer => Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('v'.repeat(valueLength))]);
    expect(decode(field(100 - 33), new HpackDecoder(4096, 100))).toBeUndefined();
    expect(decode(field(100 - 32), new HpackDecoder(4096, 100))).toBe(`${ErrorCode.enhanceYourCalm}: a header list over the 100 octets allowed`);
  });

  it.each([
    ['an upper-case name', Buffer.concat([Buffer.from([0x00]), hpackString('X-Reason'), hpackString('a')])],
    ['a name with a space', Buffer.concat([Buffer.from([0x00]), hpackString('x reason'), hpackString('a')])],
    ['a name with DEL', Buffer.concat([Buffer.from([0x00]), hpackString('x\x7f'), hpackString('a')])],
    ['a name with a character above 127', Buffer.concat([Buffer.from([0x00]), hpackString('x\xe9'), hpackString('a')])],
    ['an empty name', Buffer.concat([Buffer.from([0x00]), hpackString(''), hpackString('a')])],
    ['a value with CR', Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('a\rb')])],
    ['a value with LF', Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('a\nb')])],
    ['a value with NUL', Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('a\0b')])],
    ['a value starting with a space', Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString(' a')])],
    ['a value ending with a tab', Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('a\t')])],
    ['an indexed name with a bad value', Buffer.concat([hpackInteger(0x40, 6, 8), hpackString('20\n0')])],
  ])('refuses a field with %s as PROTOCOL_ERROR, before it enters the table', (_, block) => {
    const decoder = new HpackDecoder();
    expect(decode(block, decoder)?.startsWith(`${ErrorCode.protocolError}: a malformed answer`)).toBe(true);
    expect(decoder.tableEntries).toBe(0);
  });

  it('refuses the edges of the forbidden name ranges and takes the characters just past them', () => {
    const named = (name: string): Buffer => Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString('v')]);
    for (const bad of ['x\x20', 'xA', 'xZ', 'x\x7f', 'x\xff', '\x00x']) expect(decode(named(bad))?.startsWith(`${ErrorCode.protocolError}:`)).toBe(true);
    for (const good of ['x!', 'x@', 'x[', 'x~', ':x']) expect(decode(named(good))).toBeUndefined();
  });

  it('reads values with inner spaces, tabs and octets above 127, and an empty value', () => {
    const block = Buffer.concat([Buffer.from([0x00]), hpackString('x'), hpackString('a \tb\xe9'), Buffer.from([0x00]), hpackString('y'), hpackString('')]);
    expect(decodeAll(new HpackDecoder(), block)).toEqual([
      ['x', 'a \tb\xe9'],
      ['y', ''],
    ]);
  });
});

function indexedLiteral(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x40]), hpackString(name), hpackString(value)]);
}

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
