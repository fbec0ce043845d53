import { describe, expect, it } from 'vitest';
import { ConnectionError, ErrorCode } from '../../src/http2/connection-error.ts';
import { PeerSettings, SettingId } from '../../src/http2/peer-settings.ts';

function payload(...entries: [number, number][]): Buffer {
  const buffer = Buffer.alloc(entries.length * 6);
  entries.forEach(([id, value], index) => {
    buffer.writeUInt16BE(id, index * 6);
    buffer.writeUInt32BE(value, index * 6 + 2);
  });
  return buffer;
}

function errorOf(apply: () => void): number | undefined {
  try {
    apply();
  } catch (error) {
    if (error instanceof ConnectionError) return error.code;
    throw error;
  }
  return undefined;
}

describe('PeerSettings', () => {
  it('starts from the protocol\'s defaults and follows each setting, answering how the initial window moved', () => {
    const settings = new PeerSettings();
    expect([settings.headerTableSize, settings.maxStreams, settings.initialWindowSize, settings.maxFrameSize]).toEqual([4096, Infinity, 65_535, 16_384]);

    const first = payload([SettingId.maxConcurrentStreams, 1000], [SettingId.initialWindowSize, 1_000_000], [SettingId.headerTableSize, 0], [0x99, 7]);
    expect(settings.apply(first, 0, first.length)).toBe(1_000_000 - 65_535);
    const second = payload([SettingId.initialWindowSize, 1000], [SettingId.maxFrameSize, 65_536]);
    expect(settings.apply(second, 0, second.length)).toBe(1000 - 1_000_000);
    expect([settings.headerTableSize, settings.maxStreams, settings.initialWindowSize, settings.maxFrameSize]).toEqual([0, 1000, 1000, 65_536]);
  });

  it.each([
    ['ENABLE_PUSH of 2', payload([SettingId.enablePush, 2]), ErrorCode.protocolError],
    ['an initial window over 2^31-1', payload([SettingId.initialWindowSize, 2 ** 31]), ErrorCode.flowControlError],
    ['a frame size under 16,384', payload([SettingId.maxFrameSize, 16_383]), ErrorCode.protocolError],
    ['a frame size over 2^24-1', payload([SettingId.maxFrameSize, 2 ** 24]), ErrorCode.protocolError],
    ['a payload that is not whole settings', Buffer.alloc(7), ErrorCode.frameSizeError],
  ])('refuses %s as a connection error', (_, bytes, code) => {
    expect(errorOf(() => new PeerSettings().apply(bytes, 0, bytes.length))).toBe(code);
  });
});
