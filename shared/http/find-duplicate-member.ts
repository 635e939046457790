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
    const char = text[i];
    if (char === '"') {
      const end = endOfString(text, i);
      if (depth === 1 && expectName) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (seen.has(name)) return name;
        seen.add(name);
        expectName = false;
      }
      i = end;
    } else if (char === '{' || char === '[') {
      depth++;
      if (depth === 1 && char === '{') expectName = true;
    } else if (char === '}' || char === ']') {
      depth--;
    } else if (char === ',' && depth === 1) {
      expectName = true;
    }
  }
  return undefined;
}

function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}
