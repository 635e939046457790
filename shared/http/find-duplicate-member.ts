/**
 * The first member name that appears twice in one object of a JSON text that has already parsed
 * (at any depth: `ifNoneMatch.2025-01` for a nested one), or undefined. JSON.parse keeps the last
 * of duplicate names silently; a filter or a window's ETag sent twice with different values is
 * ambiguous, so the pipeline refuses it instead of guessing.
 */
export function findDuplicateMember(text: string): string | undefined {
  // One frame per open object or array: an object's names so far, and the member its value is under.
  const frames: { readonly names: Set<string> | undefined; expectName: boolean; member: string | undefined }[] = [];
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    const frame = frames.at(-1);
    if (char === QUOTE) {
      const end = endOfString(text, i);
      if (frame?.names && frame.expectName) {
        // A name without escapes is its own text; one with escapes is what JSON reads it as.
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (frame.names.has(name)) return [...frames.slice(0, -1).map((outer) => outer.member ?? '[]'), name].join('.');
        frame.names.add(name);
        frame.member = name;
        frame.expectName = false;
      }
      i = end;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      frames.push({ names: char === OPEN_BRACE ? new Set() : undefined, expectName: char === OPEN_BRACE, member: undefined });
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      frames.pop();
    } else if (char === COMMA && frame?.names) {
      frame.expectName = true;
    }
  }
  return undefined;
}

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === BACKSLASH) i++;
    else if (char === QUOTE) return i;
  }
  return text.length - 1;
}
