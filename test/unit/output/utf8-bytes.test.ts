import { describe, expect, it } from '@jest/globals';
import { utf8Join } from '../../../shared/output/utf8-bytes.js';

const TEXTS = ['', '{}', '{"name":"株式会社サンプル商事 Müller – é’"}', '\u{1F600} and a lone \ud800', 'x'.repeat(5000)];

describe('the UTF-8 bytes of an answer', () => {
  it('are the texts joined and encoded, whatever their characters and separator', () => {
    for (const separator of ['', ',', ' – ', '\u{1F600}']) {
      for (const [head, tail] of [['', ''], ['{"data":[', ']}'], ['«', '»']]) {
        const bytes = utf8Join(TEXTS, separator, head, tail);
        expect(Buffer.compare(bytes, Buffer.from(head + TEXTS.join(separator) + tail, 'utf8'))).toBe(0);
      }
    }
    expect(utf8Join([], ',', '[', ']').toString()).toBe('[]');
  });

  it('are never written over by the answers after them, across slabs', () => {
    const answers: [string, Buffer][] = [];
    // ~2.5 MB of text, three bytes a unit reserved: several slabs are filled and left.
    for (let i = 0; i < 600; i++) {
      const items = [`{"i":${i}}`, `"${'ü株x'.repeat(400 + (i % 7) * 100)}"`];
      answers.push([`[${items.join(',')}]`, utf8Join(items, ',', '[', ']')]);
    }
    for (const [text, bytes] of answers) expect(bytes.toString('utf8')).toBe(text);
  });

  it('of texts too large for a slab are a buffer of their own, at their size', () => {
    const text = 'é'.repeat(2_000_000);
    const bytes = utf8Join([text], '');
    expect(bytes.byteLength).toBe(4_000_000);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
    expect(bytes.toString('utf8')).toBe(text);
  });
});
