/** Every http(s) URL in a plain-text body, in order of appearance, without duplicates. */
export function findLinks(text: string): string[] {
  const matches = text.match(/https?:\/\/[^\s<>"'`]+/g) ?? [];
  // A sentence may end right after a link.
  const links = matches.map((link) => link.replace(/[.,;:!?)\]]+$/, ''));
  return [...new Set(links)];
}
