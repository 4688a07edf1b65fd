/**
 * The fuzz run's tally as markdown (deploy/BENCHMARKS.md's fuzz section): status classes, per operation, failures by
 * cause with a reproduction each, warnings.
 */
import { byKindAndGroup, type Count, foldedCauses, type Repro, type Tally } from './tally';

const fmt = (n: number) => n.toLocaleString('en-US');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** ` on N operations (METHOD /a ×n, …)`: where a cause was seen. */
function onOperations(c: Count): string {
  const ops = [...c.operations.entries()].sort((a, b) => b[1] - a[1]);
  const shown = ops.slice(0, 4).map(([op, n]) => `${op} ×${n}`);
  return ` — on ${ops.length} operation${ops.length === 1 ? '' : 's'} (${shown.join(', ')}${ops.length > 4 ? ', …' : ''})`;
}

/** One reproduction as markdown lines. */
export function reproText(r: Repro): string {
  const lines = [
    `  - seed ${r.seed}, ${r.at}; as ${r.who}`,
    `  - \`${r.method} ${r.target.replace(/`/g, '\\`')}\``,
    `  - headers: ${r.headers.map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('; ')}`,
  ];
  if (r.body !== undefined) lines.push(`  - body: ${r.bodyNote ? `${r.bodyNote}; ` : ''}${r.body}`);
  lines.push(`  - answer: ${r.answer.replace(/\n/g, ' ')}`);
  if (r.problem && !r.answer.includes(r.problem)) lines.push(`  - problem: ${r.problem.replace(/\n/g, ' ')}`);
  return lines.join('\n');
}

/** The tally as markdown: status classes, per operation, failures by cause with one reproduction each, warnings. */
export function tallyMarkdown(t: Tally, opts: { maxCauses?: number } = {}): string {
  const maxCauses = opts.maxCauses ?? 80;
  const classes = ['2xx', '3xx', '4xx', '5xx', 'timeout', 'closed', 'abandoned'];
  const out: string[] = [];
  const failures = foldedCauses(t.failures);
  const warnings = byKindAndGroup(t.warnings);
  out.push(
    `- ${fmt(t.requests)} requests in ${t.seconds.toFixed(1)} s (${fmt(Math.round(t.requests / Math.max(t.seconds, 0.001)))}/s), seed ${t.seed}`,
    `- status classes: ${classes.map((c) => `${c} ${fmt(t.classes[c] ?? 0)}`).join(', ')}`,
    `- statuses: ${[...t.statuses.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s} ×${fmt(n)}`)
      .join(', ')}`,
    `- failures: ${fmt(t.failed)} requests, ${failures.length} distinct causes; warnings (a 2xx to a request the document says is invalid, an answer without X-Openstack-Request-Id): ${fmt([...t.warnings.values()].reduce((a, c) => a + c.count, 0))}`,
    `- bodies over the limit refused by closing the connection before an answer was read: ${t.closedOnOversized}`,
    `- requests per mutation kind (a request carries none, one or two): ${[...t.tags.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([tag, n]) => `${tag} ${fmt(n)}`)
      .join('; ')}`,
    '',
    '| operation | requests | 2xx | 3xx | 4xx | 5xx | timeout | closed | abandoned by the client |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const [op, c] of [...t.perOperation.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    out.push(`| ${cell(op)} | ${fmt(c.requests ?? 0)} | ${classes.map((k) => fmt(c[k] ?? 0)).join(' | ')} |`);
  }
  if (t.failures.size > 0) {
    out.push('', '**Failures by mutation** (a request with two mutations counts under both):', '');
    for (const [tag, n] of [...t.failuresByTag.entries()].sort((a, b) => b[1] - a[1]))
      out.push(`- ${tag}: ${fmt(n)} of ${fmt(t.tags.get(tag) ?? t.requests)}`);
    out.push(
      '',
      `**Failures by cause** (${failures.length}; one reproduction each${failures.length > maxCauses ? `, the ${maxCauses} most frequent` : ''}):`,
      '',
    );
    for (const [cause, c] of failures.slice(0, maxCauses)) {
      out.push(`- ×${c.count} ${cause}${onOperations(c)}`, reproText(c.example));
    }
  }
  if (t.warnings.size > 0) {
    out.push(
      '',
      `**Warnings** (${warnings.length} causes: a 2xx to a request the document says is invalid, or no X-Openstack-Request-Id):`,
      '',
    );
    for (const [cause, c] of warnings.slice(0, 30)) {
      out.push(`- ×${c.count} ${cause}${onOperations(c)}`, reproText(c.example));
    }
  }
  return out.join('\n');
}
