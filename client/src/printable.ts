/**
 * Text from elsewhere (a server's problem detail, a file name from a manifest, an error message)
 * made safe to print on a terminal: no control characters (escape sequences could clear the
 * screen, move the cursor or forge a line; a newline could forge a line too), no bidirectional
 * overrides (they reorder what is shown), and no more than `maxLength` characters of it.
 */
// C0 controls, DEL, C1 controls; bidi embeddings, overrides and isolates.
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]+/g;

export function printable(text: string, maxLength = 1000): string {
  const clean = text.replace(UNPRINTABLE, ' ');
  return clean.length > maxLength ? `${clean.slice(0, maxLength)}… (${clean.length - maxLength} more characters)` : clean;
}
