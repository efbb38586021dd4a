/**
 * Splits a callgrind dump of the service into garbage collection, compilation and the rest (the
 * requests' own work: interpreted and optimised code, V8's built-ins and runtime, Node's C++), by
 * the self cost of each function as `callgrind_annotate` lists it. Garbage collection runs when the
 * heap fills, so a major collection falls inside one measured run or the next; the rest is what a
 * code change moves. `node bench/callgrind-split.ts <dump>... [--requests N]` prints it per dump.
 */
import { execFileSync } from 'node:child_process';

const GC =
  /Mark|Scaveng|Evacuat|Sweep|Heap::|SizeFromMap|RecordMigrated|RecordWrite|Compact|heap::base|Remembered|SlotSet|MemoryAllocator|IteratePointers|PageMetadata|FreeList|MainAllocator|LocalAllocat|ObjectCache|IterateObject|MemoryChunk|Weak|PagedSpace|Space::|LargeObject|ArrayBufferSweeper|Isolate::Iterate|RootVisitor|ObjectVisitor|Handles::Iterate|GlobalHandles|TracedHandles|CppHeap|cppgc/;
const COMPILE = /compiler::|maglev|turboshaft|Parser|Bytecode|Compil|Scanner|Zone/;

export type Split = { total: number; gc: number; compile: number; rest: number };

export function splitDump(file: string): Split {
  const out = execFileSync('callgrind_annotate', ['--threshold=100', file], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const split: Split = { total: 0, gc: 0, compile: 0, rest: 0 };
  for (const line of out.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$/.exec(line);
    if (!m) continue;
    const n = Number(m[1]!.replaceAll(',', ''));
    const name = m[2]!;
    if (name.includes('PROGRAM TOTALS')) split.total = n;
    else if (GC.test(name)) split.gc += n;
    else if (COMPILE.test(name) && !name.includes('Builtins_')) split.compile += n;
    else split.rest += n;
  }
  return split;
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--requests');
  const per = at >= 0 ? Number(args.splice(at, 2)[1]) : 1;
  const m = (n: number) => (n / per / 1e6).toFixed(3);
  console.log(`dump | total | garbage collection | compilation | rest (millions${per > 1 ? ' per request' : ''})`);
  for (const file of args) {
    const s = splitDump(file);
    console.log(`${file} | ${m(s.total)} | ${m(s.gc)} | ${m(s.compile)} | ${m(s.rest)}`);
  }
}
