/**
 * Markdown documents the tools rewrite in part (deploy/BENCHMARKS.md: `pnpm bench` and `pnpm fuzz` each own sections).
 */

/** Replaces (or appends) the `## title` section of the markdown `doc` with `body`, leaving the other sections as they are. */
export function withSection(doc: string, title: string, body: string): string {
  const heading = `## ${title}`;
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) return `${doc.trimEnd()}\n\n${heading}\n\n${body}\n`;
  const next = doc.indexOf('\n## ', start + heading.length);
  return `${doc.slice(0, start)}${heading}\n\n${body}\n${next < 0 ? '' : doc.slice(next)}`;
}
