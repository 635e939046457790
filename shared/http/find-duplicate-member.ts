/**
 * The first member name that appears twice in the top-level object of a JSON text that has already
 * parsed, or undefined. JSON.parse keeps the last of duplicate names silently; a filter sent twice
 * with different values is ambiguous, so the pipeline refuses it instead of guessing.
 */
export function findDuplicateMember(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const end = endOfString(text, i);
      if (depth === 1 && expectName) {
        // A name without escapes is its own text; one with escapes is what JSON reads it as.
        const raw = text.slice(i + 1, end);
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (seen.has(name)) return name;
        seen.add(name);
        expectName = false;
      }
      i = end;
    } else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      depth++;
      if (depth === 1 && char === OPEN_BRACE) expectName = true;
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      depth--;
    } else if (char === COMMA && depth === 1) {
      expectName = true;
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
