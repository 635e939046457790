import { describe, expect, it } from '@jest/globals';
import { utf8Bytes } from '../../../shared/output/utf8-bytes.js';

describe('the UTF-8 bytes of an answer', () => {
  it('are the text encoded, whatever its characters', () => {
    for (const text of ['', '{}', '{"name":"株式会社サンプル商事 Müller – é’"}', '\u{1F600} and a lone \ud800', 'x'.repeat(5000)]) {
      expect(Buffer.compare(utf8Bytes(text), Buffer.from(text, 'utf8'))).toBe(0);
    }
  });

  it('are never written over by the answers after them, across slabs', () => {
    const answers: [string, Buffer][] = [];
    // ~2.5 MB of text, three bytes a unit reserved: several slabs are filled and left.
    for (let i = 0; i < 600; i++) {
      const text = `{"i":${i},"s":"${'ü株x'.repeat(400 + (i % 7) * 100)}"}`;
      answers.push([text, utf8Bytes(text)]);
    }
    for (const [text, bytes] of answers) expect(bytes.toString('utf8')).toBe(text);
  });

  it('of a text too large for a slab are a buffer of their own, at their size', () => {
    const text = 'é'.repeat(2_000_000);
    const bytes = utf8Bytes(text);
    expect(bytes.byteLength).toBe(4_000_000);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    expect(bytes.toString('utf8')).toBe(text);
  });
});
