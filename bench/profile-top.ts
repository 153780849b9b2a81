import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { fmtNum, table } from './lib.js';

/**
 * `node dist/bench/profile-top.js <file.cpuprofile> [top N]`: the functions with the most self
 * time and with the most total (inclusive) time in a V8 CPU profile written by `node --cpu-prof`.
 *
 *   node --cpu-prof --cpu-prof-dir bench/out/prof dist/bench/child.js verify bench/out/fixtures/ledger-100000/bundle
 *   node dist/bench/profile-top.js bench/out/prof/<file>.cpuprofile 25
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  let file = url.replace(/^file:\/\//, '');
  if (file.startsWith('/')) file = relative(process.cwd(), file);
  return `${name} ${file}:${lineNumber + 1}`;
}

async function main(): Promise<void> {
  const [path, topArg] = process.argv.slice(2);
  if (!path) throw new Error('usage: profile-top.js <file.cpuprofile> [top N]');
  const top = Number(topArg ?? 20);
  const profile = JSON.parse(await readFile(path, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfTime.values()].reduce((sum, t) => sum + t, 0);

  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, time] of selfTime) {
    const node = byId.get(id);
    if (!node) continue;
    self.set(label(node), (self.get(label(node)) ?? 0) + time);
    // Charge the sample to every distinct function on its stack once.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (!frame) break;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + time);
    }
  }
  const rows = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => [fmtNum((100 * time) / total, 1), fmtNum(time / 1000, 0), name]);
  console.log(`${path}: ${fmtNum(total / 1e6, 2)} s sampled`);
  console.log('\nself time');
  console.log(table(['%', 'ms', 'function'], rows(self), '  ', [2]));
  console.log('\ntotal time (inclusive)');
  console.log(table(['%', 'ms', 'function'], rows(inclusive), '  ', [2]));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
});
